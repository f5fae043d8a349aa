"""[runtime] A device's streams: its own stream and those users make (``candlewick.Stream``),
which one each host thread queues its work on now, and the fences the allocator puts
between them.

Every queue of work reads the calling thread's current stream (``device.stream``, the
launcher, the library handles): the device's own stream unless the thread entered
``with stream:``. Reading it marks the stream used (``last_use``, against the
allocator's clock), which is how the allocator knows which streams may still use a freed
block (``runtime/allocator.py``).

A stream record (``StreamRecord``) lives as long as its device: when the user's stream
object goes, its record waits among the spares for the next ``Stream()``, with its pool
of cached blocks and its library handles, so that making streams in a loop neither
leaks HIP streams nor strands memory (PyTorch keeps a pool of streams for the same
reason). Work still queued on a spare stream runs; a new user of it queues behind it.
"""

import ctypes
import threading

from ..bindings import hip, hip_ctypes


class StreamRecord:
    """One HIP stream of a device and what belongs to it: the allocator's pool of blocks
    freed on it, its library handles and per-stream state of the op families
    (``state``, by name: a hipBLAS handle, a reduction's scratch, ...)."""

    __slots__ = ("handle", "ptr", "arg", "sync", "last_use", "free", "state", "index")

    def __init__(self, handle, free, index):
        self.handle = handle  # hip-python's hipStream_t
        self.ptr = int(handle) if hip_ctypes.has_int(handle) else None
        self.arg = ctypes.c_void_p(self.ptr) if self.ptr is not None else None  # for ctypes launches
        self.sync = hip_ctypes.stream_sync_function(handle)
        self.last_use = -1  # the allocator's clock when work was last queued here (-1: never)
        self.free = free  # rounded size -> [pointer ints]: the allocator's pool of this stream
        self.state = {}
        self.index = index  # 0 for the device's own stream, then in order of creation

    def __repr__(self):
        return f"StreamRecord({self.index}, 0x{self.ptr or 0:x})"


class _Current(threading.local):
    """Per host thread: the stream its work goes to, and the protocol object standing for
    it (``RocmDevice.current_stream``; it keeps a user's stream alive while current)."""

    def __init__(self, default):
        self.stream = default
        self.owner = None


class DeviceStreams:
    """The streams of one device (``device.streams``)."""

    def __init__(self, device, default_pool):
        self.device = device
        device.make_current()
        self.default = StreamRecord(hip.create_stream(), default_pool, 0)
        #: every record made (the default first); only appended to
        self.records = [self.default]
        self.current = _Current(self.default)
        self._spare = []
        self._events = []  # events without timing, free for the next fence
        self._lock = threading.Lock()

    def new(self):
        """A record for a new user stream: a spare one, else a new HIP stream."""
        with self._lock:
            if self._spare:
                return self._spare.pop()
        self.device.make_current()
        record = StreamRecord(hip.create_stream(), {}, len(self.records))
        with self._lock:
            record.index = len(self.records)
            self.records.append(record)
        self.device.allocator.use_streams(self)
        return record

    def give_back(self, record):
        """The user's stream object of ``record`` is gone: a spare for the next one."""
        if record is not self.default:
            with self._lock:
                self._spare.append(record)

    def use(self, record, owner):
        """Make ``record`` (``owner`` the object standing for it) the calling thread's
        current stream; return the previous (record, owner)."""
        current = self.current
        previous = current.stream, current.owner
        current.stream, current.owner = record, owner
        return previous

    def mark(self):
        """The calling thread's current record, marked used now (``device.stream``)."""
        record = self.current.stream
        record.last_use = self.device.allocator.clock
        return record

    def synchronize_all(self):
        """Wait on the host for every stream of the device."""
        for record in list(self.records):
            record.sync()

    # --- fences between streams (runtime/allocator.py) -------------------------------------------
    def fence(self, owner, since):
        """Events recorded now on each stream other than ``owner`` that was used at or after
        the allocator's clock ``since`` (None when there is none)."""
        fences = None
        for record in self.records:
            if record is not owner and record.last_use >= since:
                if fences is None:
                    fences = []
                    self.device.make_current()
                event = self._event()
                hip.event_record(event, record.handle)
                fences.append(event)
        return fences

    def wait_fences(self, record, fences):
        """Make ``record``'s stream wait for ``fences`` (on the device); None: wait on the
        host. The events are free again once the waits are queued: a wait keeps the state
        of the record it waits for."""
        self.device.make_current()
        for event in fences:
            if record is None:
                hip.event_synchronize(event)
            else:
                hip.stream_wait_event(record.handle, event)
        self.recycle_fences(fences)

    def recycle_fences(self, events):
        with self._lock:
            self._events.extend(events)

    def _event(self):
        with self._lock:
            if self._events:
                return self._events.pop()
        return hip.event_create()
