"""Discrete Fourier transforms on the optional "fft" primitives (fft, rfft, irfft).

Every transform: check dtype/capability, resize the input along each transformed axis
(truncate or zero-pad), call the unnormalized primitive, scale per ``norm``.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from .. import dtypes as _dt
from .. import elementwise as _ew
from ..array import wrap
from ..errors import ArgumentValueError
from ._common import (
    check_axes_and_sizes, check_axis, check_input, check_length, check_norm, resized,
    scale_factor, scaled,
)

if TYPE_CHECKING:
    from collections.abc import Sequence
    from ..array import Array


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


def fft(x: Array, /, *, n: int | None = None, axis: int = -1, norm: str = "backward") -> Array:
    """One-dimensional discrete Fourier transform of complex ``x`` along ``axis``.

    Parameters
    ----------
    x : Array
        Input array (complex64 or complex128).
    n : int or None
        The length of the transformed axis (input cropped or zero-padded); None for its length.
    axis : int
        The axis to transform.
    norm : {'backward', 'ortho', 'forward'}
        Which direction is scaled (by 1/n, 1/sqrt(n) both ways, or forward by 1/n).

    Returns
    -------
    Array
        The complex spectrum.

    Raises
    ------
    TypeError
        If x is not a candlewick array.
    DTypeError
        If x's dtype does not fit the transform.
    ValueError
        If n/s is not positive or norm is unknown.
    AxisError
        If an axis is out of range.
    UnsupportedOperation
        If the device lacks the fft primitives.

    Examples
    --------
    >>> import candlewick as cw
    >>> x = cw.asarray([1, 2, 3, 4], dtype=cw.complex128)
    >>> cw.fft.fft(x).shape
    (4,)
    """
    axis = _one_axis(x, axis, norm, "fft", "complex")
    n = check_length(x.shape[axis] if n is None else n, "fft")
    return _c2c(x, n, axis, norm, False)


def ifft(x: Array, /, *, n: int | None = None, axis: int = -1, norm: str = "backward") -> Array:
    """One-dimensional inverse discrete Fourier transform of complex ``x``.

    Parameters
    ----------
    x : Array
        Input array (complex64 or complex128).
    n : int or None
        The length of the transformed axis (input cropped or zero-padded); None for its length.
    axis : int
        The axis to transform.
    norm : {'backward', 'ortho', 'forward'}
        Which direction is scaled (by 1/n, 1/sqrt(n) both ways, or forward by 1/n).

    Returns
    -------
    Array
        The complex signal.

    Raises
    ------
    TypeError
        If x is not a candlewick array.
    DTypeError
        If x's dtype does not fit the transform.
    ValueError
        If n/s is not positive or norm is unknown.
    AxisError
        If an axis is out of range.
    UnsupportedOperation
        If the device lacks the fft primitives.

    Examples
    --------
    >>> import candlewick as cw
    >>> x = cw.asarray([1, 2, 3, 4], dtype=cw.complex128)
    >>> cw.real(cw.fft.ifft(cw.fft.fft(x))).tolist()
    [1.0, 2.0, 3.0, 4.0]
    """
    axis = _one_axis(x, axis, norm, "ifft", "complex")
    n = check_length(x.shape[axis] if n is None else n, "ifft")
    return _c2c(x, n, axis, norm, True)


def _resized_all(x, axes, sizes, fname):
    """x resized along each of ``axes`` (a size of None keeps the axis), and the lengths."""
    lengths = []
    for axis, n in zip(axes, sizes):
        n = check_length(x.shape[axis] if n is None else n, fname)
        x = resized(x, axis, n)
        lengths.append(n)
    return x, lengths


def _n_dim(x, s, axes, norm, inverse, fname):
    """One call of the ``fftn`` primitive over every axis (a backend transforms them at
    once, e.g. with one multi-dimensional plan), scaled once by the product of lengths."""
    check_input(x, fname, "complex")
    check_norm(norm, fname)
    axes, sizes = check_axes_and_sizes(x, s, axes, fname)
    if not axes:
        return x
    x, lengths = _resized_all(x, axes, sizes, fname)
    storage = x._storage.fftn(x._layout, tuple(axes), inverse)
    return scaled(storage, x.shape, x._dtype, x._device, scale_factor(norm, math.prod(lengths), inverse))


def fftn(x: Array, /, *, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
         norm: str = "backward") -> Array:
    """n-dimensional discrete Fourier transform over ``axes`` (sizes ``s``).

    Parameters
    ----------
    x : Array
        Input array (complex64 or complex128).
    s : sequence of int or None
        The lengths along axes; None for their lengths.
    axes : sequence of int or None
        The axes to transform; None for the last len(s) axes (all when s is None).
    norm : {'backward', 'ortho', 'forward'}
        Which direction is scaled (by 1/n, 1/sqrt(n) both ways, or forward by 1/n).

    Returns
    -------
    Array
        The complex spectrum.

    Raises
    ------
    TypeError
        If x is not a candlewick array.
    DTypeError
        If x's dtype does not fit the transform.
    ValueError
        If n/s is not positive or norm is unknown.
    AxisError
        If an axis is out of range.
    UnsupportedOperation
        If the device lacks the fft primitives.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.fft.fftn(cw.ones((2, 3), dtype=cw.complex64)).shape
    (2, 3)
    """
    return _n_dim(x, s, axes, norm, False, "fftn")


def ifftn(x: Array, /, *, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
          norm: str = "backward") -> Array:
    """n-dimensional inverse discrete Fourier transform over ``axes`` (sizes ``s``).

    Parameters
    ----------
    x : Array
        Input array (complex64 or complex128).
    s : sequence of int or None
        The lengths along axes; None for their lengths.
    axes : sequence of int or None
        The axes to transform; None for the last len(s) axes (all when s is None).
    norm : {'backward', 'ortho', 'forward'}
        Which direction is scaled (by 1/n, 1/sqrt(n) both ways, or forward by 1/n).

    Returns
    -------
    Array
        The complex signal.

    Raises
    ------
    TypeError
        If x is not a candlewick array.
    DTypeError
        If x's dtype does not fit the transform.
    ValueError
        If n/s is not positive or norm is unknown.
    AxisError
        If an axis is out of range.
    UnsupportedOperation
        If the device lacks the fft primitives.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.fft.ifftn(cw.ones((2, 3), dtype=cw.complex64)).shape
    (2, 3)
    """
    return _n_dim(x, s, axes, norm, True, "ifftn")


def rfft(x: Array, /, *, n: int | None = None, axis: int = -1, norm: str = "backward") -> Array:
    """Transform of real ``x`` along ``axis``: the ``n//2 + 1`` non-negative frequencies.

    Parameters
    ----------
    x : Array
        Input array (real floating).
    n : int or None
        The length of the transformed axis (input cropped or zero-padded); None for its length.
    axis : int
        The axis to transform.
    norm : {'backward', 'ortho', 'forward'}
        Which direction is scaled (by 1/n, 1/sqrt(n) both ways, or forward by 1/n).

    Returns
    -------
    Array
        The complex spectrum of ``n//2 + 1`` frequencies along axis.

    Raises
    ------
    TypeError
        If x is not a candlewick array.
    DTypeError
        If x's dtype does not fit the transform.
    ValueError
        If n/s is not positive or norm is unknown.
    AxisError
        If an axis is out of range.
    UnsupportedOperation
        If the device lacks the fft primitives.

    Examples
    --------
    >>> import candlewick as cw
    >>> x = cw.asarray([1.0, 2.0, 3.0, 4.0])
    >>> cw.fft.rfft(x).shape
    (3,)
    """
    axis = _one_axis(x, axis, norm, "rfft", "real")
    n = check_length(x.shape[axis] if n is None else n, "rfft")
    storage, shape, dtype = _r2c(x, n, axis)
    return scaled(storage, shape, dtype, x._device, scale_factor(norm, n, False))


def irfft(x: Array, /, *, n: int | None = None, axis: int = -1, norm: str = "backward") -> Array:
    """Inverse of ``rfft``: a real signal of length ``n`` (default ``2 * (m - 1)``).

    Parameters
    ----------
    x : Array
        Input array (complex64 or complex128: the non-negative frequencies).
    n : int or None
        The length of the transformed axis (input cropped or zero-padded); None for its length.
    axis : int
        The axis to transform.
    norm : {'backward', 'ortho', 'forward'}
        Which direction is scaled (by 1/n, 1/sqrt(n) both ways, or forward by 1/n).

    Returns
    -------
    Array
        The real signal.

    Raises
    ------
    TypeError
        If x is not a candlewick array.
    DTypeError
        If x's dtype does not fit the transform.
    ValueError
        If n/s is not positive or norm is unknown.
    AxisError
        If an axis is out of range.
    UnsupportedOperation
        If the device lacks the fft primitives.

    Examples
    --------
    >>> import candlewick as cw
    >>> x = cw.asarray([1.0, 2.0, 3.0, 4.0])
    >>> cw.fft.irfft(cw.fft.rfft(x)).tolist()
    [1.0, 2.0, 3.0, 4.0]
    """
    axis = _one_axis(x, axis, norm, "irfft", "complex")
    n = check_length(2 * (x.shape[axis] - 1) if n is None else n, "irfft")
    storage, shape, dtype = _c2r(x, n, axis)
    return scaled(storage, shape, dtype, x._device, scale_factor(norm, n, True))


def rfftn(x: Array, /, *, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
          norm: str = "backward") -> Array:
    """n-dimensional transform of real ``x``: ``rfft`` over the last of ``axes``, then
    complex transforms over the others.

    Parameters
    ----------
    x : Array
        Input array (real floating).
    s : sequence of int or None
        The lengths along axes; None for their lengths.
    axes : sequence of int or None
        The axes to transform; None for the last len(s) axes (all when s is None).
    norm : {'backward', 'ortho', 'forward'}
        Which direction is scaled (by 1/n, 1/sqrt(n) both ways, or forward by 1/n).

    Returns
    -------
    Array
        The complex spectrum (last axis halved).

    Raises
    ------
    TypeError
        If x is not a candlewick array.
    DTypeError
        If x's dtype does not fit the transform.
    ValueError
        If n/s is not positive or norm is unknown.
    AxisError
        If an axis is out of range.
    UnsupportedOperation
        If the device lacks the fft primitives.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.fft.rfftn(cw.ones((2, 4))).shape
    (2, 3)
    """
    check_input(x, "rfftn", "real")
    check_norm(norm, "rfftn")
    axes, sizes = check_axes_and_sizes(x, s, axes, "rfftn")
    if not axes:
        raise ArgumentValueError("fft.rfftn: at least one axis must be transformed")
    x, lengths = _resized_all(x, axes, sizes, "rfftn")
    last = axes[-1]
    shape = x.shape[:last] + (lengths[-1] // 2 + 1,) + x.shape[last + 1 :]
    # one primitive call: the backend may transform every axis with one plan
    storage = x._storage.rfftn(x._layout, tuple(axes))
    return scaled(storage, shape, _dt.complex_dtype_of(x._dtype), x._device,
                  scale_factor(norm, math.prod(lengths), False))


def irfftn(x: Array, /, *, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
           norm: str = "backward") -> Array:
    """Inverse of ``rfftn``: complex inverse transforms over all but the last of ``axes``,
    then ``irfft`` over the last (default length ``2 * (m - 1)``).

    Parameters
    ----------
    x : Array
        Input array (complex64 or complex128).
    s : sequence of int or None
        The lengths along axes; None for their lengths.
    axes : sequence of int or None
        The axes to transform; None for the last len(s) axes (all when s is None).
    norm : {'backward', 'ortho', 'forward'}
        Which direction is scaled (by 1/n, 1/sqrt(n) both ways, or forward by 1/n).

    Returns
    -------
    Array
        The real signal.

    Raises
    ------
    TypeError
        If x is not a candlewick array.
    DTypeError
        If x's dtype does not fit the transform.
    ValueError
        If n/s is not positive or norm is unknown.
    AxisError
        If an axis is out of range.
    UnsupportedOperation
        If the device lacks the fft primitives.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.fft.irfftn(cw.fft.rfftn(cw.ones((2, 4)))).shape
    (2, 4)
    """
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


def hfft(x: Array, /, *, n: int | None = None, axis: int = -1, norm: str = "backward") -> Array:
    """Transform of a Hermitian-symmetric signal given by its half ``x``: a real spectrum
    of length ``n`` (default ``2 * (m - 1)``); ``irfft(conj(x))`` scaled as a forward
    transform.

    Parameters
    ----------
    x : Array
        Input array (complex64 or complex128: the half of a Hermitian-symmetric signal).
    n : int or None
        The length of the transformed axis (input cropped or zero-padded); None for its length.
    axis : int
        The axis to transform.
    norm : {'backward', 'ortho', 'forward'}
        Which direction is scaled (by 1/n, 1/sqrt(n) both ways, or forward by 1/n).

    Returns
    -------
    Array
        The real spectrum.

    Raises
    ------
    TypeError
        If x is not a candlewick array.
    DTypeError
        If x's dtype does not fit the transform.
    ValueError
        If n/s is not positive or norm is unknown.
    AxisError
        If an axis is out of range.
    UnsupportedOperation
        If the device lacks the fft primitives.

    Examples
    --------
    >>> import candlewick as cw
    >>> x = cw.asarray([1, 2, 3, 4], dtype=cw.complex128)
    >>> cw.fft.hfft(x).shape
    (6,)
    """
    axis = _one_axis(x, axis, norm, "hfft", "complex")
    n = check_length(2 * (x.shape[axis] - 1) if n is None else n, "hfft")
    storage, shape, dtype = _c2r(_ew.conj(x), n, axis)
    return scaled(storage, shape, dtype, x._device, scale_factor(norm, n, False))


def ihfft(x: Array, /, *, n: int | None = None, axis: int = -1, norm: str = "backward") -> Array:
    """Inverse of ``hfft`` for real ``x``: ``conj(rfft(x))`` scaled as an inverse transform.

    Parameters
    ----------
    x : Array
        Input array (real floating).
    n : int or None
        The length of the transformed axis (input cropped or zero-padded); None for its length.
    axis : int
        The axis to transform.
    norm : {'backward', 'ortho', 'forward'}
        Which direction is scaled (by 1/n, 1/sqrt(n) both ways, or forward by 1/n).

    Returns
    -------
    Array
        The complex half-spectrum.

    Raises
    ------
    TypeError
        If x is not a candlewick array.
    DTypeError
        If x's dtype does not fit the transform.
    ValueError
        If n/s is not positive or norm is unknown.
    AxisError
        If an axis is out of range.
    UnsupportedOperation
        If the device lacks the fft primitives.

    Examples
    --------
    >>> import candlewick as cw
    >>> x = cw.asarray([1.0, 2.0, 3.0, 4.0])
    >>> cw.fft.ihfft(x).shape
    (3,)
    """
    axis = _one_axis(x, axis, norm, "ihfft", "real")
    n = check_length(x.shape[axis] if n is None else n, "ihfft")
    storage, shape, dtype = _r2c(x, n, axis)
    half = _ew.conj(wrap(storage, shape, dtype, x._device))
    return scaled(half._storage, shape, dtype, x._device, scale_factor(norm, n, True))
