"""[bindings] The HIP runtime's stream, event and pinned host memory calls that streams
(``candlewick.Stream``, ``candlewick.Event``) and asynchronous host copies need, through
hip-python (``bindings/hip.py`` holds the rest and the shared setup).

Queries answer without waiting: ``hipSuccess`` is done, ``hipErrorNotReady`` (600) is not
yet, anything else is an error (an event's query is ``hip.event_query``).
"""

from ..error import check
from .hip import _NOT_READY, hip_api

_HOST_MALLOC_PORTABLE = 0x1  # hipHostMallocPortable: pinned for every device, not only the current one


def _done(call, result):
    (status,) = result
    if int(status) == _NOT_READY:
        return False
    check(call, status)
    return True


def stream_query(stream):
    """Whether every operation queued on ``stream`` has run."""
    return _done("hipStreamQuery", hip_api().hip.hipStreamQuery(stream))


def timed_event_create():
    """An event that records a time stamp (hipEventDefault), on the current device."""
    hip = hip_api().hip
    return check("hipEventCreateWithFlags", hip.hipEventCreateWithFlags(hip.hipEventDefault))


def event_elapsed_ms(start, end):
    """Milliseconds between two recorded, completed timing events."""
    return float(check("hipEventElapsedTime", hip_api().hip.hipEventElapsedTime(start, end)))


def host_malloc(nbytes):
    """The address (int) of ``nbytes`` of pinned (page-locked) host memory that every
    device's copies read and write at full speed; RocmOutOfMemory when none is left."""
    return int(check("hipHostMalloc", hip_api().hip.hipHostMalloc(nbytes, _HOST_MALLOC_PORTABLE)))


def host_free(address):
    """Release pinned host memory (the runtime waits for the device first)."""
    check("hipHostFree", hip_api().hip.hipHostFree(address))
