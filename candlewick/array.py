"""The Array object: a storage, a Layout over it, a dtype and a device.

Views (basic indexing, transposes, broadcasts, reshapes that need no copy) share the
storage and differ only in layout. Operators delegate to the namespace functions.
"""

import numpy as np

from . import dtypes as _dt
from . import elementwise as _ew
from . import _core
from ._core import is_scalar, view, wrap
from .writes import check_writable
from .errors import ArgumentTypeError, ArgumentValueError, DeviceMismatchError, DTypeError, ShapeError, short_repr
from .opdefs import BinaryOp, CompareOp

API_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12")


class Array:
    """An n-dimensional array on a candlewick device. Create with ``candlewick.asarray``."""

    __slots__ = ("_storage", "_layout", "_dtype", "_device", "__weakref__")
    # NumPy defers every operator and ufunc to us (x + ndarray, ndarray + x, np.exp(x)
    # all come here or raise TypeError), and its functions do not take candlewick arrays
    __array_ufunc__ = None
    __array_priority__ = 100

    def __array_function__(self, func, types, args, kwargs):
        return NotImplemented  # NumPy then raises TypeError naming the function

    def __init__(self, *args, **kwargs):
        raise ArgumentTypeError("candlewick.Array is not constructed directly; use candlewick.asarray(...)")

    # --- attributes ------------------------------------------------------------
    @property
    def dtype(self):
        return self._dtype

    @property
    def device(self):
        return self._device

    @property
    def shape(self):
        return self._layout.shape

    @property
    def ndim(self):
        return len(self._layout.shape)

    @property
    def size(self):
        return self._layout.size

    @property
    def T(self):
        if self.ndim != 2:
            raise ShapeError(f"x.T needs a 2-D array, got {self.ndim}-D; use permute_dims or mT")
        return view(self, self._layout.permute((1, 0)))

    @property
    def mT(self):
        return view(self, self._layout.transpose_last2())

    def __len__(self):
        if not self._layout.shape:
            raise ArgumentTypeError("len() of a 0-d array")
        return self._layout.shape[0]

    def __iter__(self):
        if not self._layout.shape:
            raise ArgumentTypeError("iteration over a 0-d array")
        for i in range(self._layout.shape[0]):
            yield self[i]

    def __repr__(self):
        host = self._storage.to_host(self._layout)
        body = np.array2string(host, separator=", ", prefix="Array(")
        return f"Array({body}, dtype={self._dtype.name}, device='{self._device.name}')"

    __str__ = __repr__

    # --- conversion ------------------------------------------------------------
    def astype(self, dtype, /, *, copy=True):
        dtype = _dt.as_dtype(dtype)
        if dtype is self._dtype and not copy:
            return self
        if self._dtype.is_complex and not dtype.is_complex and not dtype.is_bool:
            raise DTypeError(
                f"astype: cannot cast {self._dtype.name} to {dtype.name}; take real() or abs() first"
            )
        return wrap(self._storage.astype(self._layout, dtype), self._layout.shape, dtype, self._device)

    def _scalar(self, name):
        if self._layout.shape != ():
            raise ArgumentTypeError(f"{name}() needs a 0-d array, got shape {self._layout.shape}")
        return self._storage.to_host(self._layout)[()]

    def __bool__(self):
        return bool(self._scalar("bool"))

    def __int__(self):
        if self._dtype.is_complex:
            raise ArgumentTypeError("int() of a complex array; take real() first")
        value = self._scalar("int")
        if self._dtype.is_floating:
            value = float(value)
            if value != value or value in (float("inf"), float("-inf")):
                raise ArgumentValueError(f"__int__: cannot convert {value} to an integer")
        return int(value)

    def __float__(self):
        if self._dtype.is_complex:
            raise ArgumentTypeError("float() of a complex array; take real() first")
        return float(self._scalar("float"))

    def __complex__(self):
        return complex(self._scalar("complex"))

    def __index__(self):
        if not (self._dtype.is_integer):
            raise ArgumentTypeError(f"__index__ needs an integer array, got {self._dtype.name}")
        return int(self._scalar("index"))

    def __array__(self, dtype=None, copy=None):
        if self._device.backend != "cpu":
            raise ArgumentTypeError(
                f"implicit conversion of a {self._device.name} array to NumPy is not allowed; "
                f"use candlewick.to_numpy(x) to copy it to the host"
            )
        if dtype is not None:
            dtype = dtype.numpy if isinstance(dtype, _dt.DType) else _numpy_dtype(dtype)
            if self._dtype.is_complex and dtype.kind != "c":
                raise DTypeError(f"__array__: cannot convert {self._dtype.name} to {dtype}; take real() or abs() first")
        host = self._storage.to_host(self._layout)
        if dtype is None:
            return host
        with np.errstate(all="ignore"):  # NaN/inf to an integer dtype: NumPy's cast result, no warning
            return host.astype(dtype, copy=False)

    def __array_namespace__(self, /, *, api_version=None):
        if api_version is not None and api_version not in API_VERSIONS:
            raise ArgumentValueError(f"api_version must be one of {API_VERSIONS} or None, got {short_repr(api_version)}")
        import candlewick

        return candlewick

    def __dlpack__(self, /, *, stream=None, max_version=None, dl_device=None, copy=None):
        from .dlpack import array_dlpack

        return array_dlpack(self, stream, max_version, dl_device, copy)

    def __dlpack_device__(self, /):
        from .dlpack import array_dlpack_device

        return array_dlpack_device(self)

    def to_device(self, device, /, *, stream=None):
        from .registry import get_device

        target = get_device(device)
        if target is self._device:
            return self
        host = self._storage.to_host(self._layout)
        return wrap(target.storage_from_host(host), self._layout.shape, self._dtype, target)

    # --- indexing --------------------------------------------------------------
    def __getitem__(self, key):
        return _indexing.getitem(self, key)

    def __setitem__(self, key, value):
        _indexing.setitem(self, key, value)

    # --- operators -------------------------------------------------------------
    def __matmul__(self, other):
        if not isinstance(other, Array):
            _foreign_operand(other, "__matmul__", arrays_only=True)
        return _linalg_ops.matmul(self, other)

    def __rmatmul__(self, other):
        if not isinstance(other, Array):
            _foreign_operand(other, "__rmatmul__", arrays_only=True)
        return _linalg_ops.matmul(other, self)

    def __imatmul__(self, other):
        return _assign_inplace(self, self.__matmul__(other), "@=")

    def __neg__(self):
        return _ew.negative(self)

    def __pos__(self):
        return _ew.positive(self)

    def __abs__(self):
        return _ew.abs(self)

    def __invert__(self):
        return _ew.bitwise_invert(self)


def _operand(other):
    return isinstance(other, Array) or is_scalar(other) or isinstance(other, np.generic)


def _numpy_dtype(dtype):
    try:
        return np.dtype(dtype)
    except (TypeError, ValueError):
        raise ArgumentTypeError(f"__array__: dtype must be a NumPy or candlewick dtype, got {short_repr(dtype)}") from None


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
    check_writable(target, f"x {symbol} y")
    if result._dtype is not target._dtype:
        raise DTypeError(
            f"x {symbol} y would change x's dtype from {target._dtype.name} to {result._dtype.name}; "
            f"in-place operators keep the left operand's dtype"
        )
    if result._layout.shape != target._layout.shape:
        raise ShapeError(
            f"x {symbol} y would change x's shape from {target._layout.shape} to {result._layout.shape}"
        )
    if result._device is not target._device:
        raise DeviceMismatchError(f"x {symbol} y: operands are on different devices")
    target._storage.assign(target._layout, result._storage, result._layout)
    return target


def _operator_methods(op, short, symbol):
    """The forward, reflected and in-place methods of one binary operator (closures, so
    an extra positional argument is a TypeError rather than a hidden parameter)."""
    binary = _ew.binary
    fwd_name, rev_name, in_name = f"__{short}__", f"__r{short}__", f"__i{short}__"

    def fwd(self, other, /):
        if type(other) is not Array and not _operand(other):  # the array case without a call
            _foreign_operand(other, fwd_name)
        return binary(op, self, other, fwd_name)

    def rev(self, other, /):
        if type(other) is not Array and not _operand(other):
            _foreign_operand(other, rev_name)
        return binary(op, other, self, rev_name)

    def inplace(self, other, /):
        if type(other) is not Array and not _operand(other):
            _foreign_operand(other, in_name)
        return _assign_inplace(self, binary(op, self, other, symbol), symbol)

    for name, fn in ((fwd_name, fwd), (rev_name, rev), (in_name, inplace)):
        fn.__name__ = fn.__qualname__ = name
        yield name, fn


def _comparison_method(op, short):
    name = f"__{short}__"

    def cmp(self, other, /):
        if type(other) is not Array and not _operand(other):
            _foreign_operand(other, name)
        return _ew.compare(op, self, other, name)

    cmp.__name__ = cmp.__qualname__ = name
    return name, cmp


def _install_operators():
    binary_ops = {
        "add": (BinaryOp.ADD, "+"), "sub": (BinaryOp.SUBTRACT, "-"), "mul": (BinaryOp.MULTIPLY, "*"),
        "truediv": (BinaryOp.DIVIDE, "/"), "floordiv": (BinaryOp.FLOOR_DIVIDE, "//"),
        "mod": (BinaryOp.REMAINDER, "%"), "pow": (BinaryOp.POW, "**"),
        "and": (BinaryOp.BITWISE_AND, "&"), "or": (BinaryOp.BITWISE_OR, "|"),
        "xor": (BinaryOp.BITWISE_XOR, "^"), "lshift": (BinaryOp.BITWISE_LEFT_SHIFT, "<<"),
        "rshift": (BinaryOp.BITWISE_RIGHT_SHIFT, ">>"),
    }
    for short, (op, symbol) in binary_ops.items():
        for name, fn in _operator_methods(op, short, symbol + "="):
            setattr(Array, name, fn)
    compare_ops = {"eq": CompareOp.EQUAL, "ne": CompareOp.NOT_EQUAL, "lt": CompareOp.LESS,
                   "le": CompareOp.LESS_EQUAL, "gt": CompareOp.GREATER, "ge": CompareOp.GREATER_EQUAL}
    for short, op in compare_ops.items():
        setattr(Array, *_comparison_method(op, short))
    Array.__hash__ = None


_install_operators()
_core.Array = Array

# imported last: these modules use _core.Array at call time, and import this one
from . import indexing as _indexing  # noqa: E402
from . import linalg_ops as _linalg_ops  # noqa: E402
