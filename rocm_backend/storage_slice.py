"""A device allocation: pointer, size, dtype and owner device.

The block comes from the device's caching allocator and goes back to it when the last
reference dies (``__del__``: a weakref.finalize per allocation cost several µs on every
small op), so views sharing a storage keep it alive.
"""

import numpy as np

from .error import check


class StorageSlice:
    __slots__ = ("device", "ptr", "nbytes", "dtype", "_capacity", "_release", "version", "finite_at", "probe",
                 "__weakref__")

    def __init__(self, device, ptr, nbytes, capacity, dtype):
        """``capacity`` 0: memory this slice does not own (DLPack imports, size 0)."""
        self.device = device
        self.ptr = ptr
        self.nbytes = nbytes
        self._capacity = capacity
        self.dtype = dtype
        self._release = device.allocator.release if capacity else None
        # bumped by every write into existing memory; finite_at / probe: finite_weights.py
        self.version = 0
        self.finite_at = -1
        self.probe = None

    def __del__(self):
        release = self._release
        if release is not None:
            self._release = None
            release(self.ptr, self._capacity)

    @classmethod
    def allocate(cls, device, nbytes, dtype):
        ptr, capacity = device.allocator.allocate(nbytes)
        return cls(device, ptr, nbytes, capacity, dtype)

    def __repr__(self):
        return f"StorageSlice({self.device.name}, 0x{self.ptr:x}, {self.nbytes} bytes, {self.dtype})"

    # --- transfers (queued on the device stream) -------------------------------
    def memset(self, byte, nbytes=None, offset_bytes=0):
        from .device import hip_api

        n = self.nbytes if nbytes is None else nbytes
        self.version += 1
        if n:
            hip = hip_api().hip
            check("hipMemsetAsync", hip.hipMemsetAsync(self.ptr + offset_bytes, byte, n, self.device.stream))

    def copy_from_host(self, array):
        """Queue a host->device copy of a C-contiguous array into the start of the slice.
        The array must stay alive until the copy ran: the caller keeps it or syncs."""
        from .device import hip_api

        n = array.nbytes
        self.version += 1
        if n:
            hip = hip_api().hip
            check("hipMemcpyHtoDAsync",
                  hip.hipMemcpyHtoDAsync(self.ptr, array.ctypes.data, n, self.device.stream))
            self.device.keep_alive(array)

    def copy_to_host(self, out, offset_bytes=0):
        """Copy ``out.nbytes`` bytes from ``offset_bytes`` into the C-contiguous ``out``,
        waiting for every queued operation first (a synchronizing host read)."""
        from .device import hip_api

        n = out.nbytes
        if n:
            hip = hip_api().hip
            check("hipMemcpyDtoHAsync",
                  hip.hipMemcpyDtoHAsync(out.ctypes.data, self.ptr + offset_bytes, n, self.device.stream))
        self.device.synchronize()
        return out

    def copy_from_device(self, src, nbytes, dst_offset=0, src_offset=0):
        from .device import hip_api

        self.version += 1
        if nbytes:
            hip = hip_api().hip
            check("hipMemcpyDtoDAsync", hip.hipMemcpyDtoDAsync(
                self.ptr + dst_offset, src.ptr + src_offset, nbytes, self.device.stream))

    def read_int64(self):
        out = np.zeros(1, np.int64)
        from .device import hip_api

        hip = hip_api().hip
        check("hipMemcpyDtoHAsync", hip.hipMemcpyDtoHAsync(out.ctypes.data, self.ptr, 8, self.device.stream))
        check("hipStreamSynchronize", hip.hipStreamSynchronize(self.device.stream))
        return int(out[0])
