// SPDX-License-Identifier: BSD-3-Clause
//! `Tensor`: a contiguous row-major tensor bound to one graph.
use std::fmt;
use std::mem::size_of;
use std::os::raw::c_void;
use std::ptr;
use std::sync::Arc;

use crate::dtype::DType;
use crate::error::{check, Error, Result, Status};
use crate::ffi;
use crate::graph::Graph;

/// One C tensor reference. Several `Tensor`s share a cell when they are
/// the same C tensor (clones, world-size-1 results).
struct Cell {
    raw: *mut ffi::tcomm_tensor_t,
    graph: Graph,
}

// SAFETY: the C tensor's reference count is atomic, and its buffer is
// written only through `&mut Tensor` of a cell nobody else holds.
unsafe impl Send for Cell {}
unsafe impl Sync for Cell {}

impl Drop for Cell {
    fn drop(&mut self) {
        // SAFETY: this cell owns one reference, released once; the graph
        // (a field, dropped after this) outlives it.
        unsafe { ffi::tcomm_tensor_release(self.raw) }
    }
}

/// A contiguous, row-major tensor on one [`Graph`]. Cloning is cheap and
/// shares the buffer. Inputs of collectives are never modified; only the
/// `_into` and `_in_place` forms write, and only into a tensor that
/// shares its buffer with no other `Tensor`.
#[derive(Clone)]
pub struct Tensor {
    cell: Arc<Cell>,
}

fn shape_text(shape: &[usize]) -> String {
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    format!("[{}]", dims.join(", "))
}

/// The number of elements of `shape`, which may have at most
/// TCOMM_MAX_DIMS dims (so the C int cannot overflow).
fn numel_of(call: &str, shape: &[usize]) -> Result<usize> {
    if shape.len() > ffi::TCOMM_MAX_DIMS {
        return Err(Error::new(
            Status::Shape,
            format!(
                "{}: shape {} has {} dims (use at most {})",
                call,
                shape_text(shape),
                shape.len(),
                ffi::TCOMM_MAX_DIMS
            ),
        ));
    }
    match shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d)) {
        Some(n) => Ok(n),
        None => Err(Error::new(
            Status::Shape,
            format!(
                "{}: shape {} overflows usize (use smaller dims)",
                call,
                shape_text(shape)
            ),
        )),
    }
}

/// Checks that `len` values fill `shape`.
fn check_len(call: &str, len: usize, shape: &[usize]) -> Result<()> {
    let n = numel_of(call, shape)?;
    if n == len {
        return Ok(());
    }
    Err(Error::new(
        Status::Shape,
        format!(
            "{}: {} values for shape {} of {} elements (pass one value per element)",
            call,
            len,
            shape_text(shape),
            n
        ),
    ))
}

impl Tensor {
    fn own(raw: *mut ffi::tcomm_tensor_t, graph: Graph) -> Tensor {
        Tensor {
            cell: Arc::new(Cell { raw, graph }),
        }
    }

    /// Wraps the result of a collective on `self`: world size 1 hands
    /// back the input itself (one more C reference), which then shares
    /// self's cell.
    pub(crate) fn result(&self, raw: *mut ffi::tcomm_tensor_t) -> Tensor {
        if raw == self.cell.raw {
            // SAFETY: raw is a new reference to self's tensor; the cell
            // already holds one.
            unsafe { ffi::tcomm_tensor_release(raw) };
            return self.clone();
        }
        Tensor::own(raw, self.cell.graph.clone())
    }

    fn from_host<T: Copy>(
        call: &str,
        graph: &Graph,
        dtype: DType,
        data: &[T],
        shape: &[usize],
    ) -> Result<Tensor> {
        debug_assert_eq!(size_of::<T>(), dtype.size());
        check_len(call, data.len(), shape)?;
        let mut raw = ptr::null_mut();
        // SAFETY: data holds numel(shape) elements of dtype's size, shape
        // has ndim entries; raw is written only on success.
        check(unsafe {
            ffi::tcomm_tensor_from_host(
                graph.inner.raw,
                dtype.code(),
                data.as_ptr() as *const c_void,
                shape.len() as i32,
                shape.as_ptr(),
                &mut raw,
            )
        })?;
        Ok(Tensor::own(raw, graph.clone()))
    }

    fn const_like<T: Copy>(
        &self,
        call: &str,
        dtype: DType,
        data: &[T],
        shape: &[usize],
    ) -> Result<Tensor> {
        check_len(call, data.len(), shape)?;
        let mut raw = ptr::null_mut();
        // SAFETY: as in from_host; the anchor is alive.
        check(unsafe {
            ffi::tcomm_tensor_const_like(
                self.cell.raw,
                dtype.code(),
                data.as_ptr() as *const c_void,
                shape.len() as i32,
                shape.as_ptr(),
                &mut raw,
            )
        })?;
        Ok(self.result(raw))
    }

    fn to_vec<T: Copy + Default>(&self, call: &str, want: DType) -> Result<Vec<T>> {
        let have = self.dtype();
        if have != want {
            return Err(Error::new(
                Status::Dtype,
                format!(
                    "{}: the tensor holds {} values (call to_vec_{})",
                    call,
                    have.name(),
                    have.name()
                ),
            ));
        }
        let n = self.numel();
        let mut v = vec![T::default(); n];
        // SAFETY: v has room for n elements of the tensor's dtype.
        check(unsafe {
            ffi::tcomm_tensor_to_host(
                self.cell.raw,
                v.as_mut_ptr() as *mut c_void,
                n * size_of::<T>(),
            )
        })?;
        Ok(v)
    }

    /// A zero-filled tensor of `dtype` and `shape` on `graph`.
    pub fn zeros_on(graph: &Graph, dtype: DType, shape: &[usize]) -> Result<Tensor> {
        numel_of("Tensor::zeros_on", shape)?;
        let mut raw = ptr::null_mut();
        // SAFETY: shape has ndim entries; raw is written only on success.
        check(unsafe {
            ffi::tcomm_tensor_empty(
                graph.inner.raw,
                dtype.code(),
                shape.len() as i32,
                shape.as_ptr(),
                &mut raw,
            )
        })?;
        Ok(Tensor::own(raw, graph.clone()))
    }

    /// A zero-filled tensor of this one's graph, dtype and shape: an
    /// output for the `_into` forms.
    pub fn zeros_like(&self) -> Result<Tensor> {
        Tensor::zeros_on(&self.cell.graph, self.dtype(), &self.shape())
    }

    /// The id of the tensor's graph (`Graph::id`).
    pub fn graph_id(&self) -> u64 {
        // SAFETY: the tensor is alive while self is.
        unsafe { ffi::tcomm_tensor_graph_id(self.cell.raw) }
    }

    /// The tensor's graph.
    pub fn graph(&self) -> Graph {
        self.cell.graph.clone()
    }

    /// The sizes of the dimensions, outermost first.
    pub fn shape(&self) -> Vec<usize> {
        // SAFETY: the tensor is alive; axes are in range.
        unsafe {
            let n = ffi::tcomm_tensor_ndim(self.cell.raw);
            (0..n)
                .map(|a| ffi::tcomm_tensor_dim(self.cell.raw, a))
                .collect()
        }
    }

    /// The element type.
    pub fn dtype(&self) -> DType {
        // SAFETY: the tensor is alive.
        DType::from_code(unsafe { ffi::tcomm_tensor_dtype(self.cell.raw) })
    }

    /// The number of elements (1 for a 0-d tensor).
    pub fn numel(&self) -> usize {
        // SAFETY: the tensor is alive.
        unsafe { ffi::tcomm_tensor_numel(self.cell.raw) }
    }

    /// True if both are the same C tensor (one buffer): clones, and the
    /// results of world-size-1 collectives, which return their input.
    pub fn same_buffer(&self, other: &Tensor) -> bool {
        self.cell.raw == other.cell.raw
    }

    /// Element-wise sum: a graph-affine combination, so tensors of two
    /// graphs give `Status::GraphMismatch`.
    pub fn add(&self, other: &Tensor) -> Result<Tensor> {
        let mut raw = ptr::null_mut();
        // SAFETY: both tensors are alive; raw is written only on success.
        check(unsafe { ffi::tcomm_tensor_add(self.cell.raw, other.cell.raw, &mut raw) })?;
        Ok(self.result(raw))
    }

    /// The C handle, for calls into the C API (valid while self lives).
    pub fn as_ptr(&self) -> *mut ffi::tcomm_tensor_t {
        self.cell.raw
    }

    /// The C handle of an output: only a tensor that shares its buffer
    /// with no other `Tensor` may be written.
    pub(crate) fn out_ptr(&mut self, call: &str) -> Result<*mut ffi::tcomm_tensor_t> {
        match Arc::get_mut(&mut self.cell) {
            Some(cell) => Ok(cell.raw),
            None => Err(Error::new(
                Status::InvalidArg,
                format!(
                    "{}: the output shares its buffer with another Tensor (a clone, or a \
                 world-size-1 result, which is its input); write into a tensor of its \
                 own, e.g. from zeros_like()",
                    call
                ),
            )),
        }
    }
}

macro_rules! dtype_methods {
    ($($t:ty, $dt:expr, $from:ident, $like:ident, $to:ident;)*) => {
        impl Tensor {
            $(
            #[doc = concat!("A new tensor on `graph` holding a copy of `data` (", stringify!($t),
                            " elements of ", stringify!($dt), "), row-major in `shape`.")]
            pub fn $from(graph: &Graph, data: &[$t], shape: &[usize]) -> Result<Tensor> {
                Tensor::from_host(concat!("Tensor::", stringify!($from)), graph, $dt, data, shape)
            }

            #[doc = concat!("Like `", stringify!($from), "`, on this tensor's graph.")]
            pub fn $like(&self, data: &[$t], shape: &[usize]) -> Result<Tensor> {
                self.const_like(concat!("Tensor::", stringify!($like)), $dt, data, shape)
            }

            #[doc = concat!("The elements, row-major; `Status::Dtype` unless the tensor is ",
                            stringify!($dt), ".")]
            pub fn $to(&self) -> Result<Vec<$t>> {
                self.to_vec(concat!("Tensor::", stringify!($to)), $dt)
            }
            )*
        }
    };
}

dtype_methods! {
    f32, DType::F32, from_f32_on, const_f32_like, to_vec_f32;
    f64, DType::F64, from_f64_on, const_f64_like, to_vec_f64;
    i32, DType::I32, from_i32_on, const_i32_like, to_vec_i32;
    i64, DType::I64, from_i64_on, const_i64_like, to_vec_i64;
    u8, DType::U8, from_u8_on, const_u8_like, to_vec_u8;
    i8, DType::I8, from_i8_on, const_i8_like, to_vec_i8;
    u32, DType::U32, from_u32_on, const_u32_like, to_vec_u32;
    u16, DType::BF16, from_bf16_on, const_bf16_like, to_vec_bf16;
    u16, DType::F16, from_f16_on, const_f16_like, to_vec_f16;
}

impl fmt::Debug for Tensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Tensor({} {} on graph {})",
            self.dtype().name(),
            shape_text(&self.shape()),
            self.graph_id()
        )
    }
}
