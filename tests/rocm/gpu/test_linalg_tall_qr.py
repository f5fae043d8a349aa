"""The reduced QR of one tall float32/float64 matrix through the Cholesky QR
(rocm_backend/families/qr_tall.py, cholesky_qr.py: GEMMs, potrf and R^-1 by trsm on the
device, then LAPACK's signs) against NumPy's QR of the host copy, values and signs: a
contiguous A, a strided view (copied once), and ill-conditioned or rank-deficient A (the
path or its fall back to geqrf + orgqr: NumPy's answer either way)."""

import numpy as np
import pytest

import candlewick as cw
from rocm_backend.families import qr_tall
from .gpu_helpers import record_answers

M, N = 1 << 17, 16  # 2^21 elements, 8192 rows a column: in the path's range
TOL = {"float32": 5e-5, "float64": 1e-12}


@pytest.fixture
def kept(monkeypatch):
    """The answers of qr_tall.qr (False: fell back), in order."""
    return record_answers(monkeypatch, qr_tall, "qr")


def _check(a, q, r, tol):
    qn, rn = np.linalg.qr(a.astype(np.float64))
    qh, rh = cw.to_numpy(q).astype(np.float64), cw.to_numpy(r).astype(np.float64)
    assert np.abs(qh - qn).max() < tol
    assert np.abs(rh - rn).max() / np.abs(rn).max() < tol


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("view", ["contiguous", "every other column"])
def test_tall_qr_through_cholesky_qr_is_numpys(rocm, kept, dtype, view):
    rng = np.random.default_rng(3)
    if view == "contiguous":
        a = rng.standard_normal((M, N)).astype(dtype)
        x = cw.asarray(a, device=rocm)
    else:
        wide = rng.standard_normal((M, 2 * N)).astype(dtype)
        a = wide[:, ::2]
        x = cw.asarray(wide, device=rocm)[:, ::2]
    q, r = cw.linalg.qr(x)
    _check(a, q, r, TOL[dtype])
    assert kept == [True]
    np.testing.assert_array_equal(cw.to_numpy(x), a)  # A is the caller's, untouched


@pytest.mark.parametrize("case", ["cond 1e2", "cond 1e6", "rank-deficient"])
def test_ill_conditioned_tall_qr(rocm, kept, case):
    """float32: cond 10^2 keeps the path; at 10^6 (its Gram matrix past float32) and with a
    repeated column the potrf or the orthogonality check decides (the Cholesky QR's Q, if
    kept, is orthonormal and reproduces A): either way R's determined rows are NumPy's. Q's
    columns of a near-null direction are determined to eps * cond only: Q R is compared there."""
    rng = np.random.default_rng(4)
    q1, _ = np.linalg.qr(rng.standard_normal((M, N)))
    q2, _ = np.linalg.qr(rng.standard_normal((N, N)))
    cond = 1e6 if case == "cond 1e6" else 1e2
    a = ((q1 * np.logspace(0, -np.log10(cond), N)) @ q2.T).astype(np.float32)
    if case == "rank-deficient":
        a[:, 5] = a[:, 2]
    q, r = cw.linalg.qr(cw.asarray(a, device=rocm))
    qh, rh = cw.to_numpy(q).astype(np.float64), cw.to_numpy(r).astype(np.float64)
    assert kept == [True] if case == "cond 1e2" else len(kept) == 1
    assert np.abs(qh @ rh - a).max() < 1e-5
    assert np.abs(qh.T @ qh - np.eye(N)).max() < 1e-4
    if case == "cond 1e2":
        _check(a, q, r, 1e-4)
    else:
        rn = np.linalg.qr(a.astype(np.float64), mode="r")
        k = 5 if case == "rank-deficient" else N  # rows past a zero pivot: any reflector
        assert np.abs(rh[:k] - rn[:k]).max() < 1e-4
