"""[runtime] The protocol's stream and event objects of a ROCm device
(``candlewick.backend.BackendStream``, ``BackendEvent``): what ``candlewick.Stream`` and
``candlewick.Event`` hold.

A ``RocmStream`` stands for one stream record of its device (``runtime/streams.py``):
the device's own stream, or a user's, whose record goes back to the spares when the
object is collected. A ``RocmEvent`` is one HIP event, with time stamps when made for
timing (``hipEventDefault``) and without otherwise (cheaper to record and wait on).
"""

from candlewick.errors import ArgumentValueError

from ..bindings import hip, hip_streams


class RocmStream:
    """One stream of a ROCm device."""

    __slots__ = ("device", "record", "__weakref__")

    def __init__(self, device, record):
        self.device = device
        self.record = record

    def __del__(self):
        record, self.record = self.record, None
        if record is not None:
            try:
                self.device.streams.give_back(record)
            except Exception:  # noqa: BLE001 - at interpreter exit the device may be half gone
                pass

    @property
    def ptr(self):
        """The HIP stream handle as an int (for another library's external stream)."""
        return self.record.ptr

    def __repr__(self):
        own = " (the device's own)" if self.record is self.device.streams.default else ""
        return f"RocmStream({self.device.name}, 0x{self.record.ptr or 0:x}{own})"

    def synchronize(self):
        """Wait on the host for the work queued on this stream, then raise IndexError for
        the calling thread's index checks queued on it."""
        self.device.synchronize_stream(self.record)

    def query(self):
        self.device.make_current()
        return hip_streams.stream_query(self.record.handle)

    def wait_event(self, event):
        """Work queued on this stream from now on waits (on the device) for ``event``."""
        if event.device is not self.device:
            raise ArgumentValueError(f"Stream.wait_event: the event belongs to {event.device.name}, "
                                     f"the stream to {self.device.name}")
        if event.recorded is None:
            return  # an event never recorded is complete (as in CUDA and HIP)
        self.device.make_current()
        self.record.last_use = self.device.allocator.clock
        hip.stream_wait_event(self.record.handle, event.handle)


class RocmEvent:
    """One HIP event of a ROCm device."""

    __slots__ = ("device", "handle", "timing", "recorded")

    def __init__(self, device, timing):
        self.device = device
        self.timing = bool(timing)
        device.make_current()
        self.handle = hip_streams.timed_event_create() if timing else hip.event_create()
        self.recorded = None  # the record of the stream it was last recorded on

    def __del__(self):
        handle, self.handle = getattr(self, "handle", None), None
        if handle is not None:
            try:
                self.device.make_current()
                hip.event_destroy(handle)  # its pending waits still complete
            except Exception:  # noqa: BLE001 - at interpreter exit the runtime may be gone
                pass

    def record(self, stream):
        """Mark the point ``stream`` (a RocmStream of this device) has reached in its queue."""
        if stream.device is not self.device:
            raise ArgumentValueError(f"Event.record: the stream belongs to {stream.device.name}, "
                                     f"the event to {self.device.name}")
        capture = self.device.capture
        if capture is not None:
            capture.refuse("recording an event (a captured record would only happen at replay)")
        self.device.make_current()
        hip.event_record(self.handle, stream.record.handle)
        self.recorded = stream.record

    def synchronize(self):
        """Wait on the host for the work before the last record (at once when never recorded)."""
        self.device.settle_collectives()  # a collective the ranks differed on would never finish
        self.device.make_current()
        hip.event_synchronize(self.handle)

    def query(self):
        self.device.make_current()
        return hip.event_query(self.handle)

    def elapsed_ms(self, end):
        """Milliseconds from this event's record to ``end``'s, once ``end`` has completed
        (waits for it); both must be timing events of this device, recorded."""
        for event, which in ((self, "start"), (end, "end")):
            if event.device is not self.device:
                raise ArgumentValueError(f"Event.elapsed_time: the {which} event belongs to {event.device.name}, "
                                         f"not {self.device.name}")
            if not event.timing:
                raise ArgumentValueError(f"Event.elapsed_time: the {which} event was made without timing "
                                         f"(make it with enable_timing=True)")
            if event.recorded is None:
                raise ArgumentValueError(f"Event.elapsed_time: the {which} event was never recorded")
        end.synchronize()
        return hip_streams.event_elapsed_ms(self.handle, end.handle)
