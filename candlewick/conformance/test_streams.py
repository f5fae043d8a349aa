"""The optional hook ``StreamDevice`` (``candlewick.backend``): streams and events, checked
where a device declares it (the report files them under ``synchronize``): the protocol's
objects, the current stream per thread, results computed on streams ordered by events,
and memory freed on one stream while another read it."""

import threading

import numpy as np
import pytest

import candlewick as cw
from candlewick.backend import BackendEvent, BackendStream, StreamDevice

from .report import NOT_DECLARED

pytestmark = pytest.mark.primitive("synchronize")


@pytest.fixture
def streams(device):
    if not isinstance(device, StreamDevice):
        pytest.skip(f"{NOT_DECLARED}: {device.name} does not implement candlewick.backend.StreamDevice")
    return device


def test_streams_are_current_per_thread(streams):
    dev = streams
    own = dev.current_stream()
    assert isinstance(own, BackendStream) and own.device is dev and dev.current_stream() is own
    s = dev.new_stream()
    assert isinstance(s, BackendStream) and s is not own
    seen = []
    dev.set_current_stream(s)
    try:
        assert dev.current_stream() is s
        t = threading.Thread(target=lambda: seen.append(dev.current_stream()))
        t.start()
        t.join()
    finally:
        dev.set_current_stream(own)
    assert seen == [own], "another thread's current stream changed"
    assert dev.current_stream() is own


def test_events_mark_and_time_work(streams):
    dev = streams
    s = dev.new_stream()
    start, end, plain = dev.new_event(True), dev.new_event(True), dev.new_event(False)
    assert all(isinstance(e, BackendEvent) for e in (start, end, plain))
    assert plain.query() is True  # never recorded: complete
    start.record(s)
    x = cw.ones(1 << 16, dtype=cw.int64, device=dev)  # int64: every device declares it
    with cw.Stream._of(s):
        y = x * 3
    end.record(s)
    plain.record(s)
    end.synchronize()
    assert end.query() is True and plain.query() is True
    elapsed = start.elapsed_ms(end)
    assert isinstance(elapsed, float) and elapsed >= 0
    assert np.all(cw.to_numpy(y) == 3)
    s.synchronize()
    assert s.query() is True


def test_work_ordered_by_events_across_streams(streams):
    """Written on one stream, read on another after it waits for an event: every value right."""
    dev = streams
    s1, s2 = cw.Stream(dev), cw.Stream(dev)
    n = 1 << 20
    with s1:
        a = cw.arange(n, dtype=cw.int64)
        b = a * 2 + 1
    done = s1.record_event()
    s2.wait_event(done)
    with s2:
        c = b - 1
        total = cw.sum(c)
    s2.synchronize()
    np.testing.assert_array_equal(cw.to_numpy(c), np.arange(n, dtype=np.int64) * 2)
    assert int(total) == int(np.sum(np.arange(n, dtype=np.int64) * 2))


def test_memory_freed_after_another_stream_read_it_keeps_that_read(streams):
    """An array made on s1 and read by s2, dropped, its memory reused on s1 at once: s2's
    results must be those of the old values (the backend orders the reuse)."""
    dev = streams
    s1, s2 = cw.Stream(dev), cw.Stream(dev)
    n = 1 << 22
    expected = np.arange(n, dtype=np.int64) + 1
    for _ in range(4):
        with s1:
            a = cw.arange(n, dtype=cw.int64)
        s2.wait_stream(s1)
        with s2:
            b = a + 1  # s2 reads a
        del a
        with s1:
            clobber = cw.full(n, -7, dtype=cw.int64)  # may reuse a's block
        s2.synchronize()
        np.testing.assert_array_equal(cw.to_numpy(b), expected)
        del b, clobber


def test_the_front_end_stream_objects(streams):
    dev = streams
    s = cw.Stream(dev)
    with s:
        assert cw.current_stream() == s
        x = cw.zeros(4, dtype=cw.int64)
        assert x.device is dev
        with cw.Stream(dev) as inner:
            assert cw.current_stream(dev) == inner
        assert cw.current_stream(dev) == s
    assert cw.current_stream(dev) != s
    e = cw.Event(dev)
    e.record(s)
    e.wait()
    s.wait_stream(cw.current_stream(dev))
    cw.synchronize(dev)
    assert e.query() and s.query()
