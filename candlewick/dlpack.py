"""DLPack import: ``from_dlpack`` (export, ``Array.__dlpack__``, is in
``candlewick.dlpack_export``).

Import rests on the optional device hook ``storage_from_dlpack(obj, copy)`` (declared in
``candlewick.backend`` as ``DLPackDevice``): it returns ``(storage, layout)`` for a
producer whose memory lives on that device (sharing it unless ``copy`` is True), or None
when the producer is elsewhere. Without the hook, producers in host memory are still
accepted by copying them through ``storage_from_host`` (so ``copy=False`` cannot be
honoured there). Which device host memory lands on is the backends' declaration
``host_memory`` (``candlewick.backend.holds_host_memory``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from . import dtypes as _dt
from ._core import view
from .arguments import copy_flag
from .array import Array, wrap
from .backend import holds_host_memory
from .dlpack_export import HOST_READABLE, int_pair
from .registry import FALLBACK_DEVICE, all_devices, default_device_now, get_device
from .errors import ArgumentTypeError, CandlewickError, DLPackError, short_repr

if TYPE_CHECKING:
    from ._types import DeviceLike


def from_dlpack(x: Any, /, *, device: DeviceLike | None = None, copy: bool | None = None) -> Array:
    """An array holding the data of a DLPack producer ``x``.

    ``device=None`` keeps the data on the producer's device (host memory comes to
    ``host_memory_device()``). ``copy=None`` shares memory when the device can, ``copy=True`` always
    copies, ``copy=False`` never does (BufferError when sharing is impossible).

    Parameters
    ----------
    x : object
        An object with ``__dlpack__`` and ``__dlpack_device__`` (NumPy, PyTorch, JAX, candlewick).
    device : str, device or None
        The device of the result; None for the producer's.
    copy : bool or None
        True always copies, False never does, None shares when possible.

    Returns
    -------
    Array
        An array over (or copied from) x's data.

    Raises
    ------
    ArgumentTypeError
        If x does not support DLPack, or copy is not None or a bool.
    DLPackError
        If the producer is malformed, or copy=False and sharing is impossible, or the dtype or device is not supported.

    Examples
    --------
    >>> import candlewick as cw
    >>> import numpy as np
    >>> cw.from_dlpack(np.arange(3)).tolist()
    [0, 1, 2]
    """
    copy = copy_flag(copy, "from_dlpack")
    if isinstance(x, Array):
        return _from_candlewick(x, device, copy)
    if not (hasattr(x, "__dlpack__") and hasattr(x, "__dlpack_device__")):
        raise ArgumentTypeError(
            f"from_dlpack: x must implement __dlpack__ and __dlpack_device__, got {type(x).__name__}"
        )
    try:
        return _import(x, device, copy)
    except CandlewickError:
        raise
    except (TypeError, ValueError, AttributeError, BufferError, OverflowError, RuntimeError) as exc:
        # the producer's own methods (and NumPy's reading of its capsule) run here:
        # what they raise says the producer is malformed, in the producer's words
        raise DLPackError(
            f"from_dlpack: the producer (a {type(x).__name__}) could not be imported: "
            f"{type(exc).__name__}: {short_repr(str(exc))}"
        ) from exc



def _import(x, device, copy):
    dev_type, dev_id = int_pair(x.__dlpack_device__(), "from_dlpack", "x.__dlpack_device__()")
    if device is not None:
        targets = [get_device(device)]
    elif dev_type in HOST_READABLE:
        targets = [host_memory_device()]
    else:
        targets = all_devices()
    for target in targets:
        importer = getattr(target, "storage_from_dlpack", None)
        if importer is None:
            continue
        imported = importer(x, copy)
        if imported is not None:
            storage, layout = imported
            return _wrap_view(storage, layout, target)
    if dev_type not in HOST_READABLE:
        raise DLPackError(
            f"from_dlpack: no candlewick device can import memory of DLPack device "
            f"({dev_type}, {dev_id})" + (f" onto {targets[0].name}" if device is not None else "")
        )
    if copy is False:
        raise DLPackError(
            "from_dlpack: copy=False, but the target device cannot share the producer's host "
            "memory (its backend has no storage_from_dlpack), so the data would be copied"
        )
    target = targets[0]
    host = np.from_dlpack(x)
    dtype = _dt.from_numpy(host.dtype)
    if dtype not in target.dtypes:
        raise DLPackError(f"from_dlpack: device {target.name} does not support dtype {dtype.name}")
    if not host.flags.c_contiguous:
        host = host.copy(order="C")  # (np.ascontiguousarray would turn 0-d into 1-d)
    return wrap(target.storage_from_host(host), host.shape, dtype, target)


def host_memory_device():
    """The device that host memory (a kDLCPU producer) lands on when no device is named:
    the default device when its memory is host memory, else the fallback default device;
    whether a device holds host memory is its backend's declaration."""
    for device in (default_device_now(), get_device(FALLBACK_DEVICE)):
        if holds_host_memory(device):
            return device
    raise DLPackError(
        f"from_dlpack: neither the default device nor {FALLBACK_DEVICE!r} holds host memory; "
        f"name the target with device=..."
    )


def _wrap_view(storage, layout, device):
    """An Array viewing an imported storage through the producer's layout."""
    return view(wrap(storage, (storage.size,), storage.dtype, device), layout)


def _from_candlewick(x, device, copy):
    target = x._device if device is None else get_device(device)
    if target is not x._device:
        if copy is False:
            raise DLPackError(
                f"from_dlpack: copy=False, but moving from {x._device.name} to {target.name} copies"
            )
        return x.to_device(target)
    if copy:
        return wrap(x._storage.copy(x._layout), x.shape, x._dtype, x._device)
    return x
