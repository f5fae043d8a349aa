"""[runtime] A device buffer and the typed view of it every op family takes and returns.

``DeviceBuffer`` is one allocation: pointer, size and owner device, and the transfers
into and out of it. The block comes from the device's caching allocator and goes back to
it when the last reference dies (``__del__``: a weakref.finalize per allocation cost
several µs on every small op), so views sharing a buffer keep it alive. ``version``
counts the writes into existing memory (every transfer here, and every in-place
primitive), so that what was learnt of the contents (``families/pad_fixup_cache.py``)
is trusted only while unchanged.

``StorageSlice`` is ``size`` elements of ``dtype`` from the start of a buffer;
``storage.RocmStorage`` is this class with the protocol's methods. An op family makes its
results with ``device.storage_type.empty`` so that they are the protocol's storage class
(declared by the device).
"""

import numpy as np

from .bindings import hip, hip_ctypes


class DeviceBuffer:
    __slots__ = ("device", "ptr", "nbytes", "_capacity", "_release", "version", "__weakref__")

    def __init__(self, device, ptr, nbytes, capacity):
        """``capacity`` 0: memory this buffer does not own (DLPack imports, size 0)."""
        self.device = device
        self.ptr = ptr
        self.nbytes = nbytes
        self._capacity = capacity
        self._release = device.allocator.release if capacity else None
        self.version = 0

    def __del__(self):
        release = self._release
        if release is not None:
            self._release = None
            release(self.ptr, self._capacity)

    @classmethod
    def allocate(cls, device, nbytes):
        ptr, capacity = device.allocator.allocate(nbytes)
        return cls(device, ptr, nbytes, capacity)

    def __repr__(self):
        return f"DeviceBuffer({self.device.name}, 0x{self.ptr:x}, {self.nbytes} bytes)"

    # --- transfers (queued on the current stream of the device) -------------------
    def memset(self, byte, nbytes=None, offset_bytes=0):
        n = self.nbytes if nbytes is None else nbytes
        self.version += 1
        if n:
            self.device.make_current()
            hip_ctypes.memset_async(self.ptr + offset_bytes, byte, n, self.device.stream)

    def copy_from_host(self, array):
        """Queue a host->device copy of a C-contiguous array into the start of the buffer.
        The array must stay alive until the copy ran: the caller keeps it or syncs."""
        if self.device.capture is not None:
            self.device.capture.refuse("a copy from host memory (the host array could be gone at replay)")
        n = array.nbytes
        self.version += 1
        if n:
            device = self.device
            device.make_current()
            record = device.streams.mark()
            hip.memcpy_htod_async(self.ptr, array.ctypes.data, n, record.handle)
            if device.pinned.bytes and device.pinned.wait_upload(array.ctypes.data, n, record):
                return  # from pinned memory the copy did not wait: it has run now
            device.keep_alive(array)

    def copy_to_host(self, out, offset_bytes=0):
        """Copy ``out.nbytes`` bytes from ``offset_bytes`` into the C-contiguous ``out``,
        waiting for the work queued on the current stream first, and on the stream the
        memory was made on where that is another (a synchronizing host read)."""
        if self.device.capture is not None:
            self.device.capture.refuse("a read of device memory to the host")
        n = out.nbytes
        device = self.device
        record = device.streams.mark()  # the current stream
        owner = device.allocator.owner_stream(self.ptr)
        if owner is not None and owner is not record:
            # an array made inside a `with stream:` block and read after it: the value it was
            # given there is the value the read returns (its stream drained first)
            device.synchronize_stream(owner)
        device.synchronize_stream(record, read=(out.ctypes.data, self.ptr + offset_bytes, n) if n else None)
        return out

    def copy_from_device(self, src, nbytes, dst_offset=0, src_offset=0):
        self.version += 1
        if nbytes:
            self.device.make_current()
            hip.memcpy_dtod_async(self.ptr + dst_offset, src.ptr + src_offset, nbytes, self.device.stream)

    def read_int64(self):
        if self.device.capture is not None:
            self.device.capture.refuse("a read of device memory to the host")
        out = np.zeros(1, np.int64)
        self.device.settle_collectives()
        self.device.make_current()
        hip.memcpy_dtoh_async(out.ctypes.data, self.ptr, 8, self.device.stream)
        hip.stream_synchronize(self.device.stream)
        return int(out[0])


class StorageSlice:
    """``size`` elements of ``dtype`` from the start of ``buffer``."""

    __slots__ = ("buffer", "dtype", "device", "size", "ptr")

    def __init__(self, buffer, dtype, size):
        self.buffer = buffer
        self.dtype = dtype
        self.device = buffer.device
        self.size = size
        self.ptr = buffer.ptr  # read on every launch: a plain slot, not a property

    @classmethod
    def empty(cls, device, dtype, size):
        nbytes = size * dtype.itemsize
        ptr, capacity = device.allocator.allocate(nbytes)
        return cls(DeviceBuffer(device, ptr, nbytes, capacity), dtype, size)

    def __repr__(self):
        return f"{type(self).__name__}({self.device.name}, {self.dtype}, size={self.size})"
