# SPDX-License-Identifier: BSD-3-Clause
"""tcomm.Communicator: the contract's methods over the C API."""
import atexit
import weakref

import numpy as np

from . import _tcomm
from ._arrays import DTYPES, as_input, check_out, norm_dim, from_result

# the collectives as _tcomm.h numbers them
ALL_REDUCE, ALL_GATHER, REDUCE_SCATTER, BROADCAST, ALL_TO_ALL, \
    ALL_TO_ALL_V, REDUCE_SCATTER_V = range(7)
OPS = {"sum": 0, "prod": 1, "min": 2, "max": 3, "avg": 4}

_live = weakref.WeakSet()  # closed at exit, before MPI_Finalize
_we_initialised_mpi = False


def _at_exit():
    for c in list(_live):
        c.close()
    if _we_initialised_mpi:
        _tcomm.mpi_finalize()


atexit.register(_at_exit)


class Done:
    """The request of a call that completed when it returned (the uneven
    forms, which have no nonblocking C call): wait() gives the result."""

    def __init__(self, result):
        self._result = result

    def wait(self):
        """The result array."""
        return self._result

    def test(self):
        """True: complete."""
        return True


def _op(op):
    code = OPS.get(op) if isinstance(op, str) else None
    if code is None:
        raise ValueError(f"tcomm: op {op!r} is not one of "
                         f"{', '.join(map(repr, OPS))}")
    return code


def _sizes(sizes, n, name):
    sizes = [int(s) for s in sizes]
    if len(sizes) != n or min(sizes, default=0) < 0:
        raise ValueError(f"tcomm: {name} must be {n} non-negative ints "
                         f"(one per rank), got {sizes}")
    return sizes


class Communicator:
    """A tcomm communicator: MPI's world, an mpi4py communicator's group,
    or one rank of the local backend (Communicator.local).

    Every collective takes a numpy array or any object with ``__dlpack__``
    and returns a fresh C-contiguous numpy array of its dtype (inputs are
    never changed); ``out=`` writes into a preallocated array instead
    (``out=x`` in place where the C API allows it: all_reduce, broadcast,
    all_to_all), ``async_op=True`` returns a request (``wait()``,
    ``test()``). A failure raises tcomm.Error on every rank; a mistake in
    Python terms raises ValueError or TypeError on the rank that made it
    (the others get tcomm.Error, TCOMM_ERR_MISMATCH) before data moves.
    """

    def __init__(self, comm=None):
        """Communicator() is over MPI_COMM_WORLD, initialising MPI if
        nobody has (and then finalising it at exit);
        Communicator(mpi4py_comm) is over that communicator (tcomm
        duplicates it, as MPI libraries do). Collective over the group."""
        global _we_initialised_mpi
        if isinstance(comm, _tcomm.Comm):
            c = comm
        elif comm is None:
            if _tcomm.mpi_init():
                _we_initialised_mpi = True
            c = _tcomm.mpi_world()
        else:
            c = _tcomm.mpi_from_handle(_mpi4py_handle(comm))
        self._c = c
        self.rank, self.size, self.backend = c.info()
        _live.add(self)

    @classmethod
    def local(cls, n):
        """n communicators of the local backend: ranks as threads of this
        process (rank r is element r; run each in its own thread)."""
        return [cls(c) for c in _tcomm.local(n)]

    def info(self):
        """(rank, size)."""
        return self.rank, self.size

    def close(self):
        """Destroy the communicator now (else when collected or at exit)."""
        self._c.close()

    def __repr__(self):
        return (f"<tcomm.Communicator {self.backend} rank {self.rank} of "
                f"{self.size}>")

    def _refuse(self, kind, exc):
        # fail the other ranks' call too rather than leave them waiting
        self._c.reject(kind)
        raise exc

    def _into(self, kind, x, out, a, b, async_op):
        try:
            y, code = as_input(x)
            if out is None:
                # np.empty, not the arena: tcomm.empty per call measured
                # slower (its allocation and zeroing, 16 KiB-1 MiB:
                # +5-85 us) with the input still numpy's
                out = np.empty(self._shape(kind, y, a, b), y.dtype)
            elif out is x and y is x:
                out = y
            else:
                check_out(out, y)
        except (TypeError, ValueError) as e:
            self._refuse(kind, e)
        r = self._c.into(kind, y, out, code, a, b, async_op)
        return r if async_op else out

    def _shape(self, kind, y, a, b):
        shape = list(y.shape)
        if kind == ALL_GATHER:
            shape[a] *= self.size
        elif kind == REDUCE_SCATTER:
            shape[b] //= self.size
        elif kind == ALL_TO_ALL and a != b:
            shape[a] //= self.size
            shape[b] *= self.size
        return shape

    def _alloc(self, kind, x, a, b, sizes, out, async_op):
        res, shape = self._c.alloc(kind, x, DTYPES[x.dtype], a, b, sizes)
        y = from_result(res, shape, x.dtype)
        if out is not None:
            if out.shape != y.shape:
                raise ValueError(f"tcomm: out has shape {out.shape}, the "
                                 f"result {y.shape}")
            np.copyto(out, y)
            y = out
        return Done(y) if async_op else y

    def all_reduce(self, x, op="sum", out=None, async_op=False):
        """Element-wise reduction of every rank's x, on every rank.

        op: "sum", "prod", "min", "max" (NaN propagates) or "avg" (floating
        dtypes). ``comm.all_reduce(x, out=x)`` reduces in place.

        >>> y = comm.all_reduce(np.ones(4, np.float32))   # == comm.size
        """
        try:
            a = _op(op)
        except ValueError as e:
            self._refuse(ALL_REDUCE, e)
        return self._into(ALL_REDUCE, x, out, a, 0, async_op)

    def all_gather(self, x, dim=0, out=None, async_op=False):
        """Every rank's x concatenated along dim, in rank order; sizes
        along dim may differ between ranks (async_op needs out= then).

        >>> comm.all_gather(np.full(2, comm.rank)).tolist()  # 2 ranks
        [0, 0, 1, 1]
        """
        try:
            y, _ = as_input(x)
            d = norm_dim(dim, y.ndim)
            if out is not None:
                check_out(out, y)
        except (TypeError, ValueError) as e:
            self._refuse(ALL_GATHER, e)
        if async_op or out is not None:
            return self._into(ALL_GATHER, y, out, d, 0, async_op)
        return self._alloc(ALL_GATHER, y, d, 0, None, None, False)

    def reduce_scatter(self, x, op="sum", dim=0, out=None, async_op=False):
        """Reduce every rank's x, then rank r keeps the r-th of size equal
        chunks along dim (the size along dim must divide by comm.size).

        >>> comm.reduce_scatter(np.arange(4.0), dim=0)  # 2 ranks, rank 0
        array([0., 2.])
        """
        try:
            a = _op(op)
            d = norm_dim(dim, as_input(x)[0].ndim)
        except (TypeError, ValueError) as e:
            self._refuse(REDUCE_SCATTER, e)
        return self._into(REDUCE_SCATTER, x, out, a, d, async_op)

    def broadcast(self, x, root=0, out=None, async_op=False):
        """root's x on every rank (every rank passes root's shape and
        dtype; the others' values are ignored). ``out=x`` in place."""
        try:
            if not isinstance(root, (int, np.integer)) or \
                    not 0 <= root < self.size:
                raise ValueError(f"tcomm: root {root!r} is not a rank "
                                 f"(use 0..{self.size - 1})")
        except ValueError as e:
            self._refuse(BROADCAST, e)
        return self._into(BROADCAST, x, out, int(root), 0, async_op)

    def all_to_all(self, x, split_dim=0, concat_dim=0, out=None,
                   async_op=False):
        """Split x along split_dim into comm.size equal chunks, chunk j to
        rank j; each rank concatenates what it receives, in rank order,
        along concat_dim. ``out=x`` in place (when the shapes agree)."""
        try:
            nd = as_input(x)[0].ndim
            a = norm_dim(split_dim, nd, "split_dim")
            b = norm_dim(concat_dim, nd, "concat_dim")
        except (TypeError, ValueError) as e:
            self._refuse(ALL_TO_ALL, e)
        return self._into(ALL_TO_ALL, x, out, a, b, async_op)

    def all_to_all_v(self, x, send_sizes, split_dim=0, concat_dim=0,
                     out=None, async_op=False):
        """Uneven all_to_all: send_sizes[j] (one per rank, adding up to x's
        size along split_dim) is the size of the chunk sent to rank j.
        split_dim == concat_dim: the ranks' send_sizes may differ (token
        exchange); otherwise they must agree (a pencil transpose).
        async_op returns a request that is already complete."""
        try:
            y, _ = as_input(x)
            a = norm_dim(split_dim, y.ndim, "split_dim")
            b = norm_dim(concat_dim, y.ndim, "concat_dim")
            s = _sizes(send_sizes, self.size, "send_sizes")
            if out is not None:
                check_out(out, y)
        except (TypeError, ValueError) as e:
            self._refuse(ALL_TO_ALL_V, e)
        return self._alloc(ALL_TO_ALL_V, y, a, b, s, out, async_op)

    def reduce_scatter_v(self, x, sizes, op="sum", dim=0, out=None,
                         async_op=False):
        """Uneven reduce_scatter: rank r keeps sizes[r] along dim (the same
        sizes on every rank, adding up to x's size along dim). async_op
        returns a request that is already complete."""
        try:
            y, _ = as_input(x)
            a = _op(op)
            d = norm_dim(dim, y.ndim)
            s = _sizes(sizes, self.size, "sizes")
            if out is not None:
                check_out(out, y)
        except (TypeError, ValueError) as e:
            self._refuse(REDUCE_SCATTER_V, e)
        return self._alloc(REDUCE_SCATTER_V, y, a, d, s, out, async_op)

    def barrier(self, async_op=False):
        """Block until every rank arrives (async_op: a request)."""
        return self._c.barrier_(async_op)


def _mpi4py_handle(comm):
    """The MPI_Comm of an mpi4py communicator, if it runs on our MPI."""
    try:
        from mpi4py import MPI
    except ImportError:
        raise TypeError("tcomm: Communicator(comm) takes an mpi4py "
                        "communicator, and mpi4py is not installed")
    if not isinstance(comm, MPI.Comm):
        raise TypeError("tcomm: Communicator(comm) takes an mpi4py "
                        f"communicator, got {type(comm).__name__}")
    theirs, ours = MPI.Get_library_version(), _tcomm.mpi_library()
    if theirs.split("\n")[0] != ours.split("\n")[0]:
        raise ValueError("tcomm: mpi4py runs on another MPI than tcomm ("
                         f"{theirs.splitlines()[0]!r} vs "
                         f"{ours.splitlines()[0]!r}); its handles mean "
                         "nothing here")
    return MPI._handleof(comm)

