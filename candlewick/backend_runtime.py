"""The GPU runtime's optional declarations of the backend protocol (``candlewick.backend``
re-exports them, beside ``backend_optional``'s): streams and events, the allocator's
memory statistics, pinned host memory, host copies that do not wait, and profiler ranges,
each with its contract. A backend without them keeps the documented fallback (host-ordered
work, no statistics, pageable copies; docs/gpu.md).
"""

from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:  # (backend imports this module: the storage type only for checkers)
    from .backend import BackendStorage

__all__ = [
    "AsyncHostCopyStorage", "BackendEvent", "BackendStream", "MEMORY_STAT_KEYS", "MemoryStatsDevice",
    "PinnedMemoryDevice", "ProfilerRangeDevice", "StreamDevice",
]


@runtime_checkable
class BackendStream(Protocol):
    """What ``StreamDevice`` hands out: one queue of work of a device. Work queued on one
    stream runs in the order it was queued; work on two streams may run at the same time
    unless an event orders it (``wait_event``)."""

    device: Any
    #: the stream's native handle as an int (for another library's external-stream
    #: wrapper: ``torch.cuda.ExternalStream``, ``cupy.cuda.ExternalStream``), None if none
    ptr: "int | None"

    def synchronize(self) -> None:
        """Wait on the host for the work queued on this stream; raise the errors that work
        found (an index out of range), as ``to_host`` does."""

    def query(self) -> bool:
        """Whether all work queued on this stream has run (never waits)."""

    def wait_event(self, event) -> None:
        """Work queued on this stream from now on starts after the work ``event`` marked
        (a ``BackendEvent`` of this device; the host does not wait). An event never
        recorded is complete."""


@runtime_checkable
class BackendEvent(Protocol):
    """What ``StreamDevice.new_event`` hands out: a point in a stream's queue."""

    device: Any

    def record(self, stream) -> None:
        """Mark the end of the work queued on ``stream`` (a ``BackendStream`` of this device)
        so far; recording again moves the mark."""

    def synchronize(self) -> None:
        """Wait on the host for the work before the mark (at once when never recorded)."""

    def query(self) -> bool:
        """Whether the work before the mark has run (True when never recorded)."""

    def elapsed_ms(self, end) -> float:
        """Milliseconds from this event's mark to ``end``'s (both timing events of this
        device, recorded; waits for ``end``). ArgumentValueError for an event made without
        timing or never recorded."""


@runtime_checkable
class StreamDevice(Protocol):
    """Optional hook (not part of ``BackendDevice``): streams and events, used by
    ``candlewick.Stream``, ``Event`` and ``current_stream`` (docs/gpu.md).

    Each host thread has a current stream per device (the device's own until it sets
    another); every primitive a thread calls on the device queues its work there, and
    ``to_host`` waits for that stream only, while ``BackendDevice.synchronize`` waits for
    every stream. Memory freed while work on any stream may still use it must not be
    handed to work that could overtake that work (the backend tracks this itself: users
    never call PyTorch's ``record_stream``). A backend whose primitives run to completion
    on the calling thread (cpu) implements streams trivially: work is ordered because it
    is done, ``synchronize`` and ``wait_event`` return at once, ``query`` is True, and
    events record the host's clock, so ``elapsed_ms`` is host time."""

    def new_stream(self) -> BackendStream:
        """A new stream of this device."""

    def current_stream(self) -> BackendStream:
        """The calling thread's current stream (the same object while it stays current)."""

    def set_current_stream(self, stream) -> None:
        """Make ``stream`` (a ``BackendStream`` of this device) the calling thread's current
        stream of this device."""

    def new_event(self, timing) -> BackendEvent:
        """A new event; with ``timing`` it records time stamps (``elapsed_ms``)."""


#: the keys of ``MemoryStatsDevice.memory_stats``: each value an int, or None where the
#: backend cannot know it (the cpu backend allocates through NumPy, which counts nothing)
MEMORY_STAT_KEYS = {
    "in_use_bytes": "bytes of the blocks that arrays (and captured graphs) hold now",
    "peak_in_use_bytes": "the most in_use_bytes has been since the start or reset_peak_memory_stats",
    "cached_bytes": "bytes of freed blocks the allocator keeps for reuse (empty_cache gives them back)",
    "reserved_bytes": "bytes taken from the device: in use, cached or waiting to be cached",
    "peak_reserved_bytes": "the most reserved_bytes has been since the start or reset_peak_memory_stats",
    "active_blocks": "blocks held now",
    "allocations": "blocks handed out since the device was opened",
    "device_allocations": "allocations the allocator asked of the device's runtime (cache misses)",
    "cache_flushes": "times the cache was given back to retry an allocation that failed",
    "limit_bytes": "the limit of set_memory_limit (None: no limit)",
    "pinned_bytes": "bytes of page-locked host memory held for pinned_empty and non-blocking copies",
    "free_bytes": "bytes free on the device (memory_info's, the cache counted free)",
    "total_bytes": "bytes of the device's memory",
}


@runtime_checkable
class MemoryStatsDevice(Protocol):
    """Optional hook (not part of ``BackendDevice``): the allocator's statistics and control,
    used by ``candlewick.memory_stats``, ``reset_peak_memory_stats``, ``empty_cache`` and
    ``set_memory_limit`` (what ``torch.cuda.memory_stats`` and CuPy's ``MemoryPool``
    offer)."""

    def memory_stats(self) -> dict:
        """Every key of ``MEMORY_STAT_KEYS``, each an int or None (not known here)."""

    def reset_peak_memory_stats(self) -> None:
        """Restart the peaks from the current values."""

    def empty_cache(self) -> None:
        """Give the cached (free) blocks back to the device; blocks in use stay."""

    def set_memory_limit(self, nbytes) -> None:
        """Take at most ``nbytes`` (an int >= 0; None: no limit) from the device from now on:
        an allocation beyond it releases the cache, then raises
        ``candlewick.errors.DeviceMemoryError``. UnsupportedOperation where the backend
        cannot enforce a limit."""


@runtime_checkable
class PinnedMemoryDevice(Protocol):
    """Optional hook (not part of ``BackendDevice``): page-locked host memory and copies
    from it that do not wait, used by ``candlewick.pinned_empty`` and
    ``Array.to_device(..., non_blocking=True)`` (docs/gpu.md). Without it
    ``pinned_empty`` gives ordinary NumPy memory and copies wait for their data."""

    def pinned_empty(self, shape, dtype) -> Any:
        """A DLPack producer of ``shape`` elements of ``dtype`` (C order, not initialized) in
        page-locked host memory (device type kDLCPU, kDLCUDAHost or kDLROCMHost), which a
        host-memory device imports without a copy: copies between it and this device run
        at the link's full speed and need not wait. The memory lives while the producer or
        an import of it does, and is not reused before the copies queued on it ran."""

    def storage_from_host_async(self, producer) -> "BackendStorage | None":
        """A storage of this device holding the elements of ``producer`` (a DLPack producer
        of host memory), copied on the current stream without waiting, when that memory is
        this device's pinned memory in C order; None otherwise (the caller then copies
        through ``storage_from_host``). The caller must not change the source until the
        stream has passed the copy."""


class AsyncHostCopyStorage(Protocol):
    """Optional hook (not part of ``BackendStorage``): a copy to the host that does not
    wait, used by ``Array.to_device(host device, non_blocking=True)``."""

    def to_host_async(self, layout) -> Any:
        """A DLPack producer of host memory (as ``PinnedMemoryDevice.pinned_empty``'s) of
        ``layout``'s shape and this storage's dtype, in C order, that holds the elements
        ``layout`` views once the current stream has passed the copy queued into it; the
        host reads it after ``Stream.synchronize`` (or an event's)."""


@runtime_checkable
class ProfilerRangeDevice(Protocol):
    """Optional hook (not part of ``BackendDevice``): named ranges for an external profiler
    (the rocm backend: roctx, seen by rocprof and Omnitrace), which ``candlewick.profile``
    opens around each primitive. A backend without the profiler's library does nothing."""

    def range_push(self, name) -> None:
        """Open a range named ``name`` on the calling thread."""

    def range_pop(self) -> None:
        """Close the calling thread's innermost open range."""
