"""DLPack export: ``Array.__dlpack__`` / ``__dlpack_device__`` (import is
``candlewick.dlpack.from_dlpack``).

Export rests on the optional storage hook ``dlpack_view(layout)`` (declared in
``candlewick.backend`` as ``DLPackStorage``): an object with ``__dlpack__`` and
``__dlpack_device__`` that shares the storage's memory as ``layout`` views it (the cpu
backend: a NumPy view of its host buffer, so export is zero-copy).
"""

import enum
import operator

from .arguments import copy_flag
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
    Whenever a copy is made the versioned capsule carries DLPack's IS_COPIED flag, as
    the standard asks: the producer makes the copy (``copy=True`` is passed on to it).
    """
    copy = copy_flag(copy, "__dlpack__")
    if stream is not None:
        # a stream is an int handle (the standard), -1 for none: checked once here, so no
        # producer meets a value it cannot pass on to its runtime (a pointer is 64 bits)
        if isinstance(stream, bool) or not isinstance(stream, int):
            raise ArgumentTypeError(f"__dlpack__: stream must be an int or None, got {short_repr(stream)}")
        if not -1 <= stream < 2**64:
            raise ArgumentValueError(f"__dlpack__: stream must be -1 or a stream handle in [0, 2**64), got {stream}")
    if max_version is not None:
        max_version = int_pair(max_version, "__dlpack__", "max_version")
    if dl_device is not None:
        dl_device = int_pair(dl_device, "__dlpack__", "dl_device")
    storage, layout = x._storage, x._layout
    export = _exporter(storage, x._device, "__dlpack__")
    producer = export(layout)
    moved_to_host = False
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
            moved_to_host = True
        dl_device = None
    if stream is not None and int(producer.__dlpack_device__()[0]) == DLDeviceType.CPU:
        raise ArgumentValueError(
            f"__dlpack__: stream must be None for an export to the host, got {short_repr(stream)}"
        )
    kwargs = {"stream": stream}
    if max_version is not None:
        kwargs["max_version"] = max_version
    if dl_device is not None:
        kwargs["dl_device"] = dl_device
    if copy is not None or moved_to_host:
        # a host copy is exported with copy=True too: NumPy then flags it as a copy
        kwargs["copy"] = True if moved_to_host else copy
    try:
        return producer.__dlpack__(**kwargs)
    except BufferError as exc:  # the exporter's own refusal (NumPy: no DLPack code for bfloat16)
        if isinstance(exc, CandlewickError):
            raise
        raise DLPackError(f"__dlpack__: cannot export this {x._dtype.name} array: {exc}") from exc


def int_pair(value, fname, argname):
    """A pair of ints (DLPack's (device type, device id) and (major, minor))."""
    try:
        first, second = value
        return operator.index(first), operator.index(second)
    except (TypeError, ValueError):
        raise ArgumentTypeError(f"{fname}: {argname} must be a pair of ints, got {short_repr(value)}") from None
