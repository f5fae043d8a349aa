"""candlewick._native.arg_rows, the cpu backend's argmin/argmax along short float rows in one
loop (cpu_backend/reduce_ops.py): NumPy's argmin/argmax index for index (the first extreme,
the first NaN, -0.0 and 0.0 equal) for float32 and float64 rows of every length around the
vector widths, in the AVX2 loop and the scalar one, for reversed and strided row steps;
declined (nothing written) for every buffer it does not take; and through the front end."""

import numpy as np
import pytest

import candlewick as cw
from cpu_backend import reduce_ops

native = pytest.mark.skipif(reduce_ops._arg_rows is None, reason="candlewick._native not built")
SPECIALS = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 5e-324, -5e-324]


def rows(dtype, k, rng):
    """Random rows, rows drawn from the specials (ties, infinities, NaNs, both zeros), rows
    all one value, and one NaN a row at each place."""
    yield rng.standard_normal((300, k)).astype(dtype)
    yield rng.choice(np.array(SPECIALS, dtype), (600, k))
    yield np.full((3, k), np.inf, dtype)
    yield np.full((3, k), -np.inf, dtype)
    nans = rng.standard_normal((k, k)).astype(dtype)
    nans[np.arange(k), np.arange(k)] = np.nan
    yield nans


@native
@pytest.mark.parametrize("widest", [0, 1])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("k", [1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 24, 31, 32, 33])
def test_arg_rows_is_numpys(k, dtype, widest):
    rng = np.random.default_rng(k)
    for x in rows(dtype, k, rng):
        for view in (x, x[::-1], x[::3]):
            for largest in (False, True):
                out = np.full((view.shape[0], 1), -7, np.int64)
                assert reduce_ops._arg_rows(view, out, largest, widest) is True
                want = view.argmax(axis=1) if largest else view.argmin(axis=1)
                np.testing.assert_array_equal(out[:, 0], want)


@native
def test_buffers_it_does_not_take_are_left_alone():
    x = np.random.default_rng(0).standard_normal((10, 8))
    out = np.full((10, 1), -7, np.int64)
    declined = [
        (x.astype(np.int64), out),  # not a float
        (x.astype(np.float16), out),
        (x[:, ::2], out[:, :]),  # rows not contiguous
        (x.reshape(10, 2, 4), out),  # not 2-D
        (x, out[:9]),  # one out element short
        (x, np.full((10, 1), -7, np.int32)),  # out not int64
        (x, np.full((10, 2), -7, np.int64)[:, :1]),  # out not contiguous
    ]
    for a, o in declined:
        assert reduce_ops._arg_rows(a, o, False) is False
        assert (o == -7).all()
    read_only = np.full((10, 1), -7, np.int64)
    read_only.flags.writeable = False
    assert reduce_ops._arg_rows(x, read_only, True) is False


@native
def test_arg_rows_checks_its_argument_count_and_widest():
    x, out = np.zeros((2, 3)), np.zeros(2, np.int64)
    for args in [(x, out), (x, out, True, 1, 1)]:
        with pytest.raises(TypeError, match=r"candlewick\._native\.arg_rows\(x, out, largest, widest=1\) takes 3 or 4 arguments"):
            reduce_ops._arg_rows(*args)
    with pytest.raises(TypeError, match=r"arg_rows\(.*\): widest must be an int, not str"):
        reduce_ops._arg_rows(x, out, True, "1")
    with pytest.raises(TypeError, match=r"arg_rows\(.*\): widest must be an int, not bool"):
        reduce_ops._arg_rows(x, out, True, True)
    assert (out == 0).all()
    assert reduce_ops._arg_rows(x + [[0, 0, -1]], out, False, np.int64(0)) is True  # an index type is an int
    assert (out == 2).all()


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("k", [1, 8, 13, 32, 40])
def test_front_end_argmin_argmax_along_rows(dtype, k):
    host = np.random.default_rng(k).choice(np.array(SPECIALS[:7] + [2.0, -3.0, 0.5], dtype), (50, k))
    x = cw.asarray(host)
    for axis in (1, -1):
        np.testing.assert_array_equal(np.asarray(cw.argmin(x, axis=axis)), host.argmin(axis=1))
        np.testing.assert_array_equal(np.asarray(cw.argmax(x, axis=axis, keepdims=True)),
                                      host.argmax(axis=1, keepdims=True))
    assert cw.argmin(x, axis=1).dtype == cw.int64
