"""[runtime] Device-side index checks: the error buffer that take/put kernels flag, and the read
at the next synchronization that turns a flag into IndexError naming the operation.

Each queued checking operation gets its own int32 slot of a small device buffer (the
kernel does ``atomicOr(slot, 1)`` for an index outside ``[-n, n)`` and skips it, so
memory is never touched out of bounds; scatters check all their indices first and then
write nothing). Pending slots are kept per Python thread: a
thread's ``synchronize`` snapshots *its own* pending slots before it drains the stream
(so each of them has been written when it is read) and raises for those only; with
several threads, an error is reported once, in the thread that queued the operation,
naming it. Each pending slot remembers the stream its operation was queued on: a drain
of one stream (a host read, ``Stream.synchronize``) reads the slots of that stream only.
The copy of the slots to the host is queued on that stream before it is waited for
(``queue_flags``), so one wait serves the drain (a host read's copy included) and the
check: read after the wait with a wait of its own, a host read took two round trips.
When every slot is pending, the thread that needs one drains every stream and reads all
of them.

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
        self.pending = {}  # thread id -> [(slot, op name, stream record)], queued and not yet read
        self.capture_slots = None  # [(slot, op name)] taken during a capture, else None
        self.kept = set()  # slots graphs own: read after replays, never freed by the read

    def flag_address(self, op_name):
        """Device address of a fresh int32 slot for one queued operation."""
        while True:
            with self.lock:
                if self.buffer is None:
                    self._make_buffer()
                if self.free:
                    slot = self.free.pop()
                    if self.capture_slots is not None:
                        self.capture_slots.append((slot, op_name))
                        self.kept.add(slot)
                    else:
                        self.pending.setdefault(threading.get_ident(), []).append(
                            (slot, op_name, self.device.streams.current.stream))
                    return self.buffer.ptr + 4 * slot
            # every slot is pending (threads that never synchronize): read them all
            taken = self.snapshot(every_thread=True)
            self.device.settle_collectives()
            self.device.make_current()
            self.device.streams.synchronize_all()
            self.raise_flagged(taken)

    def ensure_buffer(self):
        """Allocate and zero the slots now (before a capture: lazily, the zeroing would
        be captured and never run eagerly)."""
        with self.lock:
            if self.buffer is None:
                self._make_buffer()

    def _make_buffer(self):
        """The slots, zeroed before any kernel flags one (lock held): stream order does it
        for the stream that zeroes them; with other streams the zeroing is waited for."""
        buffer = DeviceBuffer.allocate(self.device, 4 * SLOTS)
        buffer.memset(0)
        if len(self.device.streams.records) > 1:
            hip.stream_synchronize(self.device.stream)
        self.buffer = buffer

    def rearm(self, slots):
        """A replay of a graph owning ``slots`` ((slot, op name) pairs) was queued on the
        current stream: read them at the next sync."""
        if slots:
            record = self.device.streams.current.stream
            with self.lock:
                self.pending.setdefault(threading.get_ident(), []).extend(
                    (slot, name, record) for slot, name in slots)

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

    def snapshot(self, record=None, every_thread=False):
        """Take the calling thread's pending checks, those queued on the stream ``record``
        or (None) all of them (call before draining the stream or streams)."""
        with self.lock:
            if every_thread:
                taken = [item for items in self.pending.values() for item in items]
                self.pending = {}
            elif record is None:
                taken = self.pending.pop(threading.get_ident(), [])
            else:
                mine = self.pending.get(threading.get_ident(), [])
                taken = [item for item in mine if item[2] is record]
                if taken:
                    self.pending[threading.get_ident()] = [item for item in mine if item[2] is not record]
        return taken

    def queue_flags(self, taken):
        """Before the drain that reads ``taken`` (a snapshot): the copy of their slots to
        the host queued on their stream, read by ``raise_flagged`` once the stream drained;
        None where they were queued on several streams (read after the drain then)."""
        if not taken:
            return None
        record = taken[0][2]
        if any(item[2] is not record for item in taken):
            return None
        count = max(slot for slot, _, _ in taken) + 1
        return self.device.host_reads.queue_read(self.buffer.ptr, count, np.int32, record.handle)

    def raise_flagged(self, taken, queued=None):
        """After the stream drained: read the slots of ``taken`` (``queued``: from the copy
        ``queue_flags`` queued before the drain), reset and free them, and raise
        IndexOutOfBoundsError naming the operations whose slot was set."""
        if not taken:
            return
        stream = self.device.stream
        if queued is not None:
            host = queued.values(drained=True)
        else:
            host = np.zeros(SLOTS, np.int32)
            self.device.make_current()
            hip.memcpy_dtoh_async(host.ctypes.data, self.buffer.ptr, host.nbytes, stream)
            hip.stream_synchronize(stream)
        failed = []
        for slot, name, _ in taken:
            if host[slot]:
                self.buffer.memset(0, 4, 4 * slot)
                if name not in failed:
                    failed.append(name)
        if failed:  # the zeroing must have run before another stream's kernel takes the slot
            hip.stream_synchronize(stream)
        with self.lock:
            self.free.extend({slot for slot, _, _ in taken} - self.kept)
        if failed:
            raise IndexOutOfBoundsError(
                f"{' / '.join(failed)} on {self.device.name}: an index was outside the dimension it "
                f"indexes (valid indices are -n..n-1); a scatter, scatter_add or index_add with such "
                f"an index wrote nothing"
            )
