// SPDX-License-Identifier: BSD-3-Clause
//! Raw declarations of the C API (include/tcomm.h) and of the MPI shim
//! (csrc/mpi_shim.c). Everything here is `unsafe` to call; the safe API
//! in the rest of the crate is built on it. The names and values are the
//! C header's.
#![allow(non_camel_case_types, missing_docs)]

use std::os::raw::{c_char, c_int, c_void};

pub type tcomm_status_t = c_int;
pub const TCOMM_SUCCESS: tcomm_status_t = 0;
pub const TCOMM_ERR_INVALID_ARG: tcomm_status_t = -1;
pub const TCOMM_ERR_SHAPE: tcomm_status_t = -2;
pub const TCOMM_ERR_DTYPE: tcomm_status_t = -3;
pub const TCOMM_ERR_GRAPH_MISMATCH: tcomm_status_t = -4;
pub const TCOMM_ERR_MISMATCH: tcomm_status_t = -5;
pub const TCOMM_ERR_TIMEOUT: tcomm_status_t = -6;
pub const TCOMM_ERR_UNSUPPORTED: tcomm_status_t = -7;
pub const TCOMM_ERR_NO_MEMORY: tcomm_status_t = -8;
pub const TCOMM_ERR_MPI: tcomm_status_t = -9;
pub const TCOMM_ERR_CUDA: tcomm_status_t = -10;
pub const TCOMM_ERR_COMM_FAILED: tcomm_status_t = -11;
pub const TCOMM_ERR_INTERNAL: tcomm_status_t = -12;

pub type tcomm_dtype_t = c_int;
pub const TCOMM_U8: tcomm_dtype_t = 0;
pub const TCOMM_I8: tcomm_dtype_t = 1;
pub const TCOMM_I32: tcomm_dtype_t = 2;
pub const TCOMM_U32: tcomm_dtype_t = 3;
pub const TCOMM_I64: tcomm_dtype_t = 4;
pub const TCOMM_F16: tcomm_dtype_t = 5;
pub const TCOMM_BF16: tcomm_dtype_t = 6;
pub const TCOMM_F32: tcomm_dtype_t = 7;
pub const TCOMM_F64: tcomm_dtype_t = 8;

pub type tcomm_op_t = c_int;
pub const TCOMM_SUM: tcomm_op_t = 0;
pub const TCOMM_PROD: tcomm_op_t = 1;
pub const TCOMM_MIN: tcomm_op_t = 2;
pub const TCOMM_MAX: tcomm_op_t = 3;
pub const TCOMM_AVG: tcomm_op_t = 4;

pub type tcomm_device_kind_t = c_int;
pub const TCOMM_DEVICE_HOST: tcomm_device_kind_t = 0;
pub const TCOMM_DEVICE_CUDA: tcomm_device_kind_t = 1;

pub type tcomm_comm_attr_t = c_int;
pub const TCOMM_ATTR_CHECK: tcomm_comm_attr_t = 0;
pub const TCOMM_ATTR_DETERMINISTIC: tcomm_comm_attr_t = 1;

pub const TCOMM_MAX_DIMS: usize = 8;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct tcomm_device_t {
    pub kind: tcomm_device_kind_t,
    pub index: c_int,
}

#[repr(C)]
pub struct tcomm_comm_info_t {
    pub rank: c_int,
    pub world_size: c_int,
    pub backend: *const c_char,
    pub cuda_aware: c_int,
}

/// Opaque C objects: only ever behind pointers.
#[repr(C)]
pub struct tcomm_graph_t {
    _private: [u8; 0],
}
#[repr(C)]
pub struct tcomm_tensor_t {
    _private: [u8; 0],
}
#[repr(C)]
pub struct tcomm_comm_t {
    _private: [u8; 0],
}

extern "C" {
    pub fn tcomm_status_string(status: tcomm_status_t) -> *const c_char;
    pub fn tcomm_last_error() -> *const c_char;
    pub fn tcomm_get_version(major: *mut c_int, minor: *mut c_int, patch: *mut c_int);
    pub fn tcomm_dtype_size(dtype: tcomm_dtype_t) -> usize;

    pub fn tcomm_graph_create(
        device: tcomm_device_t,
        graph: *mut *mut tcomm_graph_t,
    ) -> tcomm_status_t;
    pub fn tcomm_graph_destroy(graph: *mut tcomm_graph_t) -> tcomm_status_t;
    pub fn tcomm_graph_id(graph: *const tcomm_graph_t) -> u64;
    pub fn tcomm_graph_device(graph: *const tcomm_graph_t) -> tcomm_device_t;

    pub fn tcomm_tensor_from_host(
        graph: *mut tcomm_graph_t,
        dtype: tcomm_dtype_t,
        data: *const c_void,
        ndim: c_int,
        shape: *const usize,
        tensor: *mut *mut tcomm_tensor_t,
    ) -> tcomm_status_t;
    pub fn tcomm_tensor_const_like(
        anchor: *const tcomm_tensor_t,
        dtype: tcomm_dtype_t,
        data: *const c_void,
        ndim: c_int,
        shape: *const usize,
        tensor: *mut *mut tcomm_tensor_t,
    ) -> tcomm_status_t;
    pub fn tcomm_tensor_empty(
        graph: *mut tcomm_graph_t,
        dtype: tcomm_dtype_t,
        ndim: c_int,
        shape: *const usize,
        tensor: *mut *mut tcomm_tensor_t,
    ) -> tcomm_status_t;
    pub fn tcomm_tensor_retain(tensor: *mut tcomm_tensor_t) -> *mut tcomm_tensor_t;
    pub fn tcomm_tensor_release(tensor: *mut tcomm_tensor_t);
    pub fn tcomm_tensor_graph_id(tensor: *const tcomm_tensor_t) -> u64;
    pub fn tcomm_tensor_dtype(tensor: *const tcomm_tensor_t) -> tcomm_dtype_t;
    pub fn tcomm_tensor_ndim(tensor: *const tcomm_tensor_t) -> c_int;
    pub fn tcomm_tensor_dim(tensor: *const tcomm_tensor_t, axis: c_int) -> usize;
    pub fn tcomm_tensor_numel(tensor: *const tcomm_tensor_t) -> usize;
    pub fn tcomm_tensor_to_host(
        tensor: *const tcomm_tensor_t,
        dst: *mut c_void,
        dst_bytes: usize,
    ) -> tcomm_status_t;
    pub fn tcomm_tensor_add(
        a: *const tcomm_tensor_t,
        b: *const tcomm_tensor_t,
        sum: *mut *mut tcomm_tensor_t,
    ) -> tcomm_status_t;

    pub fn tcomm_comm_create_identity(comm: *mut *mut tcomm_comm_t) -> tcomm_status_t;
    pub fn tcomm_comm_create_local(
        world_size: c_int,
        comms: *mut *mut tcomm_comm_t,
    ) -> tcomm_status_t;
    pub fn tcomm_comm_info(
        comm: *const tcomm_comm_t,
        info: *mut tcomm_comm_info_t,
    ) -> tcomm_status_t;
    pub fn tcomm_comm_destroy(comm: *mut tcomm_comm_t) -> tcomm_status_t;
    pub fn tcomm_comm_set_attr(
        comm: *mut tcomm_comm_t,
        attr: tcomm_comm_attr_t,
        value: c_int,
    ) -> tcomm_status_t;
    pub fn tcomm_comm_get_attr(
        comm: *const tcomm_comm_t,
        attr: tcomm_comm_attr_t,
        value: *mut c_int,
    ) -> tcomm_status_t;

    pub fn tcomm_all_reduce(
        comm: *mut tcomm_comm_t,
        input: *const tcomm_tensor_t,
        op: tcomm_op_t,
        out: *mut *mut tcomm_tensor_t,
    ) -> tcomm_status_t;
    pub fn tcomm_all_gather(
        comm: *mut tcomm_comm_t,
        input: *const tcomm_tensor_t,
        dim: c_int,
        out: *mut *mut tcomm_tensor_t,
    ) -> tcomm_status_t;
    pub fn tcomm_reduce_scatter(
        comm: *mut tcomm_comm_t,
        input: *const tcomm_tensor_t,
        op: tcomm_op_t,
        dim: c_int,
        out: *mut *mut tcomm_tensor_t,
    ) -> tcomm_status_t;
    pub fn tcomm_broadcast(
        comm: *mut tcomm_comm_t,
        input: *const tcomm_tensor_t,
        root: c_int,
        out: *mut *mut tcomm_tensor_t,
    ) -> tcomm_status_t;
    pub fn tcomm_barrier(comm: *mut tcomm_comm_t) -> tcomm_status_t;

    pub fn tcomm_all_reduce_into(
        comm: *mut tcomm_comm_t,
        input: *const tcomm_tensor_t,
        op: tcomm_op_t,
        out: *mut tcomm_tensor_t,
    ) -> tcomm_status_t;
    pub fn tcomm_all_gather_into(
        comm: *mut tcomm_comm_t,
        input: *const tcomm_tensor_t,
        dim: c_int,
        out: *mut tcomm_tensor_t,
    ) -> tcomm_status_t;
    pub fn tcomm_reduce_scatter_into(
        comm: *mut tcomm_comm_t,
        input: *const tcomm_tensor_t,
        op: tcomm_op_t,
        dim: c_int,
        out: *mut tcomm_tensor_t,
    ) -> tcomm_status_t;
    pub fn tcomm_broadcast_into(
        comm: *mut tcomm_comm_t,
        input: *const tcomm_tensor_t,
        root: c_int,
        out: *mut tcomm_tensor_t,
    ) -> tcomm_status_t;
}

// csrc/mpi_shim.c, compiled with the MPI's wrapper by build.rs.
extern "C" {
    pub fn tcomm_rs_mpi_init(provided: *mut c_int) -> c_int;
    pub fn tcomm_rs_mpi_finalize() -> c_int;
    pub fn tcomm_rs_mpi_active() -> c_int;
    pub fn tcomm_rs_mpi_comm_size() -> usize;
    pub fn tcomm_rs_comm_world(comm: *mut *mut tcomm_comm_t) -> tcomm_status_t;
    pub fn tcomm_rs_comm_from_raw(
        handle: *const c_void,
        comm: *mut *mut tcomm_comm_t,
    ) -> tcomm_status_t;
    pub fn tcomm_rs_comm_from_fint(handle: c_int, comm: *mut *mut tcomm_comm_t) -> tcomm_status_t;
    /// MPI_COMM_WORLD into `dst` (tcomm_rs_mpi_comm_size() bytes).
    pub fn tcomm_rs_mpi_world_raw(dst: *mut c_void);
    /// MPI_Comm_c2f(MPI_COMM_WORLD).
    pub fn tcomm_rs_mpi_world_fint() -> c_int;
}

/// Contract 0.2: all_to_all, the uneven forms, the nonblocking calls.
#[repr(C)]
pub struct tcomm_request_t {
    _private: [u8; 0],
}

extern "C" {
    pub fn tcomm_all_to_all(
        comm: *mut tcomm_comm_t,
        input: *const tcomm_tensor_t,
        split_dim: c_int,
        concat_dim: c_int,
        out: *mut *mut tcomm_tensor_t,
    ) -> tcomm_status_t;
    pub fn tcomm_all_to_all_into(
        comm: *mut tcomm_comm_t,
        input: *const tcomm_tensor_t,
        split_dim: c_int,
        concat_dim: c_int,
        out: *mut tcomm_tensor_t,
    ) -> tcomm_status_t;
    pub fn tcomm_all_to_all_v(
        comm: *mut tcomm_comm_t,
        input: *const tcomm_tensor_t,
        split_dim: c_int,
        send_sizes: *const usize,
        concat_dim: c_int,
        out: *mut *mut tcomm_tensor_t,
    ) -> tcomm_status_t;
    pub fn tcomm_reduce_scatter_v(
        comm: *mut tcomm_comm_t,
        input: *const tcomm_tensor_t,
        op: tcomm_op_t,
        dim: c_int,
        sizes: *const usize,
        out: *mut *mut tcomm_tensor_t,
    ) -> tcomm_status_t;

    pub fn tcomm_all_reduce_start(
        comm: *mut tcomm_comm_t,
        input: *const tcomm_tensor_t,
        op: tcomm_op_t,
        out: *mut tcomm_tensor_t,
        req: *mut *mut tcomm_request_t,
    ) -> tcomm_status_t;
    pub fn tcomm_all_gather_start(
        comm: *mut tcomm_comm_t,
        input: *const tcomm_tensor_t,
        dim: c_int,
        out: *mut tcomm_tensor_t,
        req: *mut *mut tcomm_request_t,
    ) -> tcomm_status_t;
    pub fn tcomm_reduce_scatter_start(
        comm: *mut tcomm_comm_t,
        input: *const tcomm_tensor_t,
        op: tcomm_op_t,
        dim: c_int,
        out: *mut tcomm_tensor_t,
        req: *mut *mut tcomm_request_t,
    ) -> tcomm_status_t;
    pub fn tcomm_broadcast_start(
        comm: *mut tcomm_comm_t,
        input: *const tcomm_tensor_t,
        root: c_int,
        out: *mut tcomm_tensor_t,
        req: *mut *mut tcomm_request_t,
    ) -> tcomm_status_t;
    pub fn tcomm_all_to_all_start(
        comm: *mut tcomm_comm_t,
        input: *const tcomm_tensor_t,
        split_dim: c_int,
        concat_dim: c_int,
        out: *mut tcomm_tensor_t,
        req: *mut *mut tcomm_request_t,
    ) -> tcomm_status_t;
    pub fn tcomm_barrier_start(
        comm: *mut tcomm_comm_t,
        req: *mut *mut tcomm_request_t,
    ) -> tcomm_status_t;
    pub fn tcomm_wait(req: *mut *mut tcomm_request_t) -> tcomm_status_t;
    pub fn tcomm_test(req: *mut *mut tcomm_request_t, done: *mut c_int) -> tcomm_status_t;
}
