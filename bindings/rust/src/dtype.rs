// SPDX-License-Identifier: BSD-3-Clause
//! `DType`: the element types of tensors.
use crate::ffi;

/// Element types: the C API's `tcomm_dtype_t`. `F16` (IEEE binary16) and
/// `BF16` (bfloat16) travel as their bits in `u16`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DType {
    /// u8
    U8,
    /// i8
    I8,
    /// i32
    I32,
    /// u32
    U32,
    /// i64
    I64,
    /// IEEE binary16, as u16 bits
    F16,
    /// bfloat16, as u16 bits
    BF16,
    /// f32
    F32,
    /// f64
    F64,
}

impl DType {
    pub(crate) fn code(self) -> ffi::tcomm_dtype_t {
        match self {
            DType::U8 => ffi::TCOMM_U8,
            DType::I8 => ffi::TCOMM_I8,
            DType::I32 => ffi::TCOMM_I32,
            DType::U32 => ffi::TCOMM_U32,
            DType::I64 => ffi::TCOMM_I64,
            DType::F16 => ffi::TCOMM_F16,
            DType::BF16 => ffi::TCOMM_BF16,
            DType::F32 => ffi::TCOMM_F32,
            DType::F64 => ffi::TCOMM_F64,
        }
    }

    pub(crate) fn from_code(code: ffi::tcomm_dtype_t) -> DType {
        match code {
            ffi::TCOMM_U8 => DType::U8,
            ffi::TCOMM_I8 => DType::I8,
            ffi::TCOMM_I32 => DType::I32,
            ffi::TCOMM_U32 => DType::U32,
            ffi::TCOMM_I64 => DType::I64,
            ffi::TCOMM_F16 => DType::F16,
            ffi::TCOMM_BF16 => DType::BF16,
            ffi::TCOMM_F32 => DType::F32,
            _ => DType::F64,
        }
    }

    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            DType::U8 | DType::I8 => 1,
            DType::F16 | DType::BF16 => 2,
            DType::I32 | DType::U32 | DType::F32 => 4,
            DType::I64 | DType::F64 => 8,
        }
    }

    /// The short name tcomm uses: "f32", "bf16", ...
    pub fn name(self) -> &'static str {
        match self {
            DType::U8 => "u8",
            DType::I8 => "i8",
            DType::I32 => "i32",
            DType::U32 => "u32",
            DType::I64 => "i64",
            DType::F16 => "f16",
            DType::BF16 => "bf16",
            DType::F32 => "f32",
            DType::F64 => "f64",
        }
    }
}
