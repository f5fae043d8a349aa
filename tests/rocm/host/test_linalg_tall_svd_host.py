"""The rocm backend's tall float32 SVD (rocm_backend/families/svd_tall.py: CholeskyQR2, R^-1
by hipBLAS trsm on the identity, gesvdj on the n x n R) end to end on the CPU, on
test_linalg_fft_exec.py's kernels and library models (library_model.py's hipSOLVER,
GEMM and trsm on host memory): which matrices take the path, the library calls it makes
with their column-major readings, its fall backs to gesvdj on A, its one copy of a
layout no GEMM reads, and its answers against NumPy's float64 SVD."""

import numpy as np
import pytest

from candlewick import dtypes as dt
from candlewick.layout import Layout

pytest.importorskip("scipy.linalg.lapack")  # the model computes with LAPACK
from library_model import add_blas_gemm, add_blas_trsm  # noqa: E402
from test_linalg_fft_exec import _h, _random, _read, _strided, runtime_and_device_on  # noqa: E402


@pytest.fixture
def runtime_and_device(linalg_fft_lib, monkeypatch, tmp_path):
    return runtime_and_device_on(linalg_fft_lib, monkeypatch, tmp_path)


def _tall_svd_calls(solver, monkeypatch, device=None):
    """The hipSOLVER routines the float32 SVD calls, with their (m, n) or n, and hipBLAS's
    trsm with its (side, fill, m, n, lda, ldb), in order; with ``device``, its host waits
    too, as ("wait",): a queued read's event waited for, or a drain of a stream."""
    from rocm_backend.bindings import hip
    from rocm_backend.bindings.hip import hip_api

    called = []
    if device is not None:
        sync, drain = hip.event_synchronize, device._drain
        monkeypatch.setattr(hip, "event_synchronize", lambda *a: (called.append(("wait",)), sync(*a))[1])
        monkeypatch.setattr(device, "_drain", lambda *a, **k: (called.append(("wait",)), drain(*a, **k))[1])
    for name, sizes in (("geqrf", slice(1, 3)), ("potrf", slice(2, 3)), ("getrf", slice(1, 3)),
                        ("gesvdj", slice(3, 5)), ("gesvd", slice(3, 5))):
        full = f"hipsolverS{name}"
        fn = getattr(solver, full)
        monkeypatch.setattr(solver, full, lambda *a, fn=fn, name=name, sizes=sizes:
                            (called.append((name,) + tuple(a[sizes])), fn(*a))[1])
    blas = hip_api().hipblas
    trsm = getattr(blas, "hipblasStrsm", None)
    if trsm is not None:
        monkeypatch.setattr(blas, "hipblasStrsm", lambda *a, fn=trsm:
                            (called.append(("trsm",) + a[1:3] + a[5:7] + (a[9], a[11])), fn(*a))[1])
    return called


def _check_svd(s, lay, a, batch, m, n):
    u_s, sv_s, vh_s = s.svd(lay, False)
    u, sv, vh = _read(u_s, batch + (m, n)), _read(sv_s, batch + (n,)), _read(vh_s, batch + (n, n))
    np.testing.assert_allclose(sv, np.linalg.svd(a, compute_uv=False), atol=1e-5)
    np.testing.assert_allclose((u * sv[..., None, :]) @ vh, a, atol=1e-5)
    np.testing.assert_allclose(_h(u) @ u, np.broadcast_to(np.eye(n), batch + (n, n)), atol=1e-5)


@pytest.fixture
def gemm_device(runtime_and_device, monkeypatch):
    """The device with the model's GEMM (the tall SVD's products), and the tall SVD's
    thresholds lowered to the small matrices the model computes quickly."""
    from rocm_backend.families import svd_tall

    rt, device = runtime_and_device
    add_blas_gemm(rt.hip, rt.hipblas)
    add_blas_trsm(rt.hipblas)
    monkeypatch.setattr(svd_tall, "MIN_RATIO", 4)
    monkeypatch.setattr(svd_tall, "MIN_ELEMENTS", 0)
    return device


def test_tall_svd_fits_one_large_tall_float32_matrix():
    from rocm_backend.families import svd_tall

    assert svd_tall.fits(1, 200000, 256, dt.float32, False) and svd_tall.fits(1, 200000, 16, dt.float32, False)
    assert svd_tall.fits(1, 8192, 256, dt.float32, False) and svd_tall.fits(1, 4096, 512, dt.float32, False)
    assert svd_tall.fits(1, 1 << 16, 16, dt.float32, False)  # 2^20 elements
    assert not svd_tall.fits(1, (1 << 16) - 1, 16, dt.float32, False)  # too few elements
    assert svd_tall.fits(1, 4096, 256, dt.float32, False) and svd_tall.fits(1, 8192, 128, dt.float32, False)
    assert svd_tall.fits(1, 2048, 512, dt.float32, False)  # 2^20 elements: won (probe s21mends_2)
    assert not svd_tall.fits(1, 4096, 128, dt.float32, False)  # 2^19 elements: lost at n = 128
    assert svd_tall.fits(1, 4096, 1024, dt.float32, False)  # 4 rows a column
    assert not svd_tall.fits(1, 4095, 1024, dt.float32, False)  # fewer than 4 rows a column
    assert not svd_tall.fits(1, 200000, 256, dt.float32, True)  # full U: m x m, not Q's
    assert not svd_tall.fits(2, 200000, 256, dt.float32, False)  # a batch
    for dtype in (dt.float64, dt.complex64):
        assert not svd_tall.fits(1, 200000, 256, dtype, False)


def test_tall_svd_never_takes_the_square_r(gemm_device, monkeypatch):
    """With thresholds of 1 and 0 the n x n R's own SVD (the caller's svd) still goes to
    gesvdj, not back to the Cholesky QR (s19svd_2's probe recursed so)."""
    from rocm_backend.families import svd_tall

    monkeypatch.setattr(svd_tall, "MIN_RATIO", 1)
    assert not svd_tall.fits(1, 256, 256, dt.float32, False)
    a = _random(np.random.default_rng(11), dt.float32, (12, 3))
    s, lay = _strided(gemm_device, a)
    _check_svd(s, lay, a, (), 12, 3)


@pytest.mark.parametrize("shape", [(12, 3), (40, 8), (1, 12, 3), (2, 9, 2)], ids=str)
def test_tall_single_precision_svd_through_cholesky_qr(gemm_device, shape, monkeypatch):
    """One tall float32 A (reduced SVD; a batch of one too): two Cholesky passes of its Gram
    matrix (potrf on n x n, R^-1 as one trsm on the n x n identity, column-major, with R^T
    lower: no LU inverse; Q = A R^-1 a GEMM), then gesvdj on the n x n R only; a batch, or
    the full SVD, keeps to the paths before (no Cholesky)."""
    from rocm_backend.bindings import hipsolver

    a = _random(np.random.default_rng(7), dt.float32, shape)
    s, lay = _strided(gemm_device, a)
    called = _tall_svd_calls(hipsolver._api, monkeypatch, gemm_device)
    *batch, m, n = shape
    batch = tuple(batch)
    _check_svd(s, lay, a, batch, m, n)
    if int(np.prod(batch)) > 1:
        assert not any(c[0] == "potrf" for c in called), called
    else:  # one host wait before gesvdj: both potrf infos read with the orthogonality
        gesvdj = called.index(("gesvdj", n, n))
        assert called[:gesvdj] == [("potrf", n), ("trsm", "L", "Lo", n, n, n, n)] * 2 + [("wait",)], called
        assert [c for c in called if c[0] != "wait"][gesvdj - 1:] == [("gesvdj", n, n)], called
    called.clear()
    u_s, sv_s, vh_s = s.svd(lay, True)  # full: U is m x m, not Q's
    u = _read(u_s, batch + (m, m))
    np.testing.assert_allclose(_h(u) @ u, np.broadcast_to(np.eye(m), batch + (m, m)), atol=1e-5)
    assert not any(c[0] == "potrf" for c in called), called


@pytest.mark.parametrize("why", ["rank-deficient", "orthogonality"])
def test_tall_svd_falls_back_to_gesvdj_on_a(gemm_device, why, monkeypatch):
    """A Cholesky that fails (a repeated column: A^T A singular; its info, read with the
    orthogonality after both passes, says so), or a Q measured past ORTH_TOL (here a
    tolerance of 0), sends A itself to gesvdj after the path's one host wait: the same SVD."""
    from rocm_backend.bindings import hipsolver
    from rocm_backend.families import cholesky_qr

    called = _tall_svd_calls(hipsolver._api, monkeypatch, gemm_device)
    factored, infos = cholesky_qr._factored, []
    monkeypatch.setattr(cholesky_qr, "_factored", lambda *a: (infos.append(factored(*a)), infos[-1])[1])
    a = _random(np.random.default_rng(8), dt.float32, (16, 4))
    if why == "rank-deficient":
        a[:, 3] = a[:, 1]
    else:
        monkeypatch.setattr(cholesky_qr, "ORTH_TOL", 0)
    s, lay = _strided(gemm_device, a)
    _check_svd(s, lay, a, (), 16, 4) if why != "rank-deficient" else None
    if why == "rank-deficient":  # one singular value is 0: U's column for it is any unit vector
        u_s, sv_s, vh_s = s.svd(lay, False)
        u, sv, vh = _read(u_s, (16, 4)), _read(sv_s, (4,)), _read(vh_s, (4, 4))
        np.testing.assert_allclose(sv, np.linalg.svd(a, compute_uv=False), atol=1e-5)
        np.testing.assert_allclose((u * sv) @ vh, a, atol=1e-5)
    assert ("gesvdj", 16, 4) in called and not any(c[0] == "geqrf" for c in called), called
    assert called[:called.index(("gesvdj", 16, 4))] == [("potrf", 4), ("trsm", "L", "Lo", 4, 4, 4, 4)] * 2 + [
        ("wait",)], called
    assert infos[0] is (why != "rank-deficient") and len(infos) == 2, infos  # the info decided


def test_tall_svd_copies_an_unreadable_layout_once(gemm_device, monkeypatch):
    """A layout no GEMM reads as it is (every other column) is copied once, up front: no
    GEMM of either pass copies its operand again (three copies before)."""
    from rocm_backend import rocblas

    copied = []
    materialize = rocblas._materialize
    monkeypatch.setattr(rocblas, "_materialize", lambda s, lay: (copied.append(lay.shape), materialize(s, lay))[1])
    a = _random(np.random.default_rng(9), dt.float32, (40, 6))
    wide = np.zeros((40, 12), np.float32)
    wide[:, ::2] = a
    s = gemm_device.storage_from_host(wide)
    _check_svd(s, Layout((40, 6), (12, 2), 0), a, (), 40, 6)
    assert copied == [], copied


@pytest.mark.parametrize("kept", [True, False], ids=["kept", "fresh"])
def test_tall_svd_copies_the_identity_only_where_it_is_kept(gemm_device, kept, monkeypatch):
    """The n x n identity the solves overwrite: a copy of the kept one (never the kept one
    itself: two calls both right, one identity made), or past the cache's bound a fresh one
    each, not copied again (one copy launch a pass saved at n > 256)."""
    from rocm_backend.families import creation, svd_tall
    from rocm_backend.families import linalg_common as lc

    monkeypatch.setattr(svd_tall, "MIN_RATIO", 4)
    monkeypatch.setattr(svd_tall, "MIN_ELEMENTS", 0)
    monkeypatch.setattr(lc, "MASK_CACHE_MAX", 1 << 16 if kept else 0)
    eyes, copied = [], []
    eye = creation.eye
    monkeypatch.setattr(creation, "eye", lambda *a: (eyes.append(eye(*a)), eyes[-1])[1])
    a = _random(np.random.default_rng(13), dt.float32, (40, 6))
    s, lay = _strided(gemm_device, a)
    kind = type(s)
    copy = kind.copy
    monkeypatch.setattr(kind, "copy", lambda self, *a, **k: (copied.append(any(self is e for e in eyes)),
                                                             copy(self, *a, **k))[1])
    _check_svd(s, lay, a, (), 40, 6)
    _check_svd(s, lay, a, (), 40, 6)
    assert len(eyes) == (1 if kept else 6), len(eyes)  # fresh: two solves and a check a call
    assert copied.count(True) == (4 if kept else 0), copied


@pytest.mark.parametrize("cond", [1e1, 1e3])
def test_tall_svd_of_an_ill_conditioned_a_matches_float64(gemm_device, cond, monkeypatch):
    """A of condition 10 and 10^3 (float32; cond^2 of its Gram matrix up to 10^6): the
    Cholesky QR holds (no fall back) and its singular values and U S Vh match NumPy's
    float64 SVD to float32 rounding relative to the largest."""
    from rocm_backend.bindings import hipsolver

    called = _tall_svd_calls(hipsolver._api, monkeypatch)
    rng = np.random.default_rng(10)
    m, n = 64, 8
    q1, _ = np.linalg.qr(rng.standard_normal((m, n)))
    q2, _ = np.linalg.qr(rng.standard_normal((n, n)))
    sv_true = np.logspace(0, -np.log10(cond), n)
    a = ((q1 * sv_true) @ q2.T).astype(np.float32)
    s = gemm_device.storage_from_host(a)
    u_s, sv_s, vh_s = s.svd(Layout.contiguous((m, n)), False)
    u, sv, vh = _read(u_s, (m, n)), _read(sv_s, (n,)), _read(vh_s, (n, n))
    assert not any(c[0] == "gesvdj" and c[1:] == (m, n) for c in called), called
    a64 = a.astype(np.float64)
    np.testing.assert_allclose(sv, np.linalg.svd(a64, compute_uv=False), atol=1e-5)
    np.testing.assert_allclose((u * sv) @ vh, a64, atol=1e-5)
    np.testing.assert_allclose(u.T @ u, np.eye(n), atol=1e-5)


@pytest.mark.parametrize("case", ["dtype", "size"])
def test_the_triangular_solves_errors_name_the_users_function_and_argument(fake, case):
    """rocblas.solve_upper_right (the path's R^-1) refuses what hipBLAS's trsm cannot take
    in the words of the function the user called and its argument, not its own name."""
    from candlewick.errors import UnsupportedOperation
    from rocm_backend import rocblas

    _, device = fake
    dtype, m = (dt.float16, 4) if case == "dtype" else (dt.float32, 1 << 31)
    b, r = device.storage_type.empty(device, dtype, 16), device.storage_type.empty(device, dtype, 16)
    with pytest.raises(UnsupportedOperation, match="operation 'svd' .*: x: hipBLAS's triangular solve") as err:
        rocblas.solve_upper_right(b, r, m, 4, "svd")
    assert "solve_upper_right" not in str(err.value)
    assert ("float16" if case == "dtype" else "2147483648 x 4") in str(err.value)


def test_tall_svd_factors_g_in_place_and_keeps_its_identity(gemm_device, monkeypatch):
    """G, the path's own product, is factored where it lies (no copy before potrf), and the
    n x n identity the solves copy and the check reads is made once (kept per shape): a
    repeated call fills nothing, each solve's right-hand side one copy of it."""
    from rocm_backend.bindings import hip, hipsolver

    called = _tall_svd_calls(hipsolver._api, monkeypatch)
    copy, launch = hip.memcpy_dtod_async, hip.module_launch_kernel
    monkeypatch.setattr(hip, "memcpy_dtod_async", lambda *a: (called.append(("copy",)), copy(*a))[1])
    monkeypatch.setattr(hip, "module_launch_kernel", lambda *a, **k: (
        called.append(("fill",)) if a[9].startswith("fill") else None, launch(*a, **k))[1])
    a = _random(np.random.default_rng(12), dt.float32, (40, 8))
    s = gemm_device.storage_from_host(a)
    _check_svd(s, Layout.contiguous((40, 8)), a, (), 40, 8)
    called.clear()
    _check_svd(s, Layout.contiguous((40, 8)), a, (), 40, 8)
    path = called[:called.index(("gesvdj", 8, 8))]
    assert path == [("potrf", 8), ("copy",), ("trsm", "L", "Lo", 8, 8, 8, 8)] * 2, called
