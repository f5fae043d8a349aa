"""DLPack exchange: ``Array.__dlpack__``/``__dlpack_device__`` and ``from_dlpack``.

The mechanism is device-agnostic and rests on two optional backend hooks (declared in
``candlewick.backend`` as ``DLPackStorage`` and ``DLPackDevice``):

* export: ``storage.dlpack_view(layout)`` returns an object with ``__dlpack__`` and
  ``__dlpack_device__`` that shares the storage's memory as ``layout`` views it (the
  cpu backend: a NumPy view of its host buffer, so export is zero-copy);
* import: ``device.storage_from_dlpack(obj, copy)`` returns ``(storage, layout)`` for a
  producer whose memory lives on that device (sharing it unless ``copy`` is True), or
  None when the producer is elsewhere.

Without the import hook, producers in host memory are still accepted by copying them
through ``storage_from_host`` (so ``copy=False`` cannot be honoured there).
"""

import enum

import operator

import numpy as np

from . import dtypes as _dt
from ._core import array_type, contiguous_layout, view, wrap
from .registry import all_devices, get_device
from .errors import ArgumentTypeError, ArgumentValueError, CandlewickError, DLPackError, short_repr


class DLDeviceType(enum.IntEnum):
    """DLPack's device types (dlpack.h), for ``__dlpack_device__`` results."""

    CPU = 1
    CUDA = 2
    CUDA_HOST = 3
    OPENCL = 4
    VULKAN = 7
    METAL = 8
    VPI = 9
    ROCM = 10
    ROCM_HOST = 11
    EXT_DEV = 12
    CUDA_MANAGED = 13
    ONE_API = 14


#: device types whose memory the host can read directly
HOST_READABLE = (DLDeviceType.CPU, DLDeviceType.CUDA_HOST, DLDeviceType.ROCM_HOST,
                 DLDeviceType.CUDA_MANAGED)


def _exporter(storage, device, what):
    export = getattr(storage, "dlpack_view", None)
    if export is None:
        raise DLPackError(
            f"{what}: the {device.backend} backend does not export DLPack "
            f"(its storage has no dlpack_view); copy with candlewick.to_numpy(x) instead"
        )
    return export


def array_dlpack_device(x):
    """``x.__dlpack_device__()``: (DLPack device type, device id) of x's memory."""
    export = _exporter(x._storage, x._device, "__dlpack_device__")
    dev_type, dev_id = export(x._layout).__dlpack_device__()
    dev_type = int(dev_type)
    # a device type newer than this table is still reported, as a plain int
    return (DLDeviceType(dev_type) if dev_type in DLDeviceType._value2member_map_ else dev_type), int(dev_id)


def array_dlpack(x, stream=None, max_version=None, dl_device=None, copy=None):
    """``x.__dlpack__(...)``: a DLPack capsule of x's elements.

    ``copy=None`` shares memory; ``copy=True`` exports a fresh copy made on x's device;
    ``copy=False`` never copies (BufferError when that is impossible). ``dl_device``
    other than x's own device is honoured only for the host (kDLCPU) through a copy.
    """
    if copy is not None and not isinstance(copy, bool):
        raise ArgumentTypeError(f"__dlpack__: copy must be None, True or False, got {short_repr(copy)}")
    if max_version is not None:
        max_version = _int_pair(max_version, "__dlpack__", "max_version")
    if dl_device is not None:
        dl_device = _int_pair(dl_device, "__dlpack__", "dl_device")
    storage, layout = x._storage, x._layout
    export = _exporter(storage, x._device, "__dlpack__")
    if copy:
        storage = storage.copy(layout)
        layout = contiguous_layout(layout.shape)
    producer = storage.dlpack_view(layout) if copy else export(layout)
    if dl_device is not None:
        wanted = dl_device
        own = tuple(int(v) for v in producer.__dlpack_device__())
        if wanted != own:
            if copy is False:
                raise DLPackError(
                    f"__dlpack__: dl_device={wanted} differs from the array's device {own} "
                    f"and copy=False forbids the copy that moving it needs"
                )
            if wanted[0] != DLDeviceType.CPU:
                raise DLPackError(f"__dlpack__: can export to the host (kDLCPU) only, not to {wanted}")
            producer = storage.to_host(layout)  # an owning host copy
        dl_device = None
    if stream is not None and int(producer.__dlpack_device__()[0]) == DLDeviceType.CPU:
        raise ArgumentValueError(f"__dlpack__: stream must be None for an export to the host, got {short_repr(stream)}")
    kwargs = {"stream": stream}
    if max_version is not None:
        kwargs["max_version"] = max_version
    if dl_device is not None:
        kwargs["dl_device"] = dl_device
    if copy is False:
        kwargs["copy"] = False
    try:
        return producer.__dlpack__(**kwargs)
    except BufferError as exc:  # the exporter's own refusal (NumPy: no DLPack code for bfloat16)
        if isinstance(exc, CandlewickError):
            raise
        raise DLPackError(f"__dlpack__: cannot export this {x._dtype.name} array: {exc}") from exc


def from_dlpack(x, /, *, device=None, copy=None):
    """An array holding the data of a DLPack producer ``x``.

    ``device=None`` keeps the data on the producer's device (host memory comes to the
    cpu device). ``copy=None`` shares memory when the device can, ``copy=True`` always
    copies, ``copy=False`` never does (BufferError when sharing is impossible).
    """
    Array = array_type()
    if isinstance(x, Array):
        return _from_candlewick(x, device, copy)
    if not (hasattr(x, "__dlpack__") and hasattr(x, "__dlpack_device__")):
        raise ArgumentTypeError(
            f"from_dlpack: x must implement __dlpack__ and __dlpack_device__, got {type(x).__name__}"
        )
    if copy is not None and not isinstance(copy, bool):
        raise ArgumentTypeError(f"from_dlpack: copy must be None, True or False, got {short_repr(copy)}")
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


def _int_pair(value, fname, argname):
    """A pair of ints (DLPack's (device type, device id) and (major, minor))."""
    try:
        first, second = value
        return operator.index(first), operator.index(second)
    except (TypeError, ValueError):
        raise ArgumentTypeError(f"{fname}: {argname} must be a pair of ints, got {short_repr(value)}") from None


def _import(x, device, copy):
    dev_type, dev_id = _int_pair(x.__dlpack_device__(), "from_dlpack", "x.__dlpack_device__()")
    if device is not None:
        targets = [get_device(device)]
    elif dev_type in HOST_READABLE:
        targets = [get_device("cpu")]  # host memory belongs to the host device
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
