"""Element-wise functions of the Array API, generated from the op vocabularies, and
the few written by hand (logical_not, positive, clip).

Each calls the element-wise dispatch (``elementwise_dispatch``: operand checks, promotion,
broadcasting, one storage primitive); ``unary``, ``binary`` and ``compare`` are
re-exported here for the modules that compose functions from them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from . import dtypes as _dt
from ._core import ArrayBase, new_array, on_one_device, require_array, scalar_for
from .complex_parts import PARTS, complex_part
from .docstrings import shared_doc
from .elementwise_dispatch import binary, binary_function, compare, compare_function, unary, unary_function
from .elementwise_docs import docstring
from .errors import DTypeError, name_code, short_repr
from .lazy_gate import operand
from .opdefs import BinaryOp, CompareOp, UnaryOp
from .type_promotion import promote_types

if TYPE_CHECKING:
    from ._types import Scalar
    from .array import Array


def _make_unary(op, doc):
    name = op.value  # (Enum's value: a Python-level property, read once)
    if op in PARTS:  # real, imag: views where the backend can
        def fn(x: Array, /) -> Array:
            return complex_part(op, x, name)
    else:
        fn = unary_function(op, name)
    return _named(fn, op, doc)


def _make_binary(op, doc):
    return _named(binary_function(op, op.value), op, doc)


def _make_compare(op, doc):
    return _named(compare_function(op, op.value), op, doc)


def _named(fn, op, doc):
    """``fn`` as this module's function ``op.value`` (its name, docstring and module, so
    that it pickles by reference and errors name it)."""
    fn.__name__ = fn.__qualname__ = op.value
    fn.__module__ = __name__
    fn.__doc__ = doc
    return name_code(fn, op.value)


_UNARY_NAMES = [op for op in UnaryOp if op not in (UnaryOp.ERF, UnaryOp.RELU, UnaryOp.GELU,
                                                   UnaryOp.SIGMOID, UnaryOp.SILU)]
_BINARY_NAMES = list(BinaryOp)

__all__: list[str] = []
_op: UnaryOp | BinaryOp | CompareOp
for _op in _UNARY_NAMES:
    globals()[_op.value] = _make_unary(_op, docstring(_op, "x"))
    __all__.append(_op.value)
for _op in _BINARY_NAMES:
    globals()[_op.value] = _make_binary(_op, docstring(_op, "x1", "x2"))
    __all__.append(_op.value)
for _op in CompareOp:
    globals()[_op.value] = _make_compare(_op, docstring(_op, "x1", "x2"))
    __all__.append(_op.value)


if TYPE_CHECKING:
    # what the loops above define, spelled out for type checkers (they do not run loops);
    # tests/namespace/test_public_api.py checks that these names are the generated ones

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
    def add(x1: Array | Scalar, x2: Array | Scalar, /) -> Array: ...
    def subtract(x1: Array | Scalar, x2: Array | Scalar, /) -> Array: ...
    def multiply(x1: Array | Scalar, x2: Array | Scalar, /) -> Array: ...
    def divide(x1: Array | Scalar, x2: Array | Scalar, /) -> Array: ...
    def floor_divide(x1: Array | Scalar, x2: Array | Scalar, /) -> Array: ...
    def remainder(x1: Array | Scalar, x2: Array | Scalar, /) -> Array: ...
    def pow(x1: Array | Scalar, x2: Array | Scalar, /) -> Array: ...
    def atan2(x1: Array | Scalar, x2: Array | Scalar, /) -> Array: ...
    def hypot(x1: Array | Scalar, x2: Array | Scalar, /) -> Array: ...
    def copysign(x1: Array | Scalar, x2: Array | Scalar, /) -> Array: ...
    def nextafter(x1: Array | Scalar, x2: Array | Scalar, /) -> Array: ...
    def logaddexp(x1: Array | Scalar, x2: Array | Scalar, /) -> Array: ...
    def maximum(x1: Array | Scalar, x2: Array | Scalar, /) -> Array: ...
    def minimum(x1: Array | Scalar, x2: Array | Scalar, /) -> Array: ...
    def bitwise_and(x1: Array | Scalar, x2: Array | Scalar, /) -> Array: ...
    def bitwise_or(x1: Array | Scalar, x2: Array | Scalar, /) -> Array: ...
    def bitwise_xor(x1: Array | Scalar, x2: Array | Scalar, /) -> Array: ...
    def bitwise_left_shift(x1: Array | Scalar, x2: Array | Scalar, /) -> Array: ...
    def bitwise_right_shift(x1: Array | Scalar, x2: Array | Scalar, /) -> Array: ...
    def logical_and(x1: Array | Scalar, x2: Array | Scalar, /) -> Array: ...
    def logical_or(x1: Array | Scalar, x2: Array | Scalar, /) -> Array: ...
    def logical_xor(x1: Array | Scalar, x2: Array | Scalar, /) -> Array: ...
    def equal(x1: Array | Scalar, x2: Array | Scalar, /) -> Array: ...
    def not_equal(x1: Array | Scalar, x2: Array | Scalar, /) -> Array: ...
    def less(x1: Array | Scalar, x2: Array | Scalar, /) -> Array: ...
    def less_equal(x1: Array | Scalar, x2: Array | Scalar, /) -> Array: ...
    def greater(x1: Array | Scalar, x2: Array | Scalar, /) -> Array: ...
    def greater_equal(x1: Array | Scalar, x2: Array | Scalar, /) -> Array: ...

    # the generated names (logical_not among them), for type checkers' view of
    # ``from .elementwise import *``
    __all__ += [
        "logical_not",
        "abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "bitwise_invert", "ceil",
        "conj", "cos", "cosh", "exp", "expm1", "floor", "imag", "isfinite", "isinf",
        "isnan", "log", "log1p", "log2", "log10", "negative", "real", "reciprocal", "round",
        "sign", "signbit", "sin", "sinh", "sqrt", "square", "tan", "tanh", "trunc", "add",
        "subtract", "multiply", "divide", "floor_divide", "remainder", "pow", "atan2",
        "hypot", "copysign", "nextafter", "logaddexp", "maximum", "minimum", "bitwise_and",
        "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift",
        "logical_and", "logical_or", "logical_xor", "equal", "not_equal", "less",
        "less_equal", "greater", "greater_equal",
    ]


@shared_doc()
def logical_not(x: Array, /) -> Array:
    """Element-wise logical NOT; non-bool input is taken as truth values (``x != 0``),
    as logical_and/or/xor take it.

    Parameters
    ----------
    x : Array
        Input array of any dtype.

    Returns
    -------
    Array
        A bool array of x's shape: True where x is False (zero).

    Raises
    ------
    {raises_x_not_array}

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.logical_not(cw.asarray([True, False])).tolist()
    [False, True]
    """
    if isinstance(x, ArrayBase) and x._dtype is not _dt.bool_:
        x = x.astype(_dt.bool_)
    return _logical_not(x)  # (a non-array: its error, naming logical_not and x)


_logical_not = unary_function(UnaryOp.LOGICAL_NOT, "logical_not")


@shared_doc()
def positive(x: Array, /) -> Array:
    """Element-wise ``+x``: a copy of a numeric array.

    Parameters
    ----------
    x : Array
        Input array of a numeric dtype.

    Returns
    -------
    Array
        A new array equal to x (same dtype, shape and device).

    Raises
    ------
    DTypeError
        If x is of dtype bool.
    {raises_x_not_array}

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.positive(cw.asarray([-1, 2])).tolist()
    [-1, 2]
    """
    require_array(x, "positive")
    if x._dtype.is_bool:
        raise DTypeError("positive does not accept dtype bool; expected a numeric dtype")
    return new_array(type(x), x._storage.copy(x._layout), x._layout.shape, x._dtype, x._device)


def clip(x: Array, /, min: Array | Scalar | None = None, max: Array | Scalar | None = None) -> Array:
    """Clamp ``x`` to ``[min, max]``; bounds are scalars or arrays broadcasting with x.

    ``clip(x, min, max)`` is ``minimum(maximum(x, min), max)``, as in NumPy: array bounds
    broadcast with x, so the result may be larger than x (``clip(zeros((4, 1)),
    min=zeros(3))`` is of shape (4, 3); data-apis/array-api#715).

    A scalar bound of a higher kind than x (``clip(ints, 0.5, 2.5)``) runs the clip in
    the promoted dtype, as for any Python scalar operand (docs/promotion.md).

    Parameters
    ----------
    x : Array
        Input array of a real numeric dtype.
    min : Array, Python scalar or None
        Lower bound; None for no lower bound.
    max : Array, Python scalar or None
        Upper bound; None for no upper bound.

    Returns
    -------
    Array
        x clamped element-wise, of the shape x and the array bounds broadcast to.

    Raises
    ------
    DTypeError
        If x is complex or bool.
    DeviceMismatchError
        If an array bound is on another device than x (a 0-d bound in host memory follows x).
    ShapeError
        If array bounds do not broadcast with x.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.clip(cw.asarray([-2, 0, 5]), 0, 3).tolist()
    [0, 0, 3]
    """
    require_array(x, "clip")
    if x._dtype.is_complex or x._dtype.is_bool:
        raise DTypeError(f"clip does not accept dtype {x._dtype.name}; expected a real numeric dtype")
    if not isinstance(min, ArrayBase) and not isinstance(max, ArrayBase):
        # a bound of a higher kind (clip(ints, 0.5, 2.5)) runs the clip in its dtype
        dtype = x._dtype
        lo = hi = None
        if min is not None:
            lo, dtype = scalar_for(min, dtype, "clip")
        if max is not None:
            hi, bound_dtype = scalar_for(max, dtype, "clip")
            dtype = dtype if bound_dtype is dtype else promote_types(dtype, bound_dtype)
        if dtype.is_complex:  # (a complex Python bound: complex numbers have no order)
            raise DTypeError(f"clip: min and max must be real numbers, got {short_repr(min)} and {short_repr(max)}")
        if dtype is not x._dtype:
            x = x.astype(dtype)
            lo = None if min is None else scalar_for(min, dtype, "clip")[0]
            hi = None if max is None else scalar_for(max, dtype, "clip")[0]
        if x._dtype.is_integer:
            lo, hi = _clamp_int_bounds(x._dtype, lo, hi)
        return new_array(type(x), operand(x).clip(x._layout, lo, hi), x._layout.shape, x._dtype, x._device)
    out = x
    for bound, op in ((min, BinaryOp.MAXIMUM), (max, BinaryOp.MINIMUM)):
        if bound is None:
            continue
        if isinstance(bound, ArrayBase):
            bound = on_one_device(x, bound, "clip", keep_first=True)[1]
            if bound._dtype.level == out._dtype.level:
                bound = bound.astype(out._dtype) if bound._dtype is not out._dtype else bound
            else:  # another kind: the promotion rule, as for a scalar bound (strict: raises)
                target = promote_types(out._dtype, bound._dtype)
                out, bound = out.astype(target, copy=False), bound.astype(target, copy=False)
        out = binary(op, out, bound, "clip")
    return out


def _clamp_int_bounds(dtype, lo, hi):
    info = np.iinfo(dtype.numpy)
    if lo is not None and lo < int(info.min):
        lo = None
    if hi is not None and hi > int(info.max):
        hi = None
    return lo, hi


__all__ += ["positive", "clip"]

