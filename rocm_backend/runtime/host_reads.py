"""[runtime] Host reads that wait only for the work queued before them.

A synchronizing read (``DeviceBuffer.copy_to_host``) drains the whole stream. Where a
call must look at a few device values (the ``info`` ints of a factorization) but has
more kernels to queue after the values are written, ``queue_read`` copies them into
pinned host memory and records an event behind the copy; the call queues the rest and
then ``PendingRead.values()`` waits for that event alone, so the kernels queued after it
run while the host returns and issues the next call. (A batched Cholesky that read its
``info`` at the end waited for the triangle-zeroing pass too: up to a third of the call
on an H200.)

A drain of the stream serves such a read too: the index checks' flags are queued this way
before the stream a host read drains is waited for, and read after it with ``values(drained=True)``
(no second copy and wait, runtime/index_checks.py).

Pinned slots and events are made once per device and reused; a slot is taken from the
read's queuing to its ``values()`` (threads each take their own).
"""

import ctypes
import threading

import numpy as np

from ..bindings import hip

_MIN_SLOT_BYTES = 4096
#: the largest synchronizing read copied through a pinned slot (copy_staged); past it the
#: extra host copy costs more than the runtime's staging saves
STAGED_MAX = 1 << 16


class _Slot:
    __slots__ = ("host", "nbytes", "event")

    def __init__(self, device, nbytes):
        self.host, _ = device.host_mapped(nbytes)
        self.nbytes = nbytes
        self.event = hip.event_create()


class PendingRead:
    """``count`` values of ``dtype`` on their way to the host; ``values()`` waits for them."""

    __slots__ = ("_reads", "_slot", "_count", "_dtype")

    def __init__(self, reads, slot, count, dtype):
        self._reads, self._slot, self._count, self._dtype = reads, slot, count, dtype

    def values(self, drained=False):
        """A host copy of the values (waits for the copy, not for later work; ``drained``:
        the stream the copy was queued on has been waited for since, so nothing to wait for)."""
        slot = self._slot
        if slot is None:
            return np.empty(0, self._dtype)
        if not drained:
            self._reads.device.settle_collectives()
            hip.event_synchronize(slot.event)
        raw = (ctypes.c_char * (self._count * self._dtype.itemsize)).from_address(slot.host)
        out = np.frombuffer(raw, self._dtype).copy()
        self._slot = None
        self._reads.give_back(slot)
        return out


class HostReads:
    """One device's pinned slots for ``queue_read``."""

    def __init__(self, device):
        self._device = self.device = device
        self._free = []
        self._lock = threading.Lock()

    def queue_read(self, ptr, count, dtype, stream=None):
        """Queue a copy of ``count`` ``dtype`` values at device address ``ptr`` to the host
        on ``stream`` (a hip stream handle; the current stream where None)."""
        device, dtype = self._device, np.dtype(dtype)
        if device.capture is not None:
            device.capture.refuse("a read of device memory to the host")
        nbytes = count * dtype.itemsize
        if not nbytes:
            return PendingRead(self, None, 0, dtype)
        slot = self._take(nbytes)
        device.make_current()
        if stream is None:
            stream = device.stream
        hip.memcpy_dtoh_async(slot.host, ptr, nbytes, stream)
        hip.event_record(slot.event, stream)
        return PendingRead(self, slot, count, dtype)

    def copy_staged(self, host_address, ptr, nbytes, stream):
        """Queue a synchronizing read's copy of ``nbytes`` at device address ``ptr`` on
        ``stream``, to be waited for by the caller's drain of it; returns the call that puts
        the bytes at ``host_address`` after that drain, or None where the copy lands there
        itself (a read past STAGED_MAX, copied straight in). A small read goes through a pinned
        slot: a copy into pageable memory is staged by the runtime and waited for inside
        the copy call (LinearDiscriminantAnalysis's 20 reads a fit on the H200 were
        "Device -> Pageable" copies, PyTorch's "Device -> Pinned")."""
        if nbytes > STAGED_MAX:
            hip.memcpy_dtoh_async(host_address, ptr, nbytes, stream)
            return None
        slot = self._take(nbytes)
        hip.memcpy_dtoh_async(slot.host, ptr, nbytes, stream)

        def finish():
            ctypes.memmove(host_address, slot.host, nbytes)
            self.give_back(slot)
        return finish

    def _take(self, nbytes):
        with self._lock:
            for i, slot in enumerate(self._free):
                if slot.nbytes >= nbytes:
                    return self._free.pop(i)
        self._device.make_current()
        return _Slot(self._device, max(_MIN_SLOT_BYTES, 1 << (nbytes - 1).bit_length()))

    def give_back(self, slot):
        with self._lock:
            self._free.append(slot)
