// SPDX-License-Identifier: BSD-3-Clause
//! Contract 0.2 beside the seed's trait: all_to_all (even and uneven),
//! the uneven reduce_scatter, and the nonblocking `*_start` forms, whose
//! [`Request`] borrows the communicator and the tensors until complete.
//! (`reduce` to a root waits for `tcomm_reduce_into` in the C API.)
use std::ptr;

use crate::comm::{CommunicatorExt, ReduceOp};
use crate::error::{c_index, check, Result};
use crate::ffi;
use crate::request::Request;
use crate::tensor::Tensor;

/// A size array for C: NULL unless it has one entry per rank, so that a
/// wrong length fails on every rank (`Status::InvalidArg` here, a
/// mismatch on the others) instead of C reading past its end.
fn per_rank(sizes: &[usize], world_size: usize) -> *const usize {
    if sizes.len() == world_size {
        sizes.as_ptr()
    } else {
        ptr::null()
    }
}

/// Only the crate's communicators implement [`Collectives`]: its
/// methods trust `comm_ptr` to be a live handle.
pub mod sealed {
    /// The seal.
    pub trait Sealed {}
}

/// The collectives of contract 0.2, for every tcomm communicator.
pub trait Collectives: CommunicatorExt + sealed::Sealed {
    /// The C handle the provided methods call (as `as_ptr()`).
    fn comm_ptr(&self) -> *mut ffi::tcomm_comm_t;

    /// Split `tensor` along `split_dim` into world_size equal chunks,
    /// chunk j to rank j; concatenate what arrives, in rank order, along
    /// `concat_dim`.
    fn all_to_all(&self, tensor: &Tensor, split_dim: usize, concat_dim: usize) -> Result<Tensor> {
        let mut out = ptr::null_mut();
        // SAFETY: the handle and tensor are alive; out is written on success.
        check(unsafe {
            ffi::tcomm_all_to_all(
                self.comm_ptr(),
                tensor.as_ptr(),
                c_index(split_dim),
                c_index(concat_dim),
                &mut out,
            )
        })?;
        Ok(tensor.result(out))
    }

    /// `all_to_all` into `out`, of the result's shape.
    fn all_to_all_into(
        &self,
        tensor: &Tensor,
        split_dim: usize,
        concat_dim: usize,
        out: &mut Tensor,
    ) -> Result<()> {
        let o = out.out_ptr("all_to_all_into")?;
        // SAFETY: as above.
        check(unsafe {
            ffi::tcomm_all_to_all_into(
                self.comm_ptr(),
                tensor.as_ptr(),
                c_index(split_dim),
                c_index(concat_dim),
                o,
            )
        })
    }

    /// Uneven all_to_all: `send_sizes[j]` (one per rank, adding up to the
    /// size along `split_dim`) is the chunk for rank j. With split_dim ==
    /// concat_dim the ranks' send_sizes may differ (token exchange); else
    /// they must agree (a pencil transpose).
    fn all_to_all_v(
        &self,
        tensor: &Tensor,
        split_dim: usize,
        send_sizes: &[usize],
        concat_dim: usize,
    ) -> Result<Tensor> {
        let sizes = per_rank(send_sizes, self.info().world_size);
        let mut out = ptr::null_mut();
        // SAFETY: sizes is NULL or world_size entries alive for the call.
        check(unsafe {
            ffi::tcomm_all_to_all_v(
                self.comm_ptr(),
                tensor.as_ptr(),
                c_index(split_dim),
                sizes,
                c_index(concat_dim),
                &mut out,
            )
        })?;
        Ok(tensor.result(out))
    }

    /// Uneven reduce_scatter: rank r keeps `sizes[r]` along `dim` (the
    /// same sizes on every rank, adding up to the size along `dim`).
    fn reduce_scatter_v(
        &self,
        tensor: &Tensor,
        op: ReduceOp,
        dim: usize,
        sizes: &[usize],
    ) -> Result<Tensor> {
        let sizes = per_rank(sizes, self.info().world_size);
        let mut out = ptr::null_mut();
        // SAFETY: as above.
        check(unsafe {
            ffi::tcomm_reduce_scatter_v(
                self.comm_ptr(),
                tensor.as_ptr(),
                op.code(),
                c_index(dim),
                sizes,
                &mut out,
            )
        })?;
        Ok(tensor.result(out))
    }

    /// Start `all_reduce_into`; the request borrows `tensor` and `out`.
    fn all_reduce_start<'a>(
        &'a self,
        tensor: &'a Tensor,
        op: ReduceOp,
        out: &'a mut Tensor,
    ) -> Result<Request<'a>> {
        let o = out.out_ptr("all_reduce_start")?;
        // SAFETY: the borrows keep the handle and tensors alive until the
        // request completes (its drop waits).
        Request::start(|r| unsafe {
            ffi::tcomm_all_reduce_start(self.comm_ptr(), tensor.as_ptr(), op.code(), o, r)
        })
    }

    /// Start an in-place all_reduce of `tensor`.
    fn all_reduce_start_in_place<'a>(
        &'a self,
        tensor: &'a mut Tensor,
        op: ReduceOp,
    ) -> Result<Request<'a>> {
        let o = tensor.out_ptr("all_reduce_start_in_place")?;
        // SAFETY: as above.
        Request::start(|r| unsafe {
            ffi::tcomm_all_reduce_start(self.comm_ptr(), o, op.code(), o, r)
        })
    }

    /// Start `all_gather_into`.
    fn all_gather_start<'a>(
        &'a self,
        tensor: &'a Tensor,
        dim: usize,
        out: &'a mut Tensor,
    ) -> Result<Request<'a>> {
        let o = out.out_ptr("all_gather_start")?;
        // SAFETY: as above.
        Request::start(|r| unsafe {
            ffi::tcomm_all_gather_start(self.comm_ptr(), tensor.as_ptr(), c_index(dim), o, r)
        })
    }

    /// Start `reduce_scatter_into`.
    fn reduce_scatter_start<'a>(
        &'a self,
        tensor: &'a Tensor,
        op: ReduceOp,
        dim: usize,
        out: &'a mut Tensor,
    ) -> Result<Request<'a>> {
        let o = out.out_ptr("reduce_scatter_start")?;
        // SAFETY: as above.
        Request::start(|r| unsafe {
            ffi::tcomm_reduce_scatter_start(
                self.comm_ptr(),
                tensor.as_ptr(),
                op.code(),
                c_index(dim),
                o,
                r,
            )
        })
    }

    /// Start `broadcast_into`.
    fn broadcast_start<'a>(
        &'a self,
        tensor: &'a Tensor,
        root: usize,
        out: &'a mut Tensor,
    ) -> Result<Request<'a>> {
        let o = out.out_ptr("broadcast_start")?;
        // SAFETY: as above.
        Request::start(|r| unsafe {
            ffi::tcomm_broadcast_start(self.comm_ptr(), tensor.as_ptr(), c_index(root), o, r)
        })
    }

    /// Start an in-place broadcast of `tensor`.
    fn broadcast_start_in_place<'a>(
        &'a self,
        tensor: &'a mut Tensor,
        root: usize,
    ) -> Result<Request<'a>> {
        let o = tensor.out_ptr("broadcast_start_in_place")?;
        // SAFETY: as above.
        Request::start(|r| unsafe {
            ffi::tcomm_broadcast_start(self.comm_ptr(), o, c_index(root), o, r)
        })
    }

    /// Start `all_to_all_into`.
    fn all_to_all_start<'a>(
        &'a self,
        tensor: &'a Tensor,
        split_dim: usize,
        concat_dim: usize,
        out: &'a mut Tensor,
    ) -> Result<Request<'a>> {
        let o = out.out_ptr("all_to_all_start")?;
        // SAFETY: as above.
        Request::start(|r| unsafe {
            ffi::tcomm_all_to_all_start(
                self.comm_ptr(),
                tensor.as_ptr(),
                c_index(split_dim),
                c_index(concat_dim),
                o,
                r,
            )
        })
    }

    /// Start a barrier.
    fn barrier_start(&self) -> Result<Request<'_>> {
        // SAFETY: the handle is borrowed until the request completes.
        Request::start(|r| unsafe { ffi::tcomm_barrier_start(self.comm_ptr(), r) })
    }
}
