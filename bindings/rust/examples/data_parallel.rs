// SPDX-License-Identifier: BSD-3-Clause
//! Data-parallel training, the shape of it: every rank computes a
//! gradient on its own shard of the data, the ranks average the
//! gradients with `all_reduce(Avg)`, and every rank applies the same
//! update, so the replicas of the weights stay identical.
//!
//!     mpirun -np 4 target/debug/examples/data_parallel     # MPI ranks
//!     target/debug/examples/data_parallel --local 4        # 4 threads
//!
//! It checks the averaged gradient against the expected value at every
//! step and exits non-zero if any rank disagrees.
use std::process::exit;
use std::thread;

use tcomm::{Communicator, Graph, LocalComm, Mpi, MpiComm, ReduceOp, Tensor};

const PARAMS: usize = 8;
const STEPS: usize = 5;
const LEARNING_RATE: f32 = 0.1;

/// This rank's gradient at `step`: rank-dependent, so that the average
/// is a real reduction (its mean over ranks r is known: see `expected`).
fn local_gradient(rank: usize, step: usize, weights: &[f32]) -> Vec<f32> {
    weights
        .iter()
        .enumerate()
        .map(|(i, w)| w + (rank * PARAMS + i) as f32 + step as f32)
        .collect()
}

fn expected(world: usize, step: usize, weights: &[f32]) -> Vec<f32> {
    let mean_rank = (world - 1) as f32 / 2.0;
    weights
        .iter()
        .enumerate()
        .map(|(i, w)| w + mean_rank * PARAMS as f32 + i as f32 + step as f32)
        .collect()
}

/// The training loop over any communicator; the final weights.
fn train(comm: &dyn Communicator) -> tcomm::Result<Vec<f32>> {
    let info = comm.info();
    let graph = Graph::host()?;
    let mut weights = vec![1.0f32; PARAMS];
    for step in 0..STEPS {
        let grad = local_gradient(info.rank, step, &weights);
        let grad = Tensor::from_f32_on(&graph, &grad, &[PARAMS])?;
        let avg = comm.all_reduce(&grad, ReduceOp::Avg)?;
        let avg = avg.to_vec_f32()?;
        let want = expected(info.world_size, step, &weights);
        let close = avg
            .iter()
            .zip(&want)
            .all(|(a, b)| (a - b).abs() <= 1e-4 * b.abs().max(1.0));
        if !close {
            eprintln!(
                "rank {}: step {}: averaged gradient {:?}, expected {:?}",
                info.rank, step, avg, want
            );
            exit(1);
        }
        for (w, g) in weights.iter_mut().zip(&avg) {
            *w -= LEARNING_RATE * g;
        }
    }
    // The replicas agree: broadcast rank 0's weights and compare.
    let mine = Tensor::from_f32_on(&graph, &weights, &[PARAMS])?;
    let root = comm.broadcast(&mine, 0)?.to_vec_f32()?;
    if root != weights {
        eprintln!(
            "rank {}: weights {:?} differ from rank 0's {:?}",
            info.rank, weights, root
        );
        exit(1);
    }
    comm.barrier()?;
    Ok(weights)
}

fn run() -> tcomm::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() == 3 && args[1] == "--local" {
        let n: usize = args[2].parse().unwrap_or(0);
        let threads: Vec<_> = LocalComm::group(n)?
            .into_iter()
            .map(|c| {
                let comm: Box<dyn Communicator> = Box::new(c);
                thread::spawn(move || train(&*comm))
            })
            .collect();
        for t in threads {
            match t.join() {
                Ok(r) => r?,
                Err(_) => exit(1),
            };
        }
        println!(
            "data_parallel: {} local ranks, {} steps: replicas agree",
            n, STEPS
        );
        return Ok(());
    }
    let mpi = Mpi::init()?;
    let world: Box<dyn Communicator> = Box::new(MpiComm::world(&mpi)?);
    let weights = train(&*world)?;
    if world.info().rank == 0 {
        println!(
            "data_parallel: {} MPI ranks, {} steps: replicas agree, weights[0] = {}",
            world.info().world_size,
            STEPS,
            weights[0]
        );
    }
    Ok(())
}

fn main() {
    if let Err(e) = run() {
        eprintln!("data_parallel: {} ({:?})", e, e.status());
        exit(1);
    }
}
