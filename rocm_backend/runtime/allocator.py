"""[runtime] The caching device allocator: freed blocks are kept by rounded size and handed
out again."""

from candlewick.errors import DeviceMemoryError

from ..bindings import hip
from ..error import RocmOutOfMemory


_ADDRESSABLE_BYTES = 2**63 - 1


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

    No lock on the hot path: a block moves between the cache and its user only by
    ``list.pop`` and ``list.append`` on its size's list, each atomic, so every cached
    pointer is taken by exactly one caller (an allocation or ``release_cache``); a
    size's list, once made, stays in the dict (``setdefault`` makes it atomically).
    """

    def __init__(self, device):
        self._device = device
        self._free = {}  # rounded size -> [pointer ints]

    @property
    def cached_bytes(self):
        """Bytes of the blocks held in the cache (free for reuse)."""
        return sum(size * len(ptrs) for size, ptrs in list(self._free.items()))

    def allocate(self, nbytes):
        """(pointer int, rounded size). Size 0 gives the null pointer. A cache hit is
        one dict lookup and one list pop (no lock, no device call, no sync)."""
        if nbytes <= 0:
            return 0, 0
        size = (nbytes + 511) & ~511 if nbytes < (1 << 20) else (nbytes + 0xFFFFF) & ~0xFFFFF  # round_size
        bucket = self._free.get(size)
        if bucket:
            try:
                return bucket.pop(), size
            except IndexError:  # another thread took the last block meanwhile
                pass
        return self._malloc(size), size

    def take(self, size):
        """A block of exactly ``size`` (already rounded) bytes for a graph's pool, from the
        cache or hipMalloc, never releasing the cache (that synchronizes, which a capture
        must not): out-of-memory raises DeviceMemoryError at once."""
        bucket = self._free.get(size)
        if bucket:
            try:
                return bucket.pop()
            except IndexError:
                pass
        return self._malloc(size, release_cache=False)

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
        if size > _ADDRESSABLE_BYTES:
            # hipMalloc's size_t cannot hold it (hip-python raises OverflowError): a result no
            # device holds, reported as every failed allocation is (a copy of a huge
            # broadcast view asks this; the front end's size check stops the rest)
            raise DeviceMemoryError(self._device.name, size, None, "larger than any allocation can be")
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
        bucket = self._free.get(size)
        if bucket is None:
            bucket = self._free.setdefault(size, [])
        bucket.append(ptr)

    #: ``release`` that a graph's pool calls: never shadowed by ``route_to``
    give_back = release

    def release_cache(self):
        """hipFree every cached block (after the stream drains: queued work may use them)."""
        blocks = []
        for ptrs in list(self._free.values()):
            while True:
                try:
                    blocks.append(ptrs.pop())
                except IndexError:
                    break
        if not blocks:
            return
        self._device.synchronize(check_errors=False)
        for ptr in blocks:
            hip.free(ptr)
