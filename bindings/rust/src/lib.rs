// SPDX-License-Identifier: BSD-3-Clause
//! tcomm: MPI-native collectives on graph-bound tensors, behind the seed's
//! [`Communicator`] trait.
//!
//! The trait is object-safe and synchronous; tensors are graph-affine,
//! so every result lands on the input's [`Graph`]. Its implementors here
//! are [`IdentityComm`] (world size 1), [`LocalComm`] (ranks as threads
//! of one process) and [`MpiComm`] (ranks as MPI processes under
//! `mpirun`). All of them are `Send`, release their C objects on drop
//! and report failures as an [`Error`]: tcomm's status and its sentence
//! naming the call, the problem and the fix. Nothing here panics on bad
//! input.
//!
//! ```no_run
//! use tcomm::{Communicator, Graph, MpiComm, ReduceOp, Tensor};
//!
//! fn main() -> tcomm::Result<()> {
//!     let mpi = tcomm::Mpi::init()?;
//!     let world: Box<dyn Communicator> = Box::new(MpiComm::world(&mpi)?);
//!     let graph = Graph::host()?;
//!     let rank = world.info().rank as f32;
//!     let grad = Tensor::from_f32_on(&graph, &[rank, 2.0 * rank], &[2])?;
//!     let avg = world.all_reduce(&grad, ReduceOp::Avg)?;
//!     assert_eq!(avg.graph_id(), grad.graph_id());
//!     println!("{:?}", avg.to_vec_f32()?);
//!     Ok(())
//! }
//! ```
//!
//! The crate links libtcomm (found by `pkg-config tcomm`, or
//! `TCOMM_LIB_DIR`/`TCOMM_INCLUDE_DIR`) and the MPI it was built with
//! (`MPICC`, default `mpicc`); see doc/rust.md.
#![warn(missing_docs)]

mod collectives;
#[macro_use]
mod comm;
mod dtype;
mod error;
pub mod ffi;
mod graph;
mod local;
mod mpi;
mod request;
mod tensor;

pub use collectives::Collectives;
pub use comm::{CommInfo, Communicator, CommunicatorExt, ReduceOp};
pub use dtype::DType;
pub use error::{Error, Result, Status};
#[doc(hidden)]
pub use graph::leaked_graphs;
pub use graph::Graph;
pub use local::{IdentityComm, LocalComm};
pub use mpi::{Mpi, MpiComm};
pub use request::Request;
pub use tensor::Tensor;

/// The version of the libtcomm this program runs with: (major, minor, patch).
pub fn version() -> (i32, i32, i32) {
    let (mut a, mut b, mut c) = (0, 0, 0);
    // SAFETY: three valid out pointers.
    unsafe { ffi::tcomm_get_version(&mut a, &mut b, &mut c) };
    (a, b, c)
}
