"""[families] DLPack for device memory: zero-copy export (``RocmStorage.dlpack_view``) and
import (``RocmDevice.storage_from_dlpack``); the capsules are built in
``dlpack_capsules.py``.

Device type: kDLROCM (10) on AMD; kDLCUDA (2) when the HIP platform is NVIDIA (the
HIP-on-CUDA shim reports an ``sm_XY`` architecture), so CUDA consumers (PyTorch, CuPy)
see memory they can use.

Streams (Array API): the consumer passes ``stream``: ``None`` or 0 is the default
(legacy NULL) stream, 1 and 2 the CUDA legacy / per-thread default streams (NVIDIA only),
a larger int a stream handle, -1 no synchronization. Unless it is our own stream, an
event is recorded on our stream and the consumer's stream waits on it. On import we pass
our stream to the producer, which makes it wait the same way.
"""

import weakref

from candlewick.errors import ArgumentTypeError, ArgumentValueError, DLPackError
from candlewick.layout import Layout

from ..bindings import hip
from ..storage_slice import DeviceBuffer
from . import copies
from .dlpack_capsules import KDL_CUDA, KDL_ROCM, VERSION, Imported, make_capsule, span
from .pad_fixup_cache import share


def device_type(device):
    """kDLCUDA when HIP runs on NVIDIA (an sm_XY architecture), else kDLROCM."""
    return KDL_CUDA if str(device.arch).startswith("sm_") else KDL_ROCM


def _consumer_stream(device, stream):
    """The consumer's stream handle as an int (0 = the NULL stream); None: no sync."""
    if stream is None:
        return 0
    if isinstance(stream, bool) or not isinstance(stream, int):
        raise ArgumentTypeError(f"__dlpack__: stream must be an int or None, got {stream!r}")
    if stream == -1:
        return None
    if stream < 0 or (stream in (1, 2) and device_type(device) != KDL_CUDA):
        raise ArgumentValueError(f"__dlpack__: stream {stream} is not valid for a {device.name} producer")
    return stream


def wait_for_us(device, stream):
    """Make the consumer's ``stream`` wait for the work queued on our stream."""
    consumer = _consumer_stream(device, stream)
    if consumer is None or consumer == int(device.stream):
        return
    device.make_current()
    hip.stream_wait_for(device.stream, consumer)


class DLPackView:
    """What ``RocmStorage.dlpack_view(layout)`` returns: a DLPack producer sharing the
    storage's memory as ``layout`` views it."""

    def __init__(self, storage, layout):
        self.storage, self.layout = storage, layout

    def __dlpack_device__(self):
        device = self.storage.device
        return device_type(device), device.ordinal

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        storage, layout = self.storage, self.layout
        if storage.device.capture is not None:
            storage.device.capture.refuse("a DLPack export (the consumer would read memory that the graph "
                                          "only writes at replay)")
        own = self.__dlpack_device__()
        if dl_device is not None and tuple(int(v) for v in dl_device) != own:
            raise DLPackError(f"__dlpack__: dl_device {tuple(dl_device)} is not this array's device {own}")
        if copy:
            storage, layout = copies.copy(storage, layout), Layout.contiguous(layout.shape)
        wait_for_us(storage.device, stream)
        versioned = max_version is not None and int(max_version[0]) >= 1
        data = storage.ptr + layout.offset * storage.dtype.itemsize if layout.size else storage.ptr
        return make_capsule(storage, data, layout.shape, layout.strides, storage.dtype, own[0], own[1],
                            versioned, copied=bool(copy))


def storage_from_dlpack(device, obj, copy):
    """``RocmDevice.storage_from_dlpack``: (storage, layout) sharing ``obj``'s memory when it
    lives on ``device``; None when it lives elsewhere."""
    where = tuple(int(v) for v in obj.__dlpack_device__())
    if where != (device_type(device), device.ordinal):
        return None
    if device.capture is not None:
        device.capture.refuse("a DLPack import (the producer's stream would have to join the capture)")
    stream = int(device.stream)
    try:
        capsule = obj.__dlpack__(stream=stream, max_version=VERSION)
    except TypeError:  # a producer older than DLPack 1.0's keyword
        capsule = obj.__dlpack__(stream=stream)
    imported = Imported(capsule)
    if imported.device != where:
        imported.release()
        raise DLPackError(f"from_dlpack: the capsule's device {imported.device} differs from {where}")
    dtype, item = imported.dtype, imported.dtype.itemsize
    if imported.data % item:
        imported.release()
        raise DLPackError("from_dlpack: the data pointer is not aligned to the element size")
    lo, hi = span(imported.shape, imported.strides)
    size = hi - lo + 1
    base = imported.data + lo * item if size else imported.data
    buffer = DeviceBuffer(device, base, size * item, 0)
    share(buffer)  # the producer may write it
    weakref.finalize(buffer, _release_import, device, imported)
    storage = device.storage_type(buffer, dtype, size)
    layout = Layout(imported.shape, imported.strides, -lo)
    if copy or imported.read_only:
        if copy is False:
            raise DLPackError("from_dlpack: the producer's memory is read-only and copy=False forbids a copy")
        storage, layout = copies.copy(storage, layout), Layout.contiguous(imported.shape)
    return storage, layout


def _release_import(device, imported):
    try:
        device.synchronize(check_errors=False)  # queued kernels may still read the buffer
    finally:
        imported.release()


def dlpack_view(storage, layout):
    """``RocmStorage.dlpack_view``: a DLPack producer of ``storage`` as ``layout`` views it."""
    share(storage.buffer)  # the consumer may write it
    return DLPackView(storage, layout)
