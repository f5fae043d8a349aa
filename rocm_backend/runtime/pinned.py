"""[runtime] Page-locked (pinned) host memory of a device: the blocks ``candlewick.pinned_empty``
and non-blocking copies use, cached for reuse, and the arrays over them.

A copy between pinned memory and the device runs at the link's full speed and returns
before it ran (a copy from ordinary, pageable memory is staged through the runtime's own
pinned buffers first, and waits for that). So a pinned block may still be read or written
by a queued copy when the host lets go of it: each copy records an event on its stream
into the block's list, and a cached block is handed out again only once those events
have completed (PyTorch's caching host allocator does the same). ``find`` tells whether
an address lies in a live block, which is how an upload knows that its source is pinned.

The arrays over blocks (DLPack producers the cpu device imports without a copy) and the
copies are ``families/host_copies.py``.
"""

import bisect
import threading

from ..bindings import hip, hip_streams


def round_size(nbytes):
    """Pinned buckets: 512-byte steps below 1 MiB, 1 MiB steps above (few distinct sizes:
    hipHostMalloc costs far more than a device block's hipMalloc)."""
    step = 512 if nbytes < (1 << 20) else (1 << 20)
    return (nbytes + step - 1) // step * step


class PinnedBlock:
    """One hipHostMalloc allocation: its address, its rounded size, the events of copies
    queued on it that may not have run yet."""

    __slots__ = ("address", "capacity", "events")

    def __init__(self, address, capacity):
        self.address, self.capacity, self.events = address, capacity, []


class PinnedPool:
    """One device's pinned blocks (``device.pinned``): cached by rounded size, found by address."""

    def __init__(self, device):
        self._device = device
        self._lock = threading.Lock()
        self._free = {}  # capacity -> [PinnedBlock]
        self._starts = []  # sorted addresses of every block not given back to the runtime
        self._blocks = {}  # address -> PinnedBlock
        self.bytes = 0  # held: in use or cached

    def take(self, nbytes):
        """A block of at least ``nbytes``: a cached one whose copies have run, else a new one."""
        size = round_size(max(int(nbytes), 1))
        with self._lock:
            bucket = self._free.get(size)
            block = bucket.pop() if bucket else None
        if block is None:
            self._device.make_current()
            address = hip_streams.host_malloc(size)
            block = PinnedBlock(address, size)
            with self._lock:
                bisect.insort(self._starts, address)
                self._blocks[address] = block
                self.bytes += size
        elif block.events:
            self._settle(block)
        return block

    def _settle(self, block):
        """Wait on the host for the copies queued on a cached block (usually long done)."""
        events, block.events = block.events, []
        self._device.make_current()
        for event in events:
            hip.event_synchronize(event)
        self._device.streams.recycle_fences(events)

    def give_back(self, block):
        with self._lock:
            self._free.setdefault(block.capacity, []).append(block)

    def find(self, address, nbytes):
        """The live block holding ``[address, address + nbytes)``, else None."""
        starts = self._starts
        if not starts:
            return None
        with self._lock:
            i = bisect.bisect_right(starts, address) - 1
            if i < 0:
                return None
            block = self._blocks[starts[i]]
        return block if address + nbytes <= block.address + block.capacity else None

    def record_use(self, block, record):
        """A copy touching ``block`` was just queued on the stream ``record``: the block is
        not reused before it has run."""
        event = self._device.streams._event()
        hip.event_record(event, record.handle)
        block.events.append(event)

    def wait_upload(self, address, nbytes, record):
        """After an upload from ``address`` queued on ``record``'s stream: True, having
        waited for it, when that memory is pinned (a copy from pinned memory returns before
        it ran, and an ordinary upload must leave its source free to change, as NumPy's
        users expect); False for pageable memory (the runtime staged it already)."""
        block = self.find(address, nbytes)
        if block is None:
            return False
        self.record_use(block, record)
        hip.event_synchronize(block.events[-1])
        return True

    def release_cache(self):
        """hipHostFree every cached block (the runtime waits for the device first)."""
        with self._lock:
            blocks = [block for bucket in self._free.values() for block in bucket]
            self._free = {}
            for block in blocks:
                self._starts.remove(block.address)
                del self._blocks[block.address]
                self.bytes -= block.capacity
        if blocks:
            self._device.make_current()
        for block in blocks:
            if block.events:
                self._settle(block)
            hip_streams.host_free(block.address)
