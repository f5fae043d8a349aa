"""Streams, events and memory control on a real device (issue 37, items 1 and 2): work on
two streams overlaps (shown by event queries, not timings), events order streams and
time work, DLPack hands data between candlewick's streams and PyTorch's or CuPy's,
threads on their own streams get right results, and the allocator's statistics, limit
and out-of-memory message follow real allocations."""

import threading

import numpy as np
import pytest

import candlewick as cw
from candlewick.errors import DeviceMemoryError
from rocm_backend.bindings import hip

N = 2048  # a GEMM of N x N float32: about 17 GFLOP, a few ms on any GPU of this decade


def _square(rocm):
    return cw.full((N, N), 1.0 / N, dtype=cw.float32, device=rocm)  # a @ a == a


def _long_work(a, reps):
    out = a
    for _ in range(reps):
        out = cw.matmul(out, a)
    return out


def test_a_second_stream_runs_while_the_first_is_busy(rocm):
    """s2's tiny op completes while s1 still holds tens of milliseconds of GEMMs: s2 did not
    queue behind s1 (a timing-free check: one event done, the other not)."""
    a = _square(rocm)
    s1, s2 = cw.Stream(rocm), cw.Stream(rocm)
    for s in (s1, s2):  # compile, fill each stream's pool and handles
        with s:
            _long_work(a, 1)
            cw.ones(16) + 1
    cw.synchronize(rocm)
    with s1:
        y = _long_work(a, 40)
        busy = s1.record_event()
    with s2:
        z = cw.ones(16) + 1
        quick = s2.record_event()
    quick.synchronize()
    assert not busy.query(), "the op on s2 waited for s1's queued GEMMs"
    busy.synchronize()
    np.testing.assert_allclose(cw.to_numpy(y), np.full((N, N), 1.0 / N), rtol=1e-4)
    assert np.all(cw.to_numpy(z) == 2)


def test_stream_synchronize_waits_for_its_stream_only(rocm):
    a = _square(rocm)
    s1, s2 = cw.Stream(rocm), cw.Stream(rocm)
    for s in (s1, s2):  # compile and load the kernels, fill each stream's pool and handles,
        with s:  # as the test above: a module's first load may wait for the device's work
            _long_work(a, 1)
            cw.ones(4) * 3
    cw.synchronize(rocm)
    with s1:
        y = _long_work(a, 40)
    with s2:
        cw.ones(4) * 3
    s2.synchronize()
    assert not s1.query(), "synchronizing s2 waited for s1"
    s1.synchronize()
    assert s1.query() and float(cw.to_numpy(y)[0, 0]) == pytest.approx(1.0 / N, rel=1e-4)


def test_events_order_streams_and_time_work(rocm):
    a = _square(rocm)
    s1, s2 = cw.Stream(rocm), cw.Stream(rocm)
    start, end = cw.Event(rocm), cw.Event(rocm)
    with s1:
        start.record()
        y = _long_work(a, 10)
        end.record()
    s2.wait_event(end)
    with s2:
        total = cw.sum(y)  # reads y after s1 wrote it
    assert float(cw.to_numpy(total)) == pytest.approx(float(N), rel=1e-3)
    ms = start.elapsed_time(end)
    assert 0 < ms < 60_000


def test_threads_on_their_own_streams(rocm):
    """Each thread on its own stream: GEMMs (a hipBLAS handle per stream), reductions (a
    scratch area per stream), FFTs (plans per stream) and memory reused across them."""
    errors = []
    rng = np.random.default_rng(0)
    host = rng.standard_normal((256, 256)).astype(np.float32)

    def worker(k):
        try:
            with cw.Stream(rocm):
                for _ in range(20):
                    x = cw.asarray(host * (k + 1))
                    prod = cw.to_numpy(cw.sum(x @ x, axis=0))
                    spectrum = cw.to_numpy(cw.fft.rfft(x, axis=1))
                    np.testing.assert_allclose(prod, ((host * (k + 1)) @ (host * (k + 1))).sum(0), rtol=2e-3,
                                               atol=1e-2 * (k + 1) ** 2)
                    np.testing.assert_allclose(spectrum, np.fft.rfft(host * (k + 1), axis=1), rtol=1e-3,
                                               atol=1e-3 * (k + 1))
        except Exception as exc:  # noqa: BLE001 - reported by the main thread
            errors.append((k, exc))

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def test_a_graph_captured_and_replayed_on_a_user_stream(rocm):
    s = cw.Stream(rocm)
    x = cw.asarray(np.arange(1024, dtype=np.float32), device=rocm)
    with s:
        g = cw.graphs.capture(lambda v: cw.exp(v * 0.001) + 1, x)
        out = g.replay()
        s.synchronize()
    np.testing.assert_allclose(cw.to_numpy(out), np.exp(np.arange(1024) * 0.001) + 1, rtol=1e-6)


# --- DLPack's stream handoff with user streams ---------------------------------------------------

def test_torch_reads_what_a_user_stream_wrote(rocm, torch):
    a = _square(rocm)
    with cw.Stream(rocm):
        y = cw.reshape(_long_work(a, 20), (-1,)) * 2 + 1  # queued on the user stream
        t = torch.from_dlpack(y)  # torch's current stream waits for ours (an event)
    assert t.sum().item() == pytest.approx((2.0 / N + 1) * N * N, rel=1e-4)


def test_a_user_stream_reads_what_a_torch_stream_wrote(rocm, torch):
    n = 1 << 24
    ts = torch.cuda.Stream()
    with torch.cuda.stream(ts):
        u = torch.full((n,), 2.0, device="cuda")
        for _ in range(50):
            u.mul_(1.0)
        with cw.Stream(rocm):
            x = cw.from_dlpack(u)  # we pass our stream: torch makes it wait for ts
            total = cw.sum(x)
    assert float(cw.to_numpy(total)) == 2.0 * n


def test_torch_runs_on_a_candlewick_stream(rocm, torch):
    s = cw.Stream(rocm)
    with s:
        x = cw.arange(1 << 20, dtype=cw.float32) * 3
        with torch.cuda.stream(torch.cuda.ExternalStream(s.ptr)):
            t = torch.from_dlpack(x) + 1  # the same stream: in order without an event
    s.synchronize()
    np.testing.assert_array_equal(t.cpu().numpy(), np.arange(1 << 20, dtype=np.float32) * 3 + 1)


def test_cupy_both_ways_with_user_streams(rocm, cupy):
    a = _square(rocm)
    with cw.Stream(rocm):
        y = cw.reshape(_long_work(a, 20), (-1,)) + 1
        c = cupy.from_dlpack(y)  # cupy's current stream waits for ours
    assert float(c.sum()) == pytest.approx((1.0 / N + 1) * N * N, rel=1e-4)
    cs = cupy.cuda.Stream(non_blocking=True)
    with cs:
        u = cupy.full((1 << 22,), 3.0, dtype=cupy.float32)
        for _ in range(50):
            u *= 1.0
        with cw.Stream(rocm):
            total = cw.sum(cw.from_dlpack(u))  # cupy makes our stream wait for cs
    assert float(cw.to_numpy(total)) == 3.0 * (1 << 22)


# --- memory control ------------------------------------------------------------------------------

def test_memory_stats_follow_device_allocations(rocm):
    cw.synchronize(rocm)
    cw.empty_cache(rocm)
    cw.reset_peak_memory_stats(rocm)
    base = cw.memory_stats(rocm)
    x = cw.empty(256 << 20, dtype=cw.uint8, device=rocm)
    held = cw.memory_stats(rocm)
    assert held["in_use_bytes"] == base["in_use_bytes"] + (256 << 20)
    assert held["peak_in_use_bytes"] >= held["in_use_bytes"]
    assert held["reserved_bytes"] >= held["in_use_bytes"] and held["device_allocations"] > base["device_allocations"]
    del x
    freed = cw.memory_stats(rocm)
    assert freed["cached_bytes"] >= 256 << 20 and freed["peak_in_use_bytes"] == held["peak_in_use_bytes"]
    device_free = hip.mem_get_info()[0]
    cw.empty_cache(rocm)
    assert cw.memory_stats(rocm)["cached_bytes"] == 0
    assert hip.mem_get_info()[0] >= device_free + (256 << 20) - (64 << 20)  # the runtime's own slack aside


def test_a_limit_and_out_of_memory_say_what_is_held(rocm):
    cw.empty_cache(rocm)
    keep = cw.empty(32 << 20, dtype=cw.uint8, device=rocm)
    reserved = cw.memory_stats(rocm)["reserved_bytes"]
    cw.set_memory_limit(reserved + (64 << 20), rocm)
    try:
        with pytest.raises(DeviceMemoryError, match=r"over the limit .*in arrays"):
            cw.empty(128 << 20, dtype=cw.uint8, device=rocm)
        cw.empty(32 << 20, dtype=cw.uint8, device=rocm)  # within the limit
    finally:
        cw.set_memory_limit(None, rocm)
    total = cw.memory_stats(rocm)["total_bytes"]
    with pytest.raises(DeviceMemoryError, match=r"in arrays and .* cached"):
        cw.empty(2 * total, dtype=cw.uint8, device=rocm)
    del keep


# --- pinned memory and copies that do not wait ----------------------------------------------------

@pytest.mark.parametrize("dtype", [cw.float32, cw.bfloat16, cw.int64, cw.complex64])
def test_pinned_round_trip_without_waiting(rocm, dtype):
    n = 1 << 20
    data = (np.arange(n) % 97).astype(dtype.numpy)
    h = cw.pinned_empty(n, dtype=dtype, device=rocm)
    h[...] = cw.asarray(data)
    g = h.to_device(rocm, non_blocking=True)
    back = (g + 1).to_device("cpu", non_blocking=True)
    cw.current_stream(rocm).synchronize()
    np.testing.assert_array_equal(cw.to_numpy(back), (data + 1).astype(dtype.numpy))
    assert cw.memory_stats(rocm)["pinned_bytes"] >= n * dtype.itemsize


def test_a_non_blocking_upload_returns_while_its_stream_is_busy(rocm):
    a = _square(rocm)
    h = cw.pinned_empty(1 << 24, dtype=cw.float32, device=rocm)
    h[...] = 3
    s = cw.Stream(rocm)
    with s:
        _long_work(a, 1)
        h.to_device(rocm, non_blocking=True)
    s.synchronize()
    with s:
        busy = _long_work(a, 40)
        g = h.to_device(rocm, non_blocking=True)  # queued behind the GEMMs: must not wait for them
        assert not s.query(), "the upload waited for the stream"
        total = cw.sum(g)
    assert float(cw.to_numpy(total)) == 3.0 * (1 << 24)
    del busy


def test_the_profile_of_gpu_work(rocm):
    a = _square(rocm)
    with cw.profile() as p:
        y = a @ a
        z = cw.exp(y)
        cw.to_numpy(cw.sum(z))
    prims = [(r.primitive, r.op) for r in p.records]
    assert prims[:3] == [("matmul", ""), ("unary", "exp"), ("reduce", "sum")]
    matmul = p.records[0]
    assert matmul.device == rocm.name and matmul.shapes == ((N, N), (N, N))
    assert matmul.device_ms > 0.1 and matmul.device_start_ms >= 0  # a 2048^3 GEMM takes device time
    assert "matmul" in p.table()
