// SPDX-License-Identifier: BSD-3-Clause
//! The communicators of one process: `IdentityComm` (world size 1) and
//! `LocalComm` (n ranks as threads).
use std::ptr;

use crate::comm::RawComm;
use crate::error::{check, Error, Result, Status};
use crate::ffi;

/// A communicator of world size 1: every collective returns its input
/// (zero copy); the `_into` forms copy.
pub struct IdentityComm {
    raw: RawComm,
}

impl IdentityComm {
    /// A new identity communicator.
    pub fn new() -> Result<IdentityComm> {
        let mut p = ptr::null_mut();
        // SAFETY: p is a valid out pointer, written only on success.
        check(unsafe { ffi::tcomm_comm_create_identity(&mut p) })?;
        Ok(IdentityComm {
            raw: RawComm::new(p)?,
        })
    }
}

impl_communicator!(IdentityComm);

/// One rank of a group of ranks that are threads of this process. Each
/// handle is `Send`: move handle r into the thread that plays rank r;
/// every rank must take part in each collective, as with MPI.
pub struct LocalComm {
    raw: RawComm,
}

impl LocalComm {
    /// `n` ranks: element r of the result is rank r's handle.
    pub fn group(n: usize) -> Result<Vec<LocalComm>> {
        let c_n = match i32::try_from(n) {
            Ok(v) => v,
            Err(_) => {
                return Err(Error::new(
                    Status::InvalidArg,
                    format!(
                        "LocalComm::group: {} ranks is too many (use 1 ..= {})",
                        n,
                        i32::MAX
                    ),
                ))
            }
        };
        let mut ptrs: Vec<*mut ffi::tcomm_comm_t> = vec![ptr::null_mut(); n];
        // SAFETY: ptrs has room for n handles, written only on success.
        check(unsafe { ffi::tcomm_comm_create_local(c_n, ptrs.as_mut_ptr()) })?;
        // Wrap every handle before any can fail, so all are destroyed.
        let mut out = Vec::with_capacity(n);
        let mut first_err = None;
        for p in ptrs {
            match RawComm::new(p) {
                Ok(raw) => out.push(LocalComm { raw }),
                Err(e) => {
                    if first_err.is_none() {
                        first_err = Some(e);
                    }
                }
            }
        }
        match first_err {
            Some(e) => Err(e),
            None => Ok(out),
        }
    }
}

impl_communicator!(LocalComm);
