"""[runtime] The device memory a captured graph owns: every block allocated while it was
captured.

A graph's kernels read and write fixed addresses at every replay, so the blocks it
allocated (its outputs and intermediates) must never be handed to other work while the
graph lives, even after the arrays that held them are gone. While a capture runs, the
device's allocator is routed here (``CachingAllocator.route_to``): a block comes from
the pool's own free list (a block freed earlier in the same capture: the graph replays
its kernels in capture order, so reusing it is as safe as in eager mode), else from the
allocator's cache, else from hipMalloc (relaxed capture mode allows it). A block freed
while the graph lives returns to the graph's free list; ``close`` (the graph destroyed)
gives the free blocks back to the allocator, and blocks still held by arrays go back
when those arrays die.
"""

import threading

from candlewick.errors import GraphCaptureError

from .allocator import round_size


class GraphPool:
    def __init__(self, allocator, device_name):
        self._allocator = allocator
        self._device_name = device_name
        self._owner = threading.get_ident()
        self._lock = threading.Lock()
        self._free = {}  # rounded size -> [pointer ints] of blocks no array holds
        self.owned = {}  # pointer -> rounded size of every block the graph holds
        self.closed = False

    @property
    def owned_bytes(self):
        return sum(self.owned.values())

    def allocate(self, nbytes):
        """(pointer, rounded size), as ``CachingAllocator.allocate``; only the capturing thread."""
        if threading.get_ident() != self._owner:
            raise GraphCaptureError(
                f"{self._device_name} is capturing a graph in another thread: its stream belongs to that "
                f"capture until it ends, so other threads must not queue work on {self._device_name} meanwhile")
        if nbytes <= 0:
            return 0, 0
        size = round_size(nbytes)
        with self._lock:
            bucket = self._free.get(size)
            if bucket:
                return bucket.pop(), size
        ptr = self._allocator.take(size)
        with self._lock:
            self.owned[ptr] = size
        return ptr, size

    def release(self, ptr, size):
        """A block the graph owns is free again: kept for the graph while it lives."""
        if not size:
            return
        with self._lock:
            if not self.closed:
                self._free.setdefault(size, []).append(ptr)
                return
            self.owned.pop(ptr, None)
        self._allocator.give_back(ptr, size)

    def close(self):
        """The graph is gone: its free blocks go back to the allocator's cache (blocks arrays
        still hold follow when those arrays die)."""
        with self._lock:
            if self.closed:
                return
            self.closed = True
            blocks = [(ptr, size) for size, ptrs in self._free.items() for ptr in ptrs]
            self._free = {}
            for ptr, _ in blocks:
                self.owned.pop(ptr, None)
        for ptr, size in blocks:
            self._allocator.give_back(ptr, size)
