// SPDX-License-Identifier: BSD-3-Clause
//! Graph affinity: results live on the input's graph; tensors of two
//! graphs do not combine; tensors keep their graph alive; drop releases.
mod common;
use common::on_ranks;
use tcomm::{Communicator, Graph, IdentityComm, ReduceOp, Status, Tensor};

#[test]
fn ids_are_unique_and_never_zero() {
    let a = Graph::host().unwrap();
    let b = Graph::host().unwrap();
    assert!(a.id() != 0 && b.id() != 0 && a.id() != b.id());
    assert_eq!(a.clone(), a);
    assert!(a != b);
    assert!(!a.is_cuda());
}

#[test]
fn const_like_lands_on_the_anchors_graph_and_combines() {
    let g = Graph::host().unwrap();
    let t = Tensor::from_f32_on(&g, &[1.0, 2.0, 3.0], &[3]).unwrap();
    let k = t.const_f32_like(&[0.5, 0.5, 0.5], &[3]).unwrap();
    assert_eq!(k.graph_id(), t.graph_id());
    assert_eq!(k.graph(), g);
    assert_eq!(
        t.add(&k).unwrap().to_vec_f32().unwrap(),
        vec![1.5, 2.5, 3.5]
    );
    let elsewhere = Tensor::from_f32_on(&Graph::host().unwrap(), &[1.0; 3], &[3]).unwrap();
    let e = t.add(&elsewhere).unwrap_err();
    assert_eq!(e.status(), Status::GraphMismatch);
    assert!(e.message().starts_with("tcomm_tensor_add:"), "{}", e);
}

#[test]
fn every_result_is_on_the_inputs_graph_across_ranks() {
    let got = on_ranks(3, |comm| {
        // each rank uses two graphs; results follow their input
        let g1 = Graph::host().unwrap();
        let g2 = Graph::host().unwrap();
        let mut ids = Vec::new();
        for g in [&g1, &g2] {
            let t = Tensor::from_f32_on(g, &[1.0; 3], &[3]).unwrap();
            let outs = [
                comm.all_reduce(&t, ReduceOp::Sum).unwrap(),
                comm.all_gather(&t, 0).unwrap(),
                comm.reduce_scatter(&t, ReduceOp::Max, 0).unwrap(),
                comm.broadcast(&t, 2).unwrap(),
            ];
            for o in &outs {
                assert_eq!(o.graph_id(), g.id());
                // the result combines with the input's graph-mates
                let k = o.const_f32_like(&vec![1.0; o.numel()], &o.shape()).unwrap();
                o.add(&k).unwrap();
            }
            ids.push(outs.iter().map(|o| o.graph_id()).collect::<Vec<_>>());
        }
        assert_ne!(ids[0], ids[1]);
        ids
    });
    assert_eq!(got.len(), 3);
}

#[test]
fn tensors_keep_their_graph_alive() {
    let one = IdentityComm::new().unwrap();
    let t = {
        let g = Graph::host().unwrap();
        Tensor::from_f64_on(&g, &[4.0, 5.0], &[2]).unwrap()
    }; // the Graph handle is gone; the graph lives on in t
    let r = one.all_reduce(&t, ReduceOp::Sum).unwrap();
    let k = r.const_f64_like(&[1.0, 1.0], &[2]).unwrap();
    assert_eq!(r.add(&k).unwrap().to_vec_f64().unwrap(), vec![5.0, 6.0]);
    drop((t, r, k));
    // no graph was left with live tensors when it went
    assert_eq!(tcomm::leaked_graphs(), 0);
}

#[test]
fn many_tensors_come_and_go() {
    let g = Graph::host().unwrap();
    let one = IdentityComm::new().unwrap();
    for i in 0..1000 {
        let t = Tensor::from_i32_on(&g, &[i; 16], &[4, 4]).unwrap();
        let s = one.all_gather(&t, 1).unwrap();
        assert_eq!(s.to_vec_i32().unwrap()[15], i);
    }
    drop(g);
    assert_eq!(tcomm::leaked_graphs(), 0);
}

#[test]
fn tensors_move_between_threads() {
    let g = Graph::host().unwrap();
    let t = Tensor::from_f32_on(&g, &[3.0], &[1]).unwrap();
    let back = std::thread::spawn(move || {
        let v = t.to_vec_f32().unwrap();
        (t, v)
    })
    .join()
    .unwrap();
    assert_eq!(back.1, vec![3.0]);
    assert_eq!(back.0.graph_id(), g.id());
}
