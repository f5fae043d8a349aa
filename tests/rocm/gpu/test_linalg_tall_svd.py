"""The reduced SVD of one tall float32 matrix through the Cholesky QR
(rocm_backend/families/svd_tall.py: GEMMs, potrf and R^-1 by trsm on the device) against NumPy's
float64 SVD: a contiguous A, a strided view no GEMM reads as it is (copied once), and an
ill-conditioned A (the path or its fall back to gesvdj: the same answer either way)."""

import numpy as np
import pytest

import candlewick as cw
from rocm_backend.families import svd_tall
from .gpu_helpers import record_answers

M, N = 1 << 17, 16  # 2^21 elements, 8192 rows a column: in the path's range


def _check(a, out, tol=5e-5):
    u, s, vh = (cw.to_numpy(t).astype(np.float64) for t in out)
    a64 = a.astype(np.float64)
    ref = np.linalg.svd(a64, compute_uv=False)
    np.testing.assert_allclose(s / ref[0], ref / ref[0], atol=tol)
    assert np.abs((u * s) @ vh - a64).max() / ref[0] < tol
    assert np.abs(u.T @ u - np.eye(N)).max() < tol
    assert np.abs(vh @ vh.T - np.eye(N)).max() < tol


@pytest.fixture
def kept(monkeypatch):
    """The answers of svd_tall.svd (None: fell back), in order."""
    return record_answers(monkeypatch, svd_tall, "svd")


@pytest.mark.parametrize("view", ["contiguous", "every other column"])
def test_tall_float32_svd_through_cholesky_qr(rocm, kept, view):
    rng = np.random.default_rng(3)
    if view == "contiguous":
        a = rng.standard_normal((M, N), dtype=np.float32)
        x = cw.asarray(a, device=rocm)
    else:
        wide = rng.standard_normal((M, 2 * N), dtype=np.float32)
        a = wide[:, ::2]
        x = cw.asarray(wide, device=rocm)[:, ::2]
    _check(a, cw.linalg.svd(x, full_matrices=False))
    assert kept == [True]
    np.testing.assert_array_equal(cw.to_numpy(x), a)  # A is the caller's, untouched


@pytest.mark.parametrize("cond", [1e2, 1e5])
def test_ill_conditioned_tall_svd(rocm, kept, cond):
    rng = np.random.default_rng(4)
    q1, _ = np.linalg.qr(rng.standard_normal((M, N)))
    q2, _ = np.linalg.qr(rng.standard_normal((N, N)))
    a = ((q1 * np.logspace(0, -np.log10(cond), N)) @ q2.T).astype(np.float32)
    _check(a, cw.linalg.svd(cw.asarray(a, device=rocm), full_matrices=False))
    assert len(kept) == 1
