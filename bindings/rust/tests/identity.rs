// SPDX-License-Identifier: BSD-3-Clause
//! IdentityComm: world size 1, zero-copy results, copying _into forms.
use tcomm::{Communicator, CommunicatorExt, Graph, IdentityComm, ReduceOp, Tensor};

#[test]
fn info_and_backend() {
    let one = IdentityComm::new().unwrap();
    let info = one.info();
    assert_eq!((info.rank, info.world_size), (0, 1));
    assert_eq!(one.backend(), "identity");
    one.barrier().unwrap();
}

#[test]
fn collectives_return_the_input_itself() {
    let one = IdentityComm::new().unwrap();
    let graph = Graph::host().unwrap();
    let t = Tensor::from_f32_on(&graph, &[1.0, 2.0, 3.0, 4.0], &[2, 2]).unwrap();
    for op in [
        ReduceOp::Sum,
        ReduceOp::Prod,
        ReduceOp::Min,
        ReduceOp::Max,
        ReduceOp::Avg,
    ] {
        let r = one.all_reduce(&t, op).unwrap();
        assert!(r.same_buffer(&t), "{:?} copies", op);
        assert_eq!(r.to_vec_f32().unwrap(), vec![1.0, 2.0, 3.0, 4.0]);
    }
    let g = one.all_gather(&t, 1).unwrap();
    assert_eq!(g.shape(), vec![2, 2]);
    assert!(g.same_buffer(&t));
    let s = one.reduce_scatter(&t, ReduceOp::Sum, 0).unwrap();
    assert_eq!(s.to_vec_f32().unwrap(), vec![1.0, 2.0, 3.0, 4.0]);
    let b = one.broadcast(&t, 0).unwrap();
    assert_eq!(b.graph_id(), t.graph_id());
}

#[test]
fn into_forms_copy() {
    let one = IdentityComm::new().unwrap();
    let graph = Graph::host().unwrap();
    let t = Tensor::from_i64_on(&graph, &[7, -8, 9], &[3]).unwrap();
    let mut out = t.zeros_like().unwrap();
    one.all_reduce_into(&t, ReduceOp::Max, &mut out).unwrap();
    assert!(!out.same_buffer(&t));
    assert_eq!(out.to_vec_i64().unwrap(), vec![7, -8, 9]);
    let mut out = t.zeros_like().unwrap();
    one.all_gather_into(&t, 0, &mut out).unwrap();
    assert_eq!(out.to_vec_i64().unwrap(), vec![7, -8, 9]);
    let mut out = t.zeros_like().unwrap();
    one.reduce_scatter_into(&t, ReduceOp::Sum, 0, &mut out)
        .unwrap();
    assert_eq!(out.to_vec_i64().unwrap(), vec![7, -8, 9]);
    let mut out = t.zeros_like().unwrap();
    one.broadcast_into(&t, 0, &mut out).unwrap();
    assert_eq!(out.to_vec_i64().unwrap(), vec![7, -8, 9]);
    let mut t = t;
    one.all_reduce_in_place(&mut t, ReduceOp::Sum).unwrap();
    one.broadcast_in_place(&mut t, 0).unwrap();
    assert_eq!(t.to_vec_i64().unwrap(), vec![7, -8, 9]);
}

#[test]
fn every_dtype_round_trips() {
    let one = IdentityComm::new().unwrap();
    let g = Graph::host().unwrap();
    let f64s = Tensor::from_f64_on(&g, &[0.5, -1.25], &[2]).unwrap();
    assert_eq!(
        one.all_reduce(&f64s, ReduceOp::Sum)
            .unwrap()
            .to_vec_f64()
            .unwrap(),
        vec![0.5, -1.25]
    );
    let i32s = Tensor::from_i32_on(&g, &[i32::MIN, i32::MAX], &[2]).unwrap();
    assert_eq!(i32s.to_vec_i32().unwrap(), vec![i32::MIN, i32::MAX]);
    let u8s = Tensor::from_u8_on(&g, &[0, 255, 7], &[3, 1]).unwrap();
    assert_eq!(u8s.to_vec_u8().unwrap(), vec![0, 255, 7]);
    assert_eq!(u8s.shape(), vec![3, 1]);
    let i8s = Tensor::from_i8_on(&g, &[-128, 127], &[2]).unwrap();
    assert_eq!(i8s.to_vec_i8().unwrap(), vec![-128, 127]);
    let u32s = Tensor::from_u32_on(&g, &[u32::MAX], &[1]).unwrap();
    assert_eq!(u32s.to_vec_u32().unwrap(), vec![u32::MAX]);
    // bf16 1.0 = 0x3f80, f16 1.0 = 0x3c00: bits travel unchanged.
    let bf = Tensor::from_bf16_on(&g, &[0x3f80, 0xc000], &[2]).unwrap();
    assert_eq!(bf.dtype(), tcomm::DType::BF16);
    assert_eq!(bf.to_vec_bf16().unwrap(), vec![0x3f80, 0xc000]);
    let hf = Tensor::from_f16_on(&g, &[0x3c00], &[]).unwrap();
    assert_eq!(hf.dtype(), tcomm::DType::F16);
    assert_eq!((hf.numel(), hf.shape()), (1, vec![]));
    assert_eq!(hf.to_vec_f16().unwrap(), vec![0x3c00]);
    let z = Tensor::zeros_on(&g, tcomm::DType::F32, &[2, 0]).unwrap();
    assert_eq!(z.numel(), 0);
    assert_eq!(z.to_vec_f32().unwrap(), Vec::<f32>::new());
}
