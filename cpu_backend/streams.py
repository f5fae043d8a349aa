"""Streams and events of the cpu device (``candlewick.backend.StreamDevice``), so that code
written with ``candlewick.Stream`` and ``Event`` runs on the cpu too.

Every cpu primitive runs to completion on the calling thread before it returns, so work
is always in order and done: a stream's ``synchronize`` and ``wait_event`` return at once
and its ``query`` is True. An event records the host's clock when recorded, so
``Event.elapsed_time`` is the host time between two records (what the cpu spent on the
work between them). Each thread has its current stream, as on a GPU.
"""

import threading
import time

from candlewick.errors import ArgumentValueError, DeviceMismatchError


class CpuStream:
    """A stream of the cpu device: a name for the calling thread's in-order work."""

    __slots__ = ("device", "__weakref__")
    ptr = None  # no native handle

    def __init__(self, device):
        self.device = device

    def __repr__(self):
        return f"CpuStream(0x{id(self):x})"

    def synchronize(self):
        pass  # the work queued on it has run: primitives return when done

    def query(self):
        return True

    def wait_event(self, event):
        _check_device(event, self.device, "Stream.wait_event")


class CpuEvent:
    """An event of the cpu device: the host's clock at its last record."""

    __slots__ = ("device", "timing", "time")

    def __init__(self, device, timing):
        self.device, self.timing, self.time = device, bool(timing), None

    def record(self, stream):
        _check_device(stream, self.device, "Event.record")
        self.time = time.perf_counter()

    def synchronize(self):
        pass

    def query(self):
        return True

    def elapsed_ms(self, end):
        for event, which in ((self, "start"), (end, "end")):
            _check_device(event, self.device, "Event.elapsed_time")
            if not event.timing:
                raise ArgumentValueError(f"Event.elapsed_time: the {which} event was made without timing "
                                         f"(make it with enable_timing=True)")
            if event.time is None:
                raise ArgumentValueError(f"Event.elapsed_time: the {which} event was never recorded")
        return (end.time - self.time) * 1e3


def _check_device(obj, device, where):
    if getattr(obj, "device", None) is not device:
        raise DeviceMismatchError(f"{where}: {obj!r} does not belong to {device.name}")


class HostStreams:
    """The cpu device's streams: its own, and each thread's current one."""

    def __init__(self, device):
        self.own = CpuStream(device)
        self._current = threading.local()

    def current(self):
        return getattr(self._current, "stream", None) or self.own

    def use(self, stream):
        self._current.stream = stream
