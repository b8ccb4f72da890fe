# SPDX-License-Identifier: BSD-3-Clause
"""Every method against numpy references: every dtype and op, dims 0..2,
uneven forms, out= and in place, non-contiguous and DLPack inputs."""
import numpy as np
import pytest

from conftest import data, dtypes, bf16_or_skip

REDUCE = {"sum": np.sum, "prod": np.prod, "min": np.min, "max": np.max}
SHAPES = [(), (6,), (4, 6), (2, 4, 6)]


def reference(op, n, shape, dtype):
    xs = np.stack([data(r, shape, np.float64) for r in range(n)])
    if op == "avg":
        return (xs.sum(axis=0) / n).astype(dtype)
    return REDUCE[op](xs, axis=0).astype(dtype)


def close(got, want):
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.flags.c_contiguous
    tol = 1e-2 if got.dtype.itemsize <= 2 and got.dtype.kind == "f" \
        else 1e-6
    np.testing.assert_allclose(got.astype(np.float64),
                               want.astype(np.float64), rtol=tol)


def pairs(ops):
    """(dtype, op) but avg of integers (an error: test_errors.py)."""
    return [(d, op) for d in dtypes() for op in ops
            if not (op == "avg" and d.kind in "iu")]


@pytest.mark.parametrize("dtype,op", pairs(["sum", "prod", "min", "max",
                                            "avg"]), ids=str)
def test_all_reduce(ranks, dtype, op):
    def fn(c):
        for shape in SHAPES:
            x = data(c.rank, shape, dtype)
            keep = x.copy()
            y = c.all_reduce(x, op=op)
            close(y, reference(op, c.size, shape, dtype))
            assert np.array_equal(x, keep) and not np.shares_memory(x, y)
    ranks(fn)


def test_all_reduce_out_and_in_place(ranks):
    def fn(c):
        x = data(c.rank, (3, 4), np.float32)
        out = np.zeros_like(x)
        assert c.all_reduce(x, op="max", out=out) is out
        close(out, reference("max", c.size, (3, 4), np.float32))
        assert c.all_reduce(x, out=x) is x
        close(x, reference("sum", c.size, (3, 4), np.float32))
    ranks(fn)


def test_nan_propagates(ranks):
    def fn(c):
        x = np.array([1.0, 2.0], np.float32)
        if c.rank == c.size - 1:
            x[0] = np.nan
        for op in ("min", "max"):
            y = c.all_reduce(x, op=op)
            assert np.isnan(y[0]) and y[1] == 2.0
    ranks(fn)


@pytest.mark.parametrize("dtype", dtypes(), ids=str)
def test_all_gather(ranks, dtype):
    def fn(c):
        for shape in SHAPES[1:]:
            for dim in range(len(shape)):
                x = data(c.rank, shape, dtype)
                want = np.concatenate(
                    [data(r, shape, dtype) for r in range(c.size)], dim)
                close(c.all_gather(x, dim=dim), want)
                out = np.empty(want.shape, dtype)
                assert c.all_gather(x, dim=dim, out=out) is out
                close(out, want)
    ranks(fn)


def test_all_gather_uneven(ranks):
    def fn(c):
        for dim in range(3):
            shape = [2, 3, 4]
            shape[dim] = c.rank + 1
            x = data(c.rank, shape, np.int32)
            parts = []
            for r in range(c.size):
                s = [2, 3, 4]
                s[dim] = r + 1
                parts.append(data(r, s, np.int32))
            close(c.all_gather(x, dim=dim), np.concatenate(parts, dim))
    ranks(fn)


@pytest.mark.parametrize("dtype,op", pairs(["sum", "min", "max", "avg"]),
                         ids=str)
def test_reduce_scatter(ranks, dtype, op):
    def fn(c):
        for nd in (1, 2, 3):
            for dim in range(nd):
                shape = [2] * nd
                shape[dim] = 2 * c.size
                x = data(c.rank, shape, dtype)
                full = reference(op, c.size, shape, dtype)
                want = np.split(full, c.size, axis=dim)[c.rank]
                close(c.reduce_scatter(x, op=op, dim=dim), want)
                out = np.empty(want.shape, dtype)
                c.reduce_scatter(x, op=op, dim=dim, out=out)
                close(out, want)
    ranks(fn)


@pytest.mark.parametrize("dtype", dtypes(), ids=str)
def test_broadcast(ranks, dtype):
    def fn(c):
        for root in range(c.size):
            for shape in SHAPES:
                x = data(c.rank, shape, dtype)
                want = data(root, shape, dtype)
                close(c.broadcast(x, root=root), want)
                c.broadcast(x, root=root, out=x)
                close(x, want)
    ranks(fn)


def test_all_to_all(ranks):
    def fn(c):
        n = c.size
        for split, concat in [(0, 0), (0, 1), (1, 0), (2, 1)]:
            shape = [2, 2, 2]
            shape[split] = 2 * n
            x = data(c.rank, shape, np.float64)
            mine = [np.split(data(r, shape, np.float64), n, split)[c.rank]
                    for r in range(n)]
            want = np.concatenate(mine, concat)
            close(c.all_to_all(x, split_dim=split, concat_dim=concat), want)
            out = np.empty(want.shape)
            c.all_to_all(x, split_dim=split, concat_dim=concat, out=out)
            close(out, want)
        x = data(c.rank, (2 * n,), np.int64)
        want = c.all_to_all(x)
        c.all_to_all(x, out=x)  # in place
        close(x, want)
    ranks(fn)


def sends(r, n):
    """Rank r's send_sizes: chunk j has (r + j) % 3 rows."""
    return [(r + j) % 3 for j in range(n)]


def test_all_to_all_v_tokens(ranks):
    def fn(c):
        n = c.size
        for dim in (0, 1):
            def x_of(r):
                shape = [3, 3]
                shape[dim] = sum(sends(r, n))
                return data(r, shape, np.float32)
            offs = [np.cumsum([0] + sends(r, n)) for r in range(n)]
            want = np.concatenate(
                [np.take(x_of(r), range(offs[r][c.rank],
                                        offs[r][c.rank + 1]), axis=dim)
                 for r in range(n)], dim)
            y = c.all_to_all_v(x_of(c.rank), sends(c.rank, n),
                               split_dim=dim, concat_dim=dim)
            close(y, want)
    ranks(fn)


def test_all_to_all_v_transpose(ranks):
    def fn(c):
        n = c.size
        sizes = [j % 2 + 1 for j in range(n)]
        offs = np.cumsum([0] + sizes)

        def x_of(r):  # [sum(sizes), r + 1]: uneven along concat_dim 1
            return data(r, (sum(sizes), r + 1), np.int32)
        want = np.concatenate([x_of(r)[offs[c.rank]:offs[c.rank + 1]]
                               for r in range(n)], 1)
        close(c.all_to_all_v(x_of(c.rank), sizes, split_dim=0,
                             concat_dim=1), want)
    ranks(fn)


def test_reduce_scatter_v(ranks):
    def fn(c):
        n = c.size
        sizes = [r % 3 for r in range(n)]  # zero-size chunks too
        offs = np.cumsum([0] + sizes)
        for dim in (0, 1):
            shape = [2, 2]
            shape[dim] = sum(sizes)
            x = data(c.rank, shape, np.float64)
            full = reference("sum", n, shape, np.float64)
            want = np.take(full, range(offs[c.rank], offs[c.rank + 1]),
                           axis=dim)
            close(c.reduce_scatter_v(x, sizes, dim=dim), want)
            out = np.empty(want.shape)
            assert c.reduce_scatter_v(x, sizes, dim=dim, out=out) is out
            close(out, want)
    ranks(fn)


def test_non_contiguous(ranks):
    def fn(c):
        base = data(c.rank, (6, 8), np.float32)
        x = base[::2, 1::3]  # strided view
        keep = base.copy()
        close(c.all_reduce(x), reference("sum", c.size, (6, 8),
                                         np.float32)[::2, 1::3].copy())
        close(c.all_gather(x.T, dim=0), np.concatenate(
            [data(r, (6, 8), np.float32)[::2, 1::3].T
             for r in range(c.size)], 0))
        assert np.array_equal(base, keep)
    ranks(fn)


class OnlyDLPack:
    """An object with only the DLPack protocol (as a CPU torch tensor)."""

    def __init__(self, a):
        self._a = a

    def __dlpack__(self, stream=None):
        return self._a.__dlpack__()

    def __dlpack_device__(self):
        return self._a.__dlpack_device__()


def test_dlpack_inputs(ranks):
    def fn(c):
        x = data(c.rank, (4, 2), np.float64)
        y = c.all_reduce(OnlyDLPack(x), op="sum")
        assert type(y) is np.ndarray
        close(y, reference("sum", c.size, (4, 2), np.float64))
        close(c.broadcast(OnlyDLPack(x), root=0), data(0, (4, 2),
                                                       np.float64))
    ranks(fn)


def test_bfloat16(ranks):
    bf16 = bf16_or_skip()

    def fn(c):
        x = data(c.rank, (5,), bf16)
        close(c.all_reduce(x), reference("sum", c.size, (5,), bf16))
    ranks(fn)


def test_info(ranks):
    def fn(c):
        assert c.info() == (c.rank, c.size)
        assert 0 <= c.rank < c.size
    ranks(fn)


def test_arena_arrays(ranks):
    """tcomm.empty's arrays (tcomm's arena) as inputs, out= and in place,
    past the eager size (where the single-copy paths read them)."""
    import tcomm

    def fn(c):
        n = 4096 * c.size  # past the eager gate; all_to_all splits it
        assert not tcomm.empty((2, 0)).size
        x = tcomm.empty((2, n // 2), np.float32)
        assert x.shape == (2, n // 2) and not x.any()
        x[:] = data(c.rank, x.shape, np.float32)
        want = reference("sum", c.size, x.shape, np.float32)
        close(c.all_reduce(x), want)
        out = tcomm.empty(x.shape, np.float32)
        c.all_reduce(x, out=out)
        close(out, want)
        g = c.all_gather(x, out=tcomm.empty((2 * c.size, n // 2),
                                            np.float32))
        close(g, np.concatenate([data(r, x.shape, np.float32)
                                 for r in range(c.size)]))
        b = x.copy() if c.rank == 0 else tcomm.empty(x.shape, np.float32)
        c.broadcast(b, out=b)
        close(b, data(0, x.shape, np.float32))
        y = c.all_to_all(x.reshape(-1))
        close(y, np.concatenate([np.array_split(
            data(r, x.shape, np.float32).reshape(-1), c.size)[c.rank]
            for r in range(c.size)]))
        del y, g, out  # their tcomm memory goes with them
    ranks(fn)
