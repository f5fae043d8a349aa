"""The optional "fft" group: unnormalized in both directions, against numpy.fft; with
``norm`` where the device declares ``fft_norm`` (``candlewick.backend.FFTNormDevice``), with
``n`` (zero-padding) where it declares ``fft_pad`` (``FFTPadDevice``)."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from candlewick import dtypes as dt
from candlewick.backend import declares_fft_norm, declares_fft_pad
from candlewick.layout import Layout

from .checks import Expected, eps_of, read_permuted_result, read_result, require_capability
from .report import NOT_DECLARED
from .strategies import dtype_params, host_arrays, shapes, view_of

COMPLEX = dtype_params(dt.COMPLEX)
REAL = dtype_params((dt.float32, dt.float64))


@pytest.fixture(scope="session")
def fft_device(device):
    require_capability(device, "fft")
    return device


def _fft_expected(exact, x_wide, axis, n, dtype):
    """Any FFT's error is bounded by ~ eps * log2(n) * sum|x| along the transformed axis."""
    line_mag = np.sum(np.abs(x_wide), axis=axis, keepdims=True)
    atol = 8 * eps_of(dtype) * (math.log2(max(n, 1)) + 1) * line_mag
    return Expected(exact.astype(dtype.numpy), ulps=1, atol=np.broadcast_to(atol, exact.shape))


@st.composite
def fft_case(draw, dtype):
    shape = draw(shapes(min_dims=1, max_dims=3, max_side=8, allow_empty=False))
    axis = draw(st.integers(0, len(shape) - 1), label="axis")
    x = draw(host_arrays(dtype, shape, values="moderate_finite"), label="x")
    return x, axis


@pytest.mark.parametrize("inverse", [False, True], ids=["forward", "inverse"])
@pytest.mark.parametrize("dtype", COMPLEX)
@given(data=st.data())
def test_fft(fft_device, dtype, inverse, data):
    x, axis = data.draw(fft_case(dtype))
    got = read_result(x.upload(fft_device).fft(x.layout, axis, inverse), dtype, x.layout.shape)
    xw = x.value().astype(np.complex128)
    n = xw.shape[axis]
    # unnormalized both ways: the inverse is n * numpy's ifft (exponent sign +)
    exact = np.fft.ifft(xw, axis=axis) * n if inverse else np.fft.fft(xw, axis=axis)
    _fft_expected(exact, xw, axis, n, dtype).check(got)


@pytest.mark.parametrize("dtype", REAL)
@given(data=st.data())
def test_rfft(fft_device, dtype, data):
    x, axis = data.draw(fft_case(dtype))
    shape = x.layout.shape
    out_shape = shape[:axis] + (shape[axis] // 2 + 1,) + shape[axis + 1:]
    out_dtype = dt.complex_dtype_of(dtype)
    got = read_result(x.upload(fft_device).rfft(x.layout, axis), out_dtype, out_shape)
    xw = x.value().astype(np.float64)
    _fft_expected(np.fft.rfft(xw, axis=axis), xw, axis, shape[axis], out_dtype).check(got)


@pytest.mark.parametrize("dtype", COMPLEX)
@given(data=st.data())
def test_irfft(fft_device, dtype, data):
    shape = data.draw(shapes(min_dims=1, max_dims=3, max_side=8, allow_empty=False))
    axis = data.draw(st.integers(0, len(shape) - 1), label="axis")
    n = shape[axis]
    half_shape = shape[:axis] + (n // 2 + 1,) + shape[axis + 1:]
    # a genuine Hermitian half (the rfft of a real signal): DC and Nyquist are real
    seed = data.draw(st.integers(0, 2**32 - 1))
    signal = np.random.default_rng(seed).standard_normal(shape)
    x = data.draw(host_arrays(dtype, half_shape, writable=True), label="x")
    view_of(x.flat, x.layout)[...] = np.fft.rfft(signal, axis=axis).astype(dtype.numpy)
    out_dtype = dt.real_dtype_of(dtype)
    got = read_result(x.upload(fft_device).irfft(x.layout, axis, n), out_dtype, shape)
    xw = x.value().astype(np.complex128)
    exact = np.fft.irfft(xw, n=n, axis=axis) * n
    _fft_expected(exact, xw, axis, n, out_dtype).check(got)


def _nd_expected(exact, x_wide, axes, dtype):
    """As ``_fft_expected`` over several axes: the bound sums |x| over all of them."""
    size = math.prod(x_wide.shape[a] for a in axes)
    mag = np.sum(np.abs(x_wide), axis=tuple(axes), keepdims=True)
    atol = 8 * eps_of(dtype) * (math.log2(max(size, 1)) + 1) * mag
    return Expected(exact.astype(dtype.numpy), ulps=1, atol=np.broadcast_to(atol, exact.shape))


@st.composite
def fftn_case(draw, dtype):
    shape = draw(shapes(min_dims=1, max_dims=3, max_side=8, allow_empty=False))
    axes = draw(st.permutations(range(len(shape))), label="order")
    count = draw(st.integers(1, len(shape)), label="count")
    x = draw(host_arrays(dtype, shape, values="moderate_finite"), label="x")
    return x, tuple(axes[:count])


@pytest.mark.parametrize("inverse", [False, True], ids=["forward", "inverse"])
@pytest.mark.parametrize("dtype", COMPLEX)
@given(data=st.data())
def test_fftn(fft_device, dtype, inverse, data):
    x, axes = data.draw(fftn_case(dtype))
    got = read_result(x.upload(fft_device).fftn(x.layout, axes, inverse), dtype, x.layout.shape)
    xw = x.value().astype(np.complex128)
    size = math.prod(xw.shape[a] for a in axes)
    exact = np.fft.ifftn(xw, axes=axes) * size if inverse else np.fft.fftn(xw, axes=axes)
    _nd_expected(exact, xw, axes, dtype).check(got)


@pytest.mark.parametrize("dtype", REAL)
@given(data=st.data())
def test_rfftn(fft_device, dtype, data):
    x, axes = data.draw(fftn_case(dtype))
    shape = x.layout.shape
    last = axes[-1]
    out_shape = shape[:last] + (shape[last] // 2 + 1,) + shape[last + 1:]
    out_dtype = dt.complex_dtype_of(dtype)
    storage, layout = x.upload(fft_device).rfftn(x.layout, axes)
    got = read_permuted_result(storage, layout, out_dtype, out_shape)
    xw = x.value().astype(np.float64)
    _nd_expected(np.fft.rfftn(xw, axes=axes), xw, axes, out_dtype).check(got)


NORMS = ["backward", "ortho", "forward"]


def _factor(norm, n, inverse):
    """NumPy's scaling of a transform of length ``n``."""
    if norm == "ortho":
        return 1 / math.sqrt(n)
    return 1 / n if (norm == "backward") == inverse else 1.0


@pytest.mark.primitive("fft", "rfft", "irfft", "fftn", "rfftn")
@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("dtype", [dt.float32, dt.float64], ids=["single", "double"])
@given(data=st.data())
def test_norm_scales_inside_the_transform(fft_device, dtype, norm, data):
    """Each transform given ``norm`` is NumPy's with that norm (within the unnormalized
    bound, scaled by the same factor)."""
    if not declares_fft_norm(fft_device):
        pytest.skip(f"{NOT_DECLARED}: {fft_device.name} does not declare fft_norm")
    x, axes = data.draw(fftn_case(dtype))
    axis = axes[0]
    complex_dtype = dt.complex_dtype_of(dtype)
    xw = x.value().astype(np.float64)
    n = xw.shape[axis]
    real = x.upload(fft_device)
    shape = x.layout.shape
    half = shape[:axis] + (n // 2 + 1,) + shape[axis + 1:]
    size = math.prod(xw.shape[a] for a in axes)

    got = read_result(real.rfft(x.layout, axis, norm=norm), complex_dtype, half)
    _fft_expected(np.fft.rfft(xw, axis=axis, norm=norm), xw * _factor(norm, n, False), axis, n,
                  complex_dtype).check(got)

    spectrum = np.fft.rfft(xw, axis=axis)
    half_storage = fft_device.storage_from_host(np.ascontiguousarray(spectrum.astype(complex_dtype.numpy)).reshape(-1))
    got = read_result(half_storage.irfft(Layout.contiguous(half), axis, n, norm=norm), dtype, shape)
    _fft_expected(np.fft.irfft(spectrum, n=n, axis=axis, norm=norm), spectrum * n * _factor(norm, n, True), axis, n,
                  dtype).check(got)

    signal = fft_device.storage_from_host(np.ascontiguousarray(xw.astype(complex_dtype.numpy)).reshape(-1))
    contiguous = Layout.contiguous(shape)
    for inverse in (False, True):
        got = read_result(signal.fft(contiguous, axis, inverse, norm=norm), complex_dtype, shape)
        exact = np.fft.ifft(xw, axis=axis, norm=norm) if inverse else np.fft.fft(xw, axis=axis, norm=norm)
        _fft_expected(exact, xw * _factor(norm, n, inverse), axis, n, complex_dtype).check(got)
        got = read_result(signal.fftn(contiguous, axes, inverse, norm=norm), complex_dtype, shape)
        exact = np.fft.ifftn(xw, axes=axes, norm=norm) if inverse else np.fft.fftn(xw, axes=axes, norm=norm)
        _nd_expected(exact, xw * _factor(norm, size, inverse), axes, complex_dtype).check(got)

    last = axes[-1]
    out_shape = shape[:last] + (shape[last] // 2 + 1,) + shape[last + 1:]
    storage, layout = real.rfftn(x.layout, axes, norm=norm)
    got = read_permuted_result(storage, layout, complex_dtype, out_shape)
    _nd_expected(np.fft.rfftn(xw, axes=axes, norm=norm), xw * _factor(norm, size, False), axes,
                 complex_dtype).check(got)


@pytest.mark.primitive("fft", "rfft")
@pytest.mark.parametrize("dtype", [dt.float32, dt.float64], ids=["single", "double"])
@given(data=st.data())
def test_pad_inside_the_transform(fft_device, dtype, data):
    """fft and rfft given ``n`` past the axis's length transform the input zero-padded to
    ``n`` (NumPy's ``n=``), scaled by that ``n`` where the device declares fft_norm too."""
    if not declares_fft_pad(fft_device):
        pytest.skip(f"{NOT_DECLARED}: {fft_device.name} does not declare fft_pad")
    x, axis = data.draw(fft_case(dtype))
    shape = x.layout.shape
    n = shape[axis] + data.draw(st.integers(1, 9), label="padding")
    norms = st.sampled_from([None] + NORMS) if declares_fft_norm(fft_device) else st.none()
    norm = data.draw(norms, label="norm")
    given_norm = {} if norm is None else {"norm": norm}
    complex_dtype = dt.complex_dtype_of(dtype)
    xw = x.value().astype(np.float64)
    padded_shape = shape[:axis] + (n,) + shape[axis + 1:]
    padded = np.zeros(padded_shape)
    padded[tuple(slice(0, m) for m in shape)] = xw

    half = shape[:axis] + (n // 2 + 1,) + shape[axis + 1:]
    got = read_result(x.upload(fft_device).rfft(x.layout, axis, n=n, **given_norm), complex_dtype, half)
    scale = 1.0 if norm is None else _factor(norm, n, False)
    _fft_expected(np.fft.rfft(xw, n=n, axis=axis) * scale, padded * scale, axis, n, complex_dtype).check(got)

    signal = fft_device.storage_from_host(np.ascontiguousarray(xw.astype(complex_dtype.numpy)).reshape(-1))
    for inverse in (False, True):
        got = read_result(signal.fft(Layout.contiguous(shape), axis, inverse, n=n, **given_norm), complex_dtype,
                          padded_shape)
        scale = 1.0 if norm is None else _factor(norm, n, inverse)  # NumPy's scaling; none without norm
        # the unnormalized inverse is n * numpy's ifft
        exact = (np.fft.ifft(xw, n=n, axis=axis) * n if inverse else np.fft.fft(xw, n=n, axis=axis)) * scale
        _fft_expected(exact, padded * scale, axis, n, complex_dtype).check(got)
