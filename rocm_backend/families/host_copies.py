"""[families] Copies between the host and the device that do not wait, through pinned host
memory (``runtime/pinned.py``): the arrays over pinned blocks, uploads from them
(``RocmDevice.storage_from_host_async``) and downloads into them
(``RocmStorage.to_host_async``), the optional hooks ``candlewick.backend.PinnedMemoryDevice``
and ``AsyncHostCopyStorage``.

``PinnedArray`` is a DLPack producer of host memory (kDLCUDAHost under the HIP-on-CUDA
shim, kDLROCMHost on AMD) over one block, with a shape and a dtype: the cpu device
imports it without a copy. Its block goes back to the device's pinned pool when the
producer and every capsule made from it are gone (the pool hands it out again only after
the copies queued on it have run).
"""

from candlewick.errors import DLPackError

from ..bindings import hip
from . import copies
from .dlpack_capsules import KDL_CPU, VERSION, Imported, make_capsule

KDL_CUDA_HOST, KDL_ROCM_HOST, KDL_CUDA_MANAGED = 3, 11, 13
_HOST = frozenset({KDL_CPU, KDL_CUDA_HOST, KDL_ROCM_HOST, KDL_CUDA_MANAGED})


class PinnedArray:
    """``shape`` elements of ``dtype`` in C order at the start of a pinned block of ``device``."""

    __slots__ = ("block", "shape", "dtype", "_pool", "_device_type", "__weakref__")

    def __init__(self, device, shape, dtype):
        nbytes = dtype.itemsize
        for n in shape:
            nbytes *= n
        self._pool = device.pinned
        self.block = None
        self.block = self._pool.take(nbytes)
        self.shape, self.dtype = tuple(int(n) for n in shape), dtype
        self._device_type = KDL_CUDA_HOST if str(device.arch).startswith("sm_") else KDL_ROCM_HOST

    def __del__(self):
        block, self.block = self.block, None
        if block is not None:
            self._pool.give_back(block)

    @property
    def address(self):
        return self.block.address

    def __dlpack_device__(self):
        return self._device_type, 0

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """Host memory: no stream to order (a download into it is read after its stream's
        synchronize, as ``to_device(..., non_blocking=True)`` says)."""
        if copy:
            raise DLPackError("PinnedArray.__dlpack__: copy=True is not offered (copy the imported array)")
        if dl_device is not None and tuple(int(v) for v in dl_device) not in (self.__dlpack_device__(),
                                                                               (KDL_CPU, 0)):
            raise DLPackError(f"PinnedArray.__dlpack__: dl_device {tuple(dl_device)} is not host memory")
        strides, step = [], 1
        for n in reversed(self.shape):
            strides.append(step)
            step *= n
        versioned = max_version is not None and int(max_version[0]) >= 1
        return make_capsule(self, self.block.address, self.shape, tuple(reversed(strides)), self.dtype,
                            self._device_type, 0, versioned)


def pinned_empty(device, shape, dtype):
    """``RocmDevice.pinned_empty``: an uninitialized PinnedArray."""
    return PinnedArray(device, shape, dtype)


def storage_from_host_async(device, producer):
    """``RocmDevice.storage_from_host_async``: the producer's elements (host memory, C order,
    inside a pinned block of ``device``) uploaded on the current stream without waiting;
    None when the memory is not such (the caller then copies and waits)."""
    if device.capture is not None:
        device.capture.refuse("a copy from host memory (the host array could be gone at replay)")
    if int(producer.__dlpack_device__()[0]) not in _HOST:
        return None
    try:
        capsule = producer.__dlpack__(max_version=VERSION)
    except TypeError:  # a producer older than DLPack 1.0's keyword
        capsule = producer.__dlpack__()
    imported = Imported(capsule)
    try:
        shape, dtype = imported.shape, imported.dtype
        nbytes = dtype.itemsize
        for n in shape:
            nbytes *= n
        block = device.pinned.find(imported.data, nbytes) if _c_order(shape, imported.strides) else None
        if block is None:
            return None
        out = device.storage_type.empty(device, dtype, nbytes // dtype.itemsize)
        record = device.streams.mark()
        out.buffer.version += 1
        if nbytes:
            device.make_current()
            hip.memcpy_htod_async(out.ptr, imported.data, nbytes, record.handle)
            device.pinned.record_use(block, record)
        return out
    finally:
        imported.release()


def to_host_async(storage, layout):
    """``RocmStorage.to_host_async``: a PinnedArray of ``layout``'s shape that holds the
    elements once the current stream has passed the copy queued into it."""
    device = storage.device
    if device.capture is not None:
        device.capture.refuse("a read of device memory to the host")
    src, offset = storage, layout.offset
    if not layout.is_contiguous:
        src, offset = copies.copy(storage, layout), 0
    out = PinnedArray(device, layout.shape, storage.dtype)
    nbytes = layout.size * storage.dtype.itemsize
    record = device.streams.mark()
    if nbytes:
        device.make_current()
        hip.memcpy_dtoh_async(out.address, src.ptr + offset * storage.dtype.itemsize, nbytes, record.handle)
        device.pinned.record_use(out.block, record)
    return out


def _c_order(shape, strides):
    if strides is None:
        return True
    step = 1
    for n, s in zip(reversed(shape), reversed(strides)):
        if n != 1 and s != step:
            return False
        step *= n
    return True

