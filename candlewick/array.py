"""The Array object: a storage, a Layout over it, a dtype and a device.

Views (basic indexing, transposes, broadcasts, reshapes that need no copy) share the
storage and differ only in layout. Operators delegate to the modules below this one
(element-wise, indexing, matmul), which build their results from their operand's class;
the namespace functions with no array operand import ``Array`` and ``wrap`` from here.
Conversions to Python objects are ``array_scalars``'s; NumPy, Array API namespace and
DLPack protocols ``array_interop``'s (base classes of ``Array``).
"""

from __future__ import annotations

import functools
import types
from typing import TYPE_CHECKING, Any, Iterator

import numpy as np

from . import dtypes as _dt
from . import elementwise as _ew
from . import indexing as _indexing
from . import linalg_ops as _linalg_ops
from ._core import check_dtype_on, is_scalar, new_array, view
from .array_interop import HostInterop
from .array_scalars import ScalarConversions
from .writes import check_writable
from .errors import ArgumentTypeError, DeviceMismatchError, DTypeError, ShapeError, name_code
from .opdefs import BinaryOp, CompareOp
from .registry import get_device

if TYPE_CHECKING:
    from ._types import DeviceLike, DTypeLike, Scalar
    from .backend import BackendDevice
    from .dtypes import DType


class Array(ScalarConversions, HostInterop):
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


_PLAIN_OPERANDS = frozenset({Array, float, int, bool, complex})  # (_operand's, tested without a call)


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
        if type(other) not in _PLAIN_OPERANDS and not _operand(other):  # (arrays and scalars: no call)
            _foreign_operand(other, fwd_name)
        return binary(op, self, other, fwd_name)

    def rev(self, other, /):
        if type(other) not in _PLAIN_OPERANDS and not _operand(other):
            _foreign_operand(other, rev_name)
        return binary(op, other, self, rev_name)

    def inplace(self, other, /):
        if type(other) not in _PLAIN_OPERANDS and not _operand(other):
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
    compare = _ew.compare

    def cmp(self, other, /):
        if type(other) not in _PLAIN_OPERANDS and not _operand(other):
            _foreign_operand(other, name)
        return compare(op, self, other, name)

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
def _name_inherited_methods():
    """Errors and messages name the method a user calls (``Array.item``), not the base
    class that holds it (``ScalarConversions.item``): their code objects are renamed."""
    for base in (ScalarConversions, HostInterop):
        for name, member in vars(base).items():
            if isinstance(member, types.FunctionType):
                name_code(member, f"Array.{name}")


_name_inherited_methods()
wrap = functools.partial(new_array, Array)



def _unpickle(host, device_name):
    device = get_device(device_name)
    return wrap(device.storage_from_host(np.ascontiguousarray(host)), host.shape,
                _dt.from_numpy(host.dtype), device)
