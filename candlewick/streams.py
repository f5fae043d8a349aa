"""Streams and events: queues of device work that run side by side, and the points in
them that order one against another or time it (docs/gpu.md)::

    s = cw.Stream("rocm")            # or device.Stream()
    with s:                          # this thread's work on rocm:0 goes to s
        y = x @ x                    # arrays made here are on s's device
    done = s.record_event()
    cw.current_stream("rocm").wait_event(done)   # later work waits for y, on the device
    s.synchronize()                  # the host waits for s

As in CuPy and PyTorch, each host thread has its own current stream per device (the
device's own until a ``with stream:`` block), work on one stream runs in order, work on
two streams may overlap, and the memory of an array freed while another stream may still
read it is not handed out before that stream is done with it (no ``record_stream``
needed). A device declares streams through the optional hook
``candlewick.backend.StreamDevice``; the cpu device has trivial ones (its work is done
when a call returns, events time the host), so code written with streams runs there too.
"""

from __future__ import annotations

import threading
from typing import Any

from .backend_runtime import StreamDevice
from .errors import ArgumentTypeError, DeviceMismatchError, short_repr
from .docstrings import shared_doc
from .registry import default_device, device_implementing, get_device

__all__ = ["Event", "Stream", "current_stream", "synchronize"]


# this module's shared docstring entries (docstrings.shared_doc)
_DOCS = {"raises_no_streams": "Raises\n------\nUnsupportedOperation\n    If the device has no streams."}


def _stream_device(device: Any, what: str) -> Any:
    """The device object of ``device`` (None: the default device), which must have streams."""
    return device_implementing(device, StreamDevice, what, "has no streams")


@shared_doc(_DOCS)
class Stream:
    """A queue of work on one device; ``with stream:`` makes it the calling thread's
    current stream there.

    Parameters
    ----------
    device : str, device or None
        The device whose stream this is (None: the default device).

    {raises_no_streams}

    Examples
    --------
    >>> import candlewick as cw
    >>> s = cw.Stream("cpu")
    >>> with s:
    ...     y = cw.ones(3) * 2
    >>> s.synchronize()
    >>> s.query()
    True
    """

    __slots__ = ("device", "_backend", "_entered")

    def __init__(self, device: Any = None) -> None:
        dev = _stream_device(device, "Stream")
        self._bind(dev, dev.new_stream())

    def _bind(self, device: Any, backend_stream: Any) -> None:
        self.device = device
        self._backend = backend_stream
        self._entered = threading.local()  # per thread: what each __exit__ restores

    @classmethod
    def _of(cls, backend_stream: Any) -> Stream:
        """The Stream standing for a backend stream (``current_stream``)."""
        stream = cls.__new__(cls)
        stream._bind(backend_stream.device, backend_stream)
        return stream

    def __enter__(self) -> Stream:
        """Make this the calling thread's current stream of its device, and its device the
        default device, until the block ends (blocks nest; per thread)."""
        dev = self.device
        previous = dev.current_stream()
        dev.set_current_stream(self._backend)
        default = default_device(dev)
        default.__enter__()
        stack = getattr(self._entered, "stack", None)
        if stack is None:
            stack = self._entered.stack = []
        stack.append((previous, default))
        return self

    def __exit__(self, *exc: object) -> None:
        previous, default = self._entered.stack.pop()
        default.__exit__(None, None, None)
        self.device.set_current_stream(previous)

    @property
    def ptr(self) -> int | None:
        """The native stream handle as an int (HIP's ``hipStream_t`` on rocm), for another
        library's external stream (``torch.cuda.ExternalStream(s.ptr)``); None on cpu."""
        return self._backend.ptr

    def synchronize(self) -> None:
        """Wait on the host for the work queued on this stream (an index out of range in
        that work raises here)."""
        self._backend.synchronize()

    def query(self) -> bool:
        """Whether all work queued on this stream has run (never waits)."""
        return bool(self._backend.query())

    def wait_event(self, event: Event) -> None:
        """Work queued on this stream from now on waits (on the device, not the host) for
        the work ``event`` marked."""
        if not isinstance(event, Event):
            raise ArgumentTypeError(f"Stream.wait_event: event must be a candlewick.Event, got {short_repr(event)}")
        _same_device(event.device, self.device, "Stream.wait_event")
        self._backend.wait_event(event._backend)

    def wait_stream(self, stream: Stream) -> None:
        """Work queued on this stream from now on waits for the work queued on ``stream``
        so far (through an event recorded on it)."""
        if not isinstance(stream, Stream):
            raise ArgumentTypeError(f"Stream.wait_stream: stream must be a candlewick.Stream, got {short_repr(stream)}")
        self.wait_event(stream.record_event(Event(stream.device, enable_timing=False)))

    def record_event(self, event: Event | None = None) -> Event:
        """Record ``event`` (a new one, without timing, when None) on this stream; return it."""
        if event is None:
            event = Event(self.device, enable_timing=False)
        elif not isinstance(event, Event):
            raise ArgumentTypeError(f"Stream.record_event: event must be a candlewick.Event or None, "
                                    f"got {short_repr(event)}")
        event.record(self)
        return event

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Stream) and other._backend is self._backend

    def __hash__(self) -> int:
        return hash(id(self._backend))

    def __repr__(self) -> str:
        return f"Stream({self.device.name}, {self._backend!r})"


@shared_doc(_DOCS)
class Event:
    """A point in a stream's queue: to order another stream after it, wait for it on the
    host, or time the work between two of them.

    {params_device}
    enable_timing : bool
        Record time stamps, for ``elapsed_time`` (CuPy's default; PyTorch's is False).

    {raises_no_streams}

    Examples
    --------
    >>> import candlewick as cw
    >>> start, end = cw.Event("cpu"), cw.Event("cpu")
    >>> start.record()
    >>> y = cw.ones(1000) + 1
    >>> end.record()
    >>> end.synchronize()
    >>> start.elapsed_time(end) >= 0
    True
    """

    __slots__ = ("device", "_backend")

    def __init__(self, device: Any = None, *, enable_timing: bool = True) -> None:
        if not isinstance(enable_timing, bool):
            raise ArgumentTypeError(f"Event: enable_timing must be a bool, got {short_repr(enable_timing)}")
        dev = _stream_device(device, "Event")
        self.device = dev
        self._backend = dev.new_event(enable_timing)

    def record(self, stream: Stream | None = None) -> None:
        """Mark the end of the work queued so far on ``stream`` (None: the calling thread's
        current stream of the event's device)."""
        if stream is None:
            backend_stream = self.device.current_stream()
        elif isinstance(stream, Stream):
            _same_device(stream.device, self.device, "Event.record")
            backend_stream = stream._backend
        else:
            raise ArgumentTypeError(f"Event.record: stream must be a candlewick.Stream or None, "
                                    f"got {short_repr(stream)}")
        self._backend.record(backend_stream)

    def wait(self, stream: Stream | None = None) -> None:
        """Make ``stream`` (None: the current one) wait for this event (on the device)."""
        if stream is not None and not isinstance(stream, Stream):
            raise ArgumentTypeError(f"Event.wait: stream must be a candlewick.Stream or None, got {short_repr(stream)}")
        (current_stream(self.device) if stream is None else stream).wait_event(self)

    def synchronize(self) -> None:
        """Wait on the host for the work before the last record."""
        self._backend.synchronize()

    def query(self) -> bool:
        """Whether the work before the last record has run (True when never recorded)."""
        return bool(self._backend.query())

    def elapsed_time(self, end: Event) -> float:
        """Milliseconds from this event's record to ``end``'s (waits for ``end``).

        Both must have been made with ``enable_timing=True`` and recorded; on the cpu the
        time is the host's."""
        if not isinstance(end, Event):
            raise ArgumentTypeError(f"Event.elapsed_time: end must be a candlewick.Event, got {short_repr(end)}")
        _same_device(end.device, self.device, "Event.elapsed_time")
        return float(self._backend.elapsed_ms(end._backend))

    def __repr__(self) -> str:
        return f"Event({self.device.name})"


def _same_device(a: Any, b: Any, where: str) -> None:
    if a is not b:
        raise DeviceMismatchError(f"{where}: {a.name} and {b.name} are different devices (streams and events "
                                  f"order work of one device)")


@shared_doc(_DOCS)
def current_stream(device: Any = None) -> Stream:
    """The calling thread's current stream of ``device``.

    {params_device}

    Returns
    -------
    Stream
        The stream this thread's work on the device goes to now (the device's own
        outside ``with stream:`` blocks).

    {raises_no_streams}

    Examples
    --------
    >>> import candlewick as cw
    >>> s = cw.Stream("cpu")
    >>> with s:
    ...     cw.current_stream("cpu") == s
    True
    """
    return Stream._of(_stream_device(device, "current_stream").current_stream())


@shared_doc(_DOCS)
def synchronize(device: Any = None) -> None:
    """Wait on the host for all work queued on ``device``, on every stream.

    {params_device}

    {returns_none}

    Raises
    ------
    IndexError
        For an index out of range found by the calling thread's queued work.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.synchronize("cpu")
    """
    get_device(device).synchronize()
