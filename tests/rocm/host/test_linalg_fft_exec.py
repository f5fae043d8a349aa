"""The rocm linalg and fft op families end to end on the CPU: host_exec runs the backend's
own kernels (copies, transposes, where, compares, reductions) on host memory, and the
library calls go to library_model.py's model of hipSOLVER / hipBLAS's batched LU / hipFFT
(LAPACK and numpy.fft on the same memory, through the addresses the backend passes). What this checks is the backend's side:
the column-major/row-major readings, leading dimensions, batch strides, pointer arrays,
plan layouts and the composition of det/slogdet/triangles; that the real libraries
compute the same is for the GPU runs (bench/results). The tall float32 SVD's path
(svd_tall.py) is test_linalg_tall_svd_host.py's, on the same kernels."""


import numpy as np
import pytest

from candlewick import dtypes as dt
from candlewick.errors import LinAlgError
from candlewick.layout import Layout
from host_exec import LINALG_FFT_DTYPES as DTYPES, device_factory
from rocm_backend.families import qr_householder

pytest.importorskip("scipy.linalg.lapack")  # the model computes with LAPACK
from library_model import add_blas_lu, fft_module, solver_module  # noqa: E402


def runtime_and_device_on(lib, monkeypatch, tmp_path):
    """(ExecRuntime, rocm device on it) over ``lib``, with library_model's hipSOLVER, hipBLAS
    batched LU and hipFFT."""
    from rocm_backend.bindings import hipfft, hipsolver

    rt, dev = device_factory(lib, monkeypatch, tmp_path)()
    solver = solver_module()
    add_blas_lu(rt.hipblas, solver)
    rt.hipblas.hipblasCreate = lambda: (0, "blas-handle")
    monkeypatch.setattr(hipsolver, "_api", solver)
    monkeypatch.setattr(hipfft, "_api", fft_module())
    return rt, dev


@pytest.fixture
def runtime_and_device(linalg_fft_lib, monkeypatch, tmp_path):
    return runtime_and_device_on(linalg_fft_lib, monkeypatch, tmp_path)


@pytest.fixture
def device(runtime_and_device):
    return runtime_and_device[1]


def _h(m):
    return np.conj(np.swapaxes(m, -1, -2))


def _strided(dev, a):
    """``a`` uploaded as a transposed view with an offset (a non-contiguous layout)."""
    buf = np.zeros(a.size + 3, a.dtype)
    t = np.ascontiguousarray(np.swapaxes(a, -1, -2))
    buf[3:] = t.reshape(-1)
    s = dev.storage_from_host(buf)
    shape = t.shape
    strides = list(Layout.contiguous(shape).strides)
    strides[-1], strides[-2] = strides[-2], strides[-1]
    return s, Layout(shape[:-2] + (shape[-1], shape[-2]), tuple(strides), 3)


def _random(rng, dtype, shape):
    m = rng.standard_normal(shape)
    return (m + 1j * rng.standard_normal(shape) if dtype.is_complex else m).astype(dtype.numpy)


def _read(s, shape):
    """A result storage read C-contiguous, or a (storage, layout) pair through its layout
    (qr's Q, svd's U and Vh, column-major where hipSOLVER leaves them)."""
    if isinstance(s, tuple):
        assert tuple(s[1].shape) == tuple(shape) and s[1].is_dense_permutation() and s[0].size == np.prod(shape)
        return s[0].to_host(s[1])
    return s.to_host(Layout.contiguous(shape))


@pytest.mark.parametrize("batch", [(), (3,)], ids=["one", "batched"])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_decompositions_and_solves(device, dtype, batch):
    rng = np.random.default_rng(1)
    n = 5
    a = _random(rng, dtype, batch + (n, n)) + 3 * n * np.eye(n)
    s, lay = _strided(device, a)
    x = _read(s.inv(lay), batch + (n, n))
    np.testing.assert_allclose(a @ x, np.broadcast_to(np.eye(n), a.shape), atol=1e-10)
    b = _random(rng, dtype, batch + (n, 2))
    r, r_lay = _strided(device, b)
    np.testing.assert_allclose(a @ _read(s.solve(lay, r, r_lay), batch + (n, 2)), b, atol=1e-10)
    np.testing.assert_allclose(_read(s.det(lay), batch), np.linalg.det(a), rtol=1e-10)
    sign, logabs = s.slogdet(lay)
    ref_sign, ref_log = np.linalg.slogdet(a)
    np.testing.assert_allclose(_read(sign, batch), ref_sign, rtol=1e-10)
    np.testing.assert_allclose(_read(logabs, batch), ref_log, rtol=1e-10)
    spd = a @ _h(a)
    p, p_lay = _strided(device, spd)
    for upper in (False, True):
        f = _read(p.cholesky(p_lay, upper), batch + (n, n))
        np.testing.assert_allclose(f, _h(np.linalg.cholesky(spd)) if upper else np.linalg.cholesky(spd),
                                   atol=1e-10)
    herm = (a + _h(a)) / 2
    e, e_lay = _strided(device, herm)
    w_s, v_s = e.eigh(e_lay)
    w, v = _read(w_s, batch + (n,)), _read(v_s, batch + (n, n))
    np.testing.assert_allclose(w, np.linalg.eigvalsh(herm), atol=1e-10)
    np.testing.assert_allclose(herm @ v, v * w[..., None, :], atol=1e-9)


@pytest.mark.parametrize("shape", [(6, 4), (4, 6), (2, 6, 4), (3, 4, 6)], ids=str)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_qr_and_svd(device, dtype, shape):
    rng = np.random.default_rng(2)
    a = _random(rng, dtype, shape)
    s, lay = _strided(device, a)
    m, n = shape[-2:]
    k = min(m, n)
    batch = shape[:-2]
    for complete in (False, True):
        q_s, r_s = s.qr(lay, complete)
        kq = m if complete else k
        # through hipSOLVER a tall A's Q is orgqr's buffer itself, read column-major (no
        # copy); a wide A's is the first columns of a larger buffer: copied out
        if not qr_householder.fits(int(np.prod(batch)), m, n, dtype):
            assert isinstance(q_s, tuple) == (m >= n)
        q, r = _read(q_s, batch + (m, kq)), _read(r_s, batch + (kq, n))
        np.testing.assert_allclose(q @ r, a, atol=1e-10)
        np.testing.assert_allclose(_h(q) @ q, np.broadcast_to(np.eye(kq), batch + (kq, kq)), atol=1e-10)
        assert (np.tril(r, -1) == 0).all()
    for full in (False, True):
        u_s, sv_s, vh_s = s.svd(lay, full)
        u = _read(u_s, batch + (m, m if full else k))
        sv = _read(sv_s, batch + (k,))
        vh = _read(vh_s, batch + (n if full else k, n))
        np.testing.assert_allclose(sv, np.linalg.svd(a, compute_uv=False), atol=1e-10)
        np.testing.assert_allclose((u[..., :, :k] * sv[..., None, :]) @ vh[..., :k, :], a, atol=1e-10)


def test_repeated_batched_cholesky_reuses_its_constants(runtime_and_device):
    runtime, device = runtime_and_device
    rng = np.random.default_rng(4)
    a = rng.standard_normal((3, 5, 5))
    spd = a @ _h(a) + 5 * np.eye(5)
    s = device.storage_from_host(spd.reshape(-1))
    lay = Layout.contiguous(spd.shape)
    first = _read(s.cholesky(lay, False), spd.shape)
    before, uploads = len(runtime.launches), runtime.calls["hipMemcpyHtoDAsync"]
    second = s.cholesky(lay, False)
    names = [name for name, _, _ in runtime.launches[before:]]
    uploads = runtime.calls["hipMemcpyHtoDAsync"] - uploads
    second = _read(second, spd.shape)
    # the triangle mask is kept (made by two aranges and a compare); a pointer array for a
    # buffer at a new address is one int64 arange on the device, no upload
    assert not any(n.startswith("compare") for n in names), names
    assert names.count("arange_int64") <= 1 and uploads == 0, names
    np.testing.assert_array_equal(first, second)
    np.testing.assert_allclose(second, np.linalg.cholesky(spd), atol=1e-10)


@pytest.mark.parametrize("batch", [(), (3,)], ids=["potrf", "potrfBatched"])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_cholesky_reads_one_triangle_and_factors_with_fill_lower(runtime_and_device, dtype, batch):
    """As NumPy: L from A's lower triangle, U from its upper (the other is never read), on
    strided views too; every hipSOLVER call is fill LOWER (cuSOLVER's UPPER was the slow one)."""
    from rocm_backend.bindings import hipsolver
    from rocm_backend.families.linalg_common import LETTER

    rng = np.random.default_rng(5)
    n = 6
    b = _random(rng, dtype, batch + (n, n))
    spd = b @ _h(b) + n * np.eye(n)
    _, device = runtime_and_device
    solver = hipsolver._api  # this test's own model: wrapped to see the fill
    fills = []

    def recording(routine):
        return lambda h, uplo, *rest: (fills.append(uplo), routine(h, uplo, *rest))[1]

    for name in ("potrf", "potrfBatched"):
        full = f"hipsolver{LETTER[dtype]}{name}"
        setattr(solver, full, recording(getattr(solver, full)))
    for upper in (False, True):
        junk = spd.copy()
        rows, cols = np.tril_indices(n, -1) if upper else np.triu_indices(n, 1)
        junk[..., rows, cols] = 1e3  # the triangle that must not be read
        want = _h(np.linalg.cholesky(spd)) if upper else np.linalg.cholesky(spd)
        contiguous = device.storage_from_host(junk.reshape(-1)), Layout.contiguous(junk.shape)
        for s, lay in (contiguous, _strided(device, junk)):
            np.testing.assert_allclose(_read(s.cholesky(lay, upper), batch + (n, n)), want, atol=1e-10)
    assert len(fills) == 4 and set(fills) == {122}, fills  # HIPBLAS_FILL_MODE_LOWER


@pytest.mark.parametrize("converges", [True, False], ids=["gesvdj", "gesvd-fallback"])
@pytest.mark.parametrize("shape", [(6, 4), (4, 6)], ids=str)
@pytest.mark.parametrize("dtype", [dt.float32, dt.complex64], ids=str)
def test_single_precision_svd_tries_gesvdj_first(device, dtype, shape, converges, monkeypatch):
    from rocm_backend.bindings import hipsolver

    solver = hipsolver._api
    monkeypatch.setattr(solver, "fake_gesvdj_info", 0 if converges else 1, raising=False)
    called = []
    letter = "S" if dtype is dt.float32 else "C"
    for name in ("gesvdj", "gesvd"):
        full = f"hipsolver{letter}{name}"
        fn = getattr(solver, full)
        monkeypatch.setattr(solver, full, lambda *a, fn=fn, name=name: (called.append(name), fn(*a))[1])
    rng = np.random.default_rng(6)
    a = _random(rng, dtype, shape)
    s, lay = _strided(device, a)
    m, n = shape
    k = min(m, n)
    for full in (False, True):
        u_s, sv_s, vh_s = s.svd(lay, full)
        # gesvdj's U, and gesvd's of a tall A, are returned in their buffers, column-major
        assert isinstance(u_s, tuple) == (converges or m > n)
        u, sv = _read(u_s, (m, m if full else k)), _read(sv_s, (k,))
        vh = _read(vh_s, (n if full else k, n))
        np.testing.assert_allclose(sv, np.linalg.svd(a, compute_uv=False), atol=1e-5)
        np.testing.assert_allclose((u[:, :k] * sv) @ vh[:k], a, atol=1e-5)
        np.testing.assert_allclose(_h(u) @ u, np.eye(u.shape[1]), atol=1e-5)
    assert called[0] == "gesvdj" and ("gesvd" in called) == (not converges)


def test_singular_and_not_positive_definite_raise(device):
    s = device.storage_from_host(np.array([1.0, 2.0, 2.0, 4.0]))
    lay = Layout.contiguous((2, 2))
    with pytest.raises(LinAlgError, match="singular"):
        s.inv(lay)
    with pytest.raises(LinAlgError, match="positive definite"):
        device.storage_from_host(-np.eye(3).reshape(-1)).cholesky(Layout.contiguous((3, 3)), False)
    sign, logabs = s.slogdet(lay)
    assert _read(sign, ()) == 0 and _read(logabs, ()) == -np.inf


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_fft_rfft_irfft_on_views(device, axis):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((3, 5, 4)) + 1j * rng.standard_normal((3, 5, 4))
    s, lay = _strided(device, x)  # x as a transposed view of its storage, offset 3
    for inverse in (False, True):
        got = _read(s.fft(lay, axis, inverse), x.shape)
        n = x.shape[axis]
        want = np.fft.ifft(x, axis=axis) * n if inverse else np.fft.fft(x, axis=axis)
        np.testing.assert_allclose(got, want, atol=1e-10)
    real = np.ascontiguousarray(x.real)
    rs, rlay = _strided(device, real)
    spec_shape = list(real.shape)
    spec_shape[axis] = real.shape[axis] // 2 + 1
    spec = _read(rs.rfft(rlay, axis), tuple(spec_shape))
    np.testing.assert_allclose(spec, np.fft.rfft(real, axis=axis), atol=1e-10)
    n = real.shape[axis]
    half, half_lay = _strided(device, np.ascontiguousarray(spec))
    back = half.irfft(half_lay, axis, n)
    np.testing.assert_allclose(_read(back, real.shape), real * n, atol=1e-9)
    # a shorter half spectrum is zero-padded, as numpy.fft.irfft does
    short = device.storage_from_host(np.ascontiguousarray(spec))
    longer = short.irfft(Layout.contiguous(tuple(spec_shape)), axis, 2 * n + 3)
    out_shape = list(real.shape)
    out_shape[axis] = 2 * n + 3
    np.testing.assert_allclose(_read(longer, tuple(out_shape)), np.fft.irfft(spec, 2 * n + 3, axis=axis) * (2 * n + 3),
                               atol=1e-9)


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_fft_and_rfft_pad_their_input(runtime_and_device, axis):
    """The device declares fft_pad: fft and rfft given ``n`` past the axis's length are
    NumPy's with that ``n`` (strided views, every axis; norm too); where the axis is the
    rows' last, the padded copy is one row copy (no buffer of zeros filled first)."""
    rt, device = runtime_and_device
    assert device.fft_pad is True
    rng = np.random.default_rng(8)
    x = rng.standard_normal((3, 5, 4)) + 1j * rng.standard_normal((3, 5, 4))
    n = x.shape[axis] + 3
    s, lay = _strided(device, x)
    shape = x.shape[:axis] + (n,) + x.shape[axis + 1:]
    for inverse in (False, True):
        want = np.fft.ifft(x, n=n, axis=axis, norm="forward") if inverse else np.fft.fft(x, n=n, axis=axis)
        np.testing.assert_allclose(_read(s.fft(lay, axis, inverse, n=n), shape), want, atol=1e-10)
    real = np.ascontiguousarray(x.real)
    rs, rlay = _strided(device, real)
    half = x.shape[:axis] + (n // 2 + 1,) + x.shape[axis + 1:]
    for norm in (None, "ortho"):
        got = rs.rfft(rlay, axis, n=n) if norm is None else rs.rfft(rlay, axis, n=n, norm=norm)
        np.testing.assert_allclose(_read(got, half), np.fft.rfft(real, n=n, axis=axis, norm=norm), atol=1e-10)
    rows = device.storage_from_host(np.ascontiguousarray(real))  # contiguous: rows along the last axis
    del rt.launches[:]
    got = rows.rfft(Layout.contiguous(real.shape), 2, n=7)
    np.testing.assert_allclose(_read(got, real.shape[:2] + (4,)), np.fft.rfft(real, n=7, axis=2), atol=1e-10)
    names = [name.decode() if isinstance(name, bytes) else name for name, _, _ in rt.launches]
    assert names == ["row_copy_b8"], names


NORMS = ("backward", "ortho", "forward")


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("axis", [0, 2])
def test_transforms_scale_by_norm_as_numpy(runtime_and_device, norm, axis):
    """The device declares fft_norm: each primitive given NumPy's norm returns NumPy's
    result (strided input, irfft's padded and truncated inputs included). irfft scales
    in the copy it makes of its input: its launches are that one multiplying kernel and
    nothing after the C2R; a forward transform that scales does one in-place pass."""
    rt, device = runtime_and_device
    assert device.fft_norm is True
    rng = np.random.default_rng(7)
    x = rng.standard_normal((3, 5, 4)) + 1j * rng.standard_normal((3, 5, 4))
    s, lay = _strided(device, x)
    for inverse in (False, True):
        want = np.fft.ifft(x, axis=axis, norm=norm) if inverse else np.fft.fft(x, axis=axis, norm=norm)
        np.testing.assert_allclose(_read(s.fft(lay, axis, inverse, norm=norm), x.shape), want, atol=1e-10)
        axes = (axis, 1)
        want = np.fft.ifftn(x, axes=axes, norm=norm) if inverse else np.fft.fftn(x, axes=axes, norm=norm)
        np.testing.assert_allclose(_read(s.fftn(lay, axes, inverse, norm=norm), x.shape), want, atol=1e-10)
    real = np.ascontiguousarray(x.real)
    rs, rlay = _strided(device, real)
    spec = np.fft.rfft(real, axis=axis, norm=norm)
    np.testing.assert_allclose(_read(rs.rfft(rlay, axis, norm=norm), spec.shape), spec, atol=1e-10)
    for axes in ((axis, 1), (1, 2)):
        out, out_layout = rs.rfftn(rlay, axes, norm=norm)
        np.testing.assert_allclose(out.to_host(out_layout), np.fft.rfftn(real, axes=axes, norm=norm), atol=1e-10)
    hs, hlay = _strided(device, np.ascontiguousarray(spec))
    n = real.shape[axis]
    for length in (n, 2 * n + 3, 2):  # as long as the input, zero-padded, truncated
        want = np.fft.irfft(spec, length, axis=axis, norm=norm)
        del rt.launches[:]
        got = _read(hs.irfft(hlay, axis, length, norm=norm), want.shape)
        np.testing.assert_allclose(got, want, atol=1e-9)
        names = [name.decode() if isinstance(name, bytes) else name for name, _, _ in rt.launches]
        if norm != "forward" and length // 2 + 1 <= spec.shape[axis]:
            assert names == ["binary_multiply_complex128"]  # the scaling copy; the C2R is the library's
        if norm == "forward":
            assert not any(name.startswith("binary") for name in names)


@pytest.mark.parametrize("axes", [(1, 2), (2, 1), (0, 1, 2), (0, 2), (1,), (2, 0)], ids=str)
def test_fftn_and_rfftn(device, axes):
    """One 2-D/3-D plan for trailing axes (rfftn: its real axis last), else one axis at
    a time; strided input either way."""
    from rocm_backend.families import fft_nd

    rng = np.random.default_rng(5)
    x = rng.standard_normal((3, 5, 4)) + 1j * rng.standard_normal((3, 5, 4))
    s, lay = _strided(device, x)
    for inverse in (False, True):
        size = int(np.prod([x.shape[a] for a in axes]))
        want = np.fft.ifftn(x, axes=axes) * size if inverse else np.fft.fftn(x, axes=axes)
        np.testing.assert_allclose(_read(s.fftn(lay, axes, inverse), x.shape), want, atol=1e-10)
    real = np.ascontiguousarray(x.real)
    rs, rlay = _strided(device, real)
    want = np.fft.rfftn(real, axes=axes)
    out, out_layout = rs.rfftn(rlay, axes)
    assert out_layout == Layout.contiguous(want.shape)  # no single matrix here: C-contiguous
    np.testing.assert_allclose(out.to_host(out_layout), want, atol=1e-10)
    # one matrix over both axes: rows, then columns written transposed (``_rows_then_columns``)
    for shape in ((6, 5), (1, 7, 8), (4, 1)):
        m = rng.standard_normal(shape)
        ms, mlay = _strided(device, m)
        for two_axes in ((-2, -1), (len(shape) - 2, len(shape) - 1)):
            out, out_layout = ms.rfftn(mlay, two_axes)
            want = np.fft.rfftn(m, axes=(-2, -1))
            assert out_layout.strides[-2:] == (1, shape[-2]) and out.size == want.size
            np.testing.assert_allclose(out.to_host(out_layout), want, atol=1e-10)
    assert fft_nd.planned(x.shape, axes, "fft") == (axes in ((1, 2), (2, 1), (0, 1, 2)))
    assert fft_nd.planned(x.shape, axes, "rfft") == (axes in ((1, 2), (0, 1, 2)))


def test_contiguous_transforms_plan_the_basic_layout(device, monkeypatch):
    """Contiguous input and output are planned with NULL embeddings (the basic layout, as
    PyTorch and CuPy plan them); a strided view keeps its advanced layout, and both give
    numpy.fft's result."""
    from rocm_backend.bindings import hipfft as binding

    hipfft = binding._api
    plan_many, embeds = hipfft.hipfftPlanMany, []
    monkeypatch.setattr(hipfft, "hipfftPlanMany",
                        lambda *a: (embeds.append((a[2] is None, a[5] is None)), plan_many(*a))[1])
    rng = np.random.default_rng(4)
    x = rng.standard_normal((6, 8)) + 1j * rng.standard_normal((6, 8))
    contiguous = device.storage_from_host(x.reshape(-1))
    np.testing.assert_allclose(_read(contiguous.fft(Layout.contiguous(x.shape), 1, False), x.shape),
                               np.fft.fft(x, axis=1), atol=1e-12)
    real = device.storage_from_host(x.real.copy().reshape(-1))
    np.testing.assert_allclose(_read(real.rfft(Layout.contiguous(x.shape), 1), (6, 5)),
                               np.fft.rfft(x.real, axis=1), atol=1e-12)
    assert embeds == [(True, True), (True, True)]
    s, lay = _strided(device, x)  # x as a transposed view: rows are strided
    np.testing.assert_allclose(_read(s.fft(lay, 0, False), x.shape), np.fft.fft(x, axis=0), atol=1e-12)
    assert embeds[2] == (False, False)


def test_a_tall_qr_holds_one_buffer_of_q(device):
    """scikit-learn's randomized range finder calls qr on tall (n, k) matrices: Q is
    orgqr's buffer read column-major (a transposed view, as PyTorch's Q is), so the call's
    peak holds that buffer and small ones, not a second (n, k) copy."""
    import candlewick as cw

    a = np.random.default_rng(5).standard_normal((4096, 8))
    x = cw.asarray(a, device=device)
    before = device.allocator.stats()["in_use_bytes"]
    device.allocator.reset_peak()
    q, r = cw.linalg.qr(x)
    peak = device.allocator.stats()["peak_in_use_bytes"] - before
    assert q.shape == (4096, 8) and q._layout.strides == (1, 4096)
    assert a.nbytes <= peak < 1.25 * a.nbytes
    qh = cw.to_numpy(q)
    np.testing.assert_allclose(qh @ cw.to_numpy(r), a, atol=1e-10)
    np.testing.assert_allclose(qh.T @ qh, np.eye(8), atol=1e-10)
    np.testing.assert_array_equal(cw.to_numpy(q + 0.0), qh)  # an element-wise op reads the view
