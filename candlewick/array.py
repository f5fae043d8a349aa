"""The Array object: a storage, a Layout over it, a dtype and a device.

Views (basic indexing, transposes, broadcasts, reshapes that need no copy) share the
storage and differ only in layout. Operators delegate to the modules below this one
(element-wise, indexing, matmul, DLPack export), which build their results from their
operand's class; the namespace functions with no array operand import ``Array`` and
``wrap`` from here.
"""

import functools
import sys

import numpy as np

from . import dtypes as _dt
from . import elementwise as _ew
from . import indexing as _indexing
from . import linalg_ops as _linalg_ops
from ._core import ArrayBase, check_dtype_on, is_scalar, new_array, scalar_array, view
from .backend import holds_host_memory
from .dlpack_export import array_dlpack, array_dlpack_device
from .errors import DeviceMismatchError, DTypeError, ShapeError
from .numpy_protocols import array_function, array_ufunc
from .opdefs import BinaryOp, CompareOp
from .registry import get_device

API_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12", "2025.12")


class Array(ArrayBase):
    """An n-dimensional array on a candlewick device. Create with ``candlewick.asarray``."""

    __slots__ = ()
    __array_priority__ = 100  # NumPy defers mixed operators to us

    def __init__(self, *args, **kwargs):
        raise TypeError("candlewick.Array is not constructed directly; use candlewick.asarray(...)")

    def __reduce__(self):
        # pickled as its elements and its device's name: unpickled in another process (a
        # Dask or cubed chunk sent to a worker) it lands on that process's own device
        # object, and devices compare by identity
        return (_unpickle, (self._storage.to_host(self._layout), self._device.name))

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
            raise TypeError("len() of a 0-d array")
        return self._layout.shape[0]

    def __iter__(self):
        if not self._layout.shape:
            raise TypeError("iteration over a 0-d array")
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
        check_dtype_on(self._device, dtype, "astype")
        return wrap(self._storage.astype(self._layout, dtype), self._layout.shape, dtype, self._device)

    def _scalar(self, name):
        if self._layout.shape != ():
            raise TypeError(f"{name}() needs a 0-d array, got shape {self._layout.shape}")
        return self._storage.to_host(self._layout)[()]

    def __bool__(self):
        return bool(self._scalar("bool"))

    # --- Python objects, as NumPy gives them --------------------------------------
    def _host_python(self):
        """The elements on the host in a NumPy dtype whose ``tolist`` gives Python
        scalars (ml_dtypes' bfloat16 would give its own scalar type)."""
        host = self._storage.to_host(self._layout)
        return host.astype(np.float32) if self._dtype is _dt.bfloat16 else host

    def tolist(self):
        """The elements as nested Python lists of Python scalars (a scalar for 0-d)."""
        return self._host_python().tolist()

    def item(self):
        """The one element of a size-1 array as a Python scalar (ValueError otherwise)."""
        if self._layout.size != 1:
            raise ValueError(f"item() needs an array of size 1, got shape {self._layout.shape}")
        return self._host_python().reshape(()).item()

    def __format__(self, spec):
        if not spec:
            return str(self)
        if self._layout.shape != ():
            raise TypeError(
                f"format spec {spec!r} needs a 0-d array, got shape {self._layout.shape}; "
                f"format x.tolist() or its elements"
            )
        return format(self.item(), spec)

    def __round__(self, ndigits=None):
        """``round(x)``: a Python int (ties to even); ``round(x, n)``: a 0-d array of x's
        dtype rounded to n decimals, as for NumPy scalars."""
        if self._dtype.is_complex or self._dtype.is_bool:
            raise TypeError(f"round() of a {self._dtype.name} array")
        if self._layout.shape != ():
            raise TypeError(f"round() needs a 0-d array, got shape {self._layout.shape}; use candlewick.round")
        value = self.item()
        if ndigits is None:
            return round(value)
        return scalar_array(self, round(value, ndigits), self._dtype, self._device)

    def __int__(self):
        if self._dtype.is_complex:
            raise TypeError("int() of a complex array; take real() first")
        value = self._scalar("int")
        if self._dtype.is_floating:
            value = float(value)
        return int(value)

    def __float__(self):
        if self._dtype.is_complex:
            raise TypeError("float() of a complex array; take real() first")
        return float(self._scalar("float"))

    def __complex__(self):
        return complex(self._scalar("complex"))

    def __index__(self):
        if not (self._dtype.is_integer):
            raise TypeError(f"__index__ needs an integer array, got {self._dtype.name}")
        return int(self._scalar("index"))

    def __array__(self, dtype=None, copy=None):
        if not holds_host_memory(self._device):
            raise TypeError(
                f"implicit conversion of a {self._device.name} array to NumPy is not allowed; "
                f"use candlewick.to_numpy(x) to copy it to the host"
            )
        host = self._storage.to_host(self._layout)
        return host if dtype is None else host.astype(dtype, copy=False)

    # NumPy's dispatch protocols (NEP 13/18): NumPy functions on candlewick arrays run
    # candlewick's own where it has them (see numpy_protocols)
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return array_ufunc(ufunc, method, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        return array_function(func, types, args, kwargs)

    def __array_namespace__(self, /, *, api_version=None):
        if api_version is not None and api_version not in API_VERSIONS:
            raise ValueError(f"api_version must be one of {API_VERSIONS} or None, got {api_version!r}")
        # the namespace is this module's package: Python loaded it before this module, so
        # it is looked up, not imported (the namespace sits above the Array class)
        return sys.modules[__package__]

    def __dlpack__(self, /, *, stream=None, max_version=None, dl_device=None, copy=None):
        return array_dlpack(self, stream, max_version, dl_device, copy)

    def __dlpack_device__(self, /):
        return array_dlpack_device(self)

    def to_device(self, device, /, *, stream=None):
        target = get_device(device)
        if target is self._device:
            return self
        check_dtype_on(target, self._dtype, "to_device")
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
            return NotImplemented
        return _linalg_ops.matmul(self, other)

    def __rmatmul__(self, other):
        if not isinstance(other, Array):
            return NotImplemented
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


def _assign_inplace(target, result, symbol):
    if result is NotImplemented:
        return NotImplemented
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
            return NotImplemented
        return binary(op, self, other, fwd_name)

    def rev(self, other, /):
        if type(other) is not Array and not _operand(other):
            return NotImplemented
        return binary(op, other, self, rev_name)

    def inplace(self, other, /):
        if type(other) is not Array and not _operand(other):
            return NotImplemented
        return _assign_inplace(self, binary(op, self, other, symbol), symbol)

    for name, fn in ((fwd_name, fwd), (rev_name, rev), (in_name, inplace)):
        fn.__name__ = fn.__qualname__ = name
        yield name, fn


def _comparison_method(op, short):
    name = f"__{short}__"

    def cmp(self, other, /):
        if type(other) is not Array and not _operand(other):
            return NotImplemented
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


#: ``wrap(storage, shape, dtype, device)``: a new Array over a contiguous ``storage``
wrap = functools.partial(new_array, Array)



def _unpickle(host, device_name):
    device = get_device(device_name)
    return wrap(device.storage_from_host(np.ascontiguousarray(host)), host.shape,
                _dt.from_numpy(host.dtype), device)
