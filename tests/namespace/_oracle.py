"""Helpers of the part-B namespace tests (creation extras, data type functions, info,
DLPack, linalg, fft): arrays on the device under test and comparisons with NumPy."""

import numpy as np

import candlewick as cw
from candlewick.dtypes import from_numpy

#: the dtypes the linalg and fft primitives compute in, with a tolerance for each
FLOAT_TOL = {"float32": 2e-4, "float64": 1e-10, "complex64": 2e-4, "complex128": 1e-10}


def on(device, host, dtype=None):
    """A candlewick array on ``device`` holding ``host`` (optionally cast to a NumPy dtype)."""
    host = np.array(host if dtype is None else np.asarray(host).astype(dtype), order="C")
    return cw.asarray(host, device=device)


def transposed(device, host):
    """``host`` on ``device`` as a non-contiguous view (the transpose of a contiguous
    array holding ``host``'s transpose), to exercise strided layouts."""
    host = np.asarray(host)
    base = cw.asarray(np.array(np.swapaxes(host, -1, -2), order="C"), device=device)
    return cw.matrix_transpose(base)


def check(result, expected, *, rtol=0.0, atol=0.0, dtype=None):
    """Same shape, dtype (expected's, or ``dtype``) and values (NaNs in the same places)."""
    expected = np.asarray(expected)
    assert isinstance(result, cw.Array), type(result)
    assert result.shape == expected.shape, (result.shape, expected.shape)
    want = dtype if dtype is not None else from_numpy(expected.dtype)
    assert result.dtype == want, (result.dtype, want)
    got = cw.to_numpy(result)
    if rtol or atol:
        np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, expected)


def random_matrix(rng, shape, np_dtype):
    a = rng.standard_normal(shape)
    if np.dtype(np_dtype).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(np_dtype)


def hermitian_pd(rng, shape, np_dtype):
    """Hermitian positive-definite matrices of ``shape`` (..., n, n)."""
    a = random_matrix(rng, shape, np_dtype)
    n = shape[-1]
    return (a @ np.conj(np.swapaxes(a, -1, -2)) + n * np.eye(n)).astype(np_dtype)
