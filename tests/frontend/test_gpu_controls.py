"""The front end of streams, events and memory control (candlewick.streams, candlewick.memory)
on every backend under test: nesting and threads of ``with stream:``, argument checks, and
a device without the optional hooks refusing by name."""

import threading

import pytest

import candlewick as cw
from candlewick.backend import StreamDevice
from candlewick.errors import (ArgumentTypeError, ArgumentValueError, DeviceMismatchError,
                               UnsupportedOperation)


class _PlainDevice:
    """A device declaring no optional hook (a third-party backend's minimum)."""

    backend, ordinal, name = "plain", 0, "plain:0"

    def storage_from_host(self, array):
        raise NotImplementedError

    def synchronize(self):
        pass


def test_a_device_without_the_hooks_refuses_by_name():
    dev = _PlainDevice()
    for make in (lambda: cw.Stream(dev), lambda: cw.Event(dev), lambda: cw.current_stream(dev)):
        with pytest.raises(UnsupportedOperation, match="plain:0 has no streams"):
            make()
    for call in (cw.memory_stats, cw.empty_cache, cw.reset_peak_memory_stats, cw.set_memory_limit):
        with pytest.raises(UnsupportedOperation, match="plain:0 reports no memory statistics"):
            call(device=dev) if call is not cw.set_memory_limit else call(1, dev)
    cw.synchronize(dev)  # every device can synchronize


@pytest.fixture
def stream_device(device):
    """The device under test where it declares streams (a backend without the optional hook
    refuses by name: test_a_device_without_the_hooks_refuses_by_name)."""
    if not isinstance(device, StreamDevice):
        pytest.skip(f"{device.name} declares no streams (candlewick.backend.StreamDevice)")
    return device


def test_device_objects_make_streams_and_events(stream_device):
    device = stream_device
    s = device.Stream()
    assert isinstance(s, cw.Stream) and s.device is device
    e = device.Event(enable_timing=False)
    assert isinstance(e, cw.Event) and e.device is device
    with s:
        e.record()
    e.synchronize()


def test_with_stream_nests_and_restores_per_thread(stream_device):
    device = stream_device
    outer, inner = cw.Stream(device), cw.Stream(device)
    own = cw.current_stream(device)
    errors = []

    def other_thread():
        try:
            with inner:
                assert cw.current_stream(device) == inner
            assert cw.current_stream(device) == own
        except AssertionError as exc:  # pragma: no cover - reported below
            errors.append(exc)

    with outer:
        t = threading.Thread(target=other_thread)
        t.start()
        t.join()
        assert cw.current_stream(device) == outer
        with inner:
            assert cw.current_stream(device) == inner
        with outer:  # the same stream entered twice
            assert cw.current_stream(device) == outer
        assert cw.current_stream(device) == outer
    assert cw.current_stream(device) == own and not errors
    with pytest.raises(RuntimeError):
        with outer:
            raise RuntimeError("leaves the block")
    assert cw.current_stream(device) == own


def test_stream_and_event_arguments_are_checked(stream_device):
    device = stream_device
    s = cw.Stream(device)
    with pytest.raises(ArgumentTypeError, match="wait_event"):
        s.wait_event("e")
    with pytest.raises(ArgumentTypeError, match="wait_stream"):
        s.wait_stream(1)
    with pytest.raises(ArgumentTypeError, match="enable_timing"):
        cw.Event(device, enable_timing=1)
    e = cw.Event(device)
    with pytest.raises(ArgumentTypeError, match="Event.record"):
        e.record(7)
    with pytest.raises(ArgumentTypeError, match="elapsed_time"):
        e.elapsed_time(None)
    with pytest.raises(ArgumentValueError, match="never recorded"):
        e.elapsed_time(cw.Event(device))
    other = [d for d in (cw.get_device("cpu"),) if d is not device]
    if other:
        with pytest.raises(DeviceMismatchError):
            s.wait_event(cw.Event(other[0]))


def test_memory_arguments_are_checked(device):
    with pytest.raises(ArgumentTypeError, match="nbytes"):
        cw.set_memory_limit(1.5, device)
    with pytest.raises(ArgumentValueError, match=">= 0"):
        cw.set_memory_limit(-1, device)
    with pytest.raises(ArgumentValueError, match="not both"):
        cw.set_memory_limit(1, device, fraction=0.5)
    with pytest.raises(ArgumentValueError, match=r"\(0, 1\]"):
        cw.set_memory_limit(device=device, fraction=1.5)
    stats = cw.memory_stats(device)
    assert list(stats) == list(cw.backend.MEMORY_STAT_KEYS)


def test_a_fraction_limit_is_of_the_total_memory(device):
    try:
        cw.set_memory_limit(device=device, fraction=0.5)
    except UnsupportedOperation:
        return
    try:
        stats = cw.memory_stats(device)
        assert stats["limit_bytes"] == stats["total_bytes"] // 2
    finally:
        cw.set_memory_limit(None, device)
