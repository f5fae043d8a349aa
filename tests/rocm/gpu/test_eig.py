"""linalg.eig / eigvals on a rocm device (our kernel, hip/eig.hip: hipSOLVER has no geev),
against NumPy: eigenvalues as sorted sets, A v = lambda v, unit norms, the cpu backend's
dtypes; matrices held in shared memory and past it (global memory), large batches,
strided views, and LinAlgError for inf/NaN."""

import numpy as np
import pytest

import candlewick as cw
from candlewick.errors import LinAlgError

EPS = {"float32": np.finfo(np.float32).eps, "float64": np.finfo(np.float64).eps,
       "complex64": np.finfo(np.float32).eps, "complex128": np.finfo(np.float64).eps}
RESULT = {"float32": "complex64", "float64": "complex128", "complex64": "complex64", "complex128": "complex128"}


def _host(rng, shape, name):
    a = rng.standard_normal(shape)
    if name.startswith("complex"):
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(name)


def _check(a, w, v, name):
    n = a.shape[-1]
    a64, w64 = a.astype(np.complex128), w.astype(np.complex128)
    tol = 64 * max(n, 1) * EPS[name] * max(np.abs(a).max(initial=0.0), 1e-300)
    want = np.sort_complex(np.linalg.eigvals(a64).reshape(-1, n))
    got = np.sort_complex(w64.reshape(-1, n))
    for g_row, w_row in zip(got, want):
        dist = np.abs(g_row[:, None] - w_row[None, :])
        assert dist.min(axis=1).max(initial=0) <= 4 * tol and dist.min(axis=0).max(initial=0) <= 4 * tol
    if v is not None:
        v64 = v.astype(np.complex128)
        np.testing.assert_allclose(np.linalg.norm(v64, axis=-2), 1.0, atol=64 * n * EPS[name])
        resid = np.abs(a64 @ v64 - v64 * w64[..., None, :]).max(initial=0.0)
        assert resid <= tol, f"|A v - lambda v| = {resid:g} > {tol:g}"


@pytest.mark.parametrize("name", list(RESULT))
@pytest.mark.parametrize("shape", [(1, 1), (2, 2), (7, 7), (3, 16, 16), (40, 40), (100, 100), (0, 3, 3)],
                         ids=str)
def test_eig_against_numpy(rocm, name, shape):
    rng = np.random.default_rng(sum(shape))
    a = _host(rng, shape, name)
    x = cw.asarray(a, device=rocm)
    w, v = cw.linalg.eig(x)
    assert w.dtype.name == v.dtype.name == RESULT[name]
    assert w.shape == shape[:-1] and v.shape == shape
    wn, vn = cw.to_numpy(w), cw.to_numpy(v)
    _check(a, wn, vn, name)
    np.testing.assert_array_equal(cw.to_numpy(cw.linalg.eigvals(x)), wn)


@pytest.mark.parametrize("name", ["float32", "complex128"])
def test_large_batch_of_small_matrices(rocm, name):
    a = _host(np.random.default_rng(1), (1000, 8, 8), name)
    w, v = cw.linalg.eig(cw.asarray(a, device=rocm))
    _check(a, cw.to_numpy(w), cw.to_numpy(v), name)


def test_one_large_matrix(rocm):
    """n = 256 (one block of 128 threads, H and Z in global memory)."""
    a = _host(np.random.default_rng(4), (256, 256), "float64")
    w, v = cw.linalg.eig(cw.asarray(a, device=rocm))
    _check(a, cw.to_numpy(w), cw.to_numpy(v), "float64")


def test_strided_transposed_view(rocm):
    a = _host(np.random.default_rng(2), (3, 9, 12), "float64")
    x = cw.asarray(a, device=rocm)[:, :, 1:10].mT  # a transposed, offset view
    w, v = cw.linalg.eig(x)
    _check(np.swapaxes(a[:, :, 1:10], -1, -2), cw.to_numpy(w), cw.to_numpy(v), "float64")


def test_hard_matrices(rocm):
    """A Jordan block, a companion matrix, repeated eigenvalues and a zero matrix."""
    jordan = np.diag(np.full(6, 2.0)) + np.diag(np.ones(5), 1)
    w, v = cw.linalg.eig(cw.asarray(jordan, device=rocm))
    np.testing.assert_allclose(cw.to_numpy(w), 2.0, atol=1e-2)
    companion = np.eye(6, k=-1)
    companion[0] = -np.poly(np.arange(1.0, 7.0))[1:]
    w = np.sort(cw.to_numpy(cw.linalg.eigvals(cw.asarray(companion, device=rocm))).real)
    np.testing.assert_allclose(w, np.arange(1.0, 7.0), rtol=1e-8)
    q, _ = np.linalg.qr(np.random.default_rng(3).standard_normal((6, 6)))
    rep = q @ np.diag([1.0, 1.0, 1.0, -2.0, -2.0, 3.0]) @ q.T
    w, v = cw.linalg.eig(cw.asarray(rep, device=rocm))
    _check(rep, cw.to_numpy(w), cw.to_numpy(v), "float64")
    w, v = cw.linalg.eig(cw.zeros((5, 5), device=rocm))
    np.testing.assert_array_equal(cw.to_numpy(w), 0)
    np.testing.assert_array_equal(cw.to_numpy(v), np.eye(5))


def test_non_finite_raises(rocm):
    a = np.eye(4)
    a[1, 2] = np.nan
    with pytest.raises(LinAlgError, match="linalg.eig"):
        cw.linalg.eig(cw.asarray(a, device=rocm))
    with pytest.raises(LinAlgError, match="linalg.eig"):
        cw.linalg.eigvals(cw.asarray(np.full((2, 3, 3), np.inf), device=rocm))
