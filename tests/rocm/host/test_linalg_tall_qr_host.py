"""The rocm backend's reduced QR of one tall real matrix (rocm_backend/families/qr_tall.py:
CholeskyQR2 shared with the tall SVD, cholesky_qr.py, then LAPACK's signs) end to end on the
CPU, on test_linalg_fft_exec.py's kernels and library_model.py's hipSOLVER, GEMM and trsm:
its Q and R against NumPy's (values: geqrf's signs, not only a factorization), its one host
wait, its fall backs to geqrf + orgqr, and the sign rule's edge cases."""

import numpy as np
import pytest

from candlewick import dtypes as dt
from candlewick.layout import Layout

pytest.importorskip("scipy.linalg.lapack")  # the model computes with LAPACK
from test_linalg_fft_exec import _random, _read, _strided  # noqa: E402
from test_linalg_tall_svd_host import gemm_device, runtime_and_device  # noqa: E402,F401

from rocm_backend.families import qr_tall  # noqa: E402

TOL = {dt.float32: 2e-5, dt.float64: 1e-12}


@pytest.fixture
def qr_device(gemm_device, monkeypatch):
    """gemm_device with the tall QR's thresholds lowered to the model's small matrices."""
    monkeypatch.setattr(qr_tall, "MIN_ROWS", 0)
    return gemm_device


def _qr_calls(solver, monkeypatch, device):
    """The hipSOLVER routines qr calls (geqrf, orgqr, potrf) and the device's host waits."""
    from rocm_backend.bindings import hip

    called = []
    sync, drain = hip.event_synchronize, device._drain
    monkeypatch.setattr(hip, "event_synchronize", lambda *a: (called.append("wait"), sync(*a))[1])
    monkeypatch.setattr(device, "_drain", lambda *a, **k: (called.append("wait"), drain(*a, **k))[1])
    for name in ("geqrf", "orgqr", "potrf"):
        for letter in "SD":
            full = f"hipsolver{letter}{name}"
            fn = getattr(solver, full)
            monkeypatch.setattr(solver, full, lambda *a, fn=fn, name=name: (called.append(name), fn(*a))[1])
    return called


def _check_against_numpy(s, lay, a, dtype, batch=(), called=None):
    """Q and R as NumPy's (LAPACK's signs), to the dtype's rounding; ``called`` is cut to
    the qr call's own (not the reads here)."""
    m, n = a.shape[-2:]
    q_s, r_s = s.qr(lay, False)
    if called is not None:
        snapshot = list(called)
    q, r = _read(q_s, batch + (m, n)), _read(r_s, batch + (n, n))
    qn, rn = np.linalg.qr(a.astype(np.float64))
    tol = TOL[dtype]
    np.testing.assert_allclose(q, qn, atol=tol)
    np.testing.assert_allclose(r / np.abs(rn).max(), rn / np.abs(rn).max(), atol=tol)
    assert (np.tril(r, -1) == 0).all()
    if called is not None:
        called[:] = snapshot
    return q, r


@pytest.mark.parametrize("dtype", [dt.float32, dt.float64], ids=str)
@pytest.mark.parametrize("shape", [(40, 8), (1, 48, 6), (64, 1)], ids=str)
def test_tall_qr_through_cholesky_qr_matches_numpy(qr_device, monkeypatch, dtype, shape):
    """One tall A (a batch of one too), reduced: two potrf passes, no geqrf or orgqr, one
    host wait (the orthogonality, potrf's infos and Q's leading block in one read), and Q, R
    equal to NumPy's, signs and all (CholeskyQR's own R has a positive diagonal)."""
    from rocm_backend.bindings import hipsolver

    a = _random(np.random.default_rng(21), dtype, shape)
    s, lay = _strided(qr_device, a)
    called = _qr_calls(hipsolver._api, monkeypatch, qr_device)
    q, r = _check_against_numpy(s, lay, a, dtype, tuple(shape[:-2]), called)
    assert called == ["potrf", "potrf", "wait"], called
    assert (np.diagonal(r, axis1=-2, axis2=-1) < 0).any()  # the signs were LAPACK's to take


@pytest.mark.parametrize("dtype", [dt.float32, dt.float64], ids=str)
def test_complete_and_batched_qr_keep_geqrf(qr_device, monkeypatch, dtype):
    """A complete Q (m x m: orgqr's further columns) and a batch of several tall matrices
    stay with geqrf + orgqr."""
    from rocm_backend.bindings import hipsolver

    called = _qr_calls(hipsolver._api, monkeypatch, qr_device)
    a = _random(np.random.default_rng(22), dtype, (40, 6))
    s, lay = _strided(qr_device, a)
    q_s, r_s = s.qr(lay, True)
    q, r = _read(q_s, (40, 40)), _read(r_s, (40, 6))
    np.testing.assert_allclose(q @ r, a, atol=TOL[dtype])
    assert "potrf" not in called and "geqrf" in called, called
    assert not qr_tall.fits(2, 40, 6, dtype, False) and not qr_tall.fits(1, 40, 6, dt.complex64, False)


@pytest.mark.parametrize("why", ["rank-deficient", "ill-conditioned", "orthogonality"])
def test_tall_qr_falls_back_to_geqrf(qr_device, monkeypatch, why):
    """A Cholesky that fails (a zero column; a float32 A of condition 10^6, whose Gram
    matrix float32 cannot factor) or a Q measured past ORTH_TOL (here 0) sends A itself to
    geqrf + orgqr after the path's one wait: NumPy's answer still."""
    from rocm_backend.bindings import hipsolver
    from rocm_backend.families import cholesky_qr

    rng = np.random.default_rng(23)
    m, n = 48, 6
    if why == "ill-conditioned":
        q1, _ = np.linalg.qr(rng.standard_normal((m, n)))
        q2, _ = np.linalg.qr(rng.standard_normal((n, n)))
        a = ((q1 * np.logspace(0, -6, n)) @ q2.T).astype(np.float32)
    else:
        a = _random(rng, dt.float32, (m, n))
    if why == "rank-deficient":
        # a zero column: the Gram matrix's pivot is exactly 0 wherever it is computed (a
        # repeated column's is float32 rounding, whose sign the host's BLAS kernels decide)
        a[:, 4] = 0.0
    if why == "orthogonality":
        monkeypatch.setattr(cholesky_qr, "ORTH_TOL", 0)
    called = _qr_calls(hipsolver._api, monkeypatch, qr_device)
    s, lay = _strided(qr_device, a)
    q_s, r_s = s.qr(lay, False)
    assert called == ["potrf", "potrf", "wait", "geqrf", "orgqr"], called
    q, r = _read(q_s, (m, n)), _read(r_s, (n, n))
    qn, rn = np.linalg.qr(a)  # float32 LAPACK, as the model's geqrf
    np.testing.assert_allclose(q @ r, a, atol=1e-5)
    if why == "rank-deficient":  # R_44 is rounding: the reflectors from it on are any
        np.testing.assert_allclose(r[:4], rn[:4], atol=1e-4)
        assert abs(r[4, 4]) < 1e-5
    else:
        np.testing.assert_allclose(r, rn, atol=1e-4)
    np.testing.assert_allclose(q.T @ q, np.eye(n), atol=1e-5)
    if why == "orthogonality":  # (Q's last columns of a rank-deficient or cond 10^6 A: to eps * cond)
        np.testing.assert_allclose(q, qn, atol=1e-5)


@pytest.mark.parametrize("dtype", [dt.float32, dt.float64], ids=str)
@pytest.mark.parametrize("case", ["e1 column", "negative e1 column", "tiny tail", "upper triangular",
                                  "zero pivot", "reduced second column"])
def test_tall_qr_signs_at_the_rules_edges(qr_device, dtype, case):
    """Columns geqrf does not reflect (tau = 0: R_jj = alpha_j, its own sign) against ones
    it does (R_jj = -sign(alpha_j) * norm), through the path: Q and R as NumPy's."""
    rng = np.random.default_rng(24)
    m, n = 40, 5
    a = _random(rng, dtype, (m, n))
    if case in ("e1 column", "negative e1 column"):
        a[:, 0] = 0
        a[0, 0] = 3.0 if case == "e1 column" else -3.0
    elif case == "tiny tail":  # A[0, 0]'s Q entry rounds to 1 in float32; LAPACK still reflects
        a[:, 0] = 0
        a[0, 0], a[7, 0] = 2.0, 1e-6
    elif case == "upper triangular":  # every column reduced: R = A's top, Q = [I; 0]
        a[n:] = 0
        a[:n] = np.triu(a[:n]) + np.diag([2.0, -3.0, 2.5, -2.0, 3.0])
    elif case == "zero pivot":  # alpha = +0: reflected to R_00 = -norm
        a[0, 0] = 0.0
    else:  # column 1 = e_1 once column 0 (nonzero only in its top rows) is reduced
        a[:, :2] = 0
        a[0, 0], a[0, 1], a[1, 1] = 2.0, 0.5, -4.0
    s = qr_device.storage_from_host(a)
    assert qr_tall.fits(1, m, n, dtype, False)
    _check_against_numpy(s, Layout.contiguous((m, n)), a, dtype)


def test_tall_qr_fits_the_measured_bounds():
    """From 65536 rows and up to 128 columns, float32 and float64, one matrix, reduced
    (probe s23qr_2: below, or at 256 columns, geqrf + orgqr was faster)."""
    for dtype in (dt.float32, dt.float64):
        assert qr_tall.fits(1, 200000, 26, dtype, False) and qr_tall.fits(1, 65536, 16, dtype, False)
        assert qr_tall.fits(1, 1000000, 128, dtype, False)
        assert not qr_tall.fits(1, 65535, 16, dtype, False)  # 16384 x 26: 2.2x geqrf's time
        assert not qr_tall.fits(1, 200000, 129, dtype, False)  # 200000 x 256: 1.16x
        assert not qr_tall.fits(1, 200000, 26, dtype, True) and not qr_tall.fits(2, 200000, 26, dtype, False)
    assert not qr_tall.fits(1, 200000, 26, dt.complex64, False)


def test_householder_signs_rule():
    """The host rule alone: S_j = -sign(pivot) after the shifted LU step, the pivot's own
    sign where the column is exactly zero below it (in M and in the rows past n, the
    latter carried through the steps as the update carries M's rows)."""
    rng = np.random.default_rng(25)
    a = rng.standard_normal((30, 4))
    qn, rn = np.linalg.qr(a)
    q1 = qn * np.sign(np.diagonal(rn))  # the positive-diagonal Q' CholeskyQR makes
    s = qr_tall.householder_signs(q1[:4], (q1[4:] == 0).all(axis=0))
    np.testing.assert_array_equal(s, np.sign(np.diagonal(rn)))
    # column 0 = e_0 (no reflector), column 1 = -e_1: both reduced, their own signs
    assert list(qr_tall.householder_signs(np.diag([1.0, -1.0]), [True, True])) == [1.0, -1.0]
    # the same block with rows past n nonzero in column 0: reflected; column 1 is left
    # untouched (its row 0 is zero) and stays reduced
    assert list(qr_tall.householder_signs(np.diag([0.6, -1.0]), [False, True])) == [-1.0, -1.0]
    # a row-0 entry in column 1 carries column 0's nonzero tail into it: reflected too
    top = np.array([[0.6, 0.8], [0.0, 0.0]])
    assert list(qr_tall.householder_signs(top, [False, True])) == [-1.0, -1.0]
    assert qr_tall.householder_signs(np.array([[-0.0]]), [False])[0] == 1.0  # -0.0: negative
    assert qr_tall.householder_signs(np.array([[0.0]]), [False])[0] == -1.0


def test_tall_qr_in_a_graph_capture_keeps_geqrf(qr_device, monkeypatch):
    """The path reads the host (its check); inside a graph capture, which refuses host
    reads, a tall A still goes to geqrf + orgqr (capturable, as before)."""
    import candlewick as cw
    from rocm_backend.bindings import hipsolver

    a = _random(np.random.default_rng(26), dt.float32, (40, 6))
    s = qr_device.storage_from_host(a)
    called = _qr_calls(hipsolver._api, monkeypatch, qr_device)
    with cw.graphs.Graph(qr_device).capture():
        s.qr(Layout.contiguous((40, 6)), False)
    assert called == ["geqrf", "orgqr"], called


@pytest.mark.parametrize("solved", [True, False], ids=["trsm in place", "gemm"])
def test_tall_qr_holds_one_buffer_beside_a(qr_device, monkeypatch, solved):
    """With the second pass solved in place on Q1 (n up to SOLVE_SECOND_MAX_N) the call's
    peak holds one m x n buffer beside A and small ones, as geqrf + orgqr's copy of A does
    (scikit-learn's randomized range finder holds its centered X meanwhile); by GEMM, two."""
    import candlewick as cw

    monkeypatch.setattr(qr_tall, "SOLVE_SECOND_MAX_N", 64 if solved else 0)
    a = np.random.default_rng(27).standard_normal((4096, 8))
    x = cw.asarray(a, device=qr_device)
    cw.linalg.qr(x)  # the device's kept workspaces made (the library's, the reductions')
    before = qr_device.allocator.stats()["in_use_bytes"]
    qr_device.allocator.reset_peak()
    q, r = cw.linalg.qr(x)
    peak = qr_device.allocator.stats()["peak_in_use_bytes"] - before
    if solved:
        assert a.nbytes <= peak < 1.25 * a.nbytes, peak
    else:
        assert 2 * a.nbytes <= peak, peak
    np.testing.assert_allclose(cw.to_numpy(q), np.linalg.qr(a)[0], atol=1e-12)
