"""candlewick.fft against numpy.fft (values) and array-api-strict (dtypes)."""

import numpy as np
import pytest

import candlewick as cw
from candlewick.errors import UnsupportedOperation
from _oracle import FLOAT_TOL, check, on, random_matrix, transposed

F = cw.fft
NORMS = ["backward", "ortho", "forward"]


@pytest.fixture
def fft_device(device):
    if "fft" not in device.capabilities:
        pytest.skip(f"{device.name} does not declare the optional 'fft' capability")
    return device


def _tol(dtype):
    return FLOAT_TOL[np.dtype(dtype).name] * 10


@pytest.mark.parametrize("fname", ["fft", "ifft"])
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("n", [None, 3, 8])
@pytest.mark.parametrize("norm", NORMS)
def test_complex_1d(fft_device, fname, dtype, n, norm):
    a = random_matrix(np.random.default_rng(0), (3, 5), dtype)
    for axis in (-1, 0):
        want = getattr(np.fft, fname)(a, n=n, axis=axis, norm=norm).astype(dtype)
        got = getattr(F, fname)(on(fft_device, a), n=n, axis=axis, norm=norm)
        check(got, want, rtol=_tol(dtype), atol=_tol(dtype))
    check(getattr(F, fname)(transposed(fft_device, a), n=n, norm=norm),
          getattr(np.fft, fname)(a, n=n, norm=norm).astype(dtype), rtol=_tol(dtype), atol=_tol(dtype))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [None, 4, 7, 12])
@pytest.mark.parametrize("norm", NORMS)
def test_real_1d_round_trip(fft_device, dtype, n, norm):
    a = random_matrix(np.random.default_rng(1), (2, 6), dtype)
    cdtype = np.result_type(dtype, np.complex64)
    half = F.rfft(on(fft_device, a), n=n, norm=norm)
    check(half, np.fft.rfft(a, n=n, norm=norm).astype(cdtype), rtol=_tol(dtype), atol=_tol(dtype))
    back = F.irfft(half, n=n if n is not None else 6, norm=norm)
    np.testing.assert_allclose(cw.to_numpy(back)[..., :min(6, n or 6)], a[..., :min(6, n or 6)],
                               rtol=_tol(dtype), atol=_tol(dtype))
    spectrum = np.fft.rfft(a.astype(np.float64), norm=norm).astype(cdtype)
    check(F.irfft(on(fft_device, spectrum), n=n, norm=norm),
          np.fft.irfft(spectrum, n=n, norm=norm).astype(dtype), rtol=_tol(dtype), atol=_tol(dtype))
    check(F.irfft(on(fft_device, spectrum), axis=0, norm=norm),
          np.fft.irfft(spectrum, axis=0, norm=norm).astype(dtype), rtol=_tol(dtype), atol=_tol(dtype))


@pytest.mark.parametrize("n", [None, 5, 8])
@pytest.mark.parametrize("norm", NORMS)
def test_hermitian_pair(fft_device, n, norm):
    rng = np.random.default_rng(2)
    half = random_matrix(rng, (3, 4), "complex128")
    check(F.hfft(on(fft_device, half), n=n, norm=norm), np.fft.hfft(half, n=n, norm=norm), rtol=1e-10, atol=1e-10)
    real = random_matrix(rng, (3, 6), "float32")
    check(F.ihfft(on(fft_device, real), n=n, norm=norm),
          np.fft.ihfft(real, n=n, norm=norm).astype(np.complex64), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("s,axes", [
    (None, None), ((4, 3), None), (None, (0, 2)), ((2, 6), (2, 0)), ((5,), (-2,)), ((3, -1), (1, 2)),
])
@pytest.mark.parametrize("norm", NORMS)
def test_n_dimensional(fft_device, s, axes, norm):
    rng = np.random.default_rng(3)
    c = random_matrix(rng, (2, 3, 4), "complex128")
    np_s = None if s is None else tuple(c.shape[a] if v == -1 else v for v, a in zip(s, axes or range(-len(s), 0)))
    for fname in ("fftn", "ifftn"):
        check(getattr(F, fname)(on(fft_device, c), s=s, axes=axes, norm=norm),
              getattr(np.fft, fname)(c, s=np_s, axes=axes, norm=norm), rtol=1e-10, atol=1e-10)
    r = random_matrix(rng, (2, 3, 4), "float64")
    check(F.rfftn(on(fft_device, r), s=s, axes=axes, norm=norm),
          np.fft.rfftn(r, s=np_s, axes=axes, norm=norm), rtol=1e-10, atol=1e-10)
    spectrum = np.fft.rfftn(r, axes=axes)
    check(F.irfftn(on(fft_device, spectrum), s=s, axes=axes, norm=norm),
          np.fft.irfftn(spectrum, s=np_s, axes=axes, norm=norm), rtol=1e-10, atol=1e-10)


def test_transform_dtype_rules(fft_device):
    c64 = on(fft_device, np.ones(4, np.complex64))
    f32 = on(fft_device, np.ones(4, np.float32))
    assert F.fft(c64).dtype == cw.complex64 and F.ifftn(c64).dtype == cw.complex64
    assert F.rfft(f32).dtype == cw.complex64 and F.irfft(c64).dtype == cw.float32
    assert F.hfft(c64).dtype == cw.float32 and F.ihfft(f32).dtype == cw.complex64
    for fname in ("fft", "ifft", "fftn", "ifftn", "irfft", "irfftn", "hfft"):
        with pytest.raises(TypeError, match="complex"):
            getattr(F, fname)(f32)
    for fname in ("rfft", "rfftn", "ihfft"):
        with pytest.raises(TypeError, match="float"):
            getattr(F, fname)(c64)
        with pytest.raises(TypeError):
            getattr(F, fname)(on(fft_device, np.ones(4, np.int32)))


def test_transform_argument_errors(fft_device):
    x = on(fft_device, np.ones((2, 4), np.complex128))
    with pytest.raises(ValueError, match="n"):
        F.fft(x, n=0)
    with pytest.raises(TypeError, match="n"):
        F.fft(x, n=2.0)
    with pytest.raises(ValueError, match="norm"):
        F.fft(x, norm="none")
    with pytest.raises(IndexError):
        F.ifft(x, axis=2)
    with pytest.raises(ValueError, match="s and axes"):
        F.fftn(x, s=(2, 2), axes=(0,))
    with pytest.raises(ValueError, match="repeat"):
        F.fftn(x, axes=(0, 0))
    with pytest.raises(ValueError):
        F.irfft(on(fft_device, np.ones(1, np.complex128)))  # default n = 2*(1-1) = 0


@pytest.mark.parametrize("fname", ["fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft", "ihfft"])
def test_missing_capability_is_unsupported(device, monkeypatch, fname):
    real = fname in ("rfft", "rfftn", "ihfft")
    x = on(device, np.ones(4, np.float64 if real else np.complex128))
    monkeypatch.setattr(device, "capabilities", frozenset(set(device.capabilities) - {"fft"}), raising=False)
    with pytest.raises(UnsupportedOperation, match=f"fft.{fname}.*{device.name}"):
        getattr(F, fname)(x)


# --- helpers that need no fft primitive -------------------------------------------------

@pytest.mark.parametrize("n", [1, 2, 5, 8, 11])
@pytest.mark.parametrize("d", [1.0, 0.1, 3])
def test_frequencies_match_numpy_exactly(device, n, d):
    check(F.fftfreq(n, d=d, device=device), np.fft.fftfreq(n, d=d))
    check(F.rfftfreq(n, d=d, device=device), np.fft.rfftfreq(n, d=d))
    check(F.fftfreq(n, d=d, dtype=cw.float32, device=device), np.fft.fftfreq(n, d=d).astype(np.float32))
    assert F.rfftfreq(n, device=device).device is device


def test_frequencies_reject_bad_arguments(device):
    with pytest.raises(ValueError):
        F.fftfreq(0, device=device)
    with pytest.raises(TypeError):
        F.fftfreq(4, dtype=cw.int64, device=device)
    with pytest.raises(TypeError):
        F.rfftfreq(4, dtype=cw.complex64, device=device)
    with pytest.raises(TypeError):
        F.rfftfreq(4.0, device=device)
    with pytest.raises(TypeError, match="d"):
        F.fftfreq(4, d="1", device=device)


@pytest.mark.parametrize("shape", [(5,), (4,), (3, 4), (2, 3, 5), (0, 3), ()])
@pytest.mark.parametrize("axes", [None, 0, -1, (0, -1)])
def test_shifts_match_numpy(device, shape, axes):
    host = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
    x = on(device, host)
    if not shape:  # nothing to roll (NumPy itself fails on 0-d input)
        if axes is None:
            check(F.fftshift(x), host)
        return
    np_axes = axes
    shifted = F.fftshift(x, axes=axes)
    check(shifted, np.fft.fftshift(host, axes=np_axes))
    if axes != (0, -1) or len(shape) > 1:  # on 1-D, (0, -1) rolls the one axis twice
        check(F.ifftshift(shifted, axes=axes), host)
    check(F.ifftshift(x, axes=axes), np.fft.ifftshift(host, axes=np_axes))


def test_shift_returns_a_new_array_and_checks_axes(device):
    x = on(device, [1.0])
    y = F.fftshift(x)
    assert y is not x
    y[0] = 5.0
    assert cw.to_numpy(x)[0] == 1.0
    with pytest.raises(IndexError):
        F.fftshift(on(device, [1, 2]), axes=1)
    check(F.fftshift(transposed(device, np.arange(6.0).reshape(2, 3))), np.fft.fftshift(np.arange(6.0).reshape(2, 3)))
