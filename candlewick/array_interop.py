"""An array meeting NumPy and other libraries: ``__array__`` (NumPy 2's copy contract), NumPy's
dispatch protocols (NEP 13/18: ``numpy_protocols``), ``__array_namespace__`` and DLPack
export (``dlpack_export``). ``HostInterop`` is a declared base of ``candlewick.Array``
(which holds its members itself: ``array._one_level``).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import numpy as np

from . import dtypes as _dt
from ._core import ArrayBase
from .backend import holds_host_memory
from .dlpack_export import array_dlpack, array_dlpack_device
from .errors import ArgumentTypeError, ArgumentValueError, CopyRequiredError, DTypeError, short_repr
from .host_copy import get_implicit_host_copy
from .numpy_out import UPDATERS, array_ufunc
from .numpy_writes import array_function

if TYPE_CHECKING:
    from types import ModuleType

API_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12", "2025.12")


class HostInterop(ArrayBase):
    """The NumPy, Array API namespace and DLPack protocols of ``candlewick.Array``."""

    __slots__ = ()

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> Any:
        """``numpy.asarray(x)`` by NumPy 2's contract. In host memory (cpu) ``copy=None``
        and ``copy=False`` share x's memory, as NumPy's own arrays do (a write through the
        result lands in x; a broadcast view comes out read-only), ``copy=True`` copies;
        ``copy=False`` raises ``CopyRequiredError`` (a ValueError) where only a copy can
        convert (a dtype change, memory the host cannot read). A GPU array converts by a
        copy, and only where implicit host copies are on
        (``candlewick.set_implicit_host_copy``): else TypeError naming ``candlewick.to_numpy``."""
        if dtype is not None:
            dtype = dtype.numpy if isinstance(dtype, _dt.DType) else _numpy_dtype(dtype)
            if self._dtype.is_complex and dtype.kind != "c":
                raise DTypeError(f"__array__: cannot convert {self._dtype.name} to {dtype}; take real() or abs() first")
        host_memory = holds_host_memory(self._device)
        if copy is not True:
            shared = _shared_view(self) if host_memory else None
            if shared is not None and (dtype is None or shared.dtype == dtype):
                return shared
            if copy is False:
                raise CopyRequiredError(
                    f"__array__: copy=False, but {_why_a_copy(self, shared, dtype)}; convert with "
                    f"copy=None or copy=True, or candlewick.to_numpy(x), which copies"
                )
        if not host_memory and not get_implicit_host_copy():
            raise ArgumentTypeError(
                f"implicit conversion of a {self._device.name} array to NumPy is not allowed; "
                f"use candlewick.to_numpy(x) to copy it to the host (or allow implicit copies: "
                f"candlewick.set_implicit_host_copy(True) or CANDLEWICK_IMPLICIT_HOST_COPY=1)"
            )
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
        update = UPDATERS.get(ufunc)
        if update is not None and method == "__call__" and len(inputs) == 2 and len(kwargs) == 1:
            # np.add(x, y, out=x): x op= y through the operators' short path before any other
            # step (NumPy's own dispatch has already cost more than candlewick's update)
            out = kwargs.get("out")
            if out is not None and len(out) == 1 and out[0] is inputs[0]:
                done = update(inputs[0], inputs[1])
                if done is not None:
                    return done
        return array_ufunc(ufunc, method, inputs, kwargs)

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        """NEP 18: a NumPy function on candlewick arrays runs candlewick's equal
        (``np.sum(x)`` is ``candlewick.sum(x)``); one with no equal (or mixing them with
        NumPy arrays) runs NumPy on host copies where the device's memory is host memory,
        and raises ``ArgumentTypeError`` naming the function where not. NEP 35: a NumPy
        creation function called with ``like=x`` makes a candlewick array on x's device."""
        return array_function(self, func, types, args, kwargs)

    def __array_namespace__(self, /, *, api_version: str | None = None) -> ModuleType:
        """The ``candlewick`` namespace (Array API); ``api_version`` one of API_VERSIONS or None."""
        if api_version is not None and not isinstance(api_version, str):  # (``in`` would ask an array's truth)
            raise ArgumentTypeError(f"__array_namespace__: api_version must be a str or None, got "
                                    f"{short_repr(api_version)}")
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


def _shared_view(x):
    """NumPy's view of x's memory through the storage's ``host_view`` hook
    (``backend.HostViewStorage``), or None; read-only where x is a broadcast view (a
    write would land on one element through several indices)."""
    hook = getattr(type(x._storage), "host_view", None)
    shared = None if hook is None else hook(x._storage, x._layout)
    if shared is not None and 0 in x._layout.strides and x._layout.has_broadcast:
        shared = shared.view()
        shared.flags.writeable = False
    return shared


def _why_a_copy(x, shared, dtype):
    if shared is not None:
        return f"converting {x._dtype.name} to {dtype} needs a copy"
    if not holds_host_memory(x._device):
        return f"the memory of a {x._device.name} array is not host memory, so NumPy cannot share it"
    return f"the {x._device.backend} backend cannot share this array's memory with NumPy"


def _numpy_dtype(dtype):
    try:
        return np.dtype(dtype)
    except Exception:  # NumPy's reading of any object (a nest too deep for its repr, a hostile one)
        raise ArgumentTypeError(f"__array__: dtype must be a NumPy or candlewick dtype, got {short_repr(dtype)}") from None
