"""Batches of small matrices on a rocm device through the backend's own kernels and
batched library calls (the paths the batched benchmark cases take), against NumPy:
the Jacobi SVD kernel (hip/svd_jacobi.hip) at its largest size, tall, wide, rank
deficient and badly scaled."""

import numpy as np
import pytest

import candlewick as cw
from candlewick.errors import LinAlgError


def _check_svd(a, u, s, vh, tol):
    ref = np.linalg.svd(a.astype(np.float64), compute_uv=False)
    scale = np.abs(ref).max(axis=-1, keepdims=True)
    np.testing.assert_allclose(s / np.maximum(scale, 1e-300), ref / np.maximum(scale, 1e-300), atol=tol)
    k = s.shape[-1]
    recon = (u * s[..., None, :]) @ vh
    err = np.abs(recon - a).max(axis=(-2, -1)) / np.maximum(scale[..., 0], 1e-300)
    assert err.max() < tol
    eye = np.eye(k)
    assert np.abs(np.swapaxes(u, -1, -2) @ u - eye).max() < tol
    assert np.abs(vh @ np.swapaxes(vh, -1, -2) - eye).max() < tol


@pytest.mark.parametrize("dtype, tol", [(np.float32, 5e-5), (np.float64, 1e-12)], ids=["float32", "float64"])
@pytest.mark.parametrize("shape", [(1024, 64, 64), (9, 64, 20), (9, 20, 64), (5, 3, 7, 7), (4, 33, 33)], ids=str)
def test_batched_svd_kernel(rocm, dtype, tol, shape):
    rng = np.random.default_rng(sum(shape))
    a = rng.standard_normal(shape).astype(dtype)
    flat = a.reshape((-1,) + shape[-2:])
    flat[0] = 0
    flat[1] = np.outer(rng.standard_normal(shape[-2]), rng.standard_normal(shape[-1]))
    flat[2] *= 1e20 if dtype == np.float32 else 1e200
    x = cw.asarray(a, device=rocm)
    u, s, vh = cw.linalg.svd(x, full_matrices=False)
    _check_svd(a, cw.to_numpy(u), cw.to_numpy(s), cw.to_numpy(vh), tol)
    np.testing.assert_allclose(cw.to_numpy(cw.linalg.svdvals(x)), cw.to_numpy(s), rtol=0, atol=0)


def test_batched_svd_kernel_rejects_nan(rocm):
    a = np.ones((4, 8, 8), np.float32)
    a[2, 3, 3] = np.nan
    with pytest.raises(LinAlgError):
        cw.linalg.svd(cw.asarray(a, device=rocm), full_matrices=False)


@pytest.mark.parametrize("mode", ["reduced", "complete"])
@pytest.mark.parametrize("dtype, tol", [(np.float32, 5e-5), (np.float64, 1e-12)], ids=["float32", "float64"])
@pytest.mark.parametrize("shape", [(1024, 64, 64), (9, 64, 20), (9, 20, 64), (5, 3, 7, 7)], ids=str)
def test_batched_qr_kernel(rocm, dtype, tol, shape, mode):
    rng = np.random.default_rng(sum(shape))
    a = rng.standard_normal(shape).astype(dtype)
    flat = a.reshape((-1,) + shape[-2:])
    flat[0] = 0
    flat[1, :, 0] = 0
    q, r = cw.linalg.qr(cw.asarray(a, device=rocm), mode=mode)
    q, r = cw.to_numpy(q), cw.to_numpy(r)
    scale = np.abs(a).max(axis=(-2, -1), keepdims=True)
    assert (np.abs(q @ r - a) <= tol * np.maximum(scale, 1e-30)).all()
    kq = q.shape[-1]
    assert np.abs(np.swapaxes(q, -1, -2) @ q - np.eye(kq)).max() < tol
    assert (np.tril(r, -1) == 0).all()
