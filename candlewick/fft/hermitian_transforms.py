"""Transforms of Hermitian-symmetric signals (hfft) and their inverse (ihfft), on the
optional "fft" primitives."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import elementwise as _ew
from ..array import wrap
from ..docstrings import shared_doc
from ._common import FFT_DOCS, c2r, check_length, one_axis, r2c, scale_factor, scaled

if TYPE_CHECKING:
    from ..array import Array


@shared_doc(FFT_DOCS)
def hfft(x: Array, /, *, n: int | None = None, axis: int = -1, norm: str = "backward") -> Array:
    """Transform of a Hermitian-symmetric signal given by its half ``x``: a real spectrum
    of length ``n`` (default ``2 * (m - 1)``); ``irfft(conj(x))`` scaled as a forward
    transform.

    Parameters
    ----------
    x : Array
        Input array (complex64 or complex128: the half of a Hermitian-symmetric signal).
    {fft_1d_params}

    Returns
    -------
    Array
        The real spectrum.

    {fft_raises}

    Examples
    --------
    >>> import candlewick as cw
    >>> x = cw.asarray([1, 2, 3, 4], dtype=cw.complex128)
    >>> cw.fft.hfft(x).shape
    (6,)
    """
    axis = one_axis(x, axis, norm, "hfft", "complex")
    n = check_length(2 * (x.shape[axis] - 1) if n is None else n, "hfft")
    storage, shape, dtype = c2r(_ew.conj(x), n, axis)
    return scaled(storage, shape, dtype, x._device, scale_factor(norm, n, False))


@shared_doc(FFT_DOCS)
def ihfft(x: Array, /, *, n: int | None = None, axis: int = -1, norm: str = "backward") -> Array:
    """Inverse of ``hfft`` for real ``x``: ``conj(rfft(x))`` scaled as an inverse transform.

    {fft_params_1d_real}

    Returns
    -------
    Array
        The complex half-spectrum.

    {fft_raises}

    Examples
    --------
    >>> import candlewick as cw
    >>> x = cw.asarray([1.0, 2.0, 3.0, 4.0])
    >>> cw.fft.ihfft(x).shape
    (3,)
    """
    axis = one_axis(x, axis, norm, "ihfft", "real")
    n = check_length(x.shape[axis] if n is None else n, "ihfft")
    storage, shape, dtype = r2c(x, n, axis)
    half = _ew.conj(wrap(storage, shape, dtype, x._device))
    return scaled(half._storage, shape, dtype, x._device, scale_factor(norm, n, True))
