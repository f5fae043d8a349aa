"""Discrete Fourier transforms on the optional "fft" primitives (fft, rfft, irfft).

Every transform: check dtype/capability, resize the input along each transformed axis
(truncate or zero-pad), call the unnormalized primitive, scale per ``norm``.
"""

from .. import dtypes as _dt
from .. import elementwise as _ew
from .._core import wrap
from ..errors import ArgumentValueError
from ._common import (
    check_axes_and_sizes, check_axis, check_input, check_length, check_norm, resized,
    scale_factor, scaled,
)


def _c2c(x, n, axis, norm, inverse):
    x = resized(x, axis, n)
    storage = x._storage.fft(x._layout, axis, inverse)
    return scaled(storage, x.shape, x._dtype, x._device, scale_factor(norm, n, inverse))


def _r2c(x, n, axis):
    """Unscaled real-to-complex transform of x resized to ``n``: the half spectrum."""
    x = resized(x, axis, n)
    shape = x.shape[:axis] + (n // 2 + 1,) + x.shape[axis + 1 :]
    return x._storage.rfft(x._layout, axis), shape, _dt.complex_dtype_of(x._dtype)


def _c2r(x, n, axis):
    """Unscaled complex-to-real transform of length ``n`` (input resized to n//2+1)."""
    x = resized(x, axis, n // 2 + 1)
    shape = x.shape[:axis] + (n,) + x.shape[axis + 1 :]
    return x._storage.irfft(x._layout, axis, n), shape, _dt.real_dtype_of(x._dtype)


def _one_axis(x, axis, norm, fname, kind):
    """Checks shared by the 1-D transforms; returns the normalized axis."""
    check_input(x, fname, kind)
    check_norm(norm, fname)
    return check_axis(x, axis, fname)


def fft(x, /, *, n=None, axis=-1, norm="backward"):
    """One-dimensional discrete Fourier transform of complex ``x`` along ``axis``."""
    axis = _one_axis(x, axis, norm, "fft", "complex")
    n = check_length(x.shape[axis] if n is None else n, "fft")
    return _c2c(x, n, axis, norm, False)


def ifft(x, /, *, n=None, axis=-1, norm="backward"):
    """One-dimensional inverse discrete Fourier transform of complex ``x``."""
    axis = _one_axis(x, axis, norm, "ifft", "complex")
    n = check_length(x.shape[axis] if n is None else n, "ifft")
    return _c2c(x, n, axis, norm, True)


def _n_dim(x, s, axes, norm, inverse, fname):
    check_input(x, fname, "complex")
    check_norm(norm, fname)
    axes, sizes = check_axes_and_sizes(x, s, axes, fname)
    for axis, n in zip(axes, sizes):
        n = check_length(x.shape[axis] if n is None else n, fname)
        x = _c2c(x, n, axis, norm, inverse)
    return x


def fftn(x, /, *, s=None, axes=None, norm="backward"):
    """n-dimensional discrete Fourier transform over ``axes`` (sizes ``s``)."""
    return _n_dim(x, s, axes, norm, False, "fftn")


def ifftn(x, /, *, s=None, axes=None, norm="backward"):
    """n-dimensional inverse discrete Fourier transform over ``axes`` (sizes ``s``)."""
    return _n_dim(x, s, axes, norm, True, "ifftn")


def rfft(x, /, *, n=None, axis=-1, norm="backward"):
    """Transform of real ``x`` along ``axis``: the ``n//2 + 1`` non-negative frequencies."""
    axis = _one_axis(x, axis, norm, "rfft", "real")
    n = check_length(x.shape[axis] if n is None else n, "rfft")
    storage, shape, dtype = _r2c(x, n, axis)
    return scaled(storage, shape, dtype, x._device, scale_factor(norm, n, False))


def irfft(x, /, *, n=None, axis=-1, norm="backward"):
    """Inverse of ``rfft``: a real signal of length ``n`` (default ``2 * (m - 1)``)."""
    axis = _one_axis(x, axis, norm, "irfft", "complex")
    n = check_length(2 * (x.shape[axis] - 1) if n is None else n, "irfft")
    storage, shape, dtype = _c2r(x, n, axis)
    return scaled(storage, shape, dtype, x._device, scale_factor(norm, n, True))


def rfftn(x, /, *, s=None, axes=None, norm="backward"):
    """n-dimensional transform of real ``x``: ``rfft`` over the last of ``axes``, then
    complex transforms over the others."""
    check_input(x, "rfftn", "real")
    check_norm(norm, "rfftn")
    axes, sizes = check_axes_and_sizes(x, s, axes, "rfftn")
    if not axes:
        raise ArgumentValueError("fft.rfftn: at least one axis must be transformed")
    last, n_last = axes[-1], sizes[-1]
    n_last = check_length(x.shape[last] if n_last is None else n_last, "rfftn")
    storage, shape, dtype = _r2c(x, n_last, last)
    out = scaled(storage, shape, dtype, x._device, scale_factor(norm, n_last, False))
    for axis, n in zip(axes[:-1], sizes[:-1]):
        n = check_length(out.shape[axis] if n is None else n, "rfftn")
        out = _c2c(out, n, axis, norm, False)
    return out


def irfftn(x, /, *, s=None, axes=None, norm="backward"):
    """Inverse of ``rfftn``: complex inverse transforms over all but the last of ``axes``,
    then ``irfft`` over the last (default length ``2 * (m - 1)``)."""
    check_input(x, "irfftn", "complex")
    check_norm(norm, "irfftn")
    axes, sizes = check_axes_and_sizes(x, s, axes, "irfftn")
    if not axes:
        raise ArgumentValueError("fft.irfftn: at least one axis must be transformed")
    last, n_last = axes[-1], sizes[-1]
    n_last = check_length(2 * (x.shape[last] - 1) if n_last is None else n_last, "irfftn")
    for axis, n in zip(axes[:-1], sizes[:-1]):
        n = check_length(x.shape[axis] if n is None else n, "irfftn")
        x = _c2c(x, n, axis, norm, True)
    storage, shape, dtype = _c2r(x, n_last, last)
    return scaled(storage, shape, dtype, x._device, scale_factor(norm, n_last, True))


def hfft(x, /, *, n=None, axis=-1, norm="backward"):
    """Transform of a Hermitian-symmetric signal given by its half ``x``: a real spectrum
    of length ``n`` (default ``2 * (m - 1)``); ``irfft(conj(x))`` scaled as a forward
    transform."""
    axis = _one_axis(x, axis, norm, "hfft", "complex")
    n = check_length(2 * (x.shape[axis] - 1) if n is None else n, "hfft")
    storage, shape, dtype = _c2r(_ew.conj(x), n, axis)
    return scaled(storage, shape, dtype, x._device, scale_factor(norm, n, False))


def ihfft(x, /, *, n=None, axis=-1, norm="backward"):
    """Inverse of ``hfft`` for real ``x``: ``conj(rfft(x))`` scaled as an inverse transform."""
    axis = _one_axis(x, axis, norm, "ihfft", "real")
    n = check_length(x.shape[axis] if n is None else n, "ihfft")
    storage, shape, dtype = _r2c(x, n, axis)
    half = _ew.conj(wrap(storage, shape, dtype, x._device))
    return scaled(half._storage, shape, dtype, x._device, scale_factor(norm, n, True))
