"""NumPy's ``pad`` on candlewick arrays, with NumPy's modes and their keywords, one axis
after the other as NumPy pads (so corners take the later axis's values).

The modes that copy values (edge, wrap, reflect, symmetric) gather along the axis with an
index map that NumPy's own ``pad`` makes of ``arange(n)`` on the host (its semantics for
pads wider than the array come with it); reflect_type='odd' adds the integer multiples of
the two edge values that NumPy's pad of the unit vectors gives. The others (constant,
linear_ramp, the statistics) concatenate computed blocks."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import dtypes as _dt
from . import elementwise as _ew
from .arguments import leaves
from ._core import is_scalar, require_array
from .array import Array
from .broadcasting import broadcast_to
from .conversion import asarray
from .creation import empty, full
from .data_types import astype
from .errors import ArgumentTypeError, ArgumentValueError, short_repr
from .indexing_functions import take
from .joining import concat
from .manipulation import flip, reshape
from .moments import mean
from .quantiles import median
from .selection import where
from .statistical import max as _max
from .statistical import min as _min

_KEYWORDS = {
    "constant": {"constant_values"}, "edge": set(), "empty": set(), "wrap": set(),
    "reflect": {"reflect_type"}, "symmetric": {"reflect_type"}, "linear_ramp": {"end_values"},
    "maximum": {"stat_length"}, "minimum": {"stat_length"}, "mean": {"stat_length"}, "median": {"stat_length"},
}
_STATS = {"maximum": _max, "minimum": _min, "mean": mean, "median": median}


def _pairs(value, ndim, argname, integral):
    """NumPy's broadcasting of a pad argument to one (before, after) pair per axis (of
    Python or NumPy numbers: a candlewick array would be read back from its device)."""
    if _holds_array(value):
        raise ArgumentTypeError(f"pad: {argname} must hold Python numbers, got a candlewick array")
    try:
        pairs = np.broadcast_to(np.asarray(value, dtype=object), (ndim, 2))
    except (ValueError, RecursionError):  # a nest deeper than the stack: not a pair of widths
        raise ArgumentValueError(f"pad: {argname} must broadcast to ({ndim}, 2), got {short_repr(value)}") from None
    if not integral:
        return [tuple(p) for p in pairs.tolist()]
    out = []
    for before, after in pairs.tolist():
        if any(isinstance(v, bool) or not isinstance(v, (int, np.integer)) for v in (before, after)):
            raise ArgumentTypeError(f"pad: {argname} must hold ints, got {short_repr(value)}")
        if before < 0 or after < 0:
            raise ArgumentValueError(f"pad: {argname} must hold non-negative ints, got {short_repr(value)}")
        out.append((int(before), int(after)))
    return out


def _holds_array(value):
    return any(isinstance(v, Array) for v in leaves(value))


def _block(x, axis, width, fill, dtype=None):
    shape = x.shape[:axis] + (width,) + x.shape[axis + 1:]
    if fill is None:
        return empty(shape, dtype=x.dtype if dtype is None else dtype, device=x.device)
    return full(shape, fill, dtype=x.dtype if dtype is None else dtype, device=x.device)


def _edge(x, axis, first):
    n = x.shape[axis]
    key = (slice(None),) * axis + (slice(0, 1) if first else slice(n - 1, n),)
    return x[key]


def _gather_mode(x, axis, before, after, mode, reflect_type):
    n = x.shape[axis]
    index = np.pad(np.arange(n), (before, after), mode=mode)
    gathered = take(x, asarray(index, device=x.device), axis=axis)
    if reflect_type != "odd" or mode not in ("reflect", "symmetric") or n < 2:
        return gathered
    # odd reflection: each value is +-x[index] plus integer multiples of the edge values
    unit = np.eye(n)
    first = np.pad(unit[0], (before, after), mode=mode, reflect_type="odd")
    last = np.pad(unit[n - 1], (before, after), mode=mode, reflect_type="odd")
    interior = ((np.arange(n) > 0) & (np.arange(n) < n - 1)).astype(float)
    inner = np.pad(interior, (before, after), mode=mode, reflect_type="odd") * ((index > 0) & (index < n - 1))
    shape = [1] * x.ndim
    shape[axis] = -1

    def term(coefficients, values):
        c = reshape(asarray(coefficients, dtype=_dt.float64, device=x.device), tuple(shape))
        return where(c != 0, c * values, 0.0)  # a zero coefficient never meets an inf

    total = term(first, _edge(x, axis, True)) + term(last, _edge(x, axis, False)) + term(inner, gathered)
    return astype(total, x.dtype)


def _ramp(x, axis, width, end, first):
    edge = _edge(x, axis, first)
    work = x.dtype if (x.dtype.is_floating or x.dtype.is_complex) else _dt.float64
    shape = [1] * x.ndim
    shape[axis] = width
    steps = reshape(asarray(np.arange(width) / width, dtype=work, device=x.device), tuple(shape))
    # NumPy's linspace(end, edge, width, endpoint=False), floored for integer dtypes
    values = end + (astype(edge, work) - end) * steps
    if work is not x.dtype:
        values = astype(_ew.floor(values), x.dtype)
    return values if first else flip(values, axis=axis)


def _stat(x, axis, width, length, mode, first):
    n = x.shape[axis]
    length = n if length is None else min(int(length), n)
    if length <= 0:
        raise ArgumentValueError(f"pad: stat_length of {length} gives no value to pad with")
    key = (slice(None),) * axis + (slice(0, length) if first else slice(n - length, n),)
    value = _STATS[mode](x[key], axis=axis, keepdims=True)
    if x.dtype.is_integer or x.dtype.is_bool:
        value = astype(_ew.round(value) if mode in ("mean", "median") else value, x.dtype)
    return broadcast_to(value, x.shape[:axis] + (width,) + x.shape[axis + 1:])


_UNSET: Any = object()


def pad(array: Array, pad_width: Any, mode: str = "constant", *, constant_values: Any = _UNSET,
        end_values: Any = _UNSET, stat_length: Any = _UNSET, reflect_type: Any = _UNSET) -> Array:
    """NumPy's ``pad``: ``array`` extended along each axis by ``pad_width`` values, made
    as ``mode`` says.

    Parameters
    ----------
    array : Array
        The array to pad.
    pad_width : int or sequence
        The (before, after) widths per axis, broadcast as NumPy does (``1``, ``(1, 2)``,
        ``((1, 2), (0, 3))``).
    mode : str
        One of NumPy's modes: 'constant' (default), 'edge', 'wrap', 'reflect', 'symmetric',
        'linear_ramp', 'maximum', 'minimum', 'mean', 'median', 'empty'.
    constant_values : scalar or sequence
        'constant': the values before and after each axis (default 0), broadcast per
        axis as pad_width is.
    end_values : scalar or sequence
        'linear_ramp': the values the ramps start from (default 0).
    stat_length : int, sequence or None
        'maximum', 'minimum', 'mean', 'median': how many values at each edge the
        statistic reads (default None: the whole axis).
    reflect_type : str
        'reflect', 'symmetric': 'even' (default) mirrors the values, 'odd' subtracts them
        from twice the edge value.

    Returns
    -------
    Array
        The padded array, of array's dtype, on its device.

    Raises
    ------
    TypeError
        If array is not a candlewick array or pad_width does not hold ints.
    ValueError
        For an unknown mode, a keyword the mode does not take, a negative width, or an
        empty axis padded with a mode that reads values.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.pad(cw.asarray([1, 2, 3]), (1, 2), constant_values=9).tolist()
    [9, 1, 2, 3, 9, 9]
    >>> cw.pad(cw.asarray([1, 2, 3]), 2, mode="reflect").tolist()
    [3, 2, 1, 2, 3, 2, 1]
    """
    require_array(array, "pad", "array")
    if not isinstance(mode, str) or mode not in _KEYWORDS:
        raise ArgumentValueError(f"pad: mode must be one of {sorted(_KEYWORDS)}, got {short_repr(mode)}")
    kwargs = {name: value for name, value in (("constant_values", constant_values), ("end_values", end_values),
                                              ("stat_length", stat_length), ("reflect_type", reflect_type))
              if value is not _UNSET}
    unknown = set(kwargs) - _KEYWORDS[mode]
    if unknown:
        raise ArgumentValueError(f"pad: mode {mode!r} does not take {sorted(unknown)}")
    ndim = array.ndim
    widths = _pairs(pad_width, ndim, "pad_width", integral=True)
    constants = _pairs(kwargs.get("constant_values", 0), ndim, "constant_values", integral=False)
    ends = _pairs(kwargs.get("end_values", 0), ndim, "end_values", integral=False)
    lengths = _pairs(kwargs.get("stat_length", None), ndim, "stat_length", integral=False)
    for value in (v for pair in constants + ends for v in pair):
        if not (is_scalar(value) or isinstance(value, np.generic)) or isinstance(value, str):
            raise ArgumentTypeError(f"pad: constant_values and end_values must hold numbers, got {short_repr(value)}")
    for value in (v for pair in lengths for v in pair):
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0):
            raise ArgumentTypeError(f"pad: stat_length must hold non-negative ints or None, got {short_repr(value)}")
    reflect_type = kwargs.get("reflect_type", "even")
    if not isinstance(reflect_type, str) or reflect_type not in ("even", "odd"):
        raise ArgumentValueError(f"pad: reflect_type must be 'even' or 'odd', got {short_repr(reflect_type)}")
    x = array
    for axis, (before, after) in enumerate(widths):
        if not before and not after:
            continue
        if mode in ("constant", "empty"):
            fills = constants[axis] if mode == "constant" else (None, None)
            x = concat([_block(x, axis, before, fills[0]), x, _block(x, axis, after, fills[1])], axis=axis)
            continue
        if x.shape[axis] == 0:
            raise ArgumentValueError(f"pad: cannot pad an empty axis ({axis}) with mode {mode!r}")
        if mode in ("edge", "wrap", "reflect", "symmetric"):
            x = _gather_mode(x, axis, before, after, mode, reflect_type)
        elif mode == "linear_ramp":
            x = concat([_ramp(x, axis, before, ends[axis][0], True), x, _ramp(x, axis, after, ends[axis][1], False)],
                       axis=axis)
        else:
            x = concat([_stat(x, axis, before, lengths[axis][0], mode, True), x,
                        _stat(x, axis, after, lengths[axis][1], mode, False)], axis=axis)
    return x


__all__ = ["pad"]
