"""Sample frequencies and spectrum shifts; these need no "fft" primitive."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import dtypes as _dt
from .._core import check_dtype_on, contiguous_layout, require_array
from ..allocation import check_allocation
from ..array import wrap
from ..arguments import real_number, sequence
from ..docstrings import shared_doc
from ..errors import DTypeError
from ..shapes import normalize_axis
from ..opdefs import BinaryOp
from ..registry import get_device
from ._common import FFT_DOCS, check_length

if TYPE_CHECKING:
    from collections.abc import Sequence
    from ..array import Array
    from .._types import DTypeLike, DeviceLike
    from ..backend import BackendDevice


def _freq_setup(n, d, dtype, device, fname) -> tuple[int, float, _dt.DType, BackendDevice]:
    n = check_length(n, fname)
    d = real_number(d, f"fft.{fname}", "d", nonzero=True)
    dtype = _dt.DEFAULT_FLOAT if dtype is None else _dt.as_dtype(dtype, "dtype", f"fft.{fname}")
    if dtype not in (_dt.float32, _dt.float64):
        raise DTypeError(f"fft.{fname}: dtype must be float32 or float64, got {dtype!r}")
    device = get_device(device)
    check_dtype_on(device, dtype)
    # the n int64 positions are made first, then the n results
    check_allocation(f"fft.{fname}", (n,), _dt.int64, device, count=2)
    return n, d, dtype, device


def _scaled_integers(ints, size, scale, dtype, device):
    """``ints * scale`` computed in float64 (exact integers, one rounding, as NumPy)
    and rounded once to ``dtype``; in ``dtype`` if the device has no float64."""
    layout = contiguous_layout((size,))
    work = _dt.float64 if _dt.float64 in device.dtypes else dtype
    values = ints.astype(layout, work).binary_scalar(BinaryOp.MULTIPLY, layout, scale, False)
    if work is not dtype:
        values = values.astype(layout, dtype)
    return wrap(values, (size,), dtype, device)


@shared_doc(FFT_DOCS)
def fftfreq(n: int, /, *, d: float = 1.0, dtype: DTypeLike | None = None,
            device: DeviceLike | None = None) -> Array:
    """Sample frequencies of an ``n``-point DFT: ``[0, 1, ..., -(n//2), ..., -1] / (d*n)``.

    {fft_freq_params}

    Returns
    -------
    Array
        The n frequencies.

    {fft_freq_raises}

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.fft.fftfreq(4).tolist()
    [0.0, 0.25, -0.5, -0.25]
    """
    n, d, dtype, device = _freq_setup(n, d, dtype, device, "fftfreq")
    positive = (n - 1) // 2 + 1
    ints = device.empty((n,), _dt.int64)
    whole = contiguous_layout((n,))
    ints.assign(whole.slice(0, 0, positive, 1), device.arange(0, 1, positive, _dt.int64),
                contiguous_layout((positive,)))
    if n > positive:
        ints.assign(whole.slice(0, positive, n, 1), device.arange(-(n // 2), 1, n - positive, _dt.int64),
                    contiguous_layout((n - positive,)))
    return _scaled_integers(ints, n, 1.0 / (n * d), dtype, device)


@shared_doc(FFT_DOCS)
def rfftfreq(n: int, /, *, d: float = 1.0, dtype: DTypeLike | None = None,
             device: DeviceLike | None = None) -> Array:
    """Sample frequencies of ``rfft``: ``[0, 1, ..., n//2] / (d*n)``.

    {fft_freq_params}

    Returns
    -------
    Array
        The ``n//2 + 1`` frequencies.

    {fft_freq_raises}

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.fft.rfftfreq(4).tolist()
    [0.0, 0.25, 0.5]
    """
    n, d, dtype, device = _freq_setup(n, d, dtype, device, "rfftfreq")
    size = n // 2 + 1
    return _scaled_integers(device.arange(0, 1, size, _dt.int64), size, 1.0 / (n * d), dtype, device)


def _roll_halves(x, axes, inverse, fname):
    require_array(x, f"fft.{fname}")
    if axes is None:
        axes = range(x.ndim)
    elif isinstance(axes, int) and not isinstance(axes, bool):
        axes = (axes,)
    else:
        axes = sequence(axes, f"fft.{fname}", "axes")
    # a repeated axis is rolled once per mention, as numpy.fft does
    axes = [normalize_axis(a, x.ndim, f"fft.{fname}: axes") for a in axes]
    out = x
    for axis in axes:
        n = out.shape[axis]
        shift = (-(n // 2) if inverse else n // 2) % n if n else 0
        if shift:
            out = _roll_axis(out, axis, shift)
    if out is x:  # nothing moved: still return a new array, never the input
        out = wrap(x._storage.copy(x._layout), x.shape, x._dtype, x._device)
    return out


def _roll_axis(x, axis, shift):
    """A new array with ``out[..., (i + shift) % n, ...] = x[..., i, ...]``: two copies."""
    n = x.shape[axis]
    storage = x._device.empty(x.shape, x._dtype)
    out = contiguous_layout(x.shape)
    src = x._layout
    storage.assign(out.slice(axis, shift, n, 1), x._storage, src.slice(axis, 0, n - shift, 1))
    storage.assign(out.slice(axis, 0, shift, 1), x._storage, src.slice(axis, n - shift, n, 1))
    return wrap(storage, x.shape, x._dtype, x._device)


@shared_doc(FFT_DOCS)
def fftshift(x: Array, /, *, axes: int | Sequence[int] | None = None) -> Array:
    """Move the zero-frequency term to the centre: roll each of ``axes`` by ``n // 2``.

    {fft_shift_sections}

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.fft.fftshift(cw.asarray([0, 1, 2, 3])).tolist()
    [2, 3, 0, 1]
    """
    return _roll_halves(x, axes, False, "fftshift")


@shared_doc(FFT_DOCS)
def ifftshift(x: Array, /, *, axes: int | Sequence[int] | None = None) -> Array:
    """Inverse of ``fftshift``: roll each of ``axes`` by ``-(n // 2)``.

    {fft_shift_sections}

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.fft.ifftshift(cw.asarray([2, 3, 0, 1])).tolist()
    [0, 1, 2, 3]
    """
    return _roll_halves(x, axes, True, "ifftshift")
