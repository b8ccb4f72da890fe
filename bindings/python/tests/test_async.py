# SPDX-License-Identifier: BSD-3-Clause
"""async_op=True: several requests outstanding, waited in every order."""
import itertools

import numpy as np

from conftest import data


def start_three(c):
    n = c.size
    a = data(c.rank, (5,), np.float32)
    b = data(c.rank, (2, 3), np.int64)
    d = data(c.rank, (2 * n, 2), np.float64)
    reqs = [c.all_reduce(a, op="sum", async_op=True),
            c.all_gather(b, dim=1, async_op=True),
            c.reduce_scatter(d, op="max", dim=0, async_op=True)]
    want = [sum(data(r, (5,), np.float32) for r in range(n)),
            np.concatenate([data(r, (2, 3), np.int64) for r in range(n)], 1),
            np.split(np.max([data(r, (2 * n, 2), np.float64)
                             for r in range(n)], 0), n, 0)[c.rank]]
    return reqs, want


def test_orders(ranks):
    def fn(c):
        for order in itertools.permutations(range(3)):
            reqs, want = start_three(c)
            for i in order:
                np.testing.assert_array_equal(reqs[i].wait(), want[i])
    ranks(fn)


def test_test_then_wait(ranks):
    def fn(c):
        reqs, want = start_three(c)
        b = c.barrier(async_op=True)
        while not all([r.test() for r in reqs]):
            pass
        assert b.wait() is None
        for r, w in zip(reqs, want):
            np.testing.assert_array_equal(r.wait(), w)  # again: same result
    ranks(fn)


def test_in_place_broadcast_and_all_to_all(ranks):
    def fn(c):
        x = data(c.rank, (3,), np.float32)
        y = data(c.rank, (2 * c.size,), np.int32)
        want_y = c.all_to_all(y)
        r1 = c.broadcast(x, root=c.size - 1, out=x, async_op=True)
        r2 = c.all_to_all(y, out=y, async_op=True)
        r2.wait()
        assert r1.wait() is x
        np.testing.assert_array_equal(x, data(c.size - 1, (3,), np.float32))
        np.testing.assert_array_equal(y, want_y)
    ranks(fn)


def test_request_keeps_arrays(ranks):
    def fn(c):
        req = c.all_reduce(data(c.rank, (1000,), np.float64), async_op=True)
        # the input's only reference is the request's
        want = sum(data(r, (1000,), np.float64) for r in range(c.size))
        np.testing.assert_array_equal(req.wait(), want)
    ranks(fn)


def test_uneven_async_completes(ranks):
    def fn(c):
        sizes = [1] * c.size
        req = c.reduce_scatter_v(np.ones(c.size), sizes, async_op=True)
        assert req.test()
        np.testing.assert_array_equal(req.wait(), [float(c.size)])
    ranks(fn)
