"""The Array object: a storage, a Layout over it, a dtype and a device.

Views (basic indexing, transposes, broadcasts, reshapes that need no copy) share the
storage and differ only in layout. Operators delegate to the modules below this one
(element-wise, indexing, matmul, DLPack export), which build their results from their
operand's class; the namespace functions with no array operand import ``Array`` and
``wrap`` from here.
"""

from __future__ import annotations

import functools
import sys
from typing import TYPE_CHECKING, Any, Iterator

import numpy as np

from . import dtypes as _dt
from . import elementwise as _ew
from . import indexing as _indexing
from . import linalg_ops as _linalg_ops
from ._core import ArrayBase, check_dtype_on, is_scalar, new_array, scalar_array, view
from .backend import holds_host_memory
from .dlpack_export import array_dlpack, array_dlpack_device
from .writes import check_writable
from .errors import (
    ArgumentTypeError, ArgumentValueError, DeviceMismatchError, DTypeError, ShapeError, name_code, short_repr,
)
from .numpy_protocols import array_function, array_ufunc
from .opdefs import BinaryOp, CompareOp
from .registry import get_device

if TYPE_CHECKING:
    from types import ModuleType

    from ._types import DeviceLike, DTypeLike, Scalar
    from .backend import BackendDevice
    from .dtypes import DType

API_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12", "2025.12")


class Array(ArrayBase):
    """An n-dimensional array on a candlewick device. Create with ``candlewick.asarray``.

    Arrays are not constructed directly: the creation functions (``asarray``, ``zeros``,
    ``arange``, ...) make them. Operators (``+ - * / // % ** @ & | ^ << >> ~``,
    comparisons) are the element-wise functions of the namespace; in-place operators
    keep the left operand's dtype and shape.

    Examples
    --------
    >>> import candlewick as cw
    >>> x = cw.asarray([[1.0, 2.0], [3.0, 4.0]])
    >>> (x + 1).tolist()
    [[2.0, 3.0], [4.0, 5.0]]
    """

    __slots__ = ()
    __array_priority__ = 100  # NumPy defers mixed operators to us

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise ArgumentTypeError("candlewick.Array is not constructed directly; use candlewick.asarray(...)")

    def __reduce__(self) -> tuple[Any, tuple[Any, str]]:
        """Pickle support: the elements (a host copy) and the device's name."""
        # pickled as its elements and its device's name: unpickled in another process (a
        # Dask or cubed chunk sent to a worker) it lands on that process's own device
        # object, and devices compare by identity
        return (_unpickle, (self._storage.to_host(self._layout), self._device.name))

    # --- attributes ------------------------------------------------------------
    @property
    def dtype(self) -> DType:
        """The data type of the elements.

        Returns
        -------
        dtype

        Examples
        --------
        >>> import candlewick as cw
        >>> x = cw.asarray([1.0, 2.0])
        >>> x.dtype
        candlewick.float64
        """
        return self._dtype

    @property
    def device(self) -> BackendDevice:
        """The device holding the array; it compares equal to its name (``x.device == "cpu"``).

        Returns
        -------
        device

        Examples
        --------
        >>> import candlewick as cw
        >>> x = cw.asarray([1.0, 2.0])
        >>> x.device == "cpu"
        True
        """
        return self._device

    @property
    def shape(self) -> tuple[int, ...]:
        """The length of each dimension.

        Returns
        -------
        tuple of int

        Examples
        --------
        >>> import candlewick as cw
        >>> x = cw.asarray([1.0, 2.0])
        >>> x.shape
        (2,)
        """
        return self._layout.shape

    @property
    def ndim(self) -> int:
        """The number of dimensions.

        Returns
        -------
        int

        Examples
        --------
        >>> import candlewick as cw
        >>> x = cw.asarray([1.0, 2.0])
        >>> x.ndim
        1
        """
        return len(self._layout.shape)

    @property
    def size(self) -> int:
        """The number of elements (the product of the shape).

        Returns
        -------
        int

        Examples
        --------
        >>> import candlewick as cw
        >>> x = cw.asarray([1.0, 2.0])
        >>> x.size
        2
        """
        return self._layout.size

    @property
    def T(self) -> Array:
        """The transpose of a 2-D array (a view).

        Returns
        -------
        Array

        Raises
        ------
        ShapeError
            If the array is not 2-D (use ``permute_dims`` or ``mT``).

        Examples
        --------
        >>> import candlewick as cw
        >>> cw.asarray([[1, 2, 3], [4, 5, 6]]).T.shape
        (3, 2)
        """
        if self.ndim != 2:
            raise ShapeError(f"x.T needs a 2-D array, got {self.ndim}-D; use permute_dims or mT")
        return view(self, self._layout.permute((1, 0)))

    @property
    def mT(self) -> Array:
        """The matrix transpose of the last two dimensions (a view; needs ndim >= 2).

        Returns
        -------
        Array

        Examples
        --------
        >>> import candlewick as cw
        >>> x = cw.asarray([[1, 2, 3], [4, 5, 6]])
        >>> x.mT.shape
        (3, 2)
        """
        return view(self, self._layout.transpose_last2())

    def __len__(self) -> int:
        """The length of the first dimension (TypeError for a 0-d array)."""
        if not self._layout.shape:
            raise ArgumentTypeError("len() of a 0-d array")
        return self._layout.shape[0]

    def __iter__(self) -> Iterator[Array]:
        """The sub-arrays along the first dimension (TypeError for a 0-d array)."""
        if not self._layout.shape:
            raise ArgumentTypeError("iteration over a 0-d array")
        for i in range(self._layout.shape[0]):
            yield self[i]

    def __repr__(self) -> str:
        host = self._storage.to_host(self._layout)
        body = np.array2string(host, separator=", ", prefix="Array(")
        return f"Array({body}, dtype={self._dtype.name}, device='{self._device.name}')"

    __str__ = __repr__

    # --- conversion ------------------------------------------------------------
    def astype(self, dtype: DTypeLike, /, *, copy: bool = True) -> Array:
        """The array converted to ``dtype`` (``candlewick.astype`` as a method).

        Parameters
        ----------
        dtype : DType
            The dtype to convert to.
        copy : bool
            False returns the array itself when it already has ``dtype``.

        Returns
        -------
        Array
            An array of x's shape and device with dtype ``dtype``.

        Raises
        ------
        DTypeError
            If dtype names no candlewick dtype, or casts complex to a real dtype (take
            ``real()`` or ``abs()`` first).

        Examples
        --------
        >>> import candlewick as cw
        >>> cw.asarray([1.7, -2.2]).astype(cw.int32).tolist()
        [1, -2]
        """
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
            raise ArgumentTypeError(f"{name}() needs a 0-d array, got shape {self._layout.shape}")
        return self._storage.to_host(self._layout)[()]

    def __bool__(self) -> bool:
        """The truth value of a 0-d array (TypeError for other shapes)."""
        return bool(self._scalar("bool"))

    # --- Python objects, as NumPy gives them --------------------------------------
    def _host_python(self):
        """The elements on the host in a NumPy dtype whose ``tolist`` gives Python
        scalars (ml_dtypes' bfloat16 would give its own scalar type)."""
        host = self._storage.to_host(self._layout)
        return host.astype(np.float32) if self._dtype is _dt.bfloat16 else host

    def tolist(self) -> Any:
        """The elements as nested Python lists of Python scalars (a scalar for 0-d).

        Returns
        -------
        list or Python scalar
            Nested lists of ``ndim`` levels; a 0-d array gives its one scalar.

        Examples
        --------
        >>> import candlewick as cw
        >>> cw.asarray([[1, 2], [3, 4]]).tolist()
        [[1, 2], [3, 4]]
        """
        return self._host_python().tolist()

    def item(self) -> bool | int | float | complex:
        """The one element of a size-1 array as a Python scalar.

        Returns
        -------
        bool, int, float or complex
            The element, as the Python scalar of the array's kind.

        Raises
        ------
        ValueError
            If the array's size is not 1.

        Examples
        --------
        >>> import candlewick as cw
        >>> cw.asarray([[2.5]]).item()
        2.5
        """
        if self._layout.size != 1:
            raise ArgumentValueError(f"item() needs an array of size 1, got shape {self._layout.shape}")
        return self._host_python().reshape(()).item()

    def __format__(self, spec: str) -> str:
        """``format(x, spec)``: a 0-d array formats as its scalar (``f"{x:.2f}"``)."""
        if not isinstance(spec, str):
            raise ArgumentTypeError(f"__format__: format spec must be a str, got {short_repr(spec)}")
        if not spec:
            return str(self)
        if self._layout.shape != ():
            raise ArgumentTypeError(
                f"format spec {spec!r} needs a 0-d array, got shape {self._layout.shape}; "
                f"format x.tolist() or its elements"
            )
        return format(self.item(), spec)

    def __round__(self, ndigits: int | None = None) -> int | Array:
        """``round(x)``: a Python int (ties to even); ``round(x, n)``: a 0-d array of x's
        dtype rounded to n decimals, as for NumPy scalars."""
        if ndigits is not None and (isinstance(ndigits, bool) or not isinstance(ndigits, int)):
            raise ArgumentTypeError(f"round(): ndigits must be an int or None, got {short_repr(ndigits)}")
        if self._dtype.is_complex or self._dtype.is_bool:
            raise ArgumentTypeError(f"round() of a {self._dtype.name} array")
        if self._layout.shape != ():
            raise ArgumentTypeError(f"round() needs a 0-d array, got shape {self._layout.shape}; use candlewick.round")
        value = self.item()
        if ndigits is None:
            if value != value or value in (float("inf"), float("-inf")):
                raise ArgumentValueError(f"__round__: cannot round {value} to an integer")
            return round(value)  # type: ignore[arg-type]  # complex turned away above
        return scalar_array(self, round(value, ndigits), self._dtype, self._device)  # type: ignore[arg-type]

    def __int__(self) -> int:
        """``int(x)`` of a 0-d real array (truncates floats)."""
        if self._dtype.is_complex:
            raise ArgumentTypeError("int() of a complex array; take real() first")
        value = self._scalar("int")
        if self._dtype.is_floating:
            value = float(value)
            if value != value or value in (float("inf"), float("-inf")):
                raise ArgumentValueError(f"__int__: cannot convert {value} to an integer")
        return int(value)

    def __float__(self) -> float:
        """``float(x)`` of a 0-d real array."""
        if self._dtype.is_complex:
            raise ArgumentTypeError("float() of a complex array; take real() first")
        return float(self._scalar("float"))

    def __complex__(self) -> complex:
        """``complex(x)`` of a 0-d array."""
        return complex(self._scalar("complex"))

    def __index__(self) -> int:
        """``operator.index(x)`` of a 0-d integer array."""
        if not (self._dtype.is_integer):
            raise ArgumentTypeError(f"__index__ needs an integer array, got {self._dtype.name}")
        return int(self._scalar("index"))

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> Any:
        """``numpy.asarray(x)`` of an array in host memory (TypeError for a GPU array:
        ``candlewick.to_numpy`` copies it explicitly)."""
        if not holds_host_memory(self._device):
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

    # NumPy's dispatch protocols (NEP 13/18): NumPy functions on candlewick arrays run
    # candlewick's own where it has them (see numpy_protocols)
    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        """NEP 13: a NumPy ufunc on candlewick arrays runs candlewick's equal (``np.exp(x)``
        is ``candlewick.exp(x)``); one mixing them with NumPy arrays or other foreign
        objects raises ``ArgumentTypeError``; one with no equal runs NumPy on host copies
        where the device's memory is host memory."""
        return array_ufunc(ufunc, method, inputs, kwargs)

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        """NEP 18: a NumPy function on candlewick arrays runs candlewick's equal
        (``np.sum(x)`` is ``candlewick.sum(x)``); one mixing them with NumPy arrays
        raises ``ArgumentTypeError``; one with no equal runs NumPy on host copies where the
        device's memory is host memory."""
        return array_function(func, types, args, kwargs)

    def __array_namespace__(self, /, *, api_version: str | None = None) -> ModuleType:
        """The ``candlewick`` namespace (Array API); ``api_version`` one of API_VERSIONS or None."""
        if api_version is not None and api_version not in API_VERSIONS:
            raise ArgumentValueError(f"api_version must be one of {API_VERSIONS} or None, got {short_repr(api_version)}")
        # the namespace is this module's package: Python loaded it before this module, so
        # it is looked up, not imported (the namespace sits above the Array class)
        return sys.modules[__package__]

    def __dlpack__(self, /, *, stream: Any = None, max_version: tuple[int, int] | None = None,
                   dl_device: tuple[int, int] | None = None, copy: bool | None = None) -> Any:
        """A DLPack capsule of the array (the DLPack protocol; see ``from_dlpack``)."""
        return array_dlpack(self, stream, max_version, dl_device, copy)

    def __dlpack_device__(self, /) -> tuple[int, int]:
        """The DLPack ``(device type, device id)`` of the array."""
        return array_dlpack_device(self)

    def to_device(self, device: DeviceLike, /, *, stream: Any = None) -> Array:
        """The array copied to ``device`` (itself when already there).

        Parameters
        ----------
        device : str or device
            The target device (``"cpu"``, ``"rocm:0"``, or a device object).
        stream : None
            Accepted for the Array API; copies are synchronous.

        Returns
        -------
        Array
            An array on ``device`` with x's shape, dtype and elements.

        Raises
        ------
        DeviceError
            If ``device`` names no device.
        BackendUnavailableError
            If the device's backend cannot run here.

        Examples
        --------
        >>> import candlewick as cw
        >>> cw.asarray([1, 2]).to_device("cpu").device == "cpu"
        True
        """
        target = get_device(device)
        if target is self._device:
            return self
        check_dtype_on(target, self._dtype, "to_device")
        # a direct copy where the backend offers one (backend.DeviceCopyStorage), else via the host
        direct = getattr(self._storage, "to_device", None)
        storage = direct(self._layout, target) if direct is not None else None
        if storage is None:
            storage = target.storage_from_host(self._storage.to_host(self._layout))
        return wrap(storage, self._layout.shape, self._dtype, target)

    # --- indexing --------------------------------------------------------------
    def __getitem__(self, key: Any) -> Array:
        """``x[key]``: basic indexing gives a view, integer-array and boolean indexing a copy."""
        return _indexing.getitem(self, key)

    def __setitem__(self, key: Any, value: Array | Scalar) -> None:
        """``x[key] = value``: writes value (broadcast, converted to x's dtype) in place."""
        _indexing.setitem(self, key, value)

    # --- operators -------------------------------------------------------------
    def __matmul__(self, other: Array) -> Array:
        """``x @ y``: ``candlewick.matmul``."""
        if not isinstance(other, Array):
            _foreign_operand(other, "__matmul__", arrays_only=True)
        return _linalg_ops.matmul(self, other)

    def __rmatmul__(self, other: Array) -> Array:
        """``y @ x``: ``candlewick.matmul(y, x)``."""
        if not isinstance(other, Array):
            _foreign_operand(other, "__rmatmul__", arrays_only=True)
        return _linalg_ops.matmul(other, self)

    def __imatmul__(self, other: Array) -> Array:
        """``x @= y``: the matrix product written into x (same dtype and shape)."""
        return _assign_inplace(self, self.__matmul__(other), "@=")

    def __neg__(self) -> Array:
        """``-x``: ``candlewick.negative``."""
        return _ew.negative(self)

    def __pos__(self) -> Array:
        """``+x``: ``candlewick.positive``."""
        return _ew.positive(self)

    def __abs__(self) -> Array:
        """``abs(x)``: ``candlewick.abs``."""
        return _ew.abs(self)

    def __invert__(self) -> Array:
        """``~x``: ``candlewick.bitwise_invert``."""
        return _ew.bitwise_invert(self)

    if TYPE_CHECKING:
        # the operators _install_operators() sets below, spelled out for type checkers
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

    plain = symbol[:-1]
    docs = (f"``x {plain} y``: the element-wise ``{op.value}`` of x and y (an array or Python scalar).",
            f"``y {plain} x`` with a Python scalar y: the element-wise ``{op.value}``.",
            f"``x {symbol} y``: ``{op.value}`` written into x, which keeps its dtype and shape.")
    for (name, fn), doc in zip(((fwd_name, fwd), (rev_name, rev), (in_name, inplace)), docs):
        fn.__name__ = fn.__qualname__ = name
        fn.__doc__ = doc
        yield name, name_code(fn, f"Array.{name}")


def _comparison_method(op, short):
    name = f"__{short}__"

    def cmp(self, other, /):
        if type(other) is not Array and not _operand(other):
            _foreign_operand(other, name)
        return _ew.compare(op, self, other, name)

    cmp.__name__ = cmp.__qualname__ = name
    cmp.__doc__ = f"The element-wise ``{op.value}`` comparison of x and y: a bool array."
    return name, name_code(cmp, f"Array.{name}")


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
