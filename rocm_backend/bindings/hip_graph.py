"""[bindings] HIP graphs through hip-python: stream capture, instantiation, launch and
destruction.

Capture uses HIP's *relaxed* mode (``hipStreamCaptureModeRelaxed``, numbered as CUDA's
``CU_STREAM_CAPTURE_MODE_RELAXED``): the capturing thread may still call the runtime
functions that global and thread-local capture forbid, ``hipMalloc`` above all, which
the graph's private pool needs when the cache has no block of a size
(``runtime/graph_pool.py``). What really conflicts with capture (reading results on the
host, synchronizing the stream) candlewick refuses itself, with an error naming the
function, before any runtime call (``runtime/capture.py``).
"""

from ..error import check
from .hip import hip_api

#: hipStreamCaptureMode values (HIP's numbering, the same as CUDA's)
CAPTURE_GLOBAL, CAPTURE_THREAD_LOCAL, CAPTURE_RELAXED = 0, 1, 2


def begin_capture(stream, mode=CAPTURE_RELAXED):
    hip = hip_api().hip
    check("hipStreamBeginCapture", hip.hipStreamBeginCapture(stream, hip.hipStreamCaptureMode(mode)))


def end_capture(stream):
    """The captured graph (hip-python's handle)."""
    return check("hipStreamEndCapture", hip_api().hip.hipStreamEndCapture(stream))


def is_capturing(stream):
    """Whether ``stream`` is capturing (an invalidated capture counts: it must still end)."""
    status = check("hipStreamIsCapturing", hip_api().hip.hipStreamIsCapturing(stream))
    return int(status) != 0


def instantiate(graph):
    """An executable graph of ``graph``."""
    return check("hipGraphInstantiateWithFlags", hip_api().hip.hipGraphInstantiateWithFlags(graph, 0))


def launch(graph_exec, stream):
    check("hipGraphLaunch", hip_api().hip.hipGraphLaunch(graph_exec, stream))


def destroy_exec(graph_exec):
    check("hipGraphExecDestroy", hip_api().hip.hipGraphExecDestroy(graph_exec))


def destroy(graph):
    check("hipGraphDestroy", hip_api().hip.hipGraphDestroy(graph))
