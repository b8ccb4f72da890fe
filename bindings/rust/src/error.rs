// SPDX-License-Identifier: BSD-3-Clause
//! `Error`: a tcomm status and the sentence that explains it.
use std::ffi::CStr;
use std::fmt;
use std::os::raw::c_char;

use crate::ffi;

/// The status of a failed call: the C API's `tcomm_status_t` errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Status {
    /// NULL, dim/root out of range, bad enum value.
    InvalidArg,
    /// A local shape rule is broken.
    Shape,
    /// A dtype mismatch, or an unsupported dtype/op pair.
    Dtype,
    /// Tensors of different graphs were combined.
    GraphMismatch,
    /// The ranks disagree on the collective.
    Mismatch,
    /// Peers were late beyond `TCOMM_TIMEOUT`.
    Timeout,
    /// Not supported by this build (e.g. a CUDA graph without CUDA).
    Unsupported,
    /// A host or device allocation failed.
    NoMemory,
    /// MPI returned an error.
    Mpi,
    /// A CUDA call failed.
    Cuda,
    /// The communicator is unusable after a fatal error.
    CommFailed,
    /// A tcomm bug (or a status this crate does not know).
    Internal,
}

impl Status {
    /// The C value (`TCOMM_ERR_*`, negative).
    pub fn code(self) -> i32 {
        match self {
            Status::InvalidArg => ffi::TCOMM_ERR_INVALID_ARG,
            Status::Shape => ffi::TCOMM_ERR_SHAPE,
            Status::Dtype => ffi::TCOMM_ERR_DTYPE,
            Status::GraphMismatch => ffi::TCOMM_ERR_GRAPH_MISMATCH,
            Status::Mismatch => ffi::TCOMM_ERR_MISMATCH,
            Status::Timeout => ffi::TCOMM_ERR_TIMEOUT,
            Status::Unsupported => ffi::TCOMM_ERR_UNSUPPORTED,
            Status::NoMemory => ffi::TCOMM_ERR_NO_MEMORY,
            Status::Mpi => ffi::TCOMM_ERR_MPI,
            Status::Cuda => ffi::TCOMM_ERR_CUDA,
            Status::CommFailed => ffi::TCOMM_ERR_COMM_FAILED,
            Status::Internal => ffi::TCOMM_ERR_INTERNAL,
        }
    }

    /// The status of a C error code; unknown codes are `Internal`.
    pub fn from_code(code: i32) -> Status {
        match code {
            ffi::TCOMM_ERR_INVALID_ARG => Status::InvalidArg,
            ffi::TCOMM_ERR_SHAPE => Status::Shape,
            ffi::TCOMM_ERR_DTYPE => Status::Dtype,
            ffi::TCOMM_ERR_GRAPH_MISMATCH => Status::GraphMismatch,
            ffi::TCOMM_ERR_MISMATCH => Status::Mismatch,
            ffi::TCOMM_ERR_TIMEOUT => Status::Timeout,
            ffi::TCOMM_ERR_UNSUPPORTED => Status::Unsupported,
            ffi::TCOMM_ERR_NO_MEMORY => Status::NoMemory,
            ffi::TCOMM_ERR_MPI => Status::Mpi,
            ffi::TCOMM_ERR_CUDA => Status::Cuda,
            ffi::TCOMM_ERR_COMM_FAILED => Status::CommFailed,
            _ => Status::Internal,
        }
    }

    /// tcomm's constant text of the status, e.g. "invalid argument".
    pub fn as_str(self) -> String {
        // SAFETY: tcomm_status_string returns a constant C string.
        unsafe { c_text(ffi::tcomm_status_string(self.code())) }
    }
}

/// A failed call: the status and tcomm's sentence naming the call, the
/// problem and the fix. `Display` prints the sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    status: Status,
    message: String,
}

/// `std::result::Result` with tcomm's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// An error with this status and sentence.
    pub fn new(status: Status, message: impl Into<String>) -> Error {
        Error {
            status,
            message: message.into(),
        }
    }

    /// The status (`Status::Shape`, ...).
    pub fn status(&self) -> Status {
        self.status
    }

    /// The C value of the status (`TCOMM_ERR_*`).
    pub fn code(&self) -> i32 {
        self.status.code()
    }

    /// The sentence, e.g. `tcomm_all_gather: dim 3 is out of range for a
    /// 2-dimensional tensor (use 0..1)`.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

/// A C string as an owned String ("" for NULL; lossy on bad UTF-8).
///
/// # Safety
/// `p` is NULL or a NUL-terminated string alive during the call.
pub(crate) unsafe fn c_text(p: *const c_char) -> String {
    if p.is_null() {
        return String::new();
    }
    CStr::from_ptr(p).to_string_lossy().into_owned()
}

/// Ok for TCOMM_SUCCESS, else the status with this thread's
/// `tcomm_last_error()` (read at once, on the thread that failed).
pub(crate) fn check(status: ffi::tcomm_status_t) -> Result<()> {
    if status == ffi::TCOMM_SUCCESS {
        return Ok(());
    }
    let st = Status::from_code(status);
    // SAFETY: tcomm_last_error returns this thread's constant-until-next-
    // call buffer; it is copied before any other tcomm call.
    let mut message = unsafe { c_text(ffi::tcomm_last_error()) };
    if message.is_empty() {
        message = format!("tcomm: {} (status {})", st.as_str(), status);
    }
    Err(Error {
        status: st,
        message,
    })
}

/// A usize argument as a C int; too large values become `c_int::MAX`,
/// which tcomm rejects with its own sentence (out of range).
pub(crate) fn c_index(v: usize) -> std::os::raw::c_int {
    std::convert::TryFrom::try_from(v).unwrap_or(std::os::raw::c_int::MAX)
}
