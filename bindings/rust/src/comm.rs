// SPDX-License-Identifier: BSD-3-Clause
//! The seed's `Communicator` trait, word for word, the `_into` forms of
//! `CommunicatorExt`, and the C communicator handle every tcomm
//! implementor wraps.
use std::os::raw::c_int;
use std::ptr;

use crate::error::{c_index, c_text, check, Result};
use crate::ffi;
use crate::tensor::Tensor;

/// This handle's place in its communicator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CommInfo {
    /// 0 .. world_size - 1
    pub rank: usize,
    /// The number of ranks.
    pub world_size: usize,
}

/// Element-wise reductions. `Min` and `Max` propagate NaN; `Avg` (the
/// sum divided by the world size) is for floating dtypes only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    /// sum
    Sum,
    /// product
    Prod,
    /// minimum (NaN wins)
    Min,
    /// maximum (NaN wins)
    Max,
    /// sum / world_size (floating dtypes)
    Avg,
}

impl ReduceOp {
    pub(crate) fn code(self) -> ffi::tcomm_op_t {
        match self {
            ReduceOp::Sum => ffi::TCOMM_SUM,
            ReduceOp::Prod => ffi::TCOMM_PROD,
            ReduceOp::Min => ffi::TCOMM_MIN,
            ReduceOp::Max => ffi::TCOMM_MAX,
            ReduceOp::Avg => ffi::TCOMM_AVG,
        }
    }
}

/// The seed's contract: synchronous collectives on graph-affine tensors.
/// Object-safe, so any backend can stand behind `Box<dyn Communicator>`.
/// Every result is on the input's graph.
pub trait Communicator: Send {
    /// This handle's rank and the world size.
    fn info(&self) -> CommInfo; // CommInfo { rank: usize, world_size: usize }
    /// Element-wise reduction; the result on every rank.
    fn all_reduce(&self, tensor: &Tensor, op: ReduceOp) -> Result<Tensor>;
    /// Every rank's tensor concatenated along `dim`, in rank order.
    fn all_gather(&self, tensor: &Tensor, dim: usize) -> Result<Tensor>;
    /// Reduce, then rank r keeps the r-th equal chunk along `dim`.
    fn reduce_scatter(&self, tensor: &Tensor, op: ReduceOp, dim: usize) -> Result<Tensor>;
    /// Root's tensor on every rank.
    fn broadcast(&self, tensor: &Tensor, root: usize) -> Result<Tensor>;
    /// Block until all ranks arrive.
    fn barrier(&self) -> Result<()>;
}

/// Beyond the seed: the collectives into a caller-owned tensor of the
/// same graph (no allocation), in-place forms, and the handle's settings.
/// An output must share its buffer with no other `Tensor` (see
/// [`Tensor::zeros_like`]). Object-safe, like `Communicator`.
pub trait CommunicatorExt: Communicator {
    /// `all_reduce` into `out` (same shape and dtype as `tensor`).
    fn all_reduce_into(&self, tensor: &Tensor, op: ReduceOp, out: &mut Tensor) -> Result<()>;
    /// `all_reduce` in place.
    fn all_reduce_in_place(&self, tensor: &mut Tensor, op: ReduceOp) -> Result<()>;
    /// `all_gather` into `out`, whose size along `dim` is the sum of every rank's.
    fn all_gather_into(&self, tensor: &Tensor, dim: usize, out: &mut Tensor) -> Result<()>;
    /// `reduce_scatter` into `out`, of this rank's chunk's shape.
    fn reduce_scatter_into(
        &self,
        tensor: &Tensor,
        op: ReduceOp,
        dim: usize,
        out: &mut Tensor,
    ) -> Result<()>;
    /// `broadcast` into `out` (root's shape and dtype).
    fn broadcast_into(&self, tensor: &Tensor, root: usize, out: &mut Tensor) -> Result<()>;
    /// `broadcast` in place: non-roots' values are overwritten with root's.
    fn broadcast_in_place(&self, tensor: &mut Tensor, root: usize) -> Result<()>;
    /// The backend's name: "identity", "local", "mpi", ...
    fn backend(&self) -> String;
    /// True if device buffers go to MPI directly.
    fn cuda_aware(&self) -> bool;
    /// Cross-rank agreement before data moves (default `TCOMM_CHECK`);
    /// set the same on every rank.
    fn set_check(&mut self, on: bool) -> Result<()>;
    /// Reductions fold in rank order, bitwise reproducible (default
    /// `TCOMM_DETERMINISTIC`); set the same on every rank.
    fn set_deterministic(&mut self, on: bool) -> Result<()>;
}

/// One C communicator handle, destroyed on drop.
pub(crate) struct RawComm {
    ptr: *mut ffi::tcomm_comm_t,
    info: CommInfo,
    backend: String,
    cuda_aware: bool,
}

// SAFETY: a C communicator may move between threads; it is not Sync, so
// only one thread calls into it at a time.
unsafe impl Send for RawComm {}

impl RawComm {
    /// Takes ownership of `ptr` (destroyed here if its info fails).
    pub(crate) fn new(ptr: *mut ffi::tcomm_comm_t) -> Result<RawComm> {
        let mut ci = ffi::tcomm_comm_info_t {
            rank: 0,
            world_size: 0,
            backend: ptr::null(),
            cuda_aware: 0,
        };
        // SAFETY: ptr is a live communicator; ci a valid out pointer.
        if let Err(e) = check(unsafe { ffi::tcomm_comm_info(ptr, &mut ci) }) {
            // SAFETY: ptr is ours and not used again.
            unsafe { ffi::tcomm_comm_destroy(ptr) };
            return Err(e);
        }
        Ok(RawComm {
            ptr,
            info: CommInfo {
                rank: ci.rank.max(0) as usize,
                world_size: ci.world_size.max(0) as usize,
            },
            // SAFETY: backend is NULL or a constant string of the backend.
            backend: unsafe { c_text(ci.backend) },
            cuda_aware: ci.cuda_aware != 0,
        })
    }

    /// Runs a C call that makes a new tensor from `input`.
    fn make(
        &self,
        input: &Tensor,
        call: impl FnOnce(*mut *mut ffi::tcomm_tensor_t) -> ffi::tcomm_status_t,
    ) -> Result<Tensor> {
        let mut out = ptr::null_mut();
        check(call(&mut out))?;
        Ok(input.result(out))
    }

    pub(crate) fn info(&self) -> CommInfo {
        self.info
    }
    pub(crate) fn backend(&self) -> String {
        self.backend.clone()
    }
    pub(crate) fn cuda_aware(&self) -> bool {
        self.cuda_aware
    }

    // SAFETY (all below): self.ptr and the tensors are alive for the
    // call; outputs are written by C only on success.
    pub(crate) fn all_reduce(&self, t: &Tensor, op: ReduceOp) -> Result<Tensor> {
        self.make(t, |o| unsafe {
            ffi::tcomm_all_reduce(self.ptr, t.as_ptr(), op.code(), o)
        })
    }
    pub(crate) fn all_gather(&self, t: &Tensor, dim: usize) -> Result<Tensor> {
        self.make(t, |o| unsafe {
            ffi::tcomm_all_gather(self.ptr, t.as_ptr(), c_index(dim), o)
        })
    }
    pub(crate) fn reduce_scatter(&self, t: &Tensor, op: ReduceOp, dim: usize) -> Result<Tensor> {
        self.make(t, |o| unsafe {
            ffi::tcomm_reduce_scatter(self.ptr, t.as_ptr(), op.code(), c_index(dim), o)
        })
    }
    pub(crate) fn broadcast(&self, t: &Tensor, root: usize) -> Result<Tensor> {
        self.make(t, |o| unsafe {
            ffi::tcomm_broadcast(self.ptr, t.as_ptr(), c_index(root), o)
        })
    }
    pub(crate) fn barrier(&self) -> Result<()> {
        check(unsafe { ffi::tcomm_barrier(self.ptr) })
    }

    pub(crate) fn all_reduce_into(&self, t: &Tensor, op: ReduceOp, out: &mut Tensor) -> Result<()> {
        let o = out.out_ptr("all_reduce_into")?;
        check(unsafe { ffi::tcomm_all_reduce_into(self.ptr, t.as_ptr(), op.code(), o) })
    }
    pub(crate) fn all_reduce_in_place(&self, t: &mut Tensor, op: ReduceOp) -> Result<()> {
        let o = t.out_ptr("all_reduce_in_place")?;
        check(unsafe { ffi::tcomm_all_reduce_into(self.ptr, o, op.code(), o) })
    }
    pub(crate) fn all_gather_into(&self, t: &Tensor, dim: usize, out: &mut Tensor) -> Result<()> {
        let o = out.out_ptr("all_gather_into")?;
        check(unsafe { ffi::tcomm_all_gather_into(self.ptr, t.as_ptr(), c_index(dim), o) })
    }
    pub(crate) fn reduce_scatter_into(
        &self,
        t: &Tensor,
        op: ReduceOp,
        dim: usize,
        out: &mut Tensor,
    ) -> Result<()> {
        let o = out.out_ptr("reduce_scatter_into")?;
        check(unsafe {
            ffi::tcomm_reduce_scatter_into(self.ptr, t.as_ptr(), op.code(), c_index(dim), o)
        })
    }
    pub(crate) fn broadcast_into(&self, t: &Tensor, root: usize, out: &mut Tensor) -> Result<()> {
        let o = out.out_ptr("broadcast_into")?;
        check(unsafe { ffi::tcomm_broadcast_into(self.ptr, t.as_ptr(), c_index(root), o) })
    }
    pub(crate) fn broadcast_in_place(&self, t: &mut Tensor, root: usize) -> Result<()> {
        let o = t.out_ptr("broadcast_in_place")?;
        check(unsafe { ffi::tcomm_broadcast_into(self.ptr, o, c_index(root), o) })
    }
    pub(crate) fn set_attr(&mut self, attr: ffi::tcomm_comm_attr_t, on: bool) -> Result<()> {
        check(unsafe { ffi::tcomm_comm_set_attr(self.ptr, attr, on as c_int) })
    }

    /// The C handle (valid while self lives).
    pub(crate) fn as_ptr(&self) -> *mut ffi::tcomm_comm_t {
        self.ptr
    }
}

impl Drop for RawComm {
    fn drop(&mut self) {
        // SAFETY: ptr is ours and destroyed once.
        unsafe { ffi::tcomm_comm_destroy(self.ptr) };
    }
}

/// Implements `Communicator` and `CommunicatorExt` for a type whose
/// field `raw` is its `RawComm`.
macro_rules! impl_communicator {
    ($ty:ty) => {
        impl $crate::Communicator for $ty {
            fn info(&self) -> $crate::CommInfo {
                self.raw.info()
            }
            fn all_reduce(
                &self,
                tensor: &$crate::Tensor,
                op: $crate::ReduceOp,
            ) -> $crate::Result<$crate::Tensor> {
                self.raw.all_reduce(tensor, op)
            }
            fn all_gather(
                &self,
                tensor: &$crate::Tensor,
                dim: usize,
            ) -> $crate::Result<$crate::Tensor> {
                self.raw.all_gather(tensor, dim)
            }
            fn reduce_scatter(
                &self,
                tensor: &$crate::Tensor,
                op: $crate::ReduceOp,
                dim: usize,
            ) -> $crate::Result<$crate::Tensor> {
                self.raw.reduce_scatter(tensor, op, dim)
            }
            fn broadcast(
                &self,
                tensor: &$crate::Tensor,
                root: usize,
            ) -> $crate::Result<$crate::Tensor> {
                self.raw.broadcast(tensor, root)
            }
            fn barrier(&self) -> $crate::Result<()> {
                self.raw.barrier()
            }
        }

        impl $crate::CommunicatorExt for $ty {
            fn all_reduce_into(
                &self,
                tensor: &$crate::Tensor,
                op: $crate::ReduceOp,
                out: &mut $crate::Tensor,
            ) -> $crate::Result<()> {
                self.raw.all_reduce_into(tensor, op, out)
            }
            fn all_reduce_in_place(
                &self,
                tensor: &mut $crate::Tensor,
                op: $crate::ReduceOp,
            ) -> $crate::Result<()> {
                self.raw.all_reduce_in_place(tensor, op)
            }
            fn all_gather_into(
                &self,
                tensor: &$crate::Tensor,
                dim: usize,
                out: &mut $crate::Tensor,
            ) -> $crate::Result<()> {
                self.raw.all_gather_into(tensor, dim, out)
            }
            fn reduce_scatter_into(
                &self,
                tensor: &$crate::Tensor,
                op: $crate::ReduceOp,
                dim: usize,
                out: &mut $crate::Tensor,
            ) -> $crate::Result<()> {
                self.raw.reduce_scatter_into(tensor, op, dim, out)
            }
            fn broadcast_into(
                &self,
                tensor: &$crate::Tensor,
                root: usize,
                out: &mut $crate::Tensor,
            ) -> $crate::Result<()> {
                self.raw.broadcast_into(tensor, root, out)
            }
            fn broadcast_in_place(
                &self,
                tensor: &mut $crate::Tensor,
                root: usize,
            ) -> $crate::Result<()> {
                self.raw.broadcast_in_place(tensor, root)
            }
            fn backend(&self) -> String {
                self.raw.backend()
            }
            fn cuda_aware(&self) -> bool {
                self.raw.cuda_aware()
            }
            fn set_check(&mut self, on: bool) -> $crate::Result<()> {
                self.raw.set_attr($crate::ffi::TCOMM_ATTR_CHECK, on)
            }
            fn set_deterministic(&mut self, on: bool) -> $crate::Result<()> {
                self.raw.set_attr($crate::ffi::TCOMM_ATTR_DETERMINISTIC, on)
            }
        }

        impl $crate::collectives::sealed::Sealed for $ty {}
        impl $crate::Collectives for $ty {
            fn comm_ptr(&self) -> *mut $crate::ffi::tcomm_comm_t {
                self.raw.as_ptr()
            }
        }

        impl $ty {
            /// The C handle, for calls into the C API (valid while self lives).
            pub fn as_ptr(&self) -> *mut $crate::ffi::tcomm_comm_t {
                self.raw.as_ptr()
            }
        }
    };
}

// A boxed communicator is one too, so `Box<dyn Communicator>` goes where a
// generic `C: Communicator` is expected.
impl<C: Communicator + ?Sized> Communicator for Box<C> {
    fn info(&self) -> CommInfo {
        (**self).info()
    }
    fn all_reduce(&self, tensor: &Tensor, op: ReduceOp) -> Result<Tensor> {
        (**self).all_reduce(tensor, op)
    }
    fn all_gather(&self, tensor: &Tensor, dim: usize) -> Result<Tensor> {
        (**self).all_gather(tensor, dim)
    }
    fn reduce_scatter(&self, tensor: &Tensor, op: ReduceOp, dim: usize) -> Result<Tensor> {
        (**self).reduce_scatter(tensor, op, dim)
    }
    fn broadcast(&self, tensor: &Tensor, root: usize) -> Result<Tensor> {
        (**self).broadcast(tensor, root)
    }
    fn barrier(&self) -> Result<()> {
        (**self).barrier()
    }
}
