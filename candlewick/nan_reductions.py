"""NumPy's NaN-skipping functions, with NumPy's signatures, composed from candlewick's own:
nansum, nanprod, nanmean, nanvar, nanstd, nanmax, nanmin, nanargmax, nanargmin, nancumsum,
nancumprod (nanmedian and nanquantile live with the quantiles). On bool and integer
arrays, which hold no NaN, each is its plain function, as in NumPy. xarray's ``skipna``
paths call them on the namespace it is given, and NumPy's calls reach them through
``numpy_functions``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import elementwise as _ew
from . import moments as _moments
from . import searching as _searching
from . import statistical as _stat
from . import utility as _utility
from ._core import require_array
from .arguments import real_number
from .data_types import astype, finfo
from .docstrings import fill
from .errors import ArgumentValueError
from .numpy_names import cumprod, cumsum, write_out
from .selection import where

if TYPE_CHECKING:
    from .array import Array
    from ._types import Axes, DTypeLike

_DOCS = {
    "nan_a": "a : Array\n    Input array.",
    "nan_axis": "axis : int, tuple of int or None\n    The axes to reduce; None for all of them.",
    "nan_dtype": "dtype : dtype or None\n    The dtype to compute in and return (NumPy's rules).",
    "nan_out": "out : Array or None\n    An array of the result's shape to write the result into (and return).",
    "nan_keepdims": "keepdims : bool\n    Keep the reduced axes as dimensions of length 1.",
    "nan_ddof": ("ddof : int or float\n    Subtracted from the count of non-NaN elements in the divisor.\n"
                 "correction : int, float or None\n    The standard's name of ddof; give one of the two."),
    "nan_raises": "Raises\n------\nTypeError\n    If a is not a candlewick array.\nAxisError\n    If an axis is out of range.",
}


def _doc(fn, summary, returns, example, params=("nan_a", "nan_axis", "nan_dtype", "nan_out", "nan_keepdims")):
    lines = [summary, "", "Parameters", "----------", *(f"{{{p}}}" for p in params), "",
             "Returns", "-------", "Array", f"    {returns}", "", "{nan_raises}", "", "Examples", "--------",
             ">>> import candlewick as cw", ">>> x = cw.asarray([[1.0, cw.nan], [3.0, 4.0]])", *example]
    fn.__doc__ = fill("\n".join(lines), _DOCS)
    return fn


def _has_nan(a):
    return a.dtype.is_floating or a.dtype.is_complex


def _filled(a, value):
    return where(_ew.isnan(a), value, a)


def _count(a, axis, keepdims):
    real = finfo(a.dtype).dtype
    return _stat.sum(astype(_ew.logical_not(_ew.isnan(a)), real), axis=axis, keepdims=keepdims)


def nansum(a: Array, axis: Axes | None = None, dtype: DTypeLike | None = None, out: Array | None = None,
           keepdims: bool = False) -> Array:
    require_array(a, "nansum", "a")
    data = _filled(a, 0.0) if _has_nan(a) else a
    return write_out(out, _stat.sum(data, axis=axis, dtype=dtype, keepdims=keepdims), "nansum")


def nanprod(a: Array, axis: Axes | None = None, dtype: DTypeLike | None = None, out: Array | None = None,
            keepdims: bool = False) -> Array:
    require_array(a, "nanprod", "a")
    data = _filled(a, 1.0) if _has_nan(a) else a
    return write_out(out, _stat.prod(data, axis=axis, dtype=dtype, keepdims=keepdims), "nanprod")


def nanmean(a: Array, axis: Axes | None = None, dtype: DTypeLike | None = None, out: Array | None = None,
            keepdims: bool = False) -> Array:
    require_array(a, "nanmean", "a")
    if dtype is not None:
        a = astype(a, dtype)
    if not _has_nan(a):
        return write_out(out, _moments.mean(a, axis=axis, keepdims=keepdims), "nanmean")
    total = _stat.sum(_filled(a, 0.0), axis=axis, keepdims=keepdims)
    return write_out(out, total / _count(a, axis, keepdims), "nanmean")  # an all-NaN slice: 0/0, NaN


def _nanvar(a, axis, dtype, keepdims, ddof, correction, root, fname):
    require_array(a, fname, "a")
    ddof = _moments._correction(correction, ddof, fname)
    ddof = 0.0 if ddof is None else real_number(ddof, fname, "ddof")
    if dtype is not None:
        a = astype(a, dtype)
    if not _has_nan(a):
        spread = _moments.std if root else _moments.var
        return spread(a, axis=axis, correction=ddof, keepdims=keepdims)
    valid = _ew.logical_not(_ew.isnan(a))
    centred = where(valid, a - nanmean(a, axis, None, None, True), 0.0)
    squares = _ew.real(centred * _ew.conj(centred)) if a.dtype.is_complex else centred * centred
    dof = _count(a, axis, keepdims) - ddof
    # NumPy's rule: a slice with no degrees of freedom left gives NaN
    variance = where(dof > 0, _stat.sum(squares, axis=axis, keepdims=keepdims) / dof, float("nan"))
    return _ew.sqrt(variance) if root else variance


def nanvar(a: Array, axis: Axes | None = None, dtype: DTypeLike | None = None, out: Array | None = None,
           ddof: int | float | None = None, keepdims: bool = False, *,
           correction: int | float | None = None) -> Array:
    return write_out(out, _nanvar(a, axis, dtype, keepdims, ddof, correction, False, "nanvar"), "nanvar")


def nanstd(a: Array, axis: Axes | None = None, dtype: DTypeLike | None = None, out: Array | None = None,
           ddof: int | float | None = None, keepdims: bool = False, *,
           correction: int | float | None = None) -> Array:
    return write_out(out, _nanvar(a, axis, dtype, keepdims, ddof, correction, True, "nanstd"), "nanstd")


def _extreme(reduce, fill_value, a, axis, keepdims, fname):
    require_array(a, fname, "a")
    if not _has_nan(a):
        return reduce(a, axis=axis, keepdims=keepdims)
    nan = _ew.isnan(a)
    found = reduce(where(nan, fill_value, a), axis=axis, keepdims=keepdims)
    empty = _utility.all(nan, axis=axis, keepdims=keepdims)
    return where(empty, float("nan"), found)  # an all-NaN slice gives NaN


def nanmax(a: Array, axis: Axes | None = None, out: Array | None = None, keepdims: bool = False) -> Array:
    return write_out(out, _extreme(_stat.max, float("-inf"), a, axis, keepdims, "nanmax"), "nanmax")


def nanmin(a: Array, axis: Axes | None = None, out: Array | None = None, keepdims: bool = False) -> Array:
    return write_out(out, _extreme(_stat.min, float("inf"), a, axis, keepdims, "nanmin"), "nanmin")


def _nanarg(arg, fill_value, a, axis, keepdims, fname):
    require_array(a, fname, "a")
    if not _has_nan(a):
        return arg(a, axis=axis, keepdims=keepdims)
    nan = _ew.isnan(a)
    # NumPy refuses a slice with nothing but NaN (an index would be meaningless)
    if bool(_utility.any(_utility.all(nan, axis=axis))):
        raise ArgumentValueError(f"{fname}: All-NaN slice encountered")
    return arg(where(nan, fill_value, a), axis=axis, keepdims=keepdims)


def nanargmax(a: Array, axis: int | None = None, out: Array | None = None, *, keepdims: bool = False) -> Array:
    return write_out(out, _nanarg(_searching.argmax, float("-inf"), a, axis, keepdims, "nanargmax"), "nanargmax")


def nanargmin(a: Array, axis: int | None = None, out: Array | None = None, *, keepdims: bool = False) -> Array:
    return write_out(out, _nanarg(_searching.argmin, float("inf"), a, axis, keepdims, "nanargmin"), "nanargmin")


def nancumsum(a: Array, axis: int | None = None, dtype: DTypeLike | None = None, out: Array | None = None) -> Array:
    require_array(a, "nancumsum", "a")
    return cumsum(_filled(a, 0.0) if _has_nan(a) else a, axis, dtype, out)


def nancumprod(a: Array, axis: int | None = None, dtype: DTypeLike | None = None, out: Array | None = None) -> Array:
    require_array(a, "nancumprod", "a")
    return cumprod(_filled(a, 1.0) if _has_nan(a) else a, axis, dtype, out)


_doc(nansum, "NumPy's ``nansum``: the sum over ``axis`` with NaN counted as 0.", "The sums, or out.",
     [">>> cw.nansum(x, axis=1).tolist()", "[1.0, 7.0]"])
_doc(nanprod, "NumPy's ``nanprod``: the product over ``axis`` with NaN counted as 1.", "The products, or out.",
     [">>> cw.nanprod(x, axis=1).tolist()", "[1.0, 12.0]"])
_doc(nanmean, "NumPy's ``nanmean``: the mean of the non-NaN elements (NaN for a slice of NaN only).",
     "The means, or out.", [">>> cw.nanmean(x, axis=1).tolist()", "[1.0, 3.5]"])
_doc(nanvar, "NumPy's ``nanvar``: the variance of the non-NaN elements (NaN where no degree of freedom is left).",
     "The variances (real for complex input), or out.", [">>> cw.nanvar(x, axis=1).tolist()", "[0.0, 0.25]"],
     ("nan_a", "nan_axis", "nan_dtype", "nan_out", "nan_ddof", "nan_keepdims"))
_doc(nanstd, "NumPy's ``nanstd``: the square root of ``nanvar`` with the same arguments.",
     "The standard deviations, or out.", [">>> cw.nanstd(x, axis=1).tolist()", "[0.0, 0.5]"],
     ("nan_a", "nan_axis", "nan_dtype", "nan_out", "nan_ddof", "nan_keepdims"))
_doc(nanmax, "NumPy's ``nanmax``: the maximum ignoring NaN (NaN for a slice of NaN only).", "The maxima, or out.",
     [">>> cw.nanmax(x, axis=1).tolist()", "[1.0, 4.0]"], ("nan_a", "nan_axis", "nan_out", "nan_keepdims"))
_doc(nanmin, "NumPy's ``nanmin``: the minimum ignoring NaN (NaN for a slice of NaN only).", "The minima, or out.",
     [">>> cw.nanmin(x, axis=0).tolist()", "[1.0, 4.0]"], ("nan_a", "nan_axis", "nan_out", "nan_keepdims"))
_DOCS["nan_axis_one"] = "axis : int or None\n    The axis to search along; None for the flattened array."
_DOCS["nan_axis_scan"] = "axis : int or None\n    The axis to accumulate along; None flattens a first."
_DOCS["nan_raises"] += "\nValueError\n    For nanargmax and nanargmin, if a slice holds only NaN (as NumPy)."
_doc(nanargmax, "NumPy's ``nanargmax``: the index of the maximum ignoring NaN.", "The indices, or out.",
     [">>> cw.nanargmax(x, axis=1).tolist()", "[0, 1]"], ("nan_a", "nan_axis_one", "nan_out", "nan_keepdims"))
_doc(nanargmin, "NumPy's ``nanargmin``: the index of the minimum ignoring NaN.", "The indices, or out.",
     [">>> cw.nanargmin(x, axis=0).tolist()", "[0, 1]"], ("nan_a", "nan_axis_one", "nan_out", "nan_keepdims"))
_doc(nancumsum, "NumPy's ``nancumsum``: the running sum with NaN counted as 0.", "The running sums, or out.",
     [">>> cw.nancumsum(x, axis=1).tolist()", "[[1.0, 1.0], [3.0, 7.0]]"],
     ("nan_a", "nan_axis_scan", "nan_dtype", "nan_out"))
_doc(nancumprod, "NumPy's ``nancumprod``: the running product with NaN counted as 1.", "The running products, or out.",
     [">>> cw.nancumprod(x, axis=1).tolist()", "[[1.0, 1.0], [3.0, 12.0]]"],
     ("nan_a", "nan_axis_scan", "nan_dtype", "nan_out"))

__all__ = ["nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nanmax", "nanmin", "nanargmax", "nanargmin",
           "nancumsum", "nancumprod"]
