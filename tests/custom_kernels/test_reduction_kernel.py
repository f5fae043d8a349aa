"""``candlewick.ReductionKernel`` on every backend under test: CuPy's map / reduce /
post-map, axes, keepdims, given outputs, several inputs broadcast together, the reduce
type, NaN-aware max, empty reductions."""

import numpy as np
import pytest

import candlewick as cw


def _np(x):
    return cw.to_numpy(x)


L2 = cw.ReductionKernel("T x", "T y", "x * x", "a + b", "y = sqrt(a);", "0", "l2norm")


def test_cupy_example_l2norm(device):
    x = cw.asarray(np.arange(10, dtype=np.float32).reshape(2, 5), device=device)
    y = L2(x, axis=1)
    assert y.dtype == cw.float32 and y.shape == (2,)
    np.testing.assert_allclose(_np(y), np.sqrt((np.arange(10.0).reshape(2, 5) ** 2).sum(axis=1)), rtol=1e-6)


@pytest.mark.parametrize("axis,keepdims", [(None, False), (0, True), ((0, 2), False), (-1, True), ((), False)])
def test_axes_and_keepdims(device, axis, keepdims):
    data = np.arange(24, dtype=np.int64).reshape(2, 3, 4) - 7
    k = cw.ReductionKernel("T x", "T y", "x", "a + b", "y = a;", "0", "isum")
    got = k(cw.asarray(data, device=device), axis=axis, keepdims=keepdims)
    want = data.sum(axis=axis, keepdims=keepdims)
    assert got.shape == want.shape
    np.testing.assert_array_equal(_np(got), want)


def test_two_inputs_broadcast_and_a_given_output(device):
    x = np.arange(24, dtype=np.float64).reshape(4, 6)
    w = np.array([[1.0], [2.0], [0.5], [-1.0]])
    out = cw.zeros((6,), dtype=cw.float64, device=device)
    k = cw.ReductionKernel("T x, T w", "T y", "x * w", "a + b", "y = a;", "0", "weighted")
    res = k(cw.asarray(x, device=device), cw.asarray(w, device=device), out, axis=0)
    assert res is out
    np.testing.assert_array_equal(_np(out), (x * w).sum(axis=0))


def test_reduce_type_and_post_map_with_two_outputs(device):
    h = np.array([[0.1, 0.2, 0.3], [60000, 60000, 60000]], np.float16)
    k = cw.ReductionKernel("float16 x", "float32 s, bool big", "x", "a + b", "s = a; big = a > 1000;", "0",
                           "hsum", reduce_type="float32")
    s, big = k(cw.asarray(h, device=device), axis=1)
    np.testing.assert_allclose(_np(s), h.astype(np.float32).sum(axis=1), rtol=1e-6)
    assert _np(big).tolist() == [False, True]


def test_max_skips_nan_as_the_device_max_does(device):
    x = np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, np.nan]], np.float32)
    k = cw.ReductionKernel("T x", "T y", "x", "max(a, b)", "y = a;", "-1e30f", "mx")
    assert _np(k(cw.asarray(x, device=device), axis=1)).tolist() == [3.0, np.float32(-1e30)]


def test_logical_and_integer_reductions(device):
    b = np.array([[True, True], [True, False]])
    all_k = cw.ReductionKernel("bool x", "bool y", "x", "a && b", "y = a;", "true", "all_k")
    assert _np(all_k(cw.asarray(b, device=device), axis=1)).tolist() == [True, False]
    i = np.array([[2**30, 2**30, 2**30], [3, -4, 5]], np.int32)
    isum = cw.ReductionKernel("int32 x", "int32 y", "x", "a + b", "y = a;", "0", "wrap")
    assert _np(isum(cw.asarray(i, device=device), axis=1)).tolist() == [-(2**30), 4]  # wraps as int32
    prod = cw.ReductionKernel("T x", "T y", "x", "a * b", "y = a;", "1", "prod_k")
    assert _np(prod(cw.asarray(np.array([[2, -3], [4, 5]], np.int16), device=device), axis=0)).tolist() == [8, -15]


def test_an_empty_reduction_gives_the_identity(device):
    x = cw.asarray(np.zeros((3, 0), np.float32), device=device)
    # the identity must be neutral (docs/custom_kernels.md): a block's every thread starts from it
    k = cw.ReductionKernel("T x", "T y", "x", "a + b", "y = a + 1;", "0", "empty_k")
    assert _np(k(x, axis=1)).tolist() == [1.0, 1.0, 1.0]
    assert k(x, axis=0).shape == (0,)
