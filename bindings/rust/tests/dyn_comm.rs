// SPDX-License-Identifier: BSD-3-Clause
//! `Box<dyn Communicator>`: tcomm's implementors behind one handle, moved
//! into threads, passed to generic code.
mod common;
use std::thread;
use tcomm::{
    CommInfo, Communicator, CommunicatorExt, Graph, IdentityComm, LocalComm, ReduceOp, Tensor,
};

/// Data-parallel step over any communicator: average a gradient.
fn average<C: Communicator + ?Sized>(comm: &C, grad: &[f32]) -> tcomm::Result<Vec<f32>> {
    let g = Graph::host()?;
    let t = Tensor::from_f32_on(&g, grad, &[grad.len()])?;
    let avg = comm.all_reduce(&t, ReduceOp::Avg)?;
    assert_eq!(avg.graph_id(), t.graph_id());
    avg.to_vec_f32()
}

fn assert_send<T: Send>(_: &T) {}

#[test]
fn identity_behind_a_box() {
    let boxed: Box<dyn Communicator> = Box::new(IdentityComm::new().unwrap());
    assert_eq!(
        boxed.info(),
        CommInfo {
            rank: 0,
            world_size: 1
        }
    );
    assert_eq!(average(&*boxed, &[1.0, 3.0]).unwrap(), vec![1.0, 3.0]);
    // a Box<dyn Communicator> is itself a Communicator
    assert_eq!(average(&boxed, &[2.0]).unwrap(), vec![2.0]);
    boxed.barrier().unwrap();
}

#[test]
fn local_ranks_behind_boxes_in_threads() {
    for n in 1..=4 {
        let boxes: Vec<Box<dyn Communicator>> = LocalComm::group(n)
            .unwrap()
            .into_iter()
            .map(|c| Box::new(c) as Box<dyn Communicator>)
            .collect();
        let threads: Vec<_> = boxes
            .into_iter()
            .map(|comm| {
                assert_send(&comm);
                thread::spawn(move || {
                    let r = comm.info().rank as f32;
                    average(&comm, &[r, 10.0 * r]).unwrap()
                })
            })
            .collect();
        let mean = (0..n).map(|r| r as f32).sum::<f32>() / n as f32;
        for t in threads {
            assert_eq!(t.join().unwrap(), vec![mean, 10.0 * mean]);
        }
    }
}

#[test]
fn ext_trait_objects_and_mixed_backends() {
    let mut comms: Vec<Box<dyn CommunicatorExt>> = vec![Box::new(IdentityComm::new().unwrap())];
    comms.extend(
        LocalComm::group(1)
            .unwrap()
            .into_iter()
            .map(|c| Box::new(c) as Box<dyn CommunicatorExt>),
    );
    for c in &comms {
        let g = Graph::host().unwrap();
        let t = Tensor::from_f32_on(&g, &[1.0, 2.0], &[2]).unwrap();
        let mut out = t.zeros_like().unwrap();
        c.all_reduce_into(&t, ReduceOp::Sum, &mut out).unwrap();
        assert_eq!(out.to_vec_f32().unwrap(), vec![1.0, 2.0]);
        assert_eq!(c.info().world_size, 1);
    }
    let names: Vec<String> = comms.iter().map(|c| c.backend()).collect();
    assert_eq!(names, vec!["identity".to_string(), "local".to_string()]);
}
