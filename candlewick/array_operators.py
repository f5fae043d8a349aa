"""The operators of ``candlewick.Array``: ``Operators``, a declared base of ``Array`` with
``@`` and the unary operators, and ``install_operators``, which sets the generated binary
and comparison operators (forward, reflected, in-place) on ``Array`` itself, together
with the one rule for foreign operands and the checks of in-place assignment. The
operators are the element-wise functions of ``elementwise`` and ``matrix_products.matmul``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from . import elementwise as _ew
from . import elision as _elision
from . import matrix_products as _matrix_products
from ._core import RESULT_BY_NAME, ArrayBase, is_scalar
from .elementwise_dispatch import c_case, in_c, with_case
from .errors import ArgumentTypeError, DeviceMismatchError, DTypeError, ShapeError, name_code
from .inplace import DTypeMismatch, ShapeMismatch, inplace_method
from .lazy_gate import GATE
from .opdefs import BinaryOp, CompareOp
from .writes import check_writable

if TYPE_CHECKING:
    from ._types import Scalar
    from .array import Array


class Operators(ArrayBase):
    """``@`` and the unary operators of ``candlewick.Array``; ``install_operators`` adds
    the binary and comparison ones."""

    __slots__ = ()

    def __matmul__(self, other: Array) -> Array:
        """``x @ y``: ``candlewick.matmul``."""
        if not isinstance(other, ArrayBase):
            _foreign_operand(other, "__matmul__", arrays_only=True)
        return _matrix_products.matmul(self, other)  # type: ignore[arg-type]  # (self: an Array)

    def __rmatmul__(self, other: Array) -> Array:
        """``y @ x``: ``candlewick.matmul(y, x)``."""
        if not isinstance(other, ArrayBase):
            _foreign_operand(other, "__rmatmul__", arrays_only=True)
        return _matrix_products.matmul(other, self)  # type: ignore[arg-type]

    def __imatmul__(self, other: Array) -> Array:
        """``x @= y``: the matrix product written into x (same dtype and shape)."""
        return _assign_inplace(self, self.__matmul__(other), "@=")

    def __neg__(self) -> Array:
        """``-x``: ``candlewick.negative``."""
        return _ew.negative(self)  # type: ignore[arg-type]

    def __pos__(self) -> Array:
        """``+x``: ``candlewick.positive``."""
        return _ew.positive(self)  # type: ignore[arg-type]

    def __abs__(self) -> Array:
        """``abs(x)``: ``candlewick.abs``."""
        return _ew.abs(self)  # type: ignore[arg-type]

    def __invert__(self) -> Array:
        """``~x``: ``candlewick.bitwise_invert``."""
        return _ew.bitwise_invert(self)  # type: ignore[arg-type]

    if TYPE_CHECKING:
        # the operators install_operators() sets on Array, spelled out for type checkers
        def __add__(self, other: Array | Scalar, /) -> Array: ...
        def __radd__(self, other: Array | Scalar, /) -> Array: ...
        def __iadd__(self, other: Array | Scalar, /) -> Array: ...
        def __sub__(self, other: Array | Scalar, /) -> Array: ...
        def __rsub__(self, other: Array | Scalar, /) -> Array: ...
        def __isub__(self, other: Array | Scalar, /) -> Array: ...
        def __mul__(self, other: Array | Scalar, /) -> Array: ...
        def __rmul__(self, other: Array | Scalar, /) -> Array: ...
        def __imul__(self, other: Array | Scalar, /) -> Array: ...
        def __truediv__(self, other: Array | Scalar, /) -> Array: ...
        def __rtruediv__(self, other: Array | Scalar, /) -> Array: ...
        def __itruediv__(self, other: Array | Scalar, /) -> Array: ...
        def __floordiv__(self, other: Array | Scalar, /) -> Array: ...
        def __rfloordiv__(self, other: Array | Scalar, /) -> Array: ...
        def __ifloordiv__(self, other: Array | Scalar, /) -> Array: ...
        def __mod__(self, other: Array | Scalar, /) -> Array: ...
        def __rmod__(self, other: Array | Scalar, /) -> Array: ...
        def __imod__(self, other: Array | Scalar, /) -> Array: ...
        def __pow__(self, other: Array | Scalar, /) -> Array: ...
        def __rpow__(self, other: Array | Scalar, /) -> Array: ...
        def __ipow__(self, other: Array | Scalar, /) -> Array: ...
        def __and__(self, other: Array | Scalar, /) -> Array: ...
        def __rand__(self, other: Array | Scalar, /) -> Array: ...
        def __iand__(self, other: Array | Scalar, /) -> Array: ...
        def __or__(self, other: Array | Scalar, /) -> Array: ...
        def __ror__(self, other: Array | Scalar, /) -> Array: ...
        def __ior__(self, other: Array | Scalar, /) -> Array: ...
        def __xor__(self, other: Array | Scalar, /) -> Array: ...
        def __rxor__(self, other: Array | Scalar, /) -> Array: ...
        def __ixor__(self, other: Array | Scalar, /) -> Array: ...
        def __lshift__(self, other: Array | Scalar, /) -> Array: ...
        def __rlshift__(self, other: Array | Scalar, /) -> Array: ...
        def __ilshift__(self, other: Array | Scalar, /) -> Array: ...
        def __rshift__(self, other: Array | Scalar, /) -> Array: ...
        def __rrshift__(self, other: Array | Scalar, /) -> Array: ...
        def __irshift__(self, other: Array | Scalar, /) -> Array: ...
        def __eq__(self, other: Array | Scalar, /) -> Array: ...  # type: ignore[override]
        def __ne__(self, other: Array | Scalar, /) -> Array: ...  # type: ignore[override]
        def __lt__(self, other: Array | Scalar, /) -> Array: ...
        def __le__(self, other: Array | Scalar, /) -> Array: ...
        def __gt__(self, other: Array | Scalar, /) -> Array: ...
        def __ge__(self, other: Array | Scalar, /) -> Array: ...


def _operand(other):
    return isinstance(other, ArrayBase) or is_scalar(other) or isinstance(other, np.generic)


def _foreign_operand(other, name, arrays_only=False):
    """The one rule for operands that are neither candlewick arrays nor scalars (NumPy
    arrays, other libraries' arrays, lists, None): a TypeError, never NotImplemented,
    so that neither Python's fallback (``==`` becoming identity) nor the other
    operand's own method decides the result."""
    expected = "a candlewick array" if arrays_only else "a candlewick array or a Python scalar"
    raise ArgumentTypeError(
        f"{name}: the other operand must be {expected}, got {type(other).__module__}.{type(other).__qualname__}; "
        f"convert it with candlewick.asarray first"
    )


def _assign_inplace(target, result, symbol):
    """``x @= y``: the product (a new array: a matrix product reads every element of x
    while it writes) assigned into x, which keeps its dtype and shape."""
    check_writable(target, f"x {symbol} y")
    if result._dtype is not target._dtype:
        raise _changed_dtype(symbol, target, result._dtype)
    if result._layout.shape != target._layout.shape:
        raise _changed_shape(symbol, target, result._layout.shape)
    if result._device is not target._device:
        raise DeviceMismatchError(f"x {symbol} y: operands are on different devices")
    target._storage.assign(target._layout, result._storage, result._layout)
    return target


def _changed_dtype(symbol, target, dtype):
    return DTypeError(
        f"x {symbol} y would change x's dtype from {target._dtype.name} to {dtype.name}; "
        f"in-place operators keep the left operand's dtype"
    )


def _changed_shape(symbol, target, shape):
    return ShapeError(f"x {symbol} y would change x's shape from {target._layout.shape} to {shape}")


def _operator_methods(op, short, symbol, plain_operands):
    """The forward, reflected and in-place methods of one binary operator (closures, so
    an extra positional argument is a TypeError rather than a hidden parameter).
    ``plain_operands``: the operand types accepted without a call (the array class and
    Python's scalars)."""
    binary = _ew.binary
    fwd_name, rev_name, in_name = f"__{short}__", f"__r{short}__", f"__i{short}__"
    expression = f"x {symbol} y"
    results = RESULT_BY_NAME[op]
    elide = op in _ELIDED
    scalar_into = _elision.scalar_into
    elide_from = _elision.FROM_BYTES // 8  # (elements: the widest real dtype's; scalar_into checks bytes)
    rev_key = _elision.key_for(symbol[:-1], True) if elide else None
    fwd_key = _elision.key_for(symbol[:-1], False) if elide else None

    def fwd(self, other, /):
        t = type(other)
        if t is float or t is int:
            # (a @ b) * 2.0: into the product where it is a temporary (candlewick.elision; the
            # C wrapper in_c makes hands a scalar operand here)
            if (elide and self._layout.dense_size >= elide_from
                    and (done := scalar_into(op, results, self, other, False, fwd_key)) is not None):
                return done
        elif t not in plain_operands and not _operand(other):  # (arrays and scalars: no call)
            _foreign_operand(other, fwd_name)
        return binary(op, self, other, fwd_name)

    def rev(self, other, /):
        t = type(other)
        if t is float or t is int:
            # -2 * (a @ b): into the product where it is a temporary (candlewick.elision)
            if (elide and self._layout.dense_size >= elide_from
                    and (done := scalar_into(op, results, self, other, True, rev_key)) is not None):
                return done
        elif t not in plain_operands and not _operand(other):
            _foreign_operand(other, rev_name)
        return binary(op, other, self, rev_name)

    def recorded(self, other, /):
        return binary(op, self, other, expression)

    # x <op> y as the rebinding update records it: the forward operator's C case (the call
    # recorded without the Python dispatch: Ridge's ``X -= X_offset`` in lazy mode), the
    # rest through ``binary``, its errors named as the update's; the in-place method in C
    # calls that case itself where it checks the update rebinds (no Python frame)
    record_case = c_case(recorded, 2, op, results, "binary")
    record = with_case(recorded, 2, record_case)

    def general(self, other, /):
        if type(other) not in plain_operands and not _operand(other):
            _foreign_operand(other, in_name)
        if GATE.on and GATE.rebinds(self):
            # lazy mode, x alone holding a pending result: x <op> y recorded as x's result,
            # so that the update fuses with what made x (fusion/lazy_write.py); a result
            # of another dtype or shape goes on to the write's error below
            result = record(self, other)
            if result._dtype is self._dtype and result._layout.shape == self._layout.shape:
                self._storage, self._layout = result._storage, result._layout
                return self
        try:
            return binary(op, self, other, expression, self)
        except DTypeMismatch as exc:
            raise _changed_dtype(symbol, self, exc.result_dtype) from None
        except ShapeMismatch as exc:
            raise _changed_shape(symbol, self, exc.result_shape) from None

    plain = symbol[:-1]
    docs = (f"``x {plain} y``: the element-wise ``{op.value}`` of x and y (an array or Python scalar).",
            f"``y {plain} x`` with a Python scalar y: the element-wise ``{op.value}``.",
            f"``x {symbol} y``: ``{op.value}`` written into x, which keeps its dtype and shape.")
    for (name, fn), doc in zip(((fwd_name, fwd), (rev_name, rev), (in_name, general)), docs):
        fn.__name__ = fn.__qualname__ = name
        fn.__doc__ = doc
        fn = name_code(fn, f"Array.{name}")
        if fn is general:
            # the result written straight into x (candlewick.inplace): one primitive call, no
            # temporary of x's size, and one update for threads sharing x; the common case
            # through inplace's short path, in C where built (the method is then
            # _native.Update itself), general's for the rest
            yield name, inplace_method(op, RESULT_BY_NAME[op], general, record_case)
        else:
            # the forward operator's two-array case in C where candlewick._native was built:
            # the namespace function's case, the same result
            yield name, in_c(fn, 2, op, RESULT_BY_NAME[op], "binary") if fn is fwd else fn


def _comparison_method(op, short, plain_operands):
    name = f"__{short}__"
    compare = _ew.compare

    def cmp(self, other, /):
        if type(other) not in plain_operands and not _operand(other):
            _foreign_operand(other, name)
        return compare(op, self, other, name)

    cmp.__name__ = cmp.__qualname__ = name
    cmp.__doc__ = f"The element-wise ``{op.value}`` comparison of x and y: a bool array."
    return name, in_c(name_code(cmp, f"Array.{name}"), 2, op, RESULT_BY_NAME[op], "compare")


_BINARY_OPS = {
    "add": (BinaryOp.ADD, "+"), "sub": (BinaryOp.SUBTRACT, "-"), "mul": (BinaryOp.MULTIPLY, "*"),
    "truediv": (BinaryOp.DIVIDE, "/"), "floordiv": (BinaryOp.FLOOR_DIVIDE, "//"),
    "mod": (BinaryOp.REMAINDER, "%"), "pow": (BinaryOp.POW, "**"),
    "and": (BinaryOp.BITWISE_AND, "&"), "or": (BinaryOp.BITWISE_OR, "|"),
    "xor": (BinaryOp.BITWISE_XOR, "^"), "lshift": (BinaryOp.BITWISE_LEFT_SHIFT, "<<"),
    "rshift": (BinaryOp.BITWISE_RIGHT_SHIFT, ">>"),
}
#: the operators whose forms with a Python scalar write into a temporary operand (NumPy
#: elides these and the rest; these are what expressions scale and shift by)
_ELIDED = frozenset({BinaryOp.ADD, BinaryOp.SUBTRACT, BinaryOp.MULTIPLY, BinaryOp.DIVIDE})
_COMPARE_OPS = {"eq": CompareOp.EQUAL, "ne": CompareOp.NOT_EQUAL, "lt": CompareOp.LESS,
                "le": CompareOp.LESS_EQUAL, "gt": CompareOp.GREATER, "ge": CompareOp.GREATER_EQUAL}


def install_operators(array_class):
    """Set the binary and comparison operators on ``array_class`` (``Array``, which this
    module cannot import: it sits above); arrays unhashable, as ``==`` is element-wise."""
    plain_operands = frozenset({array_class, float, int, bool, complex})  # (_operand's, tested without a call)
    for short, (op, symbol) in _BINARY_OPS.items():
        for name, fn in _operator_methods(op, short, symbol + "=", plain_operands):
            setattr(array_class, name, fn)
    for short, op in _COMPARE_OPS.items():
        setattr(array_class, *_comparison_method(op, short, plain_operands))
    array_class.__hash__ = None
