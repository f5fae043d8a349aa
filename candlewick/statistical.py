"""Statistical reductions of the Array API, on the ``reduce`` and ``scan`` primitives."""

from . import dtypes as _dt
from ._core import check_accepts, require_array, wrap
from .errors import DTypeError
from .layout import normalize_axes
from .opdefs import ReduceOp


def _keep(shape, axes, keepdims):
    if keepdims:
        return tuple(1 if i in axes else n for i, n in enumerate(shape))
    return tuple(n for i, n in enumerate(shape) if i not in axes)


def reduce_array(op, x, axis, keepdims, fname):
    """Apply a ReduceOp over ``axis`` (None, int or tuple) with keepdims handling."""
    require_array(x, fname)
    shape = x._layout.shape
    axes = normalize_axes(axis, len(shape))
    out_dtype = check_accepts(op, x._dtype, fname)
    if op in (ReduceOp.MIN, ReduceOp.MAX, ReduceOp.ARGMIN, ReduceOp.ARGMAX):
        if any(shape[a] == 0 for a in axes) or (not axes and 0 in shape and False):
            raise ValueError(f"{fname}: zero-size reduction has no identity (array shape {shape})")
    storage = x._storage.reduce(op, x._layout, axes)
    return wrap(storage, _keep(shape, axes, keepdims), out_dtype, x._device)


def _accumulation_dtype(x, dtype, fname):
    if dtype is not None:
        dtype = _dt.as_dtype(dtype, "dtype")
        if x._dtype.is_complex and not dtype.is_complex:
            raise DTypeError(f"{fname}: dtype {dtype.name} cannot hold a complex {x._dtype.name} result")
        return dtype
    if x._dtype.is_bool or x._dtype in _dt.SIGNED:
        return _dt.DEFAULT_INT
    if x._dtype in _dt.UNSIGNED:
        return _dt.uint64
    return x._dtype


def _sum_like(op, x, axis, dtype, keepdims, fname):
    require_array(x, fname)
    acc = _accumulation_dtype(x, dtype, fname)
    if acc.is_bool:
        raise DTypeError(f"{fname}: dtype must be numeric, got bool")
    if acc is not x._dtype:
        x = x.astype(acc)
    return reduce_array(op, x, axis, keepdims, fname)


def sum(x, /, *, axis=None, dtype=None, keepdims=False):
    """Sum over ``axis``; integers accumulate in the default integer dtype."""
    return _sum_like(ReduceOp.SUM, x, axis, dtype, keepdims, "sum")


def prod(x, /, *, axis=None, dtype=None, keepdims=False):
    """Product over ``axis``; integers accumulate in the default integer dtype."""
    return _sum_like(ReduceOp.PROD, x, axis, dtype, keepdims, "prod")


def max(x, /, *, axis=None, keepdims=False):
    """Maximum over ``axis``; NaN propagates; zero-size reductions raise ValueError."""
    _no_complex(x, "max")
    return reduce_array(ReduceOp.MAX, x, axis, keepdims, "max")


def min(x, /, *, axis=None, keepdims=False):
    """Minimum over ``axis``; NaN propagates; zero-size reductions raise ValueError."""
    _no_complex(x, "min")
    return reduce_array(ReduceOp.MIN, x, axis, keepdims, "min")


def _no_complex(x, fname):
    require_array(x, fname)
    if x._dtype.is_complex:
        raise DTypeError(f"{fname}: complex numbers have no order; got {x._dtype.name}")


def mean(x, /, *, axis=None, keepdims=False):
    """Arithmetic mean over ``axis`` (floating or complex; integers use the default float)."""
    require_array(x, "mean")
    if x._dtype.is_bool or x._dtype.is_integer:
        x = x.astype(_dt.DEFAULT_FLOAT)
    shape = x._layout.shape
    axes = normalize_axes(axis, len(shape))
    count = 1
    for a in axes:
        count *= shape[a]
    total = reduce_array(ReduceOp.SUM, x, axes, keepdims, "mean")
    scale = 1.0 / count if count else float("nan")
    if total._dtype.is_complex:
        return total * scale
    return wrap(total._storage.affine(total._layout, scale, 0.0), total._layout.shape, total._dtype, total._device)
