"""Streams and events of the rocm backend on a fake HIP runtime that models stream order
(fake_streams.py): where work goes, what waits for what, and that a block of memory used
on several streams is never handed out before those uses are done."""

import threading

import numpy as np
import pytest

import candlewick as cw
import fake_streams  # tests/rocm/host is on pytest's pythonpath
from candlewick.errors import ArgumentValueError, DeviceMismatchError, GraphCaptureError
from rocm_backend import RocmBackend
from rocm_backend.families import reductions
from rocm_backend.storage_slice import DeviceBuffer


@pytest.fixture
def model(monkeypatch, tmp_path):
    monkeypatch.setenv("CANDLEWICK_KERNEL_CACHE", str(tmp_path / "kc"))
    runtime = fake_streams.install(monkeypatch)
    return runtime, RocmBackend().device(0)


def handle(stream):
    return stream._backend.record.handle


# --- the allocator across streams ---------------------------------------------------------------

def _use_on_two_streams_then_reuse(dev, size=4096, again_size=4096):
    """A block made and written on s1, written on s2, freed, then reused on s1."""
    s1, s2 = cw.Stream(dev), cw.Stream(dev)
    with s1:
        buf = DeviceBuffer.allocate(dev, size)
        buf.memset(0)
    s2.wait_stream(s1)  # the user orders s2's use after s1's write
    with s2:
        buf.memset(1)  # an array of s1 used by s2's work
    ptr = buf.ptr
    del buf
    with s1:
        again = DeviceBuffer.allocate(dev, again_size)
        again.memset(2)
    return ptr, again


@pytest.mark.parametrize("sizes", [(4096, 4096), (2 << 20, (2 << 20) - 8192)], ids=["same size", "a little smaller"])
def test_a_block_used_on_another_stream_is_reused_only_after_that_use(model, sizes):
    """(A request a little smaller than a cached block of 1 MiB or more takes it whole, as
    on the device's own stream: fenced alike, counted in the block's size.)"""
    rt, dev = model
    before = cw.memory_stats(dev)["in_use_bytes"]
    ptr, again = _use_on_two_streams_then_reuse(dev, *sizes)
    assert again.ptr == ptr, "the freed block was not reused on its stream"
    assert rt.races == []
    assert cw.memory_stats(dev)["in_use_bytes"] - before == sizes[0]


def test_the_model_sees_the_race_the_fences_prevent(model, monkeypatch):
    """Without the allocator's fences the same program races: the test above can fail."""
    rt, dev = model
    monkeypatch.setattr(dev.streams, "fence", lambda owner, since: None)
    _use_on_two_streams_then_reuse(dev)
    assert [what for _, _, what in rt.races] == ["memset then memset"]


def test_a_block_used_on_its_own_stream_only_is_reused_without_a_wait(model):
    rt, dev = model
    s1 = cw.Stream(dev)
    with s1:
        buf = DeviceBuffer.allocate(dev, 4096)
        buf.memset(0)
        ptr = buf.ptr
        records, waits = rt.calls["hipEventRecord"], rt.calls["hipStreamWaitEvent"]
        del buf
        again = DeviceBuffer.allocate(dev, 4096)
        again.memset(1)
    assert again.ptr == ptr
    assert (rt.calls["hipEventRecord"], rt.calls["hipStreamWaitEvent"]) == (records, waits)
    assert rt.races == []


def test_a_block_freed_on_one_stream_is_not_handed_to_another(model):
    rt, dev = model
    s1, s2 = cw.Stream(dev), cw.Stream(dev)
    with s1:
        buf = DeviceBuffer.allocate(dev, 4096)
        ptr = buf.ptr
        del buf
    with s2:
        other = DeviceBuffer.allocate(dev, 4096)
    assert other.ptr != ptr and dev.allocator.cached_bytes == 4096


def test_arrays_made_before_a_stream_existed_are_fenced_against_it(model):
    """A block of the device's own stream, read by a copy on a user stream, then freed and
    reused by an upload on the own stream: the upload waits for the copy."""
    rt, dev = model
    x = cw.asarray(np.ones(1024, np.float32), device=dev)
    src = x._storage.buffer
    s1 = cw.Stream(dev)
    s1.wait_stream(cw.current_stream(dev))  # the user orders the read after the upload
    with s1:
        out = DeviceBuffer.allocate(dev, src.nbytes)
        out.copy_from_device(src, src.nbytes)  # s1 reads x
    ptr = src.ptr
    del x, src
    y = cw.asarray(np.zeros(1024, np.float32), device=dev)  # the own stream writes a block
    assert y._storage.ptr == ptr
    assert rt.races == []


def test_a_host_wait_orders_later_reuse_without_fences(model):
    rt, dev = model
    s1, s2 = cw.Stream(dev), cw.Stream(dev)
    with s1:
        buf = DeviceBuffer.allocate(dev, 4096)
    with s2:
        buf.memset(1)
    s2.synchronize()
    del buf
    with s1:
        DeviceBuffer.allocate(dev, 4096).memset(2)
    assert rt.races == []


# --- where work goes ----------------------------------------------------------------------------

def test_work_inside_with_stream_goes_to_that_stream_per_thread(model):
    rt, dev = model
    x = cw.asarray(np.arange(64, dtype=np.float32), device=dev)
    s = cw.Stream(dev)
    inside = threading.Event()
    leave = threading.Event()
    seen = {}

    def worker():
        with s:
            seen["worker"] = cw.current_stream(dev)
            inside.set()
            leave.wait(5)

    t = threading.Thread(target=worker)
    t.start()
    inside.wait(5)
    assert seen["worker"] == s and cw.current_stream(dev) != s  # per thread
    leave.set()
    t.join()
    before = len(rt.nodes)
    with s:
        y = cw.exp(x)
        assert y.device is dev and cw.current_stream(dev) == s
    on = {rt.nodes[i][0] for i in range(before, len(rt.nodes)) if rt.nodes[i][1].startswith("kernel")}
    assert on == {handle(s)}
    before = len(rt.nodes)
    cw.exp(x)
    assert {rt.nodes[i][0] for i in range(before, len(rt.nodes))} == {dev.streams.default.handle}


def test_with_stream_makes_its_device_the_default(model):
    _, dev = model
    with cw.Stream(dev):
        assert cw.zeros(3).device is dev
    assert cw.zeros(3).device == "cpu"


def test_a_host_read_waits_for_the_current_stream_only(model):
    rt, dev = model
    x = cw.asarray(np.arange(8, dtype=np.float32), device=dev)
    s = cw.Stream(dev)
    with s:
        cw.to_numpy(x + 1)
    assert rt.synced_streams == [handle(s)]
    rt.synced_streams.clear()
    cw.synchronize(dev)
    assert set(rt.synced_streams) == {handle(s), dev.streams.default.handle}


def test_a_host_read_of_an_array_made_on_another_stream_waits_for_that_stream(model):
    """An array made inside `with s:` and read after the block: its value is the one s
    computed (the read drains s, then the current stream)."""
    rt, dev = model
    x = cw.asarray(np.arange(8, dtype=np.float32), device=dev)
    s = cw.Stream(dev)
    with s:
        y = x + 1
    rt.synced_streams.clear()
    cw.to_numpy(y)  # (the model runs no kernels: what is checked is what the read waits for)
    assert rt.synced_streams == [handle(s), dev.streams.default.handle]
    rt.synced_streams.clear()
    cw.to_numpy(x)  # made on the current stream: that stream alone
    assert rt.synced_streams == [dev.streams.default.handle]


def test_stream_and_event_calls(model):
    rt, dev = model
    s1, s2 = cw.Stream(dev), cw.Stream(dev)
    start, end = cw.Event(dev), cw.Event(dev)
    start.record(s1)
    end.record(s1)
    s2.wait_event(end)
    with s2:
        mark = len(rt.nodes)
        DeviceBuffer.allocate(dev, 512).memset(0)
    assert rt.ordered(rt.recorded[end._backend.handle], mark)
    assert start.elapsed_time(end) == 0.0 and rt.calls["hipEventElapsedTime"] == 1
    assert s1.query() and end.query()
    s1.synchronize()
    assert rt.synced_streams[-1] == handle(s1)
    s2.wait_stream(s1)
    with pytest.raises(ArgumentValueError, match="without timing"):
        cw.Event(dev, enable_timing=False).elapsed_time(end)
    with pytest.raises(ArgumentValueError, match="never recorded"):
        cw.Event(dev).elapsed_time(end)
    with pytest.raises(DeviceMismatchError):
        cw.Event("cpu").record(s1)


def test_stream_records_are_reused_after_their_streams_go(model):
    rt, dev = model
    s = cw.Stream(dev)
    record = s._backend.record
    del s
    again = cw.Stream(dev)
    assert again._backend.record is record
    assert rt.calls["hipStreamCreateWithFlags"] == 2  # the device's own and one user stream


def test_library_handles_and_scratch_are_per_stream(model):
    rt, dev = model
    own_blas, own_scratch = dev.blas, reductions.scratch(dev)
    with cw.Stream(dev):
        assert dev.blas is not own_blas and reductions.scratch(dev) is not own_scratch
    assert dev.blas is own_blas and rt.calls["hipblasCreate"] == 2


def test_a_capture_records_the_current_stream_and_refuses_a_switch(model):
    _, dev = model
    x = cw.asarray(np.ones(8, np.float32), device=dev)
    s = cw.Stream(dev)
    g = cw.graphs.Graph(dev)
    with s:
        with g.capture():
            cw.exp(x)
            assert dev.capture.stream is s._backend.record
            with pytest.raises(GraphCaptureError, match="switching streams"):
                with cw.Stream(dev):
                    pass


# --- memory statistics and control ---------------------------------------------------------------

def test_memory_stats_count_use_cache_and_peaks(model):
    rt, dev = model
    base = cw.memory_stats(dev)
    a = DeviceBuffer.allocate(dev, 3 << 20)
    b = DeviceBuffer.allocate(dev, 1000)
    stats = cw.memory_stats(dev)
    assert stats["in_use_bytes"] - base["in_use_bytes"] == (3 << 20) + 1024
    assert stats["active_blocks"] - base["active_blocks"] == 2
    assert stats["allocations"] - base["allocations"] == 2
    del a
    stats = cw.memory_stats(dev)
    assert stats["cached_bytes"] - base["cached_bytes"] == 3 << 20
    assert stats["peak_in_use_bytes"] >= base["in_use_bytes"] + (3 << 20) + 1024
    cw.reset_peak_memory_stats(dev)
    assert cw.memory_stats(dev)["peak_in_use_bytes"] == cw.memory_stats(dev)["in_use_bytes"]
    frees = rt.calls["hipFree"]
    cw.empty_cache(dev)
    after = cw.memory_stats(dev)
    assert after["cached_bytes"] == 0 and rt.calls["hipFree"] > frees
    assert after["reserved_bytes"] == after["in_use_bytes"]
    del b


def test_the_limit_releases_the_cache_then_raises_naming_what_is_held(model):
    rt, dev = model
    held = DeviceBuffer.allocate(dev, 2 << 20)
    cached = DeviceBuffer.allocate(dev, 2 << 20)
    del cached
    reserved = cw.memory_stats(dev)["reserved_bytes"]
    cw.set_memory_limit(reserved + (1 << 20), dev)
    assert cw.memory_stats(dev)["limit_bytes"] == reserved + (1 << 20)
    fits = DeviceBuffer.allocate(dev, 2 << 20)  # the cached block: no new memory
    del fits
    flushes = cw.memory_stats(dev)["cache_flushes"]
    with pytest.raises(cw.errors.DeviceMemoryError, match=r"over the limit .* in arrays") as info:
        DeviceBuffer.allocate(dev, 4 << 20)
    assert "asked for 4194304 bytes" in str(info.value)
    assert cw.memory_stats(dev)["cache_flushes"] == flushes + 1
    assert cw.memory_stats(dev)["cached_bytes"] == 0
    cw.set_memory_limit(None, dev)
    DeviceBuffer.allocate(dev, 4 << 20)
    del held


def test_an_out_of_memory_error_says_what_is_in_use_and_cached(model):
    rt, dev = model
    kept = DeviceBuffer.allocate(dev, 1 << 20)
    real_malloc = rt.hip.hipMalloc

    def full(size):
        if size > (8 << 20):
            return (fake_streams.fake_hip.Status(2, "hipErrorOutOfMemory"), None)
        return real_malloc(size)

    rt.hip.hipMalloc = full
    with pytest.raises(cw.errors.DeviceMemoryError, match=r"hipErrorOutOfMemory.*1\.0 MiB in arrays and 0 bytes cached"):
        DeviceBuffer.allocate(dev, 16 << 20)
    assert cw.memory_stats(dev)["in_use_bytes"] == 1 << 20
    del kept


def test_index_checks_of_one_stream_are_read_by_its_drain(model):
    _, dev = model
    checks = dev.index_checks
    s = cw.Stream(dev)
    dev.error_flag("a")
    with s:
        dev.error_flag("b")
    taken = checks.snapshot(s._backend.record)
    assert [name for _, name, _ in taken] == ["b"]
    assert [name for _, name, _ in checks.snapshot()] == ["a"]


# --- the profiler on a GPU device ------------------------------------------------------------------

class _FakeRoctx:
    def __init__(self):
        self.calls = []

    def roctxRangePushA(self, name):
        self.calls.append(("push", name))
        return 0

    def roctxRangePop(self):
        self.calls.append(("pop",))
        return 0


def test_the_profiler_times_each_primitive_with_events_and_roctx_ranges(model, monkeypatch):
    from rocm_backend.bindings import roctx

    rt, dev = model
    lib = _FakeRoctx()
    monkeypatch.setattr(roctx, "_lib", lib)
    x = cw.asarray(np.ones(64, np.float32), device=dev)
    s = cw.Stream(dev)
    records = rt.calls["hipEventRecord"]
    with cw.profile() as p:
        with s:
            cw.exp(x)
    assert [(r.primitive, r.op, r.dtype) for r in p.records] == [("unary", "exp", "float32")]
    assert rt.calls["hipEventRecord"] >= records + 2 and rt.calls["hipEventElapsedTime"] >= 1
    # on the profiled stream: the kernel between the profiler's two event records, and no
    # other event (the allocator may order a block freed on another stream there by one of
    # its own, on that stream: how many depends on what the collector freed before)
    on_s = [node[1] for node in rt.nodes if node[0] == s._backend.record.handle]
    kernel = next(i for i, what in enumerate(on_s) if "unary_exp" in what)
    assert on_s[kernel - 1:kernel + 2] == ["event record", on_s[kernel], "event record"]
    assert on_s.count("event record") == 2
    assert lib.calls == [("push", b"unary:exp"), ("pop",)]


def test_without_roctx_a_profile_has_no_ranges(model, monkeypatch):
    from rocm_backend.bindings import roctx

    _, dev = model
    monkeypatch.setattr(roctx, "_lib", False)  # looked for and not found
    x = cw.asarray(np.ones(4, np.float32), device=dev)
    with cw.profile() as p:
        cw.exp(x)
    assert [r.op for r in p.records] == ["exp"] and roctx.library() is None
