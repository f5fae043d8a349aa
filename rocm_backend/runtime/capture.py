"""[runtime] Graph capture on a device's stream (the capturing thread's current one): the
capture state machine and the captured graph.

``begin(device)`` routes the device's allocator to a new ``GraphPool``, gives index checks
to the graph and starts capturing the stream (relaxed mode, ``bindings/hip_graph.py``);
every kernel, copy and memset then queued on the stream is recorded, not run. ``end``
stops it and instantiates a ``CapturedGraph`` (``replay`` launches it; ``close`` frees it
and its pool); ``abort`` drops a capture that raised. While a capture runs,
``device.capture`` is the ``Capture``; what needs results on the host now (a read to the
host, a copy from host memory, a stream synchronization, random numbers whose seed would
be frozen into the graph) calls ``refuse``, which raises GraphCaptureError naming the
candlewick function the user called, before any runtime call.
"""

import sys
import threading

from candlewick.errors import GraphCaptureError

from ..bindings import hip_graph
from .graph_pool import GraphPool

_PACKAGES = ("candlewick", "rocm_backend")


def _entry_function():
    """``module.qualname`` of the outermost candlewick (or backend) frame under the
    caller's code: the function the user called (``Array.item``, ``to_numpy``...)."""
    frame, found = sys._getframe(1), None
    while frame is not None:
        module = frame.f_globals.get("__name__", "")
        if module.partition(".")[0] in _PACKAGES:
            code = frame.f_code
            found = f"{module}.{getattr(code, 'co_qualname', code.co_name)}"
        elif found is not None:
            break
        frame = frame.f_back
    return found or "?"


class Capture:
    """One capture in progress on one device."""

    def __init__(self, device):
        self.device = device
        self.stream = device.streams.mark()  # the calling thread's current stream: the one captured
        self.pool = GraphPool(device.allocator, device.name)
        self.deferred = []  # graphs closed while this capture ran: freed when it ends

    def refuse(self, what):
        """Raise: ``what`` (e.g. "a read of device memory to the host") cannot be captured."""
        raise GraphCaptureError(
            f"{_entry_function()} inside a graph capture on {self.device.name}: {what} needs the device's "
            f"results now, but captured work only runs at replay. Do it before the capture or after it "
            f"(after Graph.replay()); see docs/graphs.md")


def begin(device):
    """Start capturing ``device``'s stream; return the ``Capture``."""
    if device.capture is not None:
        raise GraphCaptureError(f"a graph capture is already running on {device.name}: captures do not nest")
    device.make_current()
    device.index_checks.ensure_buffer()
    capture = Capture(device)
    device.allocator.route_to(capture.pool)
    device.index_checks.capture_slots = []
    try:
        hip_graph.begin_capture(capture.stream.handle)
    except BaseException:
        device.allocator.route_to(None)
        device.index_checks.capture_slots = None
        raise
    device.capture = capture
    return capture


def _stop(device):
    """Leave capture state (allocator, index checks); the slots the capture took."""
    capture = device.capture
    device.capture = None
    device.allocator.route_to(None)
    slots, device.index_checks.capture_slots = device.index_checks.capture_slots or [], None
    return capture, slots


def end(device):
    """Stop capturing; the ``CapturedGraph`` (or the runtime's error, with nothing leaked)."""
    capture, slots = _stop(device)
    graph_exec = None
    try:
        graph = hip_graph.end_capture(capture.stream.handle)
        try:
            graph_exec = hip_graph.instantiate(graph)
        finally:
            hip_graph.destroy(graph)  # the executable graph does not need it
    except BaseException:
        capture.pool.close()
        device.index_checks.release_kept(slots)
        raise
    finally:
        _close_deferred(capture)
    return CapturedGraph(device, graph_exec, capture.pool, slots)


def abort(device):
    """End a capture that raised: drop what was captured and free its pool."""
    capture, slots = _stop(device)
    try:
        if hip_graph.is_capturing(capture.stream.handle):
            hip_graph.destroy(hip_graph.end_capture(capture.stream.handle))
    except Exception:  # noqa: BLE001 - an invalidated capture: the original error matters
        pass
    capture.pool.close()
    device.index_checks.release_kept(slots)
    _close_deferred(capture)


def _close_deferred(capture):
    for graph in capture.deferred:
        graph.close()


class CapturedGraph:
    """An instantiated graph of one device: ``replay`` queues it on the calling thread's
    current stream of the device."""

    def __init__(self, device, graph_exec, pool, index_slots):
        self.device = device
        self._exec = graph_exec
        self.pool = pool
        self._slots = index_slots
        self._lock = threading.Lock()

    @property
    def closed(self):
        return self._exec is None

    def replay(self):
        device = self.device
        if self._exec is None:
            raise GraphCaptureError(f"replay of a graph on {device.name} that was reset (its memory is freed)")
        if device.capture is not None:
            raise GraphCaptureError(f"replay of a graph inside a graph capture on {device.name}: "
                                    f"replay it before or after the capture")
        device.make_current()
        hip_graph.launch(self._exec, device.stream)
        device.replay_epoch += 1
        device.index_checks.rearm(self._slots)

    def close(self):
        """Free the executable graph and give its memory back (idempotent). During another
        capture on the device it is deferred until that capture ends (freeing queues work)."""
        capture = self.device.capture
        if capture is not None:
            capture.deferred.append(self)
            return
        with self._lock:
            graph_exec, self._exec = self._exec, None
        if graph_exec is None:
            return
        # replays still queued keep running (the runtime frees an executable graph once its
        # launches end), and work that reuses the memory is queued behind them on the stream
        hip_graph.destroy_exec(graph_exec)
        self.pool.close()
        self.device.index_checks.release_kept(self._slots)

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001 - at interpreter exit the runtime may be gone
            pass
