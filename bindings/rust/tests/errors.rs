// SPDX-License-Identifier: BSD-3-Clause
//! Errors: a status plus tcomm's sentence, never a panic; failed calls
//! leave outputs untouched; every rank of a group errs, nobody hangs.
mod common;
use common::on_ranks;
use tcomm::{
    Communicator, CommunicatorExt, DType, Graph, IdentityComm, LocalComm, ReduceOp, Status, Tensor,
};

#[test]
fn dim_out_of_range_names_the_call_and_the_fix() {
    let one = IdentityComm::new().unwrap();
    let g = Graph::host().unwrap();
    let t = Tensor::from_f32_on(&g, &[0.0; 6], &[2, 3]).unwrap();
    let e = one.all_gather(&t, 3).unwrap_err();
    assert_eq!(e.status(), Status::InvalidArg);
    assert_eq!(e.code(), -1);
    assert_eq!(
        e.to_string(),
        "tcomm_all_gather: dim 3 is out of range for a 2-dimensional tensor (use 0..1)"
    );
    assert_eq!(e.message(), e.to_string());
    // a huge usize is out of range too, not a wrap-around
    let e = one
        .reduce_scatter(&t, ReduceOp::Sum, usize::MAX)
        .unwrap_err();
    assert_eq!(e.status(), Status::InvalidArg);
    assert!(
        e.message().starts_with("tcomm_reduce_scatter: dim"),
        "{}",
        e
    );
    let e = one.broadcast(&t, 1).unwrap_err();
    assert_eq!(e.status(), Status::InvalidArg);
    assert!(e.message().contains("root 1 is out of range"), "{}", e);
}

#[test]
fn error_is_a_std_error() {
    fn fails() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
        let g = Graph::host()?;
        Tensor::from_f32_on(&g, &[1.0, 2.0], &[3])?;
        Ok(())
    }
    let e = fails().unwrap_err();
    assert_eq!(
        e.to_string(),
        "Tensor::from_f32_on: 2 values for shape [3] of 3 elements \
                (pass one value per element)"
    );
    let te = e.downcast_ref::<tcomm::Error>().unwrap();
    assert_eq!(te.status(), Status::Shape);
    assert_eq!(Status::Shape.as_str(), "shape error");
    assert_eq!(Status::from_code(-4), Status::GraphMismatch);
    assert_eq!(Status::from_code(-99), Status::Internal);
}

#[test]
fn dtype_and_shape_errors() {
    let one = IdentityComm::new().unwrap();
    let g = Graph::host().unwrap();
    let i = Tensor::from_i32_on(&g, &[1, 2], &[2]).unwrap();
    let e = one.all_reduce(&i, ReduceOp::Avg).unwrap_err();
    assert_eq!(e.status(), Status::Dtype);
    assert!(
        e.message()
            .starts_with("tcomm_all_reduce: TCOMM_AVG needs a floating dtype"),
        "{}",
        e
    );
    let e = i.to_vec_f32().unwrap_err();
    assert_eq!(e.status(), Status::Dtype);
    assert_eq!(
        e.to_string(),
        "Tensor::to_vec_f32: the tensor holds i32 values (call to_vec_i32)"
    );
    let e = Tensor::from_u8_on(&g, &[0; 9], &[1; 9]).unwrap_err();
    assert_eq!(e.status(), Status::Shape);
    assert!(e.message().contains("has 9 dims (use at most 8)"), "{}", e);
    let e = Tensor::zeros_on(&g, DType::F32, &[usize::MAX, 2]).unwrap_err();
    assert_eq!(e.status(), Status::Shape);
    let e = i.const_f64_like(&[1.0], &[2]).unwrap_err();
    assert_eq!(e.status(), Status::Shape);
    assert!(e.message().starts_with("Tensor::const_f64_like:"), "{}", e);
}

#[test]
fn into_errors_leave_the_output_untouched() {
    let one = IdentityComm::new().unwrap();
    let g = Graph::host().unwrap();
    let other = Graph::host().unwrap();
    let t = Tensor::from_f32_on(&g, &[1.0, 2.0], &[2]).unwrap();
    let mut foreign = Tensor::from_f32_on(&other, &[9.0, 9.0], &[2]).unwrap();
    let e = one
        .all_reduce_into(&t, ReduceOp::Sum, &mut foreign)
        .unwrap_err();
    assert_eq!(e.status(), Status::GraphMismatch);
    assert_eq!(foreign.to_vec_f32().unwrap(), vec![9.0, 9.0]);
    let mut wrong = Tensor::from_f32_on(&g, &[9.0; 3], &[3]).unwrap();
    assert_eq!(
        one.all_reduce_into(&t, ReduceOp::Sum, &mut wrong)
            .unwrap_err()
            .status(),
        Status::Shape
    );
    let mut wrong = Tensor::from_f64_on(&g, &[9.0; 2], &[2]).unwrap();
    assert_eq!(
        one.broadcast_into(&t, 0, &mut wrong).unwrap_err().status(),
        Status::Dtype
    );
    assert_eq!(wrong.to_vec_f64().unwrap(), vec![9.0, 9.0]);
}

#[test]
fn a_shared_buffer_is_not_written() {
    let one = IdentityComm::new().unwrap();
    let g = Graph::host().unwrap();
    let t = Tensor::from_f32_on(&g, &[1.0, 2.0], &[2]).unwrap();
    // world size 1 hands back the input itself: writing into it would
    // change `t` behind a shared reference
    let mut same = one.all_reduce(&t, ReduceOp::Sum).unwrap();
    let e = one
        .all_reduce_in_place(&mut same, ReduceOp::Sum)
        .unwrap_err();
    assert_eq!(e.status(), Status::InvalidArg);
    assert!(
        e.message()
            .starts_with("all_reduce_in_place: the output shares its buffer"),
        "{}",
        e
    );
    let mut copy = t.clone();
    assert!(one.broadcast_into(&t, 0, &mut copy).is_err());
    drop(t);
    drop(same);
    one.all_reduce_in_place(&mut copy, ReduceOp::Sum).unwrap();
    assert_eq!(copy.to_vec_f32().unwrap(), vec![1.0, 2.0]);
}

#[test]
fn bad_group_sizes() {
    assert_eq!(
        LocalComm::group(0).err().map(|e| e.status()),
        Some(Status::InvalidArg)
    );
    let e = LocalComm::group(usize::MAX).err().unwrap();
    assert_eq!(e.status(), Status::InvalidArg);
    assert!(e.message().starts_with("LocalComm::group:"), "{}", e);
}

#[test]
fn cuda_graph_fails_cleanly_without_a_device() {
    // A build without CUDA says Unsupported, one without a GPU Cuda; with
    // a GPU the graph works.
    match Graph::cuda(0) {
        Ok(g) => {
            let t = Tensor::from_f32_on(&g, &[1.5, 2.5], &[2]).unwrap();
            assert!(g.is_cuda());
            assert_eq!(t.to_vec_f32().unwrap(), vec![1.5, 2.5]);
        }
        Err(e) => {
            assert!(
                matches!(
                    e.status(),
                    Status::Unsupported | Status::Cuda | Status::InvalidArg
                ),
                "{:?}",
                e
            );
            assert!(!e.message().is_empty());
        }
    }
}

#[test]
fn every_rank_errs_on_a_local_mistake_or_a_disagreement() {
    for n in 2..=4 {
        // rank 1 alone passes a bad dim
        let got = on_ranks(n, |comm| {
            let g = Graph::host().unwrap();
            let t = Tensor::from_f32_on(&g, &[1.0, 2.0], &[2]).unwrap();
            let dim = if comm.info().rank == 1 { 5 } else { 0 };
            comm.all_gather(&t, dim)
                .err()
                .map(|e| (e.status(), e.to_string()))
        });
        for (r, res) in got.iter().enumerate() {
            let (st, msg) = res.clone().expect("every rank must fail");
            if r == 1 {
                assert_eq!(st, Status::InvalidArg, "{}", msg);
            } else {
                assert_eq!(st, Status::Mismatch, "{}", msg);
                assert!(msg.contains("rank 1"), "{}", msg);
            }
        }
        // reduce_scatter of an indivisible size fails with Shape everywhere
        let got = on_ranks(n, move |comm| {
            let g = Graph::host().unwrap();
            let t = Tensor::from_f32_on(&g, &vec![1.0; n + 1], &[n + 1]).unwrap();
            comm.reduce_scatter(&t, ReduceOp::Sum, 0)
                .err()
                .map(|e| e.status())
        });
        assert!(got.iter().all(|s| *s == Some(Status::Shape)), "{:?}", got);
        // the ranks disagree on the shape
        let got = on_ranks(n, |comm| {
            let g = Graph::host().unwrap();
            let len = if comm.info().rank == 0 { 3 } else { 2 };
            let t = Tensor::from_f32_on(&g, &vec![1.0; len], &[len]).unwrap();
            let e = comm.all_reduce(&t, ReduceOp::Sum).unwrap_err();
            // the group still works after the error
            let ok = comm
                .all_reduce(&t.const_f32_like(&[1.0], &[1]).unwrap(), ReduceOp::Sum)
                .unwrap()
                .to_vec_f32()
                .unwrap();
            (e.status(), e.to_string(), ok)
        });
        for (st, msg, ok) in got {
            assert_eq!(st, Status::Mismatch);
            assert!(msg.contains("disagree on shape"), "{}", msg);
            assert_eq!(ok, vec![n as f32]);
        }
    }
}
