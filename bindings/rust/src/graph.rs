// SPDX-License-Identifier: BSD-3-Clause
//! `Graph`: a device and its allocator. Tensors keep their graph alive,
//! so the C graph is destroyed only after its last tensor is released.
use std::fmt;
use std::ptr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use crate::error::{check, Result};
use crate::ffi;

/// Graphs whose C destroy failed at drop (tensors still alive: a leak).
static LEAKED_GRAPHS: AtomicUsize = AtomicUsize::new(0);

pub(crate) struct GraphInner {
    pub(crate) raw: *mut ffi::tcomm_graph_t,
}

// SAFETY: a C graph is thread-safe for what the crate does with it
// (atomic ids and tensor counts, thread-safe allocators).
unsafe impl Send for GraphInner {}
unsafe impl Sync for GraphInner {}

impl Drop for GraphInner {
    fn drop(&mut self) {
        // SAFETY: raw came from tcomm_graph_create and is destroyed once.
        let st = unsafe { ffi::tcomm_graph_destroy(self.raw) };
        if st != ffi::TCOMM_SUCCESS {
            LEAKED_GRAPHS.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// A graph: a device (host or CUDA), its allocator and its tensors.
/// Tensors of one graph can be combined; tensors of two cannot. Cloning
/// a `Graph` gives another handle to the same graph.
#[derive(Clone)]
pub struct Graph {
    pub(crate) inner: Arc<GraphInner>,
}

impl Graph {
    fn create(kind: ffi::tcomm_device_kind_t, index: usize) -> Result<Graph> {
        let device = ffi::tcomm_device_t {
            kind,
            index: crate::error::c_index(index),
        };
        let mut raw = ptr::null_mut();
        // SAFETY: raw is a valid out pointer; written only on success.
        check(unsafe { ffi::tcomm_graph_create(device, &mut raw) })?;
        Ok(Graph {
            inner: Arc::new(GraphInner { raw }),
        })
    }

    /// A graph in host memory.
    pub fn host() -> Result<Graph> {
        Graph::create(ffi::TCOMM_DEVICE_HOST, 0)
    }

    /// A graph on CUDA device `index` (`Status::Unsupported` in a build
    /// without CUDA).
    pub fn cuda(index: usize) -> Result<Graph> {
        Graph::create(ffi::TCOMM_DEVICE_CUDA, index)
    }

    /// The graph's id: unique in the process, never 0.
    pub fn id(&self) -> u64 {
        // SAFETY: the graph is alive while self is.
        unsafe { ffi::tcomm_graph_id(self.inner.raw) }
    }

    /// True for a CUDA graph.
    pub fn is_cuda(&self) -> bool {
        // SAFETY: the graph is alive while self is.
        unsafe { ffi::tcomm_graph_device(self.inner.raw).kind == ffi::TCOMM_DEVICE_CUDA }
    }

    /// The C handle, for calls into the C API (valid while self lives).
    pub fn as_ptr(&self) -> *mut ffi::tcomm_graph_t {
        self.inner.raw
    }
}

impl PartialEq for Graph {
    fn eq(&self, other: &Graph) -> bool {
        self.inner.raw == other.inner.raw
    }
}
impl Eq for Graph {}

impl fmt::Debug for Graph {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Graph({}{})",
            self.id(),
            if self.is_cuda() { ", cuda" } else { "" }
        )
    }
}

/// How many graphs could not be destroyed when their last handle
/// dropped (a tensor leaked). For tests of the crate itself.
#[doc(hidden)]
pub fn leaked_graphs() -> usize {
    LEAKED_GRAPHS.load(Ordering::Relaxed)
}
