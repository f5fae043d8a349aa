"""Element-wise functions of the Array API, generated from the op vocabularies.

Each function checks its operands (dtype domain from ``candlewick.opdefs``, Python
scalar rules, devices), promotes and broadcasts, then calls one storage primitive.
"""

from typing import TYPE_CHECKING

import numpy as np

from . import dtypes as _dt
from ._core import (
    RESULT, ArrayBase, broadcast_layouts, check_accepts, new_array, promote_pair,
    require_array, scalar_array, scalar_for,
)
from .errors import DeviceMismatchError, DTypeError
from .layout import broadcast_shapes
from .opdefs import BinaryOp, CompareOp, UnaryOp
from .promotion_mode import is_strict


def _floating_only(op, dtype):
    """A function defined on floating point only (sqrt, exp, atan2, ...), given bool or
    integers outside strict mode: it runs in the default floating dtype, as in NumPy
    (docs/promotion.md). Only functions returning their input's dtype: ``imag`` and
    ``signbit`` stay errors (an integer's answer is all zeros / ``x < 0``)."""
    if dtype.level >= 2 or "F" not in op.domain or "I" in op.domain or op.result != "same":
        return False
    if is_strict():
        raise DTypeError(
            f"{op.value} is defined on floating point and does not take {dtype.name} in strict "
            f"promotion mode: cast with astype({_dt.DEFAULT_FLOAT.name}) first, or use "
            f"candlewick.set_promotion_mode('default')"
        )
    return True


def unary(op, x, fname):
    require_array(x, fname)
    out_dtype = RESULT[op].get(x._dtype)
    if out_dtype is None:
        if _floating_only(op, x._dtype):
            x = x.astype(_dt.DEFAULT_FLOAT)
        out_dtype = check_accepts(op, x._dtype, fname)
    return new_array(type(x), x._storage.unary(op, x._layout), x._layout.shape, out_dtype, x._device)


def binary(op, x1, x2, fname):
    """Apply a BinaryOp to two operands (arrays or one Python scalar)."""
    if type(x1) is type(x2) and isinstance(x1, ArrayBase):
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
        return new_array(type(x1), x1._storage.binary(op, l1, x2._storage, l2), shape, result, x1._device)
    if isinstance(x1, ArrayBase):
        return _binary_scalar(op, x1, x2, False, fname)
    if isinstance(x2, ArrayBase):
        return _binary_scalar(op, x2, x1, True, fname)
    raise TypeError(f"{fname}: at least one operand must be a candlewick array")


def _coerce_domain(op, x1, x2, dtype, fname):
    """Integer true division runs in the default float dtype (NumPy's rule), and so do
    the other floating-only functions outside strict mode; logical ops accept any dtype
    as truth values. Anything else is a dtype error."""
    if (op is BinaryOp.DIVIDE and dtype.is_integer) or _floating_only(op, dtype):
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
        other = scalar_array(x, value, dtype, x._device)
        pair = (other, x) if reflected else (x, other)
        x1, x2, dtype, result = _coerce_domain(op, *pair, dtype, fname)
        shape, (l1, l2) = broadcast_layouts(x1, x2)
        return new_array(type(x1), x1._storage.binary(op, l1, x2._storage, l2), shape, result, x1._device)
    storage = x._storage.binary_scalar(op, x._layout, value, reflected)
    return new_array(type(x), storage, x._layout.shape, result, x._device)


def compare(op, x1, x2, fname):
    if not isinstance(x1, ArrayBase):
        if not isinstance(x2, ArrayBase):
            raise TypeError(f"{fname}: at least one operand must be a candlewick array")
        value, dtype = scalar_for(x1, x2._dtype, fname)
        x1 = scalar_array(x2, value, dtype, x2._device)
    elif not isinstance(x2, ArrayBase):
        value, dtype = scalar_for(x2, x1._dtype, fname)
        x2 = scalar_array(x1, value, dtype, x1._device)
    x1, x2 = promote_pair(x1, x2, fname)
    check_accepts(op, x1._dtype, fname)
    shape, (l1, l2) = broadcast_layouts(x1, x2)
    return new_array(type(x1), x1._storage.compare(op, l1, x2._storage, l2), shape, _dt.bool_, x1._device)


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

__all__: list[str] = []
_op: UnaryOp | BinaryOp | CompareOp
for _op in _UNARY_NAMES:
    globals()[_op.value] = _make_unary(_op, f"Element-wise ``{_op.value}`` (Array API).")
    __all__.append(_op.value)
for _op in _BINARY_NAMES:
    globals()[_op.value] = _make_binary(_op, f"Element-wise ``{_op.value}`` (Array API).")
    __all__.append(_op.value)
for _op in CompareOp:
    globals()[_op.value] = _make_compare(_op, f"Element-wise ``{_op.value}`` comparison (Array API).")
    __all__.append(_op.value)


if TYPE_CHECKING:
    # what the loops above define, spelled out for type checkers (they do not run loops);
    # tests/namespace/test_public_api.py checks that these names are the generated ones
    from .array import Array

    def abs(x: Array, /) -> Array: ...
    def acos(x: Array, /) -> Array: ...
    def acosh(x: Array, /) -> Array: ...
    def asin(x: Array, /) -> Array: ...
    def asinh(x: Array, /) -> Array: ...
    def atan(x: Array, /) -> Array: ...
    def atanh(x: Array, /) -> Array: ...
    def bitwise_invert(x: Array, /) -> Array: ...
    def ceil(x: Array, /) -> Array: ...
    def conj(x: Array, /) -> Array: ...
    def cos(x: Array, /) -> Array: ...
    def cosh(x: Array, /) -> Array: ...
    def exp(x: Array, /) -> Array: ...
    def expm1(x: Array, /) -> Array: ...
    def floor(x: Array, /) -> Array: ...
    def imag(x: Array, /) -> Array: ...
    def isfinite(x: Array, /) -> Array: ...
    def isinf(x: Array, /) -> Array: ...
    def isnan(x: Array, /) -> Array: ...
    def log(x: Array, /) -> Array: ...
    def log1p(x: Array, /) -> Array: ...
    def log2(x: Array, /) -> Array: ...
    def log10(x: Array, /) -> Array: ...
    def negative(x: Array, /) -> Array: ...
    def real(x: Array, /) -> Array: ...
    def reciprocal(x: Array, /) -> Array: ...
    def round(x: Array, /) -> Array: ...
    def sign(x: Array, /) -> Array: ...
    def signbit(x: Array, /) -> Array: ...
    def sin(x: Array, /) -> Array: ...
    def sinh(x: Array, /) -> Array: ...
    def sqrt(x: Array, /) -> Array: ...
    def square(x: Array, /) -> Array: ...
    def tan(x: Array, /) -> Array: ...
    def tanh(x: Array, /) -> Array: ...
    def trunc(x: Array, /) -> Array: ...
    def add(x1: Array | complex, x2: Array | complex, /) -> Array: ...
    def subtract(x1: Array | complex, x2: Array | complex, /) -> Array: ...
    def multiply(x1: Array | complex, x2: Array | complex, /) -> Array: ...
    def divide(x1: Array | complex, x2: Array | complex, /) -> Array: ...
    def floor_divide(x1: Array | complex, x2: Array | complex, /) -> Array: ...
    def remainder(x1: Array | complex, x2: Array | complex, /) -> Array: ...
    def pow(x1: Array | complex, x2: Array | complex, /) -> Array: ...
    def atan2(x1: Array | complex, x2: Array | complex, /) -> Array: ...
    def hypot(x1: Array | complex, x2: Array | complex, /) -> Array: ...
    def copysign(x1: Array | complex, x2: Array | complex, /) -> Array: ...
    def nextafter(x1: Array | complex, x2: Array | complex, /) -> Array: ...
    def logaddexp(x1: Array | complex, x2: Array | complex, /) -> Array: ...
    def maximum(x1: Array | complex, x2: Array | complex, /) -> Array: ...
    def minimum(x1: Array | complex, x2: Array | complex, /) -> Array: ...
    def bitwise_and(x1: Array | complex, x2: Array | complex, /) -> Array: ...
    def bitwise_or(x1: Array | complex, x2: Array | complex, /) -> Array: ...
    def bitwise_xor(x1: Array | complex, x2: Array | complex, /) -> Array: ...
    def bitwise_left_shift(x1: Array | complex, x2: Array | complex, /) -> Array: ...
    def bitwise_right_shift(x1: Array | complex, x2: Array | complex, /) -> Array: ...
    def logical_and(x1: Array | complex, x2: Array | complex, /) -> Array: ...
    def logical_or(x1: Array | complex, x2: Array | complex, /) -> Array: ...
    def logical_xor(x1: Array | complex, x2: Array | complex, /) -> Array: ...
    def equal(x1: Array | complex, x2: Array | complex, /) -> Array: ...
    def not_equal(x1: Array | complex, x2: Array | complex, /) -> Array: ...
    def less(x1: Array | complex, x2: Array | complex, /) -> Array: ...
    def less_equal(x1: Array | complex, x2: Array | complex, /) -> Array: ...
    def greater(x1: Array | complex, x2: Array | complex, /) -> Array: ...
    def greater_equal(x1: Array | complex, x2: Array | complex, /) -> Array: ...


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
    return new_array(type(x), x._storage.copy(x._layout), x._layout.shape, x._dtype, x._device)


def clip(x, /, min=None, max=None):
    """Clamp ``x`` to ``[min, max]``; bounds are scalars or arrays broadcastable to x."""
    require_array(x, "clip")
    if x._dtype.is_complex or x._dtype.is_bool:
        raise DTypeError(f"clip does not accept dtype {x._dtype.name}; expected a real numeric dtype")
    if not isinstance(min, ArrayBase) and not isinstance(max, ArrayBase):
        # a bound of a higher kind (clip(ints, 0.5, 2.5)) runs the clip in its dtype
        dtype = x._dtype
        for bound in (min, max):
            if bound is not None:
                dtype = _dt.promote_types(dtype, scalar_for(bound, dtype, "clip")[1])
        if dtype is not x._dtype:
            x = x.astype(dtype)
        lo = None if min is None else scalar_for(min, dtype, "clip")[0]
        hi = None if max is None else scalar_for(max, dtype, "clip")[0]
        if x._dtype.is_integer:
            lo, hi = _clamp_int_bounds(x._dtype, lo, hi)
        return new_array(type(x), x._storage.clip(x._layout, lo, hi), x._layout.shape, x._dtype, x._device)
    out = x
    for bound, op in ((min, BinaryOp.MAXIMUM), (max, BinaryOp.MINIMUM)):
        if bound is None:
            continue
        if isinstance(bound, ArrayBase):
            if bound._device is not x._device:
                raise DeviceMismatchError("clip: bounds must be on the array's device")
            if bound._dtype.level == out._dtype.level:
                bound = bound.astype(out._dtype) if bound._dtype is not out._dtype else bound
            else:  # another kind: the promotion rule, as for a scalar bound (strict: raises)
                target = _dt.promote_types(out._dtype, bound._dtype)
                out, bound = out.astype(target, copy=False), bound.astype(target, copy=False)
        out = binary(op, out, bound, "clip")
    if out._layout.shape != x._layout.shape:
        raise ValueError(f"clip: bounds of shape {out._layout.shape} do not broadcast to x's shape {x._layout.shape}")
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
