"""The fft extension against numpy.fft (and array-api-strict's fft for result dtypes)."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import array_api_strict as xs
import candlewick as cw
from array_api_support import COMPLEX, REAL_FLOAT, dt, finite_arrays, name_of, shapes, to_np, to_strict
from candlewick.errors import UnsupportedOperation

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
