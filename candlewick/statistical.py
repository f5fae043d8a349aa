"""The reductions of the Array API's statistical functions, on the ``reduce`` primitive:
sum, prod, max, min. The moments (mean, var, std) are in ``moments``, the running
sums and products in ``cumulative``."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from . import dtypes as _dt
from ._core import RESULT, ArrayBase, _native, check_accepts, check_dtype_on, new_array, require_array
from .arguments import flag
from .docstrings import FRAGMENTS, shared_doc
from .errors import ArgumentValueError, DTypeError, name_code
from .lazy_gate import GATE, operand
from .shapes import ALL_AXES, normalize_axes, reduced_shape
from .opdefs import ReduceOp

if TYPE_CHECKING:
    from .array import Array
    from ._types import Axes, DTypeLike


_NO_IDENTITY = (ReduceOp.MIN, ReduceOp.MAX)


def _axes_and_shape(x, axis, keepdims, fname):
    shape = x._layout.shape
    if axis is None and keepdims is False:  # the whole array to a 0-d result: the common call
        return ALL_AXES[len(shape)], ()
    axes = normalize_axes(axis, len(shape), f"{fname}: axis")
    return axes, reduced_shape(shape, axes, flag(keepdims, fname, "keepdims"))


def reduce_array(op, x, axis, keepdims, fname):
    """Apply a ReduceOp over ``axis`` (None, int or tuple) with keepdims handling."""
    require_array(x, fname)
    layout = x._layout
    shape = layout.shape
    axes, out_shape = _axes_and_shape(x, axis, keepdims, fname)
    out_dtype = RESULT[op].get(x._dtype) or check_accepts(op, x._dtype, fname)
    if op in _NO_IDENTITY and 0 in shape and any(shape[a] == 0 for a in axes):
        raise ArgumentValueError(f"{fname}: zero-size reduction has no identity (array shape {shape}, axes {axes})")
    return new_array(type(x), operand(x).reduce(op, layout, axes), out_shape, out_dtype, x._device)


#: the optional group of ``reduce_as``/``scan_as`` (candlewick/backend.py)
REDUCE_DTYPE = "reduce_dtype"
_HALF = (_dt.float16, _dt.bfloat16)


def converts_as_read(x, dtype):
    """Whether x's device sums or multiplies x into ``dtype`` itself, converting each
    element as it reads it (the optional group "reduce_dtype"; never into a half dtype).
    Where not, the caller casts x first: a temporary of x's size in ``dtype`` and a pass
    more over memory, with the same values."""
    return REDUCE_DTYPE in x._device.capabilities and dtype not in _HALF and dtype is not x._dtype


def reduce_into(op, x, axis, keepdims, dtype, fname):
    """SUM or PROD of x over ``axis`` accumulated in and returned as ``dtype`` (checked by
    the caller: ``accumulation_dtype``), as ``reduce_array(op, x.astype(dtype), ...)``."""
    if not converts_as_read(x, dtype):
        return reduce_array(op, x if dtype is x._dtype else x.astype(dtype), axis, keepdims, fname)
    check_accepts(op, dtype, fname)
    check_dtype_on(x._device, dtype, fname)
    axes, out_shape = _axes_and_shape(x, axis, keepdims, fname)
    storage = operand(x).reduce_as(op, x._layout, axes, dtype)
    return new_array(type(x), storage, out_shape, dtype, x._device)


def accumulation_dtype(x, dtype, fname):
    """sum/prod/cumulative_* result dtype: ``dtype`` if given; else bool and signed
    integers accumulate in the default integer, unsigned in uint64, others keep theirs."""
    if dtype is not None:
        dtype = _dt.as_dtype(dtype, "dtype")
        if dtype.is_bool:
            raise DTypeError(f"{fname}: dtype must be numeric, got bool")
        if x._dtype.is_complex and not dtype.is_complex:
            raise DTypeError(f"{fname}: dtype {dtype.name} cannot hold a complex {x._dtype.name} result")
        return dtype
    return _DEFAULT_ACCUMULATION[x._dtype]


_DEFAULT_ACCUMULATION = {
    d: _dt.DEFAULT_INT if d.is_bool or d in _dt.SIGNED else _dt.uint64 if d in _dt.UNSIGNED else d
    for d in _dt.ALL_DTYPES
}


_SUM_DTYPE = (
    "dtype : DType or None\n"
    "    The accumulation and result dtype; None for x's dtype, widened to the default\n"
    "    integer dtype for bool and integers.\n"
)
_RETURNS_RAISES = "\n\n" + FRAGMENTS["returns_raises_reduction"] + "\n"
#: the sections sum/prod and max/min share (filled in by ``docstrings.shared_doc``)
_DOCS = {
    "sum_like_sections": FRAGMENTS["params_x_axes"] + "\n" + _SUM_DTYPE + FRAGMENTS["param_keepdims"] + _RETURNS_RAISES
    + "DTypeError\n    If dtype is of a lower kind than x's.",
    "extremum_sections": FRAGMENTS["params_x_axes"] + "\n" + FRAGMENTS["param_keepdims"] + _RETURNS_RAISES
    + "DTypeError\n    If x is complex.\nValueError\n    If the reduction is over zero elements.",
}


# op -> {dtype name: result dtype} of the dtypes whose default accumulation is their own
# (floating, complex, int64, uint64): sum(x) and prod(x) of those reduce x as it is. Keyed
# by name: a str hashes in C, a DType through its Python __hash__
_SAME_ACCUMULATION = {
    op: {d.name: r for d, r in RESULT[op].items() if _DEFAULT_ACCUMULATION[d] is d} for op in (ReduceOp.SUM, ReduceOp.PROD)
}


def _one_axis(shape, axis, keepdims):
    """(axes, result shape) of a reduction over ``axis`` (None or an int in range) with
    ``keepdims`` (a bool), or None for any other argument (the general path's checks)."""
    ndim = len(shape)
    if axis is None:
        return ALL_AXES[ndim], ((1,) * ndim if keepdims else ())
    if type(axis) is not int or not -ndim <= axis < ndim:
        return None
    if axis < 0:
        axis += ndim
    return (axis,), shape[:axis] + ((1,) if keepdims else ()) + shape[axis + 1:]


def _sum_like(op, x, axis, dtype, keepdims, fname):
    # the common calls in one step: over all axes or one (an int), keepdims a bool, dtype
    # None (where it is x's own) or a float accumulator of a real floating x. Eager
    # sum(x) of a tiny array spent 1.9 of its ~12 host us in the general path's checks;
    # sum(x, axis=0) and sum(x, axis=0, dtype=float64) 3 and 6 us more than NumPy's (a
    # KMeans step's counts, StandardScaler's sums), several times that once NumPy's
    # large calls between them have evicted the general path from the caches
    if isinstance(x, ArrayBase) and (keepdims is False or keepdims is True):
        layout = x._layout
        reduced = _one_axis(layout.shape, axis, keepdims)
        if reduced is not None:
            if dtype is None or dtype is x._dtype:
                out_dtype = _SAME_ACCUMULATION[op].get(x._dtype.name)
                if out_dtype is not None:
                    storage = x._storage if not GATE.on else GATE.operand(x)
                    return new_array(type(x), storage.reduce(op, layout, reduced[0]), reduced[1], out_dtype,
                                     x._device)
            elif ((dtype is _dt.float64 or dtype is _dt.float32) and x._dtype.level == 2
                  and REDUCE_DTYPE in x._device.capabilities):
                # (a float accumulator of another real floating x: scikit-learn's
                # _safe_accumulator_op; converts_as_read's test, inline, for its frames)
                check_dtype_on(x._device, dtype, fname)
                storage = operand(x).reduce_as(op, layout, reduced[0], dtype)
                return new_array(type(x), storage, reduced[1], dtype, x._device)
    require_array(x, fname)
    acc = accumulation_dtype(x, dtype, fname)
    if acc is x._dtype:
        return reduce_array(op, x, axis, keepdims, fname)
    return reduce_into(op, x, axis, keepdims, acc, fname)


@shared_doc(_DOCS)
def sum(x: Array, /, *, axis: Axes | None = None, dtype: DTypeLike | None = None,
        keepdims: bool = False) -> Array:
    """Sum over ``axis``; integers accumulate in the default integer dtype.

    {sum_like_sections}

    Examples
    --------
    >>> import candlewick as cw
    >>> x = cw.asarray([[1.0, 2.0], [3.0, 4.0]])
    >>> cw.sum(x, axis=0).tolist()
    [4.0, 6.0]
    """
    return _sum_like(ReduceOp.SUM, x, axis, dtype, keepdims, "sum")


@shared_doc(_DOCS)
def prod(x: Array, /, *, axis: Axes | None = None, dtype: DTypeLike | None = None,
         keepdims: bool = False) -> Array:
    """Product over ``axis``; integers accumulate in the default integer dtype.

    {sum_like_sections}

    Examples
    --------
    >>> import candlewick as cw
    >>> x = cw.asarray([[1.0, 2.0], [3.0, 4.0]])
    >>> cw.prod(x, axis=1).tolist()
    [2.0, 12.0]
    """
    return _sum_like(ReduceOp.PROD, x, axis, dtype, keepdims, "prod")


@shared_doc(_DOCS)
def max(x: Array, /, *, axis: Axes | None = None, keepdims: bool = False) -> Array:
    """Maximum over ``axis``; NaN propagates; zero-size reductions raise ValueError.

    {extremum_sections}

    Examples
    --------
    >>> import candlewick as cw
    >>> x = cw.asarray([[1.0, 2.0], [3.0, 4.0]])
    >>> cw.max(x).item()
    4.0
    """
    _no_complex(x, "max")
    return reduce_array(ReduceOp.MAX, x, axis, keepdims, "max")


@shared_doc(_DOCS)
def min(x: Array, /, *, axis: Axes | None = None, keepdims: bool = False) -> Array:
    """Minimum over ``axis``; NaN propagates; zero-size reductions raise ValueError.

    {extremum_sections}

    Examples
    --------
    >>> import candlewick as cw
    >>> x = cw.asarray([[1.0, 2.0], [3.0, 4.0]])
    >>> cw.min(x, axis=1, keepdims=True).shape
    (2, 1)
    """
    _no_complex(x, "min")
    return reduce_array(ReduceOp.MIN, x, axis, keepdims, "min")


def reduction_in_c(fn, op, same, into=(), identity=True, operand=True):
    """``fn`` with its common case in C where candlewick._native was built
    (``_native.Reduction``: an array of exactly the bound class, axis None or one int,
    keepdims a bool, dtype None or x's own with x's dtype in ``same`` ({name: result
    dtype}), or one of ``into`` with x real floating on a device of every dtype and the
    optional group "reduce_dtype"; ``identity`` False: no reduction over an empty axis),
    ``fn`` for the rest, with the same arguments; in lazy mode the primitive called on lazy
    mode's operand, as ``fn`` calls it (``operand`` False: ``fn`` calls x's own storage,
    and lazy mode's calls are ``fn``'s). A StandardScaler fit makes six sums, a
    max, a min and an any, each after NumPy's calls over the data have evicted the caches,
    where this case's four Python frames cost ~2.5 us a call on the development VM
    (``sum(x, axis=0)`` of 200 x 64 float64 after a 32 MB NumPy sum: 20.5 us in Python,
    18.0 in C, NumPy's reduce itself 11.2)."""
    if _native is None:
        return fn
    fast = _native.Reduction(op, same, into, _FLOATS, _dt.ALL_DTYPES, identity, fn, operand)
    if into:
        def native_fn(x: Array, /, *, axis: Axes | None = None, dtype: DTypeLike | None = None,
                      keepdims: bool = False) -> Array:
            return fast(x, axis=axis, dtype=dtype, keepdims=keepdims)
    else:
        def native_fn(x: Array, /, *, axis: Axes | None = None, keepdims: bool = False) -> Array:  # type: ignore[misc]
            return fast(x, axis=axis, keepdims=keepdims)
    # fn's names, docstring and __wrapped__ (inspect.signature, the API docs)
    functools.update_wrapper(native_fn, fn)
    return name_code(native_fn, fn.__name__)


_FLOATS = {d.name: d for d in _dt.ALL_DTYPES if d.level == 2}
_INTO = (_dt.float32, _dt.float64)
sum = reduction_in_c(sum, ReduceOp.SUM, _SAME_ACCUMULATION[ReduceOp.SUM], _INTO)
prod = reduction_in_c(prod, ReduceOp.PROD, _SAME_ACCUMULATION[ReduceOp.PROD], _INTO)
max = reduction_in_c(max, ReduceOp.MAX, {d.name: r for d, r in RESULT[ReduceOp.MAX].items() if not d.is_complex},
                     identity=False)
min = reduction_in_c(min, ReduceOp.MIN, {d.name: r for d, r in RESULT[ReduceOp.MIN].items() if not d.is_complex},
                     identity=False)


def _no_complex(x, fname):
    require_array(x, fname)
    if x._dtype.is_complex:
        raise DTypeError(f"{fname}: complex numbers have no order; got {x._dtype.name}")


__all__ = ["sum", "prod", "max", "min"]
