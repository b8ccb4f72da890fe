# SPDX-License-Identifier: BSD-3-Clause
"""The tests run one way or the other (bindings/python/python-check.sh):

- TCOMM_PY_MODE=mpi: under mpirun, each process one rank of
  MPI_COMM_WORLD;
- otherwise: Communicator.local(n) for n = 1..4, each rank a thread.

A test takes the fixture `ranks` and calls ranks(fn): fn(comm) runs on
every rank (all threads at once in local mode) and asserts there.
"""
import os
import threading

import numpy as np
import pytest

import tcomm

MPI_MODE = os.environ.get("TCOMM_PY_MODE") == "mpi"
_world = None


def world():
    global _world
    if _world is None:
        _world = tcomm.Communicator()
    return _world


def run_local(fn, n):
    comms = tcomm.Communicator.local(n)
    errors = [None] * n

    def body(c):
        try:
            fn(c)
        except BaseException as e:  # noqa: B902 - re-raised below
            errors[c.rank] = e

    threads = [threading.Thread(target=body, args=(c,)) for c in comms]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
        assert not t.is_alive(), "a rank hangs"
    for c in comms:
        c.close()
    for e in errors:
        if e is not None:
            raise e


if MPI_MODE:
    @pytest.fixture
    def ranks():
        return lambda fn: fn(world())
else:
    @pytest.fixture(params=[1, 2, 3, 4], ids=lambda n: f"local{n}")
    def ranks(request):
        return lambda fn: run_local(fn, request.param)


def data(rank, shape, dtype, salt=0):
    """Rank r's input: small integers (exact in every dtype and op)."""
    n = int(np.prod(shape, dtype=np.int64))
    v = (np.arange(n) * 7 + 3 * rank + salt) % 5 + 1
    return v.reshape(shape).astype(dtype)


def dtypes():
    out = [np.dtype(t) for t in (np.uint8, np.int8, np.int32, np.uint32,
                                  np.int64, np.float16, np.float32,
                                  np.float64)]
    if tcomm.bfloat16 is not None:
        out.append(tcomm.bfloat16)
    return out


def bf16_or_skip():
    if tcomm.bfloat16 is None:
        pytest.skip("bfloat16 needs ml_dtypes, which is not installed "
                    "(not counted as passing)")
    return tcomm.bfloat16
