"""[runtime] Device-side index checks: the error buffer that take/put kernels flag, and the read
at the next synchronization that turns a flag into IndexError naming the operation.

Each queued checking operation gets its own int32 slot of a small device buffer (the
kernel does ``atomicOr(slot, 1)`` for an index outside ``[-n, n)`` and skips it, so
memory is never touched out of bounds; scatters check all their indices first and then
write nothing). Pending slots are kept per Python thread: a
thread's ``synchronize`` snapshots *its own* pending slots before it drains the stream
(so each of them has been written when it is read) and raises for those only; with
several threads, an error is reported once, in the thread that queued the operation,
naming it. When every slot is pending, the thread that needs one drains the stream and
reads all of them.

Graphs: a slot taken while a capture runs belongs to the captured graph (``capture_slots``
collects them; they are not pending, since the captured kernels have not run). Each
replay makes them pending for the replaying thread (``rearm``), so the next
synchronization raises for an index a replay found out of range; reading them never frees
them (``kept``) until the graph is destroyed (``release_kept``).
"""

import threading

import numpy as np

from candlewick.errors import IndexOutOfBoundsError

from ..bindings import hip
from ..storage_slice import DeviceBuffer

SLOTS = 1024


class IndexChecks:
    def __init__(self, device):
        self.device = device
        self.lock = threading.Lock()
        self.buffer = None  # DeviceBuffer of SLOTS int32
        self.free = list(range(SLOTS - 1, -1, -1))
        self.pending = {}  # thread id -> [(slot, op name)], queued and not yet read
        self.capture_slots = None  # [(slot, op name)] taken during a capture, else None
        self.kept = set()  # slots graphs own: read after replays, never freed by the read

    def flag_address(self, op_name):
        """Device address of a fresh int32 slot for one queued operation."""
        while True:
            with self.lock:
                if self.buffer is None:
                    self.buffer = DeviceBuffer.allocate(self.device, 4 * SLOTS)
                    self.buffer.memset(0)
                if self.free:
                    slot = self.free.pop()
                    if self.capture_slots is not None:
                        self.capture_slots.append((slot, op_name))
                        self.kept.add(slot)
                    else:
                        self.pending.setdefault(threading.get_ident(), []).append((slot, op_name))
                    return self.buffer.ptr + 4 * slot
            # every slot is pending (threads that never synchronize): read them all
            taken = self.snapshot(every_thread=True)
            self.device.settle_collectives()
            self.device.make_current()
            hip.stream_synchronize(self.device.stream)
            self.raise_flagged(taken)

    def ensure_buffer(self):
        """Allocate and zero the slots now (before a capture: lazily, the zeroing would
        be captured and never run eagerly)."""
        with self.lock:
            if self.buffer is None:
                self.buffer = DeviceBuffer.allocate(self.device, 4 * SLOTS)
                self.buffer.memset(0)

    def rearm(self, slots):
        """A replay of a graph owning ``slots`` was queued: read them at the next sync."""
        if slots:
            with self.lock:
                self.pending.setdefault(threading.get_ident(), []).extend(slots)

    def release_kept(self, slots):
        """The graph owning ``slots`` is gone: zero them (queued) and free them."""
        if not slots:
            return
        for slot, _ in slots:
            self.buffer.memset(0, 4, 4 * slot)
        with self.lock:
            for slot, _ in slots:
                self.kept.discard(slot)
            self.free.extend(slot for slot, _ in slots)

    def snapshot(self, every_thread=False):
        """Take the calling thread's pending checks (call before draining the stream)."""
        with self.lock:
            if every_thread:
                taken = [item for items in self.pending.values() for item in items]
                self.pending = {}
            else:
                taken = self.pending.pop(threading.get_ident(), [])
        return taken

    def raise_flagged(self, taken):
        """After the stream drained: read the slots of ``taken``, reset and free them, and
        raise IndexOutOfBoundsError naming the operations whose slot was set."""
        if not taken:
            return
        host = np.zeros(SLOTS, np.int32)
        stream = self.device.stream
        self.device.make_current()
        hip.memcpy_dtoh_async(host.ctypes.data, self.buffer.ptr, host.nbytes, stream)
        hip.stream_synchronize(stream)
        failed = []
        for slot, name in taken:
            if host[slot]:
                self.buffer.memset(0, 4, 4 * slot)  # queued before any reuse of the slot
                if name not in failed:
                    failed.append(name)
        with self.lock:
            self.free.extend({slot for slot, _ in taken} - self.kept)
        if failed:
            raise IndexOutOfBoundsError(
                f"{' / '.join(failed)} on {self.device.name}: an index was outside the dimension it "
                f"indexes (valid indices are -n..n-1); a scatter, scatter_add or index_add with such "
                f"an index wrote nothing"
            )
