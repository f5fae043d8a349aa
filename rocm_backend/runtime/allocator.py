"""The caching device allocator: freed blocks are kept by rounded size and handed out again."""

import threading

from candlewick.errors import DeviceMemoryError

from ..bindings import hip
from ..error import RocmOutOfMemory


def round_size(nbytes):
    """Pool buckets: 512-byte steps below 1 MiB, 1 MiB steps above (few distinct sizes)."""
    step = 512 if nbytes < (1 << 20) else (1 << 20)
    return (nbytes + step - 1) // step * step


class CachingAllocator:
    """Reuses freed device blocks of the same rounded size.

    All work of a device runs on its one stream, so a block freed by the host while
    kernels that read it are still queued can be handed out again at once: the next
    user's work is queued behind them. On out-of-memory the cache is released and the
    allocation retried once before DeviceMemoryError.
    """

    def __init__(self, device):
        self._device = device
        self._free = {}  # rounded size -> [pointer ints]
        self._lock = threading.Lock()
        self.cached_bytes = 0
        self.in_use_bytes = 0

    def allocate(self, nbytes):
        """(pointer int, rounded size). Size 0 gives the null pointer. A cache hit is
        one dict lookup and a list pop under the lock (no device call, no sync)."""
        if nbytes <= 0:
            return 0, 0
        size = (nbytes + 511) & ~511 if nbytes < (1 << 20) else (nbytes + 0xFFFFF) & ~0xFFFFF  # round_size
        # acquire/release rather than `with`: half the cost, on every small op's path
        self._lock.acquire()
        try:
            bucket = self._free.get(size)
            if bucket:
                self.cached_bytes -= size
                self.in_use_bytes += size
                return bucket.pop(), size
        finally:
            self._lock.release()
        ptr = self._malloc(size)
        with self._lock:
            self.in_use_bytes += size
        return ptr, size

    def take(self, size):
        """A block of exactly ``size`` (already rounded) bytes for a graph's pool, from the
        cache or hipMalloc, never releasing the cache (that synchronizes, which a capture
        must not): out-of-memory raises DeviceMemoryError at once."""
        with self._lock:
            bucket = self._free.get(size)
            if bucket:
                self.cached_bytes -= size
                self.in_use_bytes += size
                return bucket.pop()
        ptr = self._malloc(size, release_cache=False)
        with self._lock:
            self.in_use_bytes += size
        return ptr

    def route_to(self, pool):
        """Serve ``allocate`` and ``release`` from ``pool`` (a graph's ``GraphPool``, while it
        captures), or again from the cache (None). Instance attributes shadow the methods,
        so the hot path pays nothing for the switch; a buffer keeps the ``release`` it was
        made with, so blocks made during a capture go back to its graph's pool for good."""
        if pool is None:
            self.__dict__.pop("allocate", None)
            self.__dict__.pop("release", None)
        else:
            self.allocate, self.release = pool.allocate, pool.release

    def _malloc(self, size, release_cache=True):
        self._device.make_current()
        try:
            return hip.malloc(size)
        except RocmOutOfMemory as exc:
            if not release_cache:
                raise DeviceMemoryError(self._device.name, size, None, f"{exc} (during a graph capture, "
                                        f"which cannot release the allocator's cache)") from None
            self.release_cache()
            try:
                return hip.malloc(size)
            except RocmOutOfMemory as exc:
                free = None
                try:
                    free = self._device.memory_info()[0]
                except Exception:
                    pass
                raise DeviceMemoryError(self._device.name, size, free, str(exc)) from None

    def release(self, ptr, size):
        """Return a block to the pool (called by a buffer's finalizer, or by a closed
        graph's pool through ``give_back``)."""
        if not size:
            return
        self._lock.acquire()  # as in allocate
        try:
            bucket = self._free.get(size)
            if bucket is None:
                self._free[size] = [ptr]
            else:
                bucket.append(ptr)
            self.cached_bytes += size
            self.in_use_bytes -= size
        finally:
            self._lock.release()

    #: ``release`` that a graph's pool calls: never shadowed by ``route_to``
    give_back = release

    def release_cache(self):
        """hipFree every cached block (after the stream drains: queued work may use them)."""
        with self._lock:
            blocks = [(p, s) for s, ptrs in self._free.items() for p in ptrs]
            self._free.clear()
            self.cached_bytes = 0
        if not blocks:
            return
        self._device.synchronize(check_errors=False)
        for ptr, _ in blocks:
            hip.free(ptr)
