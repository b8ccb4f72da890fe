# SPDX-License-Identifier: BSD-3-Clause
"""mpi4py communicators, and threads with their own communicators while
the GIL is released."""
import threading

import numpy as np
import pytest

import tcomm
from tcomm import _mpi4py
from conftest import MPI_MODE, run_local, world


def mpi4py_or_skip():
    if not MPI_MODE:
        pytest.skip("mpi4py tests run under mpirun (TCOMM_PY_MODE=mpi)")
    why = _mpi4py.unusable()
    if why:
        pytest.skip(why)
    from mpi4py import MPI
    return MPI


def test_mpi4py_sub_communicator():
    MPI = mpi4py_or_skip()
    w = MPI.COMM_WORLD
    color = w.rank % 2
    sub = w.Split(color, -w.rank)  # reversed rank order
    c = tcomm.Communicator(sub)
    assert (c.rank, c.size) == (sub.rank, sub.size)
    got = c.all_gather(np.array([w.rank], np.int64))
    want = sorted((r for r in range(w.size) if r % 2 == color),
                  reverse=True)
    np.testing.assert_array_equal(got, want)
    # the same numpy buffers through mpi4py agree
    x = np.arange(4, dtype=np.float64) + w.rank
    ref = np.empty_like(x)
    sub.Allreduce(x, ref)
    np.testing.assert_array_equal(c.all_reduce(x), ref)
    c.close()
    sub.Free()


def test_not_an_mpi4py_communicator():
    with pytest.raises(TypeError):
        tcomm.Communicator("MPI_COMM_WORLD")


def test_threads_with_own_communicators():
    """Two groups of local ranks, each rank a thread: 6 threads in
    collectives at once need the GIL released."""
    def group(n, results, i):
        def fn(c):
            for _ in range(20):
                y = c.all_reduce(np.full(1000, c.rank + 1.0))
            assert y[0] == n * (n + 1) / 2
        run_local(fn, n)
        results[i] = True

    results = [False, False]
    ts = [threading.Thread(target=group, args=(n, results, i))
          for i, n in enumerate((2, 4))]
    for t in ts:
        t.start()
    for t in ts:
        t.join(120)
    assert results == [True, True]


def test_mpi_threads_with_own_communicators():
    if not MPI_MODE:
        pytest.skip("MPI threads run under mpirun (TCOMM_PY_MODE=mpi)")
    w = world()
    comms = [tcomm.Communicator(), tcomm.Communicator()]
    out = [None, None]

    def body(i):
        for _ in range(20):
            out[i] = comms[i].all_reduce(np.full(100, i + w.rank, np.int64))

    ts = [threading.Thread(target=body, args=(i,)) for i in (0, 1)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(120)
    for i in (0, 1):
        assert out[i][0] == sum(i + r for r in range(w.size))
        comms[i].close()
