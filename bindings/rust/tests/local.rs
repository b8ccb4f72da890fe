// SPDX-License-Identifier: BSD-3-Clause
//! LocalComm: n ranks as threads, every collective with real values.
mod common;
use common::{on_ranks, ramp};
use tcomm::{Communicator, CommunicatorExt, Graph, ReduceOp, Tensor};

#[test]
fn all_reduce_every_op_1_to_4_ranks() {
    for n in 1..=4 {
        let got = on_ranks(n, move |comm| {
            let info = comm.info();
            assert_eq!(info.world_size, n);
            assert_eq!(comm.backend(), "local");
            let g = Graph::host().unwrap();
            let r = info.rank as f32;
            let t = Tensor::from_f32_on(&g, &[r + 1.0, -r, 2.0], &[3]).unwrap();
            let ops = [
                ReduceOp::Sum,
                ReduceOp::Prod,
                ReduceOp::Min,
                ReduceOp::Max,
                ReduceOp::Avg,
            ];
            let mut outs = Vec::new();
            for op in ops {
                let out = comm.all_reduce(&t, op).unwrap();
                assert_eq!(out.graph_id(), g.id());
                outs.push(out.to_vec_f32().unwrap());
            }
            // the input is unchanged
            assert_eq!(t.to_vec_f32().unwrap(), vec![r + 1.0, -r, 2.0]);
            (info.rank, outs)
        });
        let nf = n as f32;
        let sum0: f32 = (1..=n).map(|x| x as f32).sum();
        let sum1: f32 = (0..n).map(|x| -(x as f32)).sum();
        let prod0: f32 = (1..=n).map(|x| x as f32).product();
        let prod1: f32 = (0..n).map(|x| -(x as f32)).product();
        for (rank, outs) in got.iter().enumerate() {
            assert_eq!(outs.0, rank);
            assert_eq!(outs.1[0], vec![sum0, sum1, 2.0 * nf]);
            assert_eq!(outs.1[1], vec![prod0, prod1, 2f32.powi(n as i32)]);
            assert_eq!(outs.1[2], vec![1.0, -(nf - 1.0), 2.0]);
            assert_eq!(outs.1[3], vec![nf, 0.0, 2.0]);
            assert_eq!(outs.1[4], vec![sum0 / nf, sum1 / nf, 2.0]);
        }
    }
}

#[test]
fn all_gather_uneven_and_along_dim_1() {
    for n in 1..=4 {
        let got = on_ranks(n, |comm| {
            let r = comm.info().rank;
            let g = Graph::host().unwrap();
            // rank r has r+1 rows of [r, r]
            let rows = vec![r as i32; 2 * (r + 1)];
            let t = Tensor::from_i32_on(&g, &rows, &[r + 1, 2]).unwrap();
            let a = comm.all_gather(&t, 0).unwrap();
            let c = Tensor::from_i32_on(&g, &[r as i32, 10 + r as i32], &[2, 1]).unwrap();
            let b = comm.all_gather(&c, 1).unwrap();
            (
                a.shape(),
                a.to_vec_i32().unwrap(),
                b.shape(),
                b.to_vec_i32().unwrap(),
            )
        });
        let rows: usize = (1..=n).sum();
        let mut want_a = Vec::new();
        for r in 0..n {
            want_a.extend(vec![r as i32; 2 * (r + 1)]);
        }
        let want_b: Vec<i32> = (0..n as i32).chain(10..10 + n as i32).collect();
        for (sa, va, sb, vb) in got {
            assert_eq!(sa, vec![rows, 2]);
            assert_eq!(va, want_a);
            assert_eq!(sb, vec![2, n]);
            assert_eq!(vb, want_b);
        }
    }
}

#[test]
fn reduce_scatter_and_broadcast() {
    for n in 1..=4 {
        let got = on_ranks(n, move |comm| {
            let r = comm.info().rank;
            let g = Graph::host().unwrap();
            let t = Tensor::from_f64_on(&g, &vec![1.0 + r as f64; 2 * n], &[2 * n]).unwrap();
            let s = comm.reduce_scatter(&t, ReduceOp::Sum, 0).unwrap();
            let mut bs = Vec::new();
            for root in 0..n {
                let b = Tensor::from_u8_on(&g, &[r as u8, 100], &[2]).unwrap();
                bs.push(comm.broadcast(&b, root).unwrap().to_vec_u8().unwrap());
            }
            comm.barrier().unwrap();
            (s.to_vec_f64().unwrap(), bs)
        });
        let total: f64 = (1..=n).map(|x| x as f64).sum();
        for (s, bs) in got {
            assert_eq!(s, vec![total, total]);
            for (root, b) in bs.iter().enumerate() {
                assert_eq!(*b, vec![root as u8, 100]);
            }
        }
    }
}

#[test]
fn into_and_in_place_forms() {
    let n = 3;
    let got = on_ranks(n, move |mut comm| {
        comm.set_deterministic(true).unwrap();
        let r = comm.info().rank;
        let g = Graph::host().unwrap();
        let t = Tensor::from_f32_on(&g, &ramp(4, r as f32), &[4]).unwrap();
        let mut sum = t.zeros_like().unwrap();
        comm.all_reduce_into(&t, ReduceOp::Sum, &mut sum).unwrap();
        let mut gathered = Tensor::zeros_on(&g, tcomm::DType::F32, &[4 * n]).unwrap();
        comm.all_gather_into(&t, 0, &mut gathered).unwrap();
        let x = Tensor::from_f32_on(&g, &[1.0; 6], &[6]).unwrap();
        let mut chunk = Tensor::zeros_on(&g, tcomm::DType::F32, &[2]).unwrap();
        comm.reduce_scatter_into(&x, ReduceOp::Sum, 0, &mut chunk)
            .unwrap();
        let mut b = Tensor::from_i64_on(&g, &[r as i64 * 5], &[1]).unwrap();
        comm.broadcast_in_place(&mut b, 2).unwrap();
        let mut m = t.clone();
        drop(t); // m is now the only handle: writable in place
        comm.all_reduce_in_place(&mut m, ReduceOp::Max).unwrap();
        let mut bi = b.zeros_like().unwrap();
        comm.broadcast_into(&b, 0, &mut bi).unwrap();
        (
            sum.to_vec_f32().unwrap(),
            gathered.to_vec_f32().unwrap(),
            chunk.to_vec_f32().unwrap(),
            b.to_vec_i64().unwrap(),
            m.to_vec_f32().unwrap(),
            bi.to_vec_i64().unwrap(),
        )
    });
    let gathered: Vec<f32> = (0..n).flat_map(|r| ramp(4, r as f32)).collect();
    for (sum, gat, chunk, b, m, bi) in got {
        assert_eq!(sum, vec![3.0, 6.0, 9.0, 12.0]); // (0+1+2) + 3i
        assert_eq!(gat, gathered);
        assert_eq!(chunk, vec![3.0, 3.0]);
        assert_eq!(b, vec![10]);
        assert_eq!(m, ramp(4, 2.0));
        assert_eq!(bi, vec![10]);
    }
}

#[test]
fn bf16_sum_rounds_in_f32() {
    // bf16 1.0 (0x3f80) summed over 4 ranks is 4.0 (0x4080)
    let got = on_ranks(4, |comm| {
        let g = Graph::host().unwrap();
        let t = Tensor::from_bf16_on(&g, &[0x3f80], &[1]).unwrap();
        comm.all_reduce(&t, ReduceOp::Sum)
            .unwrap()
            .to_vec_bf16()
            .unwrap()
    });
    for v in got {
        assert_eq!(v, vec![0x4080]);
    }
}

#[test]
fn handles_drop_on_their_threads_and_group_is_reusable() {
    for _ in 0..3 {
        let sizes = on_ranks(2, |comm| comm.info().world_size);
        assert_eq!(sizes, vec![2, 2]);
    }
    assert_eq!(tcomm::leaked_graphs(), 0);
}
