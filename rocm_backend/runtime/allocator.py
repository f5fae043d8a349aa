"""[runtime] The caching device allocator: freed blocks are kept by rounded size and stream and
handed out again; its statistics, its limit and its out-of-memory rule.

Sizes: blocks are the request in 512-byte steps (``round_size``); a request of 1 MiB or more
that finds no cached block of its size takes the smallest cached one at most ``fit_slack``
larger (counted in that block's size) before it asks hipMalloc.

Streams (``runtime/streams.py``): a block belongs to the stream that was current when it
was allocated, and a freed block is handed out again only on that stream (CuPy's pool
per stream, PyTorch's caching allocator): the next user's work is queued behind the
freed block's last uses on that stream. Work on *other* streams may also have used the
block (an array made on one stream and read on another); a block freed after another
stream was used in its lifetime gets a fence: an event recorded on each such stream at
the free, which the block's stream waits for (on the device, ``hipStreamWaitEvent``)
when it takes the block again. Which streams were used in a block's lifetime is read
from the streams' ``last_use`` marks (set by every queue of work, against this
allocator's ``clock``, which counts allocations), so no launch has to name the blocks it
touches. Until a device makes its first stream beyond its own, none of this runs: one
pool, no clock, no fences.

Statistics (``stats``; ``torch.cuda.memory_stats`` and CuPy's ``MemoryPool`` report the
same): bytes of blocks in use (rounded sizes, including the blocks a captured graph
owns) and their high-water mark (``reset_peak``), bytes cached, bytes taken from the
device (``hipMalloc``) and their high-water mark, counts. They are kept under one lock
taken once per allocation and once per release.

Out of memory (``hipMalloc`` failing, or the ``limit`` of ``set_memory_limit`` reached):
the cache is released (every cached block ``hipFree``d, after the device's streams
drain) and the allocation retried once; then ``DeviceMemoryError`` says what was asked,
what is free, and what candlewick holds in arrays and in the cache.
"""

from candlewick.allocation import byte_text, held_text
from candlewick.errors import DeviceMemoryError

from ..bindings import hip
from ..error import RocmOutOfMemory
from .block_cache import block_cache


_ADDRESSABLE_BYTES = 2**63 - 1


def round_size(nbytes):
    """A block's size: ``nbytes`` in 512-byte steps (PyTorch's caching allocator hands out
    blocks of the same sizes, so the two count the same bytes for the same arrays)."""
    return (nbytes + 511) & ~511


#: requests from this size on may take a cached block somewhat larger than theirs when no
#: block of their own size is cached (``fit``): arrays whose sizes vary a little from call
#: to call (a mask's rows) reuse blocks instead of asking hipMalloc each time
FIT_FROM = 1 << 20


#: request sizes whose last fitted block size ``_fit`` remembers (cleared past it)
FITTED_SIZES = 256


def fit_slack(size):
    """How many bytes larger than ``size`` a cached block it takes may be: 1/32 of it, and
    under 1 MiB. (Buckets of 1 MiB steps, as this allocator had, held up to 1 MiB more
    per block than PyTorch: 39 MiB for scipy.fft's three (781, 4096) arrays against 36.6.)"""
    return min(size >> 5, (1 << 20) - 512)


class CachingAllocator:
    """Reuses freed device blocks of the same rounded size (module docstring)."""

    def __init__(self, device):
        self._device = device
        self._free = {}  # the device's own stream's pool: rounded size -> [pointer ints]
        self._fitted = {}  # rounded size -> the larger cached size _fit last gave it
        # its hit path and the counts of blocks handed out, under the lock (block_cache.py)
        self._blocks, self._lock = block_cache(self._free)
        self._streams = None  # runtime/streams.DeviceStreams once the device has a second stream
        self._owner = {}  # pointer -> (stream record, clock at allocation), streams only
        self._fences = {}  # pointer -> [(event, stream record)] a cached block waits for
        #: counts allocations once the device has streams (``last_use`` marks compare to it)
        self.clock = 0
        #: the most bytes this allocator may take from the device (None: no limit)
        self.limit = None
        self.reserved = self.peak_reserved = self.device_allocations = self.cache_flushes = 0

    # --- statistics and control ----------------------------------------------------------
    @property
    def cached_bytes(self):
        """Bytes of the blocks held in the cache (free for reuse)."""
        with self._lock:
            return sum(size * len(ptrs) for pool in self._pools() for size, ptrs in pool.items())

    def stats(self):
        """The counters of ``memory_stats`` (the protocol's keys, in bytes and counts)."""
        cached = self.cached_bytes
        blocks = self._blocks
        with self._lock:
            return {
                "in_use_bytes": blocks.in_use, "peak_in_use_bytes": blocks.peak_in_use,
                "cached_bytes": cached, "reserved_bytes": self.reserved,
                "peak_reserved_bytes": self.peak_reserved, "active_blocks": blocks.active,
                "allocations": blocks.allocations, "device_allocations": self.device_allocations,
                "cache_flushes": self.cache_flushes, "limit_bytes": self.limit,
            }

    def reset_peak(self):
        """Start the high-water marks again from what is held now."""
        with self._lock:
            self._blocks.peak_in_use, self.peak_reserved = self._blocks.in_use, self.reserved

    def set_limit(self, nbytes):
        """At most ``nbytes`` taken from the device from now on (None: no limit); blocks
        already taken stay (the next allocation over the limit releases the cache)."""
        self.limit = nbytes

    def _pools(self):
        """Every stream's pool (the lock is held)."""
        if self._streams is None:
            return [self._free]
        return [record.free for record in self._streams.records]

    # --- allocation -------------------------------------------------------------------------
    def allocate(self, nbytes):
        """(pointer int, rounded size). Size 0 gives the null pointer. A cache hit is one
        dict lookup and one list pop under the lock (no device call, no sync)."""
        if nbytes <= 0:
            return 0, 0
        size = (nbytes + 511) & ~511  # round_size
        if size > _ADDRESSABLE_BYTES:
            raise self._too_large(size)
        if self._streams is not None:
            return self._allocate_on_stream(size)
        ptr = self._blocks.take(size)
        if not ptr:
            if size >= FIT_FROM:
                with self._lock:
                    ptr, size = self._fit(self._free, size)
            if not ptr:
                ptr = self._malloc_counted(size)
        return ptr, size

    def _fit(self, pool, size):
        """(pointer, size) of a cached block of ``pool`` larger than ``size`` by at most
        ``fit_slack`` (the smallest, unless one of the size taken last time is cached),
        recounted as handed out in its own size (``size`` was counted already), or
        (0, size) where none is cached (the lock is held).

        The size a request took last time is tried first (``_fitted``), before the scan of
        every cached size: a request that recurs without a block of its own size (irfft's
        (781, 4096) float32 output, 6 KiB under the complex spectra's blocks, while the
        previous call's output is still held, takes a spectrum's block every call) costs a
        dict hit, not a pass over a pool that holds every size the process has freed."""
        best = self._fitted.get(size, 0)
        if not pool.get(best):
            top = size + fit_slack(size)
            best = 0
            for cached, ptrs in pool.items():
                if ptrs and size < cached <= top and (not best or cached < best):
                    best = cached
            if not best:
                return 0, size
            if len(self._fitted) >= FITTED_SIZES:  # sizes that vary call to call: start again
                self._fitted.clear()
            self._fitted[size] = best
        blocks = self._blocks
        blocks.in_use += best - size
        if blocks.in_use > blocks.peak_in_use:
            blocks.peak_in_use = blocks.in_use
        return pool[best].pop(), best

    def _malloc_counted(self, size, release_cache=True):
        """hipMalloc for a block already counted as handed out (uncounted if it fails)."""
        try:
            return self._malloc(size, release_cache)
        except BaseException:
            with self._lock:
                self._blocks.count_in(size)
            raise

    def _allocate_on_stream(self, size):
        """``allocate`` once the device has streams: (pointer, size) from the current
        stream's pool, waiting (on the device) for the fences of the block taken."""
        streams = self._streams
        record = streams.current.stream
        with self._lock:
            bucket = record.free.get(size)
            ptr = bucket.pop() if bucket else 0
            self._blocks.count_out(size)
            if not ptr and size >= FIT_FROM:
                ptr, size = self._fit(record.free, size)
            fences = self._fences.pop(ptr, None) if ptr else None
            self.clock += 1
            owner = (record, self.clock)
        if not ptr:
            ptr = self._malloc_counted(size)
        self._owner[ptr] = owner
        if fences:
            streams.wait_fences(record, fences)
        return ptr, size

    def take(self, size):
        """A block of exactly ``size`` (already rounded) bytes for a graph's pool, from the
        cache or hipMalloc, never releasing the cache (that synchronizes, which a capture
        must not): out-of-memory raises DeviceMemoryError at once. A cached block with
        fences waits for them on the host (a wait on another stream's event cannot join a
        capture); it counts as in use until the graph gives it back."""
        if size > _ADDRESSABLE_BYTES:
            raise self._too_large(size)
        streams = self._streams
        pool = self._free if streams is None else streams.current.stream.free
        with self._lock:
            bucket = pool.get(size)
            ptr = bucket.pop() if bucket else 0
            fences = self._fences.pop(ptr, None) if ptr else None
            self.clock += 1
            owner = (streams.current.stream if streams is not None else None, self.clock)
            self._blocks.count_out(size)
        if not ptr:
            ptr = self._malloc_counted(size, release_cache=False)
        if streams is not None:
            self._owner[ptr] = owner
            if fences:
                streams.wait_fences(None, fences)
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

    def _too_large(self, size):
        # past _ADDRESSABLE_BYTES hipMalloc's size_t cannot hold it (hip-python raises
        # OverflowError), nor the counts: a result no device holds, reported as every failed
        # allocation is (a copy of a huge broadcast view asks this; the front end's size
        # check stops the rest)
        return DeviceMemoryError(self._device.name, size, None, "larger than any allocation can be")

    def _malloc(self, size, release_cache=True):
        limit = self.limit
        if limit is not None and self.reserved + size > limit:
            if release_cache:
                self.release_cache(flush=True)
            if self.reserved + size > limit:
                raise self._out_of_memory(size, f"over the limit of {byte_text(limit)} set by "
                                                f"candlewick.set_memory_limit")
        self._device.make_current()
        try:
            ptr = hip.malloc(size)
        except RocmOutOfMemory as exc:
            if not release_cache:
                raise self._out_of_memory(size, f"{exc}; during a graph capture, which cannot release the "
                                                f"allocator's cache") from None
            self.release_cache(flush=True)
            try:
                ptr = hip.malloc(size)
            except RocmOutOfMemory as exc:
                raise self._out_of_memory(size, str(exc)) from None
        with self._lock:
            reserved = self.reserved + size
            self.reserved = reserved
            if reserved > self.peak_reserved:
                self.peak_reserved = reserved
            self.device_allocations += 1
        return ptr

    def _out_of_memory(self, size, why):
        """DeviceMemoryError for ``size`` bytes (counted as in use already): what is free,
        what candlewick holds."""
        free = None
        try:
            free = self._device.memory_info()[0]
        except Exception:  # noqa: BLE001 - the message matters more than the figure
            pass
        held = held_text(self._device.name, self._blocks.in_use - size, self.cached_bytes)
        return DeviceMemoryError(self._device.name, size, free, f"{why}; {held}")

    # --- release ------------------------------------------------------------------------------
    def release(self, ptr, size):
        """Return a block to the pool (called by a buffer's finalizer, or by a closed
        graph's pool through ``give_back``)."""
        if not size:
            return
        if self._streams is not None:
            self._release_on_stream(ptr, size)
            return
        self._blocks.give(ptr, size)

    #: ``release`` that a graph's pool calls: never shadowed by ``route_to``
    give_back = release

    def owner_stream(self, ptr):
        """The stream record a block of this allocator was allocated on, or None (no
        streams yet, or memory this allocator did not hand out)."""
        entry = self._owner.get(ptr)
        return entry[0] if entry is not None else None

    def _release_on_stream(self, ptr, size):
        """The block goes back to the pool of the stream it was allocated on, fenced
        against every other stream used since (module docstring)."""
        streams = self._streams
        record, since = self._owner.pop(ptr, (None, 0))
        if record is None:  # allocated before the device had streams: its own stream's
            record = streams.default
        try:
            fences = streams.fence(record, since)
        except Exception:  # noqa: BLE001 - a finalizer at exit, or a runtime gone: never reuse unfenced
            with self._lock:
                self._blocks.count_in(size)
            return
        with self._lock:
            if fences:
                self._fences[ptr] = fences
            bucket = record.free.get(size)
            if bucket is None:
                bucket = record.free[size] = []
            bucket.append(ptr)
            self._blocks.count_in(size)

    def use_streams(self, streams):
        """The device has made its first stream beyond its own: pool per stream from now on
        (``streams`` is the device's ``DeviceStreams``; its default record's pool is the
        one this allocator had)."""
        self._streams = streams

    def release_cache(self, flush=False):
        """hipFree every cached block (after the device's streams drain: queued work may
        use them). ``flush``: an allocation failed (counted in ``cache_flushes``)."""
        blocks, fences = [], []
        with self._lock:
            for pool in self._pools():
                for size, ptrs in pool.items():
                    blocks.extend((ptr, size) for ptr in ptrs)
                    ptrs.clear()
            for ptr, _ in blocks:
                fences.extend(self._fences.pop(ptr, ()))
            if flush:
                self.cache_flushes += 1
        if not blocks:
            return
        self._device.synchronize(check_errors=False)
        if fences:
            self._streams.recycle_fences(fences)
        self._device.make_current()
        for ptr, size in blocks:
            hip.free(ptr)
            with self._lock:
                self.reserved -= size
