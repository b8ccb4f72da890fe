// SPDX-License-Identifier: BSD-3-Clause
//! `Mpi` (MPI's lifetime) and `MpiComm` (a communicator over MPI).
use std::os::raw::c_void;
use std::ptr;
use std::sync::{Mutex, MutexGuard};

use crate::comm::RawComm;
use crate::error::{check, Error, Result, Status};
use crate::ffi;

struct State {
    handles: usize,  // live Mpi values
    owned: bool,     // this crate called MPI_Init_thread
    finalized: bool, // this crate called MPI_Finalize
    level: i32,      // 0 single .. 3 multiple
}

static STATE: Mutex<State> = Mutex::new(State {
    handles: 0,
    owned: false,
    finalized: false,
    level: 0,
});

fn state() -> MutexGuard<'static, State> {
    // A panic elsewhere while holding the lock leaves valid counts.
    match STATE.lock() {
        Ok(g) => g,
        Err(poisoned) => poisoned.into_inner(),
    }
}

/// MPI's lifetime. [`Mpi::init`] calls `MPI_Init_thread` (asking for
/// `MPI_THREAD_MULTIPLE`) the first time; later calls, and clones, give
/// more handles to the same MPI. When the last handle drops, MPI is
/// finalized, once (MPI cannot start again after that). If MPI was
/// initialized by someone else, it is theirs to finalize.
///
/// `MPI_Finalize` runs on the thread that drops the last handle: keep one
/// in `main` for the whole program, e.g. `let mpi = Mpi::init()?;`.
pub struct Mpi {
    _private: (),
}

impl Mpi {
    /// Initializes MPI, or joins the MPI already running.
    pub fn init() -> Result<Mpi> {
        let mut s = state();
        if s.handles > 0 {
            s.handles += 1;
            return Ok(Mpi { _private: () });
        }
        if s.finalized {
            return Err(Error::new(
                Status::Mpi,
                "Mpi::init: MPI was finalized when the last Mpi handle dropped, and MPI \
                 cannot start twice (keep one Mpi alive for the whole program)",
            ));
        }
        let mut level = 0;
        // SAFETY: level is a valid out pointer.
        match unsafe { ffi::tcomm_rs_mpi_init(&mut level) } {
            0 => s.owned = true,
            1 => s.owned = false,
            2 => {
                return Err(Error::new(
                    Status::Mpi,
                    "Mpi::init: MPI is already finalized and cannot start again (create the \
                 Mpi before anything finalizes MPI)",
                ))
            }
            _ => {
                return Err(Error::new(
                    Status::Mpi,
                    "Mpi::init: MPI_Init_thread failed (run the program directly or under \
                 mpirun, with the MPI tcomm was built with)",
                ))
            }
        }
        s.level = level;
        s.handles = 1;
        Ok(Mpi { _private: () })
    }

    /// True if MPI gives `MPI_THREAD_MULTIPLE`, so that communicators on
    /// different threads may call collectives at the same time.
    pub fn thread_multiple(&self) -> bool {
        state().level == 3
    }

    /// `sizeof(MPI_Comm)` of the MPI this crate was built with (8 for
    /// Open MPI's pointer, 4 for MPICH's int).
    pub fn comm_handle_size(&self) -> usize {
        // SAFETY: a constant of the shim.
        unsafe { ffi::tcomm_rs_mpi_comm_size() }
    }
}

impl Clone for Mpi {
    fn clone(&self) -> Mpi {
        state().handles += 1;
        Mpi { _private: () }
    }
}

impl Drop for Mpi {
    fn drop(&mut self) {
        let mut s = state();
        s.handles = s.handles.saturating_sub(1);
        if s.handles == 0 && s.owned && !s.finalized {
            s.finalized = true;
            // SAFETY: MPI is initialized by us; no Mpi handle (and so no
            // MpiComm, which holds one) is left.
            unsafe { ffi::tcomm_rs_mpi_finalize() };
        }
    }
}

/// A communicator over a duplicate of an MPI communicator. Holds a
/// handle to [`Mpi`], so MPI outlives it.
pub struct MpiComm {
    raw: RawComm,
    _mpi: Mpi,
}

impl MpiComm {
    fn wrap(
        mpi: &Mpi,
        make: impl FnOnce(*mut *mut ffi::tcomm_comm_t) -> ffi::tcomm_status_t,
    ) -> Result<MpiComm> {
        let mut p = ptr::null_mut();
        check(make(&mut p))?;
        Ok(MpiComm {
            raw: RawComm::new(p)?,
            _mpi: mpi.clone(),
        })
    }

    /// Over `MPI_COMM_WORLD`: every process mpirun started.
    pub fn world(mpi: &Mpi) -> Result<MpiComm> {
        // SAFETY: MPI is initialized while mpi lives; out pointer valid.
        MpiComm::wrap(mpi, |p| unsafe { ffi::tcomm_rs_comm_world(p) })
    }

    /// Over a duplicate of the MPI communicator `*handle`: pass a pointer
    /// to an `MPI_Comm` of this MPI (whatever its C type: a pointer in Open
    /// MPI, an int in MPICH), e.g. `&raw as *const _ as *const c_void`.
    ///
    /// # Safety
    /// `handle` points at a valid `MPI_Comm` (not `MPI_COMM_NULL`) of the
    /// MPI this crate was built with, and every rank of it calls this.
    pub unsafe fn from_raw(mpi: &Mpi, handle: *const c_void) -> Result<MpiComm> {
        if handle.is_null() {
            return Err(Error::new(
                Status::InvalidArg,
                "MpiComm::from_raw: handle is NULL (pass a pointer to an MPI_Comm)",
            ));
        }
        MpiComm::wrap(mpi, |p| ffi::tcomm_rs_comm_from_raw(handle, p))
    }

    /// Over a duplicate of the communicator whose Fortran handle (an
    /// integer, as `use mpi` or mpi4py's `py2f()` give) is `handle`.
    ///
    /// # Safety
    /// `handle` is a valid Fortran communicator handle of this MPI, and
    /// every rank of it calls this.
    pub unsafe fn from_fortran(mpi: &Mpi, handle: i32) -> Result<MpiComm> {
        MpiComm::wrap(mpi, |p| ffi::tcomm_rs_comm_from_fint(handle, p))
    }
}

impl_communicator!(MpiComm);
