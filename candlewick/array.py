"""The Array object: a storage, a Layout over it, a dtype and a device.

Views (basic indexing, transposes, broadcasts, reshapes that need no copy) share the
storage and differ only in layout. Indexing delegates to the modules below this one,
which build their results from their operand's class; the namespace functions with no
array operand import ``Array`` and ``wrap`` from here. Conversions to Python objects are
``array_scalars``'s; NumPy, Array API namespace and DLPack protocols ``array_interop``'s;
operators ``array_operators``'s (the bases of ``Array``'s class statement, whose members
``_one_level`` copies into ``Array``, which derives from ``ArrayBase`` alone; the binary and
comparison operators are set on ``Array`` itself by ``install_operators``).
"""

from __future__ import annotations

import functools
import types
from typing import TYPE_CHECKING, Any, Iterator, TypeVar

import numpy as np

from . import dtypes as _dt
from . import indexing as _indexing
from ._core import ArrayBase, _native, bind_native, check_dtype_on, new_array, view
from .array_interop import HostInterop
from .array_methods import NumpyMethods
from .array_operators import Operators, install_operators
from .array_scalars import ScalarConversions
from .device_copies import copy_to_device
from .errors import ArgumentTypeError, ArgumentValueError, DTypeError, ShapeError, name_code, short_repr
from .lazy_gate import copy_operand
from .numpy_out import UPDATERS
from .registry import get_device

if TYPE_CHECKING:
    from ._types import DeviceLike, DTypeLike, Scalar
    from .backend import BackendDevice
    from .dtypes import DType

_C = TypeVar("_C", bound=type)


def _one_level(cls: _C) -> _C:
    """``cls`` rebuilt on ``ArrayBase`` alone, holding its base classes' members itself
    (each name resolved as the MRO resolves it). The bases keep ``array``'s modules small;
    a short MRO keeps the libraries' static attribute probes cheap: scikit-learn's checks
    run narwhals' ``inspect.getattr_static``, whose cost grows with the MRO (28.9 us for
    the seven-class MRO against NumPy's 10.1, 2-core VM), several times an estimator's fit."""
    members: dict[str, Any] = {}
    for klass in reversed(cls.__mro__[:cls.__mro__.index(ArrayBase)]):
        members.update(vars(klass))
    for name in ("__dict__", "__weakref__"):  # (ArrayBase's slots own them)
        members.pop(name, None)
    return type(cls)(cls.__name__, (ArrayBase,), members)


@_one_level
class Array(ScalarConversions, HostInterop, Operators, NumpyMethods):
    """An n-dimensional array on a candlewick device. Create with ``candlewick.asarray``.

    Arrays are not constructed directly: the creation functions (``asarray``, ``zeros``,
    ``arange``, ...) make them. Operators (``+ - * / // % ** @ & | ^ << >> ~``,
    comparisons) are the element-wise functions of the namespace; in-place operators
    keep the left operand's dtype and shape. NumPy's methods (``x.sum()``,
    ``x.reshape(2, 3)``, ``x.mean(axis=0)``...) are NumPy's functions on the array.

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
        layout = self._layout
        if len(layout.shape) != 2:
            raise ShapeError(f"x.T needs a 2-D array, got {self.ndim}-D; use permute_dims or mT")
        return view(self, layout.transpose_2d())

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
        """The sub-arrays along the first dimension (TypeError for a 0-d array, raised by
        ``iter(x)`` itself, as NumPy's: ``np.iterable(x)`` reads a 0-d array as a scalar)."""
        if not self._layout.shape:
            raise ArgumentTypeError("iteration over a 0-d array")
        return (self[i] for i in range(self._layout.shape[0]))

    def __repr__(self) -> str:
        host = self._storage.to_host(self._layout)
        body = np.array2string(host, separator=", ", prefix="Array(")
        return f"Array({body}, dtype={self._dtype.name}, device='{self._device.name}')"

    def __str__(self) -> str:
        """The elements as NumPy prints them (``[1 2 3]``; ``print(x)``), read to the host."""
        return str(self._storage.to_host(self._layout))

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
        # (the checks inline, as few frames as the call can take: scikit-learn casts three
        # times a StandardScaler fit, after NumPy's calls over the data have evicted the
        # caches, where each helper's frame costs about a us)
        if type(dtype) is not _dt.DType:
            dtype = _dt.as_dtype(dtype, "dtype", "astype")
        source = self._dtype
        if dtype is source and not copy:
            return self
        if source.category == "complex floating" and dtype.category not in _FROM_COMPLEX:
            raise DTypeError(f"astype: cannot cast {source.name} to {dtype.name}; take real() or abs() first")
        device = self._device
        if device.dtypes is not _dt.ALL_DTYPES:
            check_dtype_on(device, dtype, "astype")
        layout = self._layout
        return new_array(Array, copy_operand(self).astype(layout, dtype), layout.shape, dtype, device)

    def to_device(self, device: DeviceLike, /, *, stream: Any = None, non_blocking: bool = False) -> Array:
        """The array copied to ``device`` (itself when already there).

        Parameters
        ----------
        device : str or device
            The target device (``"cpu"``, ``"rocm:0"``, or a device object).
        stream : candlewick.Stream or None
            The stream of the source's or the target's device the copy is queued on (None:
            that device's current stream).
        non_blocking : bool
            Return before the copy ran where the memory allows it (PyTorch's flag): a copy
            from pinned host memory (``candlewick.pinned_empty``) to a GPU, or from a GPU
            to the host (the result then lies in pinned memory). The source must not change,
            and a host result must not be read, until the copy's stream has passed it
            (``stream.synchronize()``); other copies wait as with False.

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
        ArgumentTypeError
            If stream is not a candlewick.Stream or non_blocking not a bool.
        ArgumentValueError
            If stream belongs to neither device.

        Examples
        --------
        >>> import candlewick as cw
        >>> cw.asarray([1, 2]).to_device("cpu").device == "cpu"
        True
        """
        target = get_device(device)
        if type(non_blocking) is not bool:
            raise ArgumentTypeError(f"to_device: non_blocking must be a bool, got {short_repr(non_blocking)}")
        if target is self._device:
            return self
        check_dtype_on(target, self._dtype, "to_device")
        if stream is not None:
            if not (hasattr(stream, "__enter__") and hasattr(stream, "wait_event")):
                raise ArgumentTypeError(f"to_device: stream must be a candlewick.Stream or None, "
                                        f"got {short_repr(stream)}")
            if stream.device is not self._device and stream.device is not target:
                raise ArgumentValueError(f"to_device: the stream belongs to {stream.device.name}, neither "
                                         f"{self._device.name} nor {target.name}")
            with stream:
                return self.to_device(target, non_blocking=non_blocking)
        storage, layout = copy_to_device(self._storage, self._layout, self._device, target, non_blocking)
        out = new_array(Array, storage, layout.shape, self._dtype, target)
        # (an import of pinned memory may come with a layout of its own)
        return out if layout.is_contiguous and not layout.offset else view(out, layout)

    # --- indexing --------------------------------------------------------------
    def __getitem__(self, key: Any) -> Array:
        """``x[key]``: basic indexing gives a view, integer-array and boolean indexing a copy."""
        return _indexing.getitem(self, key)

    def __setitem__(self, key: Any, value: Array | Scalar) -> None:
        """``x[key] = value``: writes value (broadcast, converted to x's dtype) in place."""
        _indexing.setitem(self, key, value)


install_operators(Array)


def _name_inherited_methods():
    """Errors and messages name the method a user calls (``Array.item``), not the base
    class that holds it (``ScalarConversions.item``): their code objects are renamed."""
    for base in (ScalarConversions, HostInterop, Operators):
        for name, member in vars(base).items():
            if isinstance(member, types.FunctionType):
                name_code(member, f"Array.{name}")


_name_inherited_methods()
bind_native(Array)  # candlewick._native's fast paths take Arrays (where it was built)
if _native is not None:
    # x[a:b:c], x[basic tuple key] and their stores (x[a:b:c] op= y's store back, x[i, j] = v,
    # x[tuple key] = array) in C where candlewick._native was built (_native.Item: the same
    # view, the same assign), every other key the Python method's
    setattr(Array, "__getitem__", _native.Item(False, Array.__getitem__))
    setattr(Array, "__setitem__", _native.Item(True, Array.__setitem__))
    # np.add(x, y, out=x): __array_ufunc__'s first step (numpy_out.UPDATERS) in C
    # (_native.Override), the rest the Python method's
    setattr(Array, "__array_ufunc__", _native.Override(UPDATERS, Array.__array_ufunc__))
#: the categories a complex array is cast to (``astype``: real() or abs() for the others)
_FROM_COMPLEX = ("complex floating", "bool")

#: ``wrap(storage, shape, dtype, device)``: a new Array over a contiguous ``storage``
wrap = functools.partial(new_array, Array)


def _unpickle(host, device_name):
    device = get_device(device_name)
    return wrap(device.storage_from_host(np.ascontiguousarray(host)), host.shape,
                _dt.from_numpy(host.dtype), device)
