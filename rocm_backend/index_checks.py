"""Device-side index checks: the error buffer that take/put kernels flag, and the read
at the next synchronization that turns a flag into IndexError naming the operation.

Each queued checking operation gets its own int32 slot of a small device buffer (the
kernel does ``atomicOr(slot, 1)`` for an index outside ``[-n, n)`` and skips it, so
memory is never touched out of bounds). ``synchronize`` snapshots the pending slots
*before* it drains the stream, so every snapshot slot has been written when it is read,
and slots of operations queued by other threads meanwhile stay pending: with several
threads an error is still reported once, naming the operation that caused it.
"""

import threading

import numpy as np

from candlewick import dtypes as dt
from candlewick.errors import IndexOutOfBoundsError

from .error import check

SLOTS = 1024


class IndexChecks:
    def __init__(self, device):
        self.device = device
        self.lock = threading.Lock()
        self.buffer = None  # StorageSlice of SLOTS int32
        self.free = list(range(SLOTS - 1, -1, -1))
        self.pending = []  # (slot, op name), queued and not yet read

    def flag_address(self, op_name):
        """Device address of a fresh int32 slot for one queued operation."""
        while True:
            with self.lock:
                if self.buffer is None:
                    from .storage_slice import StorageSlice

                    self.buffer = StorageSlice.allocate(self.device, 4 * SLOTS, dt.int32)
                    self.buffer.memset(0)
                if self.free:
                    slot = self.free.pop()
                    self.pending.append((slot, op_name))
                    return self.buffer.ptr + 4 * slot
            self.device.synchronize()  # every slot is pending: read them (may raise)

    def snapshot(self):
        """Take the pending checks (call before draining the stream)."""
        with self.lock:
            taken, self.pending = self.pending, []
        return taken

    def raise_flagged(self, taken):
        """After the stream drained: read the slots of ``taken``, reset and free them, and
        raise IndexOutOfBoundsError naming the operations whose slot was set."""
        if not taken:
            return
        from .device import hip_api

        hip = hip_api().hip
        host = np.zeros(SLOTS, np.int32)
        stream = self.device.stream
        check("hipMemcpyDtoHAsync", hip.hipMemcpyDtoHAsync(host.ctypes.data, self.buffer.ptr, host.nbytes, stream))
        check("hipStreamSynchronize", hip.hipStreamSynchronize(stream))
        failed = []
        for slot, name in taken:
            if host[slot]:
                self.buffer.memset(0, 4, 4 * slot)  # queued before any reuse of the slot
                if name not in failed:
                    failed.append(name)
        with self.lock:
            self.free.extend(slot for slot, _ in taken)
        if failed:
            raise IndexOutOfBoundsError(
                f"{' / '.join(failed)} on {self.device.name}: an index was outside the dimension it "
                f"indexes (valid indices are -n..n-1); the offending elements were skipped"
            )
