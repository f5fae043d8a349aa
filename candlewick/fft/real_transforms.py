"""Transforms of real signals (rfft, rfftn) and their inverses (irfft, irfftn): half
spectra, on the optional "fft" primitives."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from .. import dtypes as _dt
from ..errors import ArgumentValueError
from ..docstrings import shared_doc
from ._common import (
    FFT_DOCS, c2c, check_axes_and_sizes, check_input, check_length, check_norm, inside, norm_kwargs, forward_one_axis,
    inverse_one_axis, resized_all, scale_factor, scaled_view,
)
from ._arguments import one_axis_arguments, real_arguments

if TYPE_CHECKING:
    from collections.abc import Sequence
    from ..array import Array


@shared_doc(FFT_DOCS)
def rfft(x: Array, /, *, n: int | None = None, axis: int = -1, norm: str = "backward") -> Array:
    """Transform of real ``x`` along ``axis``: the ``n//2 + 1`` non-negative frequencies.

    {fft_params_1d_real}

    Returns
    -------
    Array
        The complex spectrum of ``n//2 + 1`` frequencies along axis.

    {fft_raises}

    Examples
    --------
    >>> import candlewick as cw
    >>> x = cw.asarray([1.0, 2.0, 3.0, 4.0])
    >>> cw.fft.rfft(x).shape
    (3,)
    """
    axis, n = real_arguments(x, n, axis, norm, "rfft", False)
    return forward_one_axis(x, axis, n, norm)


@shared_doc(FFT_DOCS)
def irfft(x: Array, /, *, n: int | None = None, axis: int = -1, norm: str = "backward") -> Array:
    """Inverse of ``rfft``: a real signal of length ``n`` (default ``2 * (m - 1)``).

    Parameters
    ----------
    x : Array
        Input array (complex64 or complex128: the non-negative frequencies).
    {fft_1d_params}

    {fft_returns_real_signal}

    Examples
    --------
    >>> import candlewick as cw
    >>> x = cw.asarray([1.0, 2.0, 3.0, 4.0])
    >>> cw.fft.irfft(cw.fft.rfft(x)).tolist()
    [1.0, 2.0, 3.0, 4.0]
    """
    axis, n = real_arguments(x, n, axis, norm, "irfft", True)
    return inverse_one_axis(x, axis, n, norm)


@shared_doc(FFT_DOCS)
def rfftn(x: Array, /, *, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
          norm: str = "backward") -> Array:
    """n-dimensional transform of real ``x``: ``rfft`` over the last of ``axes``, then
    complex transforms over the others.

    {fft_params_nd_real}

    Returns
    -------
    Array
        The complex spectrum (last axis halved).

    {fft_raises}

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.fft.rfftn(cw.ones((2, 4))).shape
    (2, 3)
    """
    one = one_axis_arguments(x, s, axes, norm, False)
    if one is not None:
        return forward_one_axis(x, one[0], one[1], norm)
    check_input(x, "rfftn", "real")
    check_norm(norm, "rfftn")
    axes, sizes = check_axes_and_sizes(x, s, axes, "rfftn")
    if not axes:
        raise ArgumentValueError("fft.rfftn: at least one axis must be transformed")
    last = axes[-1]
    if len(axes) == 1:  # one axis (scipy.signal.fftconvolve's): rfft's path, no n-D plan to choose
        return forward_one_axis(x, last, check_length(x.shape[last], "rfftn") if sizes[0] is None else sizes[0],
                                norm)
    x, lengths = resized_all(x, axes, sizes, "rfftn")
    shape = x.shape[:last] + (lengths[-1] // 2 + 1,) + x.shape[last + 1 :]
    # one primitive call: the backend may transform every axis with one plan, and leave
    # the result in the order of its passes (a dense permutation of ``shape``)
    passed = inside(x._device, norm)
    storage, layout = x._storage.rfftn(x._layout, tuple(axes), **norm_kwargs(passed))
    return scaled_view(storage, layout, shape, _dt.complex_dtype_of(x._dtype), x._device,
                       scale_factor(norm, math.prod(lengths), False, passed), "rfftn")


@shared_doc(FFT_DOCS)
def irfftn(x: Array, /, *, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
           norm: str = "backward") -> Array:
    """Inverse of ``rfftn``: complex inverse transforms over all but the last of ``axes``,
    then ``irfft`` over the last (default length ``2 * (m - 1)``).

    {fft_params_nd_complex}

    {fft_returns_real_signal}

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.fft.irfftn(cw.fft.rfftn(cw.ones((2, 4)))).shape
    (2, 4)
    """
    one = one_axis_arguments(x, s, axes, norm, True)
    if one is not None:
        return inverse_one_axis(x, one[0], one[1], norm)
    check_input(x, "irfftn", "complex")
    check_norm(norm, "irfftn")
    axes, sizes = check_axes_and_sizes(x, s, axes, "irfftn")
    if not axes:
        raise ArgumentValueError("fft.irfftn: at least one axis must be transformed")
    last, n_last = axes[-1], sizes[-1]
    n_last = check_length(2 * (x.shape[last] - 1) if n_last is None else n_last, "irfftn")
    for axis, n in zip(axes[:-1], sizes[:-1]):
        n = check_length(x.shape[axis] if n is None else n, "irfftn")
        x = c2c(x, n, axis, norm, True)
    return inverse_one_axis(x, last, n_last, norm)
