"""The moments of the Array API's statistical functions, computed in float32 for the half
dtypes: mean (the ``reduce`` primitive's sum, divided), var and std (one ``var`` primitive
each)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import dtypes as _dt
from ._core import require_array
from .array import wrap
from .docstrings import FRAGMENTS, shared_doc
from .arguments import flag
from .errors import ArgumentTypeError, ArgumentValueError
from .lazy_gate import operand
from .shapes import normalize_axes, reduced_shape
from .opdefs import BinaryOp, ReduceOp
from .statistical import converts_as_read, reduce_array, reduce_into

if TYPE_CHECKING:
    from .array import Array
    from ._types import Axes, DTypeLike


_STRICT = "DTypeError\n    If x is bool or integer in strict promotion mode."
#: the entries and sections the moments share (filled in by ``docstrings.shared_doc``)
_DOCS = {
    "raises_strict_floating": _STRICT,
    "spread_sections": (  # var's and std's Parameters, Returns and Raises
        FRAGMENTS["params_x_axes"] + "\n"
        "correction : int or float\n"
        "    Subtracted from the number of elements N in the divisor (1 for the sample variance\n"
        "    or deviation).\n" + FRAGMENTS["param_keepdims"] + "\n"
        "dtype : dtype, optional\n"
        "    NumPy's extra: the dtype to compute in and return (default: x's floating dtype).\n"
        "ddof : int or float, optional\n"
        "    NumPy's name of ``correction``; give one of the two.\n\n"
        + FRAGMENTS["returns_raises_reduction"] + "\n" + _STRICT
    ),
    "param_mean_dtype": (
        "dtype : dtype, optional\n"
        "    NumPy's extra: the dtype to compute in and return (default: x's floating dtype;\n"
        "    an integer dtype truncates the floating mean, as NumPy's)."
    ),
}


def _divisor(count, dtype):
    """``count`` as the scalar a division in ``dtype`` takes."""
    return complex(count) if dtype.is_complex else float(count)


def _divide(a, count):
    """``a / count`` in a's dtype (a true division, as NumPy's mean; 0/0 gives NaN)."""
    storage = operand(a).binary_scalar(BinaryOp.DIVIDE, a._layout, _divisor(count, a._dtype), False)
    return wrap(storage, a._layout.shape, a._dtype, a._device)


def _floating(x, fname):
    """x as a floating (or complex) array: bool and integers use the default float."""
    require_array(x, fname)
    if x._dtype.is_bool or x._dtype.is_integer:
        return x.astype(_dt.DEFAULT_FLOAT)
    return x


def _count(shape, axes):
    count = 1
    for a in axes:
        count *= shape[a]
    return count


#: float16 and bfloat16 statistics are computed in float32 and rounded once at the end
#: (NumPy's and PyTorch's rule): their sums alone overflow or lose the low digits
_HALF = (_dt.float16, _dt.bfloat16)


def _in_compute_dtype(x, fname):
    """(x, as float32 when it is a half dtype; that half dtype, or None)."""
    x = _floating(x, fname)
    if x._dtype in _HALF:
        return x.astype(_dt.float32), x._dtype
    return x, None


def _rounded(a, half):
    return a if half is None else a.astype(half)


def _with_dtype(x, dtype, fname):
    """x in the dtype NumPy's ``dtype=`` asks to compute in, and the dtype to return."""
    if dtype is None:
        return x, None
    require_array(x, fname)
    dtype = _dt.as_dtype(dtype, "dtype", fname)
    if dtype.is_floating or dtype.is_complex:
        return x.astype(dtype), None
    return x, dtype


def _correction(correction, ddof, fname):
    if ddof is None:
        return correction
    if correction is not None:
        raise ArgumentValueError(f"{fname}: give correction or ddof (NumPy's name of it), not both")
    return ddof


@shared_doc(_DOCS)
def mean(x: Array, /, *, axis: Axes | None = None, keepdims: bool = False,
         dtype: DTypeLike | None = None) -> Array:
    """Arithmetic mean over ``axis`` (floating or complex; integers use the default float);
    the mean of nothing is NaN.

    {params_x_axes}
    {param_keepdims}
    {param_mean_dtype}

    {returns_raises_reduction}
    {raises_strict_floating}

    Examples
    --------
    >>> import candlewick as cw
    >>> x = cw.asarray([[1.0, 2.0], [3.0, 4.0]])
    >>> cw.mean(x).item()
    2.5
    """
    wide = _sum_dtype(x, dtype)
    if wide is not None:  # the sum converts x as it reads it: no cast copy of x
        return _mean(x, axis, keepdims, wide)
    x, cast = _with_dtype(x, dtype, "mean")
    x, half = _in_compute_dtype(x, "mean")
    return _rounded(_rounded(_mean(x, axis, keepdims), half), cast)


def _sum_dtype(x, dtype):
    """The dtype other than x's that mean's sum reads x into where x's device converts as
    it reads (``statistical.converts_as_read``): ``dtype`` when it is floating (NumPy's
    ``mean(x, dtype=np.float64)``), the default float for bool and integer x; else None
    (x is cast first, or needs no cast)."""
    require_array(x, "mean")
    if dtype is None:
        target = _dt.DEFAULT_FLOAT if x._dtype.is_bool or x._dtype.is_integer else None
    else:
        target = _dt.as_dtype(dtype, "dtype", "mean")
        if not (target.is_floating or target.is_complex) or (x._dtype.is_complex and not target.is_complex):
            return None  # an integer result, or astype's error: the cast-first path
    return target if target is not None and converts_as_read(x, target) else None


def _mean(x, axis, keepdims, wide=None):
    """The sum over ``axis`` divided by the count; ``wide``: the dtype the sum reads x into."""
    shape = x._layout.shape
    axes = normalize_axes(axis, len(shape))
    if wide is None:
        total = reduce_array(ReduceOp.SUM, x, axes, keepdims, "mean")
    else:
        total = reduce_into(ReduceOp.SUM, x, axes, keepdims, wide, "mean")
    return _divide(total, _count(shape, axes))


@shared_doc(_DOCS)
def var(x: Array, /, *, axis: Axes | None = None, correction: int | float | None = None,
        keepdims: bool = False, dtype: DTypeLike | None = None, ddof: int | float | None = None) -> Array:
    """Variance ``sum(|x - mean|**2) / (N - correction)`` over ``axis``; NaN where
    ``N - correction <= 0``. Complex input gives a real result.

    {spread_sections}

    Examples
    --------
    >>> import candlewick as cw
    >>> x = cw.asarray([[1.0, 2.0], [3.0, 4.0]])
    >>> cw.var(x, axis=0).tolist()
    [1.0, 1.0]
    """
    correction = _correction(correction, ddof, "var")
    x, cast = _with_dtype(x, dtype, "var")
    x, half = _in_compute_dtype(x, "var")
    spread = _var(x, axis, 0.0 if correction is None else correction, keepdims, False, "var")
    return _rounded(_rounded(spread, half), cast)


def _var(x, axis, correction, keepdims, root, fname):
    """The variance (``root``: the standard deviation) of the floating or complex x: one
    ``var`` primitive, whose result has x's real dtype."""
    if isinstance(correction, bool) or not isinstance(correction, (int, float)):
        raise ArgumentTypeError(
            f"{fname}: correction must be an int or float, got {type(correction).__name__}")
    shape = x._layout.shape
    axes = normalize_axes(axis, len(shape))
    keepdims = flag(keepdims, fname, "keepdims")
    storage = operand(x).var(x._layout, axes, correction, root)
    return wrap(storage, reduced_shape(shape, axes, keepdims), _dt.real_dtype_of(x._dtype), x._device)


@shared_doc(_DOCS)
def std(x: Array, /, *, axis: Axes | None = None, correction: int | float | None = None,
        keepdims: bool = False, dtype: DTypeLike | None = None, ddof: int | float | None = None) -> Array:
    """Standard deviation: the square root of ``var`` with the same arguments.

    {spread_sections}

    Examples
    --------
    >>> import candlewick as cw
    >>> x = cw.asarray([[1.0, 2.0], [3.0, 4.0]])
    >>> cw.std(x, axis=0).tolist()
    [1.0, 1.0]
    """
    correction = _correction(correction, ddof, "std")
    x, cast = _with_dtype(x, dtype, "std")
    x, half = _in_compute_dtype(x, "std")
    spread = _var(x, axis, 0.0 if correction is None else correction, keepdims, True, "std")
    return _rounded(_rounded(spread, half), cast)


__all__ = ["mean", "var", "std"]
