"""Complex-to-complex transforms (fft, ifft, fftn, ifftn) on the optional "fft" primitives."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ..docstrings import shared_doc
from ._common import (
    FFT_DOCS, c2c, check_axes_and_sizes, check_input, check_length, check_norm, inside, norm_kwargs, one_axis,
    resized_all, scale_factor, scaled,
)

if TYPE_CHECKING:
    from collections.abc import Sequence
    from ..array import Array


@shared_doc(FFT_DOCS)
def fft(x: Array, /, *, n: int | None = None, axis: int = -1, norm: str = "backward") -> Array:
    """One-dimensional discrete Fourier transform of complex ``x`` along ``axis``.

    {fft_params_1d_complex}

    {fft_returns_complex_spectrum}

    Examples
    --------
    >>> import candlewick as cw
    >>> x = cw.asarray([1, 2, 3, 4], dtype=cw.complex128)
    >>> cw.fft.fft(x).shape
    (4,)
    """
    axis = one_axis(x, axis, norm, "fft", "complex")
    n = check_length(x.shape[axis] if n is None else n, "fft")
    return c2c(x, n, axis, norm, False)


@shared_doc(FFT_DOCS)
def ifft(x: Array, /, *, n: int | None = None, axis: int = -1, norm: str = "backward") -> Array:
    """One-dimensional inverse discrete Fourier transform of complex ``x``.

    {fft_params_1d_complex}

    {fft_returns_complex_signal}

    Examples
    --------
    >>> import candlewick as cw
    >>> x = cw.asarray([1, 2, 3, 4], dtype=cw.complex128)
    >>> cw.real(cw.fft.ifft(cw.fft.fft(x))).tolist()
    [1.0, 2.0, 3.0, 4.0]
    """
    axis = one_axis(x, axis, norm, "ifft", "complex")
    n = check_length(x.shape[axis] if n is None else n, "ifft")
    return c2c(x, n, axis, norm, True)


def _n_dim(x, s, axes, norm, inverse, fname):
    """One call of the ``fftn`` primitive over every axis (a backend transforms them at
    once, e.g. with one multi-dimensional plan), scaled once by the product of lengths."""
    check_input(x, fname, "complex")
    check_norm(norm, fname)
    axes, sizes = check_axes_and_sizes(x, s, axes, fname)
    if not axes:
        return x
    x, lengths = resized_all(x, axes, sizes, fname)
    passed = inside(x._device, norm)
    storage = x._storage.fftn(x._layout, tuple(axes), inverse, **norm_kwargs(passed))
    return scaled(storage, x.shape, x._dtype, x._device, scale_factor(norm, math.prod(lengths), inverse, passed))


@shared_doc(FFT_DOCS)
def fftn(x: Array, /, *, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
         norm: str = "backward") -> Array:
    """n-dimensional discrete Fourier transform over ``axes`` (sizes ``s``).

    {fft_params_nd_complex}

    {fft_returns_complex_spectrum}

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.fft.fftn(cw.ones((2, 3), dtype=cw.complex64)).shape
    (2, 3)
    """
    return _n_dim(x, s, axes, norm, False, "fftn")


@shared_doc(FFT_DOCS)
def ifftn(x: Array, /, *, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
          norm: str = "backward") -> Array:
    """n-dimensional inverse discrete Fourier transform over ``axes`` (sizes ``s``).

    {fft_params_nd_complex}

    {fft_returns_complex_signal}

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.fft.ifftn(cw.ones((2, 3), dtype=cw.complex64)).shape
    (2, 3)
    """
    return _n_dim(x, s, axes, norm, True, "ifftn")
