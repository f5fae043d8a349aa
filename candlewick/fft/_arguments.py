"""The real transforms' arguments checked inline where the common case holds (rfft's and
irfft's ``n``/``axis``, rfftn's and irfftn's one axis): scipy.fft and
scipy.signal.fftconvolve make these calls, where each Python step of the general checks
(``_common``'s, which still decide and raise for everything else) shows beside a small
transform."""

from .. import dtypes as _dt
from .._core import ArrayBase
from ._common import NORMS, check_axis, check_input, check_length, check_norm

_REAL_IN = (_dt.float32, _dt.float64)
_COMPLEX_IN = (_dt.complex64, _dt.complex128)


def real_arguments(x, n, axis, norm, fname, inverse):
    """(axis, n) of ``rfft`` (``inverse`` False) or ``irfft`` of ``x``, checked: the
    common case (an array of a dtype the transform takes, an int axis in range, n None or
    a positive int, a known norm) tested inline, anything else through the checks that
    raise. scipy.fft and scipy.signal.fftconvolve call these once or twice per call, so
    each Python step shows (about 5 us of checks and helper calls on a 3.5 us primitive
    on this project's VM, 2026-11-30)."""
    if not isinstance(x, ArrayBase) or x._dtype not in (_COMPLEX_IN if inverse else _REAL_IN) \
            or "fft" not in x._device.capabilities:
        check_input(x, fname, "complex" if inverse else "real")
    if norm.__class__ is not str or norm not in NORMS:  # (an array's `in` has no one truth)
        check_norm(norm, fname)
    shape = x._layout.shape
    ndim = len(shape)
    if type(axis) is not int or not -ndim <= axis < ndim:
        axis = check_axis(x, axis, fname)
    elif axis < 0:
        axis += ndim
    if n is None:
        n = 2 * (shape[axis] - 1) if inverse else shape[axis]
    if type(n) is not int or n < 1:
        n = check_length(n, fname)
    return axis, n


def one_axis_arguments(x, s, axes, norm, inverse):
    """(axis, n) of ``rfftn`` (``inverse`` False) or ``irfftn`` of ``x`` over one axis,
    where the common case holds: an array of a dtype the transform takes, ``axes`` a list
    or tuple of one int in range (or None with ``s`` of one entry: the last axis), ``s``
    None or a list or tuple of one positive int, a known norm; else None (the general
    path's checks decide, and raise). scipy.signal.fftconvolve calls rfftn twice and
    irfftn once with ``s=[n], axes=[a]``: the general checks were about 5 us of a 1.3 us
    transform of 64 elements on this project's VM (2026-11-30)."""
    if not isinstance(x, ArrayBase) or x._dtype not in (_COMPLEX_IN if inverse else _REAL_IN) \
            or norm.__class__ is not str or norm not in NORMS or "fft" not in x._device.capabilities:
        return None
    shape = x._layout.shape
    ndim = len(shape)
    if axes is None:
        if s is None or not ndim:
            return None
        axis = ndim - 1
    elif type(axes) in (list, tuple) and len(axes) == 1 and type(axes[0]) is int and -ndim <= axes[0] < ndim:
        axis = axes[0] + ndim if axes[0] < 0 else axes[0]
    else:
        return None
    if s is None:
        n = 2 * (shape[axis] - 1) if inverse else shape[axis]
    elif type(s) in (list, tuple) and len(s) == 1 and type(s[0]) is int:
        n = s[0]
    else:
        return None
    return (axis, n) if n >= 1 else None
