# SPDX-License-Identifier: BSD-3-Clause
"""numpy dtypes and inputs as tcomm sees them."""
import numpy as np

from . import _tcomm

# numpy dtype -> tcomm_dtype_t (include/tcomm.h's order)
DTYPES = {
    np.dtype(np.uint8): 0,
    np.dtype(np.int8): 1,
    np.dtype(np.int32): 2,
    np.dtype(np.uint32): 3,
    np.dtype(np.int64): 4,
    np.dtype(np.float16): 5,
    np.dtype(np.float32): 7,
    np.dtype(np.float64): 8,
}
BF16 = 6
try:  # bfloat16 only where ml_dtypes is installed (not a dependency)
    import ml_dtypes

    bfloat16 = np.dtype(ml_dtypes.bfloat16)
    DTYPES[bfloat16] = BF16
except ImportError:
    bfloat16 = None

MAX_DIMS = 8


def as_input(x):
    """(C-contiguous ndarray over x's data or a copy, tcomm dtype code).

    x is a numpy array or any object with ``__dlpack__`` (a CPU torch
    tensor: read through np.from_dlpack without a copy or an import of
    torch). Raises TypeError for anything else or an unsupported dtype.
    """
    if not isinstance(x, np.ndarray):
        if not hasattr(x, "__dlpack__"):
            raise TypeError(
                "tcomm: expected a numpy array or an object with "
                f"__dlpack__, got {type(x).__name__}")
        x = np.from_dlpack(x)
    code = DTYPES.get(x.dtype)
    if code is None:
        names = ", ".join(str(d) for d in DTYPES)
        raise TypeError(f"tcomm: dtype {x.dtype} is not supported (use "
                        f"one of {names}; bfloat16 needs ml_dtypes)")
    if x.ndim > MAX_DIMS:
        raise ValueError(f"tcomm: {x.ndim} dimensions, at most {MAX_DIMS}")
    if not x.flags.c_contiguous:
        x = np.ascontiguousarray(x)
    return x, code


def check_out(out, x):
    """out= must be a writable C-contiguous ndarray of x's dtype."""
    if not isinstance(out, np.ndarray):
        raise TypeError("tcomm: out must be a numpy array, got "
                        f"{type(out).__name__}")
    if out.dtype != x.dtype:
        raise TypeError(f"tcomm: out has dtype {out.dtype}, the input "
                        f"{x.dtype}")
    if not out.flags.c_contiguous or not out.flags.writeable:
        raise ValueError("tcomm: out must be C-contiguous and writable")


def norm_dim(dim, ndim, name="dim"):
    """dim in -ndim..ndim-1 as 0..ndim-1, else ValueError."""
    if not isinstance(dim, (int, np.integer)) or isinstance(dim, bool):
        raise TypeError(f"tcomm: {name} must be an int, got "
                        f"{type(dim).__name__}")
    if not -ndim <= dim < ndim:
        raise ValueError(f"tcomm: {name} {dim} is out of range for a "
                         f"{ndim}-dimensional array (use 0..{ndim - 1})")
    return int(dim) % ndim


def from_result(res, shape, dtype):
    """A numpy array over a tcomm-allocated result (no copy)."""
    if not shape or 0 not in shape:
        return np.frombuffer(res, dtype=dtype).reshape(shape)
    return np.empty(shape, dtype)


def empty(shape, dtype=np.float32):
    """A zero-filled C-contiguous array in tcomm's shared memory arena.

    Collectives on it can take tcomm's single-copy shared-memory paths
    (the node's peers map the arena), where an array numpy allocated is
    foreign memory to them (cross-memory attach or MPI, with other size
    gates); mpi4py and numpy use it like any array. The memory lives as
    long as the array (its base) does.
    """
    dtype = np.dtype(dtype)
    shape = (shape,) if isinstance(shape, (int, np.integer)) else \
        tuple(shape)
    n = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    if n == 0:
        return np.empty(shape, dtype)
    return np.frombuffer(_tcomm.empty(n), dtype).reshape(shape)
