"""NumPy's order statistics, with NumPy's signatures and its thirteen ``method``s:
quantile, percentile, median and their NaN-skipping forms nanquantile, nanpercentile,
nanmedian. One path serves all six: the array sorted along the reduced axis (NaN sorts
last), a virtual index per quantile from the count of values (per slice, on the device,
for the NaN-skipping forms), the neighbours gathered with ``take_along_axis`` and blended
as NumPy's ``_lerp`` does."""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING, Any

import numpy as np

from . import dtypes as _dt
from . import elementwise as _ew
from ._core import require_array
from .array import Array
from .broadcasting import broadcast_to
from .conversion import asarray
from .data_types import astype
from .docstrings import fill
from .arguments import flag
from .creation import full
from .errors import ArgumentTypeError, ArgumentValueError, DTypeError, IndexOutOfBoundsError, short_repr
from .indexing_functions import take_along_axis
from .manipulation import expand_dims, moveaxis, permute_dims, reshape
from .numpy_names import write_out
from .selection import where
from .shapes import broadcast_shapes, normalize_axes, shape_size
from .sorting import sort
from .statistical import sum as _sum
from .utility import any as _any
from .type_promotion import promote_types

if TYPE_CHECKING:
    from ._types import Axes

_CONTINUOUS = {  # H&F's (alpha, beta): virtual index n*q + alpha + q*(1 - alpha - beta) - 1
    "interpolated_inverted_cdf": (0.0, 1.0), "hazen": (0.5, 0.5), "weibull": (0.0, 0.0),
    "median_unbiased": (1 / 3, 1 / 3), "normal_unbiased": (3 / 8, 3 / 8),
}
#: the methods whose result is one of the values (in a's dtype), not a blend of two
_DISCRETE = ("lower", "higher", "nearest", "inverted_cdf", "closest_observation")
METHODS = ("linear", "averaged_inverted_cdf", "midpoint", *_CONTINUOUS, *_DISCRETE)


def _q_array(q, device, percent, fname):
    """(q as a float array on ``device``, whether q was a Python scalar (NumPy's weak q))."""
    weak = isinstance(q, numbers.Real) and not isinstance(q, (np.generic, bool))
    if not isinstance(q, Array):
        if not isinstance(q, (numbers.Real, list, tuple, np.ndarray)) or isinstance(q, bool):
            raise ArgumentTypeError(f"{fname}: q must be a real number or a sequence of them, got {type(q).__name__}")
        q = asarray(q, device=device)
    if not (q.dtype.is_floating or q.dtype.is_integer):
        raise DTypeError(f"{fname}: q must be real numbers, got dtype {q.dtype.name}")
    if q.ndim > 1:
        raise ArgumentValueError(f"{fname}: q must be a scalar or 1-D, got {q.ndim}-D")
    q = astype(q, _dt.float64 if q.dtype.is_integer else q.dtype)
    if percent:
        q = q / 100.0
    if q.size and bool(_any((q < 0.0) | (q > 1.0))):
        raise ArgumentValueError(f"{fname}: {'percentiles' if percent else 'quantiles'} must be in "
                                 f"{'[0, 100]' if percent else '[0, 1]'}")
    return q, weak


def _virtual(n, q, method, fname):
    """(index below, index above, weight of the one above): arrays of q's and n's shape."""
    floor = _ew.floor
    if method == "linear":
        v = (n - 1) * q
    elif method in _CONTINUOUS:
        alpha, beta = _CONTINUOUS[method]
        v = n * q + (alpha + q * (1 - alpha - beta)) - 1
    elif method == "averaged_inverted_cdf":
        v = n * q - 1
        return floor(v), floor(v) + 1, 1.0 - 0.5 * astype(v - floor(v) == 0, v.dtype)
    elif method == "midpoint":
        v = 0.5 * (floor((n - 1) * q) + _ew.ceil((n - 1) * q))
        return floor(v), floor(v) + 1, 0.5 - 0.5 * astype(v - floor(v) == 0, v.dtype)
    elif method == "lower":
        v = floor((n - 1) * q)
    elif method == "higher":
        v = _ew.ceil((n - 1) * q)
    elif method == "nearest":
        v = _ew.round((n - 1) * q)  # half to even, as NumPy's around
    elif method in ("inverted_cdf", "closest_observation"):
        v = n * q - 1 - (0.5 if method == "closest_observation" else 0.0)
        below = floor(v)
        at_boundary = v - below == 0
        if method == "closest_observation":  # the nearest even order statistic (1-based)
            at_boundary = at_boundary & (below % 2 == 1)
        v = where(at_boundary, below, below + 1)
    else:
        raise ArgumentValueError(f"{fname}: method must be one of {METHODS}, got {short_repr(method)}")
    below = floor(v)
    return below, below + 1, v - below


def _reduced_last(a, axis, fname):
    """a with the reduced axes last and merged into one, and the kept axes' shape."""
    ndim = a.ndim
    axes = normalize_axes(axis, ndim)
    kept = tuple(i for i in range(ndim) if i not in axes)
    moved = permute_dims(a, kept + axes)
    batch = tuple(a.shape[i] for i in kept)
    return reshape(moved, batch + (-1,)), axes, batch


def _quantile(a, q, axis, out, method, keepdims, skip_nan, percent, weights, fname, overwrite_input=False):
    require_array(a, fname, "a")
    keepdims = flag(keepdims, fname, "keepdims")
    flag(overwrite_input, fname, "overwrite_input")
    if not isinstance(method, str) or method not in METHODS:
        raise ArgumentValueError(f"{fname}: method must be one of {METHODS}, got {short_repr(method)}")
    if out is not None:
        require_array(out, fname, "out")
    if weights is not None:
        raise ArgumentValueError(f"{fname}: weights are not supported")
    if a.dtype.is_complex:
        raise DTypeError(f"{fname}: a must be real numbers, got {a.dtype.name}")
    qs, weak = _q_array(q, a.device, percent, fname)
    flat, axes, batch = _reduced_last(a, axis, fname)
    values = sort(flat, axis=-1)  # NaN sorts last
    size = values.shape[-1]
    if size == 0:  # checked here: a gather from an empty axis would fail (on a GPU at the next sync)
        result = _of_nothing(a, qs, weak, batch, skip_nan or fname == "median", fname)
    else:
        result = _from_sorted(values, qs, weak, batch, method, skip_nan, a.dtype, fname)
    if keepdims:
        for i in sorted(axes):
            result = expand_dims(result, axis=i + 1)
    if qs.ndim == 0:
        result = reshape(result, result.shape[1:])
    return write_out(out, result, fname)


def _float_result(dtype, qs, weak):
    result_dtype = dtype if dtype.is_floating else _dt.float64
    return result_dtype if weak else promote_types(result_dtype, qs.dtype)


def _of_nothing(a, qs, weak, batch, nan, fname):
    """The quantiles of empty slices: NaN for median and the NaN-skipping forms (NumPy's
    result, without its warning), else NumPy's IndexError as IndexOutOfBoundsError."""
    if not nan:
        raise IndexOutOfBoundsError(f"{fname}: a has no elements along the reduced axes, so it has no quantiles "
                                    f"(NumPy raises IndexError too; nanquantile and median give NaN)")
    return full((shape_size(qs.shape),) + batch, float("nan"), dtype=_float_result(a.dtype, qs, weak),
                device=a.device)


def _from_sorted(values, qs, weak, batch, method, skip_nan, dtype, fname):
    """The quantiles of the slices of ``values`` (sorted along its last axis, at least one
    element), with q's entries first."""
    size = values.shape[-1]
    floating = dtype.is_floating
    if skip_nan and floating:
        n = _sum(astype(_ew.logical_not(_ew.isnan(values)), qs.dtype), axis=-1)
        n = reshape(n, (1,) + batch)
    else:
        n = float(size)
    q_col = reshape(qs, (-1,) + (1,) * len(batch))
    below, above, weight = _virtual(n, q_col, method, fname)
    last = n - 1
    shape = broadcast_shapes(tuple(below.shape), (1,) + batch)

    def gather(index):
        index = _ew.maximum(_ew.minimum(index, last), 0.0)  # NumPy's clip to [0, count - 1]
        index = astype(_broadcast(index, shape), _dt.int64)
        picked = take_along_axis(values, moveaxis(index, 0, -1), axis=-1)
        return moveaxis(picked, -1, 0)

    low = gather(below)
    if method in _DISCRETE:
        result = low
    else:
        result_dtype = _float_result(dtype, qs, weak)
        low, high = astype(low, result_dtype), astype(gather(above), result_dtype)
        weight = astype(_broadcast(weight, shape), result_dtype)
        step = high - low
        result = where(weight >= 0.5, high - step * (1 - weight), low + step * weight)
    if floating:
        if skip_nan:
            result = where(n == 0, float("nan"), result)  # a slice of NaN only
        else:
            last_value = reshape(values[..., size - 1:], (1,) + batch) if size else None
            if last_value is not None:
                result = where(_ew.isnan(last_value), float("nan"), result)  # NaN anywhere: NaN
    return result


def _broadcast(x, shape):
    return broadcast_to(x, shape) if tuple(x.shape) != tuple(shape) else x


def quantile(a: Array, q: Any, axis: Axes | None = None, out: Array | None = None, overwrite_input: bool = False,
             method: str = "linear", keepdims: bool = False, *, weights: Any = None) -> Array:
    return _quantile(a, q, axis, out, method, keepdims, False, False, weights, "quantile", overwrite_input)


def percentile(a: Array, q: Any, axis: Axes | None = None, out: Array | None = None, overwrite_input: bool = False,
               method: str = "linear", keepdims: bool = False, *, weights: Any = None) -> Array:
    return _quantile(a, q, axis, out, method, keepdims, False, True, weights, "percentile", overwrite_input)


def median(a: Array, axis: Axes | None = None, out: Array | None = None, overwrite_input: bool = False,
           keepdims: bool = False) -> Array:
    return _quantile(a, 0.5, axis, out, "linear", keepdims, False, False, None, "median", overwrite_input)


def nanquantile(a: Array, q: Any, axis: Axes | None = None, out: Array | None = None, overwrite_input: bool = False,
                method: str = "linear", keepdims: bool = False, *, weights: Any = None) -> Array:
    return _quantile(a, q, axis, out, method, keepdims, True, False, weights, "nanquantile", overwrite_input)


def nanpercentile(a: Array, q: Any, axis: Axes | None = None, out: Array | None = None, overwrite_input: bool = False,
                  method: str = "linear", keepdims: bool = False, *, weights: Any = None) -> Array:
    return _quantile(a, q, axis, out, method, keepdims, True, True, weights, "nanpercentile", overwrite_input)


def nanmedian(a: Array, axis: Axes | None = None, out: Array | None = None, overwrite_input: bool = False,
              keepdims: bool = False) -> Array:
    return _quantile(a, 0.5, axis, out, "linear", keepdims, True, False, None, "nanmedian", overwrite_input)


_PARAMS = {
    "quantile_a": "a : Array\n    Input array (real).",
    "quantile_q": ("q : float or array_like\n    The quantile(s), in [0, 1] (a scalar or 1-D; a 1-D q makes the "
                   "result's first axis)."),
    "percentile_q": "q : float or array_like\n    The percentile(s), in [0, 100] (a scalar or 1-D).",
    "quantile_axis": "axis : int, tuple of int or None\n    The axes to reduce; None for all of them.",
    "quantile_out": "out : Array or None\n    An array of the result's shape to write into (and return).",
    "quantile_overwrite": "overwrite_input : bool\n    Accepted for NumPy's signature; a is never modified.",
    "quantile_method": ("method : str\n    One of NumPy's methods: 'linear' (default), 'lower', 'higher', 'nearest', "
                        "'midpoint',\n    and H&F's 'inverted_cdf', 'averaged_inverted_cdf', 'closest_observation',\n"
                        "    'interpolated_inverted_cdf', 'hazen', 'weibull', 'median_unbiased', 'normal_unbiased'."),
    "quantile_keepdims": "keepdims : bool\n    Keep the reduced axes as dimensions of length 1.",
    "quantile_weights": "weights : None\n    NumPy's weights are not supported (ValueError).",
    "quantile_raises": ("Raises\n------\nTypeError\n    If a is not a candlewick array.\nValueError\n"
                        "    If q is out of range, method unknown, or weights given.\nDTypeError\n    If a is complex."),
}
_NAN_NOTE = " NaN values are skipped (a slice of NaN only gives NaN)."
_PLAIN_NOTE = " A slice holding a NaN gives NaN."
for _fn, _summary, _q, _example in (
    (quantile, "NumPy's ``quantile``: the q-th quantiles over ``axis``." + _PLAIN_NOTE, "quantile_q",
     [">>> cw.quantile(cw.asarray([1.0, 2.0, 3.0, 4.0]), 0.5).item()", "2.5"]),
    (percentile, "NumPy's ``percentile``: ``quantile`` with q in percent." + _PLAIN_NOTE, "percentile_q",
     [">>> cw.percentile(cw.asarray([1.0, 2.0, 3.0, 4.0]), [25, 50]).tolist()", "[1.75, 2.5]"]),
    (median, "NumPy's ``median``: the 0.5 quantile over ``axis``." + _PLAIN_NOTE, None,
     [">>> cw.median(cw.asarray([[1.0, 5.0], [3.0, 4.0]]), axis=1).tolist()", "[3.0, 3.5]"]),
    (nanquantile, "NumPy's ``nanquantile``: the q-th quantiles of the non-NaN values." + _NAN_NOTE, "quantile_q",
     [">>> cw.nanquantile(cw.asarray([1.0, cw.nan, 3.0]), 0.5).item()", "2.0"]),
    (nanpercentile, "NumPy's ``nanpercentile``: ``nanquantile`` with q in percent." + _NAN_NOTE, "percentile_q",
     [">>> cw.nanpercentile(cw.asarray([1.0, cw.nan, 3.0]), 50).item()", "2.0"]),
    (nanmedian, "NumPy's ``nanmedian``: the median of the non-NaN values." + _NAN_NOTE, None,
     [">>> cw.nanmedian(cw.asarray([1.0, cw.nan, 4.0])).item()", "2.5"]),
):
    _names = ["quantile_a", *([_q] if _q else []), "quantile_axis", "quantile_out", "quantile_overwrite",
              *(["quantile_method"] if _q else []), "quantile_keepdims", *(["quantile_weights"] if _q else [])]
    _fn.__doc__ = fill("\n".join([
        _summary, "", "Parameters", "----------", *(f"{{{p}}}" for p in _names), "", "Returns", "-------",
        "Array", "    The quantiles (q's axis first when q is 1-D), in a's floating dtype (float64 for",
        "    integers; a's own dtype for the methods that pick a value), or out.", "", "{quantile_raises}", "",
        "Examples", "--------", ">>> import candlewick as cw", *_example]), _PARAMS)

__all__ = ["quantile", "percentile", "median", "nanquantile", "nanpercentile", "nanmedian"]
