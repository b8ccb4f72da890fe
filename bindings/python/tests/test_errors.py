# SPDX-License-Identifier: BSD-3-Clause
"""Errors on every rank, with the right status, and no hang."""
import numpy as np
import pytest

import tcomm


def expect(fn, status):
    with pytest.raises(tcomm.Error) as e:
        fn()
    assert e.value.status == status, str(e.value)
    assert str(e.value).startswith("tcomm_"), str(e.value)
    assert isinstance(e.value, RuntimeError)


def test_shape_mismatch(ranks):
    def fn(c):
        if c.size == 1:
            pytest.skip("needs 2 ranks to disagree")
        x = np.zeros(3 + (c.rank == 1), np.float32)
        expect(lambda: c.all_reduce(x), "TCOMM_ERR_MISMATCH")
        c.barrier()  # still usable
    ranks(fn)


def test_not_divisible(ranks):
    def fn(c):
        if c.size == 1:
            pytest.skip("every size divides by 1")
        x = np.zeros(c.size + 1, np.float32)
        expect(lambda: c.reduce_scatter(x), "TCOMM_ERR_SHAPE")
        expect(lambda: c.all_to_all(x), "TCOMM_ERR_SHAPE")
    ranks(fn)


def test_avg_of_integers(ranks):
    def fn(c):
        expect(lambda: c.all_reduce(np.ones(2, np.int32), op="avg"),
               "TCOMM_ERR_DTYPE")
    ranks(fn)




def test_python_mistake_on_one_rank(ranks):
    """The rank with a bad op gets ValueError, the others tcomm.Error."""
    def fn(c):
        op = "bogus" if c.rank == 0 else "sum"
        if c.rank == 0:
            with pytest.raises(ValueError):
                c.all_reduce(np.ones(2), op=op)
        else:
            expect(lambda: c.all_reduce(np.ones(2), op=op),
                   "TCOMM_ERR_MISMATCH")
        np.testing.assert_array_equal(c.all_reduce(np.ones(1)), [c.size])
    ranks(fn)


def test_python_mistakes_everywhere(ranks):
    def fn(c):
        x = np.ones((2, 2), np.float32)
        with pytest.raises(ValueError):
            c.all_gather(x, dim=2)
        with pytest.raises(ValueError):
            c.broadcast(x, root=c.size)
        with pytest.raises(TypeError):
            c.all_reduce([1.0, 2.0])
        with pytest.raises(TypeError):
            c.all_reduce(np.ones(2, np.complex64))
        with pytest.raises(ValueError):
            c.reduce_scatter_v(x, [1] * (c.size + 1))
        with pytest.raises(TypeError):
            c.all_reduce(x, out=np.ones((2, 2), np.float64))
        c.barrier()
    ranks(fn)


def test_out_of_wrong_shape(ranks):
    def fn(c):
        out = np.empty(5, np.float32)
        expect(lambda: c.all_reduce(np.ones(4, np.float32), out=out),
               "TCOMM_ERR_SHAPE")
    ranks(fn)


def test_failed_request(ranks):
    def fn(c):
        if c.size == 1:
            pytest.skip("needs 2 ranks to disagree")
        x = np.zeros(2 + (c.rank == 1), np.float32)
        try:
            req = c.all_reduce(x, async_op=True)
        except tcomm.Error as e:  # the erring rank may fail at the start
            assert e.status in ("TCOMM_ERR_MISMATCH", "TCOMM_ERR_SHAPE")
            return
        expect(req.wait, "TCOMM_ERR_MISMATCH")
    ranks(fn)
