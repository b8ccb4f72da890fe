// SPDX-License-Identifier: BSD-3-Clause
//! A nonblocking collective in flight. It borrows its communicator and
//! tensors for its lifetime, so none of them can be dropped, moved or
//! written while it runs; dropping it waits.
use std::marker::PhantomData;
use std::os::raw::c_int;
use std::ptr;

use crate::error::{check, Result};
use crate::ffi;

/// The request of a `*_start` call (see [`crate::Collectives`]).
/// `wait()` completes it; a request dropped before completion waits
/// (ignoring the status), so it never outlives its buffers.
#[must_use = "a request is completed by wait(); dropping it waits"]
pub struct Request<'a> {
    raw: *mut ffi::tcomm_request_t,
    _borrows: PhantomData<&'a mut ()>,
}

impl<'a> Request<'a> {
    /// Runs a C start call; the request borrows for `'a` what the caller
    /// passed in.
    pub(crate) fn start(
        call: impl FnOnce(*mut *mut ffi::tcomm_request_t) -> ffi::tcomm_status_t,
    ) -> Result<Request<'a>> {
        let mut raw = ptr::null_mut();
        check(call(&mut raw))?;
        Ok(Request {
            raw,
            _borrows: PhantomData,
        })
    }

    /// Completes the collective: its status, with tcomm's sentence.
    pub fn wait(mut self) -> Result<()> {
        // SAFETY: raw is a live request; tcomm_wait sets it to NULL.
        check(unsafe { ffi::tcomm_wait(&mut self.raw) })
    }

    /// `Ok(true)` once complete (an error if it failed; later calls give
    /// `Ok(true)`), `Ok(false)` while it runs.
    pub fn test(&mut self) -> Result<bool> {
        if self.raw.is_null() {
            return Ok(true);
        }
        let mut done: c_int = 0;
        // SAFETY: raw is a live request; on completion it becomes NULL.
        check(unsafe { ffi::tcomm_test(&mut self.raw, &mut done) })?;
        Ok(done != 0)
    }
}

impl Drop for Request<'_> {
    fn drop(&mut self) {
        if !self.raw.is_null() {
            // SAFETY: raw is a live request, completed here once.
            unsafe { ffi::tcomm_wait(&mut self.raw) };
        }
    }
}
