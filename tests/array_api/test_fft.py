"""candlewick.fft, both oracles: array-api-strict's fft for result dtypes with
Hypothesis-drawn signals (values against it too), then numpy.fft for values over fixed
cases, strided layouts, argument errors and the missing 'fft' capability."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import array_api_strict as xs
import candlewick as cw
from _oracle import FLOAT_TOL, check, on, random_matrix, transposed
from array_api_support import COMPLEX, REAL_FLOAT, dt, finite_arrays, name_of, shapes, to_np, to_strict
from candlewick.errors import UnsupportedOperation


# === array-api-strict: drawn signals, result dtypes and values ============================

NORMS = ["backward", "ortho", "forward"]


def _call(fn, *args, **kwargs):
    try:
        return fn(*args, **kwargs)
    except UnsupportedOperation as exc:
        pytest.skip(f"device lacks the fft capability: {exc}")


def _check(out, strict_fn, x, what, **kwargs):
    ref = strict_fn(to_strict(x), **kwargs)
    assert name_of(out.dtype) == name_of(ref.dtype), f"{what}: dtype {out.dtype}, expected {ref.dtype}"
    single = name_of(x.dtype) in ("float32", "complex64")
    np.testing.assert_allclose(to_np(out), np.asarray(ref), rtol=2e-4 if single else 1e-10,
                               atol=2e-4 if single else 1e-10, err_msg=what)


def _signal(data, names, min_dims=1, max_dims=3):
    name = data.draw(st.sampled_from(names), label="dtype")
    shape = data.draw(shapes(min_dims=min_dims, max_dims=max_dims, min_side=1, max_side=6), label="shape")
    return data.draw(finite_arrays(name, shape, magnitude=10.0), label="x")


@pytest.mark.parametrize("fname", ["fft", "ifft"])
@given(data=st.data())
def test_complex_transforms(fname, data):
    x = _signal(data, COMPLEX)
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1), label="axis")
    n = data.draw(st.none() | st.integers(1, 8), label="n")
    norm = data.draw(st.sampled_from(NORMS), label="norm")
    out = _call(getattr(cw.fft, fname), x, n=n, axis=axis, norm=norm)
    _check(out, getattr(xs.fft, fname), x, f"{fname}(n={n}, axis={axis}, norm={norm})", n=n, axis=axis, norm=norm)


@pytest.mark.parametrize("fname", ["fftn", "ifftn"])
@given(data=st.data())
def test_nd_complex_transforms(fname, data):
    x = _signal(data, COMPLEX)
    axes = data.draw(st.none() | st.permutations(range(x.ndim)).map(lambda p: tuple(p[: max(1, len(p) - 1)])),
                     label="axes")
    s = None
    if axes is not None and data.draw(st.booleans(), label="with_s"):
        s = tuple(data.draw(st.integers(1, 6), label=f"s{i}") for i in range(len(axes)))
    norm = data.draw(st.sampled_from(NORMS), label="norm")
    out = _call(getattr(cw.fft, fname), x, s=s, axes=axes, norm=norm)
    _check(out, getattr(xs.fft, fname), x, f"{fname}(s={s}, axes={axes}, norm={norm})", s=s, axes=axes, norm=norm)


@given(data=st.data())
def test_real_transforms(data):
    x = _signal(data, REAL_FLOAT)
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1), label="axis")
    n = data.draw(st.none() | st.integers(2, 8), label="n")
    norm = data.draw(st.sampled_from(NORMS), label="norm")
    spectrum = _call(cw.fft.rfft, x, n=n, axis=axis, norm=norm)
    _check(spectrum, xs.fft.rfft, x, f"rfft(n={n}, axis={axis})", n=n, axis=axis, norm=norm)
    out_n = n if n is not None else x.shape[axis]
    back = _call(cw.fft.irfft, spectrum, n=out_n, axis=axis, norm=norm)
    _check(back, xs.fft.irfft, spectrum, f"irfft(n={out_n}, axis={axis})", n=out_n, axis=axis, norm=norm)
    hermitian = _call(cw.fft.ihfft, x, n=n, axis=axis, norm=norm)
    _check(hermitian, xs.fft.ihfft, x, f"ihfft(n={n}, axis={axis})", n=n, axis=axis, norm=norm)
    _check(_call(cw.fft.hfft, hermitian, n=out_n, axis=axis, norm=norm), xs.fft.hfft, hermitian,
           f"hfft(n={out_n})", n=out_n, axis=axis, norm=norm)


@given(data=st.data())
def test_nd_real_transforms(data):
    x = _signal(data, REAL_FLOAT, min_dims=2)
    norm = data.draw(st.sampled_from(NORMS), label="norm")
    axes = data.draw(st.sampled_from([None, (-1,), (0, -1), (-2, -1)]), label="axes")
    spectrum = _call(cw.fft.rfftn, x, axes=axes, norm=norm)
    _check(spectrum, xs.fft.rfftn, x, f"rfftn(axes={axes})", axes=axes, norm=norm)
    last = x.shape[-1] if axes is None or axes[-1] == -1 else x.shape[axes[-1]]
    full_axes = axes if axes is not None else tuple(range(x.ndim))
    s = tuple(x.shape[a] for a in full_axes[:-1]) + (last,)
    _check(_call(cw.fft.irfftn, spectrum, s=s, axes=full_axes, norm=norm), xs.fft.irfftn, spectrum,
           f"irfftn(s={s}, axes={full_axes})", s=s, axes=full_axes, norm=norm)


@pytest.mark.parametrize("fname", ["fftfreq", "rfftfreq"])
@given(n=st.integers(1, 12), d=st.sampled_from([1.0, 0.5, 2.5]), name=st.none() | st.sampled_from(REAL_FLOAT))
def test_frequencies(fname, n, d, name):
    kwargs = {} if name is None else {"dtype": dt(name)}
    out = getattr(cw.fft, fname)(n, d=d, **kwargs)
    expected = getattr(np.fft, fname)(n, d=d)
    assert out.dtype == dt(name or "float64")
    np.testing.assert_allclose(to_np(out), expected, rtol=1e-6)


@pytest.mark.parametrize("fname", ["fftshift", "ifftshift"])
@given(data=st.data())
def test_shifts(fname, data):
    x = _signal(data, REAL_FLOAT + COMPLEX)
    axes = data.draw(st.none() | st.integers(-x.ndim, x.ndim - 1) | st.just(tuple(range(x.ndim))), label="axes")
    out = getattr(cw.fft, fname)(x, axes=axes)
    np.testing.assert_array_equal(to_np(out), getattr(np.fft, fname)(to_np(x), axes=axes))
    assert out.dtype == x.dtype


@pytest.mark.parametrize("fname", ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"])
def test_transforms_reject_bad_arguments(fname):
    fn = getattr(cw.fft, fname)
    x = cw.ones(4, dtype=cw.complex128 if fname in ("fft", "ifft", "irfft", "hfft") else cw.float64)
    with pytest.raises(ValueError):
        _call(fn, x, norm="sideways")
    with pytest.raises(ValueError):
        _call(fn, x, n=0)
    with pytest.raises(IndexError):
        _call(fn, x, axis=1)


def test_real_transforms_reject_complex_input():
    with pytest.raises(TypeError):
        _call(cw.fft.rfft, cw.ones(4, dtype=cw.complex64))


# === numpy.fft: fixed cases, layouts, errors, the missing capability ======================

F = cw.fft


@pytest.fixture
def fft_device(dev):
    if "fft" not in dev.capabilities:
        pytest.skip(f"{dev.name} does not declare the optional 'fft' capability")
    return dev


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
def test_missing_capability_is_unsupported(dev, monkeypatch, fname):
    real = fname in ("rfft", "rfftn", "ihfft")
    x = on(dev, np.ones(4, np.float64 if real else np.complex128))
    monkeypatch.setattr(dev, "capabilities", frozenset(set(dev.capabilities) - {"fft"}), raising=False)
    with pytest.raises(UnsupportedOperation, match=f"fft.{fname}.*{dev.name}"):
        getattr(F, fname)(x)


# --- helpers that need no fft primitive -------------------------------------------------

@pytest.mark.parametrize("n", [1, 2, 5, 8, 11])
@pytest.mark.parametrize("d", [1.0, 0.1, 3])
def test_frequencies_match_numpy_exactly(dev, n, d):
    check(F.fftfreq(n, d=d, device=dev), np.fft.fftfreq(n, d=d))
    check(F.rfftfreq(n, d=d, device=dev), np.fft.rfftfreq(n, d=d))
    check(F.fftfreq(n, d=d, dtype=cw.float32, device=dev), np.fft.fftfreq(n, d=d).astype(np.float32))
    assert F.rfftfreq(n, device=dev).device is dev


def test_frequencies_reject_bad_arguments(dev):
    with pytest.raises(ValueError):
        F.fftfreq(0, device=dev)
    with pytest.raises(TypeError):
        F.fftfreq(4, dtype=cw.int64, device=dev)
    with pytest.raises(TypeError):
        F.rfftfreq(4, dtype=cw.complex64, device=dev)
    with pytest.raises(TypeError):
        F.rfftfreq(4.0, device=dev)
    with pytest.raises(TypeError, match="d"):
        F.fftfreq(4, d="1", device=dev)


@pytest.mark.parametrize("shape", [(5,), (4,), (3, 4), (2, 3, 5), (0, 3), ()])
@pytest.mark.parametrize("axes", [None, 0, -1, (0, -1)])
def test_shifts_match_numpy(dev, shape, axes):
    host = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
    x = on(dev, host)
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


def test_shift_returns_a_new_array_and_checks_axes(dev):
    x = on(dev, [1.0])
    y = F.fftshift(x)
    assert y is not x
    y[0] = 5.0
    assert cw.to_numpy(x)[0] == 1.0
    with pytest.raises(IndexError):
        F.fftshift(on(dev, [1, 2]), axes=1)
    check(F.fftshift(transposed(dev, np.arange(6.0).reshape(2, 3))), np.fft.fftshift(np.arange(6.0).reshape(2, 3)))
