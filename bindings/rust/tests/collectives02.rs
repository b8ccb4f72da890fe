// SPDX-License-Identifier: BSD-3-Clause
//! Contract 0.2 at 1-4 ranks (LocalComm): all_to_all, the uneven forms
//! and the nonblocking starts, against references computed here.
mod common;
use common::on_ranks;
use tcomm::{Collectives, Communicator, DType, Graph, ReduceOp, Status, Tensor};

/// Rank r's value at flat index i.
fn val(r: usize, i: usize) -> f32 {
    (100 * r + i) as f32
}

#[test]
fn all_to_all_split_0_concat_1() {
    for n in 1..=4 {
        on_ranks(n, move |comm| {
            let r = comm.info().rank;
            let g = Graph::host().unwrap();
            // [n, 2]: row j goes to rank j
            let x: Vec<f32> = (0..2 * n).map(|i| val(r, i)).collect();
            let t = Tensor::from_f32_on(&g, &x, &[n, 2]).unwrap();
            let y = comm.all_to_all(&t, 0, 1).unwrap();
            assert_eq!(y.shape(), vec![1, 2 * n]);
            // from rank s: its row r, in rank order along dim 1
            let want: Vec<f32> = (0..n)
                .flat_map(|s| vec![val(s, 2 * r), val(s, 2 * r + 1)])
                .collect();
            assert_eq!(y.to_vec_f32().unwrap(), want);
            let mut out = Tensor::zeros_on(&g, DType::F32, &[1, 2 * n]).unwrap();
            comm.all_to_all_into(&t, 0, 1, &mut out).unwrap();
            assert_eq!(out.to_vec_f32().unwrap(), want);
            assert_eq!(t.to_vec_f32().unwrap(), x); // input unchanged
        });
    }
}

#[test]
fn all_to_all_v_token_exchange() {
    for n in 1..=4 {
        on_ranks(n, move |comm| {
            let r = comm.info().rank;
            let g = Graph::host().unwrap();
            let sends = |s: usize| -> Vec<usize> { (0..n).map(|j| (s + j) % 3).collect() };
            let rows = |s: usize| -> Vec<f32> {
                (0..sends(s).iter().sum::<usize>())
                    .map(|i| val(s, i))
                    .collect()
            };
            let x = rows(r);
            let t = Tensor::from_f32_on(&g, &x, &[x.len()]).unwrap();
            let y = comm.all_to_all_v(&t, 0, &sends(r), 0).unwrap();
            let mut want = Vec::new();
            for s in 0..n {
                let off: usize = sends(s)[..r].iter().sum();
                want.extend_from_slice(&rows(s)[off..off + sends(s)[r]]);
            }
            assert_eq!(y.to_vec_f32().unwrap(), want);
        });
    }
}

#[test]
fn reduce_scatter_v_with_empty_chunks() {
    for n in 1..=4 {
        on_ranks(n, move |comm| {
            let r = comm.info().rank;
            let g = Graph::host().unwrap();
            let sizes: Vec<usize> = (0..n).map(|s| s % 3).collect();
            let total: usize = sizes.iter().sum();
            let x: Vec<f64> = (0..total).map(|i| (r * 10 + i) as f64).collect();
            let t = Tensor::from_f64_on(&g, &x, &[total]).unwrap();
            let y = comm.reduce_scatter_v(&t, ReduceOp::Sum, 0, &sizes).unwrap();
            let off: usize = sizes[..r].iter().sum();
            let want: Vec<f64> = (off..off + sizes[r])
                .map(|i| (0..n).map(|s| (s * 10 + i) as f64).sum())
                .collect();
            assert_eq!(y.to_vec_f64().unwrap(), want);
        });
    }
}

#[test]
fn sizes_of_the_wrong_length_fail_everywhere() {
    for n in 2..=4 {
        let got = on_ranks(n, move |comm| {
            let g = Graph::host().unwrap();
            let t = Tensor::from_f32_on(&g, &[1.0; 4], &[4]).unwrap();
            let sizes = if comm.info().rank == 0 {
                vec![4]
            } else {
                vec![0; n]
            };
            comm.reduce_scatter_v(&t, ReduceOp::Sum, 0, &sizes)
                .err()
                .map(|e| e.status())
        });
        assert_eq!(got[0], Some(Status::InvalidArg));
        assert!(got[1..].iter().all(|s| s.is_some()), "{:?}", got);
    }
}

#[test]
fn nonblocking_waited_in_reverse_order() {
    for n in 1..=4 {
        on_ranks(n, move |comm| {
            let r = comm.info().rank;
            let g = Graph::host().unwrap();
            let a = Tensor::from_f32_on(&g, &[r as f32 + 1.0; 3], &[3]).unwrap();
            let b = Tensor::from_i32_on(&g, &[r as i32], &[1]).unwrap();
            let c: Vec<f32> = (0..2 * n).map(|i| val(r, i)).collect();
            let c = Tensor::from_f32_on(&g, &c, &[2 * n]).unwrap();
            let mut sum = a.zeros_like().unwrap();
            let mut gathered = Tensor::zeros_on(&g, DType::I32, &[n]).unwrap();
            let mut chunk = Tensor::zeros_on(&g, DType::F32, &[2]).unwrap();
            let mut swapped = c.zeros_like().unwrap();
            let mut bc = Tensor::from_i32_on(&g, &[r as i32 * 7], &[1]).unwrap();
            {
                let r1 = comm.all_reduce_start(&a, ReduceOp::Sum, &mut sum).unwrap();
                let r2 = comm.all_gather_start(&b, 0, &mut gathered).unwrap();
                let r3 = comm
                    .reduce_scatter_start(&c, ReduceOp::Max, 0, &mut chunk)
                    .unwrap();
                let r4 = comm.all_to_all_start(&c, 0, 0, &mut swapped).unwrap();
                let r5 = comm.broadcast_start_in_place(&mut bc, n - 1).unwrap();
                let mut r6 = comm.barrier_start().unwrap();
                r5.wait().unwrap();
                r4.wait().unwrap();
                r3.wait().unwrap();
                r2.wait().unwrap();
                while !r6.test().unwrap() {}
                drop(r1); // waits
            }
            let tri = (n * (n + 1) / 2) as f32;
            assert_eq!(sum.to_vec_f32().unwrap(), vec![tri; 3]);
            assert_eq!(
                gathered.to_vec_i32().unwrap(),
                (0..n as i32).collect::<Vec<_>>()
            );
            assert_eq!(
                chunk.to_vec_f32().unwrap(),
                vec![val(n - 1, 2 * r), val(n - 1, 2 * r + 1)]
            );
            let want: Vec<f32> = (0..n)
                .flat_map(|s| vec![val(s, 2 * r), val(s, 2 * r + 1)])
                .collect();
            assert_eq!(swapped.to_vec_f32().unwrap(), want);
            assert_eq!(bc.to_vec_i32().unwrap(), vec![(n as i32 - 1) * 7]);
        });
    }
}

#[test]
fn failed_request_reports_on_every_rank() {
    for n in 2..=4 {
        let got = on_ranks(n, move |comm| {
            let r = comm.info().rank;
            let g = Graph::host().unwrap();
            let len = 2 + usize::from(r == 1);
            let a = Tensor::from_f32_on(&g, &vec![1.0; len], &[len]).unwrap();
            let mut out = a.zeros_like().unwrap();
            let status = match comm.all_reduce_start(&a, ReduceOp::Sum, &mut out) {
                Err(e) => e.status(),
                Ok(req) => req.wait().unwrap_err().status(),
            };
            status
        });
        assert!(
            got.iter()
                .all(|s| *s == Status::Mismatch || *s == Status::Shape),
            "{:?}",
            got
        );
    }
}
