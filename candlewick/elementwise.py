"""Element-wise functions of the Array API, generated from the op vocabularies.

Each function checks its operands (dtype domain from ``candlewick.opdefs``, Python
scalar rules, devices), promotes and broadcasts, then calls one storage primitive.
"""

import numpy as np

from . import _core
from . import dtypes as _dt
from ._core import (
    RESULT, array_type, broadcast_layouts, check_accepts, promote_pair, require_array,
    scalar_array, scalar_for, wrap,
)
from .errors import ArgumentTypeError, ArgumentValueError, DeviceMismatchError, DTypeError
from .layout import broadcast_shapes
from .opdefs import BinaryOp, CompareOp, UnaryOp


def _scalar_value(v):
    return v.item() if isinstance(v, np.generic) else v


def unary(op, x, fname):
    require_array(x, fname)
    out_dtype = check_accepts(op, x._dtype, fname)
    return wrap(x._storage.unary(op, x._layout), x._layout.shape, out_dtype, x._device)


def binary(op, x1, x2, fname):
    """Apply a BinaryOp to two operands (arrays or one Python scalar)."""
    Array = _core.Array
    if type(x1) is Array and type(x2) is Array:
        if x1._dtype is not x2._dtype or x1._device is not x2._device:
            x1, x2 = promote_pair(x1, x2, fname)
        dtype = x1._dtype
        result = RESULT[op].get(dtype)
        if result is None:
            x1, x2, dtype, result = _coerce_domain(op, x1, x2, dtype, fname)
        l1, l2 = x1._layout, x2._layout
        shape = l1.shape
        if shape != l2.shape:
            shape, (l1, l2) = broadcast_layouts(x1, x2)
        return wrap(x1._storage.binary(op, l1, x2._storage, l2), shape, result, x1._device)
    if isinstance(x1, Array):
        return _binary_scalar(op, x1, _scalar_value(x2), False, fname)
    if isinstance(x2, Array):
        return _binary_scalar(op, x2, _scalar_value(x1), True, fname)
    raise ArgumentTypeError(f"{fname}: at least one operand must be a candlewick array")


def _coerce_domain(op, x1, x2, dtype, fname):
    """Integer/bool true division runs in the default float dtype (NumPy's rule);
    logical ops accept any dtype as truth values. Anything else is a dtype error."""
    if op is BinaryOp.DIVIDE and dtype.is_integer:
        target = _dt.DEFAULT_FLOAT
    elif op in (BinaryOp.LOGICAL_AND, BinaryOp.LOGICAL_OR, BinaryOp.LOGICAL_XOR):
        target = _dt.bool_
    else:
        check_accepts(op, dtype, fname)
    x1, x2 = x1.astype(target), x2.astype(target)
    return x1, x2, target, RESULT[op][target]


def _binary_scalar(op, x, value, reflected, fname):
    value, dtype = scalar_for(value, x._dtype, fname)
    if dtype is not x._dtype:
        x = x.astype(dtype)
    result = RESULT[op].get(dtype)
    if result is None:
        other = scalar_array(value, dtype, x._device)
        pair = (other, x) if reflected else (x, other)
        x1, x2, dtype, result = _coerce_domain(op, *pair, dtype, fname)
        shape, (l1, l2) = broadcast_layouts(x1, x2)
        return wrap(x1._storage.binary(op, l1, x2._storage, l2), shape, result, x1._device)
    return wrap(x._storage.binary_scalar(op, x._layout, value, reflected), x._layout.shape, result, x._device)


def compare(op, x1, x2, fname):
    Array = array_type()
    if not isinstance(x1, Array):
        if not isinstance(x2, Array):
            raise ArgumentTypeError(f"{fname}: at least one operand must be a candlewick array")
        value, dtype = scalar_for(_scalar_value(x1), x2._dtype, fname)
        x1 = scalar_array(value, dtype, x2._device)
    elif not isinstance(x2, Array):
        value, dtype = scalar_for(_scalar_value(x2), x1._dtype, fname)
        x2 = scalar_array(value, dtype, x1._device)
    x1, x2 = promote_pair(x1, x2, fname)
    check_accepts(op, x1._dtype, fname)
    shape, (l1, l2) = broadcast_layouts(x1, x2)
    return wrap(x1._storage.compare(op, l1, x2._storage, l2), shape, _dt.bool_, x1._device)


def _make_unary(op, doc):
    def fn(x, /):
        return unary(op, x, op.value)

    fn.__name__ = fn.__qualname__ = op.value
    fn.__doc__ = doc
    return fn


def _make_binary(op, doc):
    def fn(x1, x2, /):
        return binary(op, x1, x2, op.value)

    fn.__name__ = fn.__qualname__ = op.value
    fn.__doc__ = doc
    return fn


def _make_compare(op, doc):
    def fn(x1, x2, /):
        return compare(op, x1, x2, op.value)

    fn.__name__ = fn.__qualname__ = op.value
    fn.__doc__ = doc
    return fn


_UNARY_NAMES = [op for op in UnaryOp if op not in (UnaryOp.ERF, UnaryOp.RELU, UnaryOp.GELU,
                                                   UnaryOp.SIGMOID, UnaryOp.SILU)]
_BINARY_NAMES = list(BinaryOp)

__all__ = []
for _op in _UNARY_NAMES:
    globals()[_op.value] = _make_unary(_op, f"Element-wise ``{_op.value}`` (Array API).")
    __all__.append(_op.value)
for _op in _BINARY_NAMES:
    globals()[_op.value] = _make_binary(_op, f"Element-wise ``{_op.value}`` (Array API).")
    __all__.append(_op.value)
for _op in CompareOp:
    globals()[_op.value] = _make_compare(_op, f"Element-wise ``{_op.value}`` comparison (Array API).")
    __all__.append(_op.value)


def logical_not(x, /):
    """Element-wise logical NOT; non-bool input is taken as truth values (``x != 0``),
    as logical_and/or/xor take it."""
    require_array(x, "logical_not")
    if not x._dtype.is_bool:
        x = x.astype(_dt.bool_)
    return unary(UnaryOp.LOGICAL_NOT, x, "logical_not")


def positive(x, /):
    """Element-wise ``+x``: a copy of a numeric array."""
    require_array(x, "positive")
    if x._dtype.is_bool:
        raise DTypeError("positive does not accept dtype bool; expected a numeric dtype")
    return wrap(x._storage.copy(x._layout), x._layout.shape, x._dtype, x._device)


def clip(x, /, min=None, max=None):
    """Clamp ``x`` to ``[min, max]``; bounds are scalars or arrays broadcastable to x."""
    require_array(x, "clip")
    if x._dtype.is_complex or x._dtype.is_bool:
        raise DTypeError(f"clip does not accept dtype {x._dtype.name}; expected a real numeric dtype")
    Array = array_type()
    if not isinstance(min, Array) and not isinstance(max, Array):
        lo = None if min is None else scalar_for(_scalar_value(min), x._dtype, "clip")[0]
        hi = None if max is None else scalar_for(_scalar_value(max), x._dtype, "clip")[0]
        if x._dtype.is_integer:
            lo, hi = _clamp_int_bounds(x._dtype, lo, hi)
        return wrap(x._storage.clip(x._layout, lo, hi), x._layout.shape, x._dtype, x._device)
    out = x
    for bound, op in ((min, BinaryOp.MAXIMUM), (max, BinaryOp.MINIMUM)):
        if bound is None:
            continue
        if isinstance(bound, Array):
            if bound._device is not x._device:
                raise DeviceMismatchError("clip: bounds must be on the array's device")
            bound = bound.astype(x._dtype) if bound._dtype is not x._dtype else bound
        out = binary(op, out, bound, "clip")
    if out._layout.shape != x._layout.shape:
        raise ArgumentValueError(f"clip: bounds of shape {out._layout.shape} do not broadcast to x's shape {x._layout.shape}")
    return out


def _clamp_int_bounds(dtype, lo, hi):
    info = np.iinfo(dtype.numpy)
    if lo is not None and lo < int(info.min):
        lo = None
    if hi is not None and hi > int(info.max):
        hi = None
    return lo, hi


__all__ += ["positive", "clip"]


def broadcast_shape_of(*xs):
    return broadcast_shapes(*(x.shape for x in xs))
