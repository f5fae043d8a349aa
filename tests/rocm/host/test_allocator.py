"""The caching allocator's pool and out-of-memory behaviour, with a fake HIP runtime."""

import types

import pytest

from candlewick.errors import DeviceMemoryError
from rocm_backend.bindings import hip as hip_binding
from rocm_backend.runtime import allocator as allocator_module
from rocm_backend.runtime import block_cache
from rocm_backend.runtime.allocator import CachingAllocator, round_size


class _Status(int):
    def __new__(cls, value, name):
        obj = int.__new__(cls, value)
        obj.name = name
        return obj


class FakeHip:
    def __init__(self, capacity):
        self.capacity, self.used, self.next, self.blocks, self.frees = capacity, 0, 0x1000, {}, 0

    def hipMalloc(self, size):
        if self.used + size > self.capacity:
            return (_Status(2, "hipErrorOutOfMemory"), None)
        self.used += size
        self.next += size
        self.blocks[self.next] = size
        return (_Status(0, "hipSuccess"), self.next)

    def hipFree(self, ptr):
        self.used -= self.blocks.pop(ptr)
        self.frees += 1
        return (_Status(0, "hipSuccess"),)


class FakeDevice:
    name = "rocm:0"

    def __init__(self, hip):
        self.hip = hip

    def make_current(self):
        pass

    def synchronize(self, check_errors=True):
        pass

    def memory_info(self):
        return self.hip.capacity - self.hip.used, self.hip.capacity


@pytest.fixture(params=["C", "Python"])
def blocks_in(request, monkeypatch):
    """The allocator's hit path in C (candlewick._native.BlockCache) and in Python."""
    if request.param == "C" and block_cache._NativeBlockCache is None:
        pytest.skip("candlewick._native was not built here (no C compiler)")
    if request.param == "Python":
        monkeypatch.setattr(block_cache, "_NativeBlockCache", None)
    return request.param


@pytest.fixture
def fake(monkeypatch, blocks_in):
    hip = FakeHip(capacity=4 << 20)
    monkeypatch.setattr(hip_binding, "_api", types.SimpleNamespace(hip=hip))
    dev = FakeDevice(hip)
    return hip, CachingAllocator(dev)


def test_freed_blocks_are_reused_by_rounded_size(fake):
    hip, alloc = fake
    p1, size = alloc.allocate(1000)
    assert size == 1024
    alloc.release(p1, size)
    p2, _ = alloc.allocate(900)
    assert p2 == p1 and hip.used == 1024
    assert alloc.allocate(0) == (0, 0)


def test_blocks_of_every_size_are_rounded_to_512_bytes(fake):
    """scipy.fft's (781, 4096) float32 signals: 12 795 904 bytes held as such, not as 13 MiB
    (PyTorch's allocator counts the same blocks)."""
    hip, alloc = fake
    hip.capacity = 64 << 20
    p, size = alloc.allocate(12_795_904)
    assert size == 12_795_904 and hip.used == size
    q, size = alloc.allocate(12_802_152)  # its spectrum, (781, 2049) complex64
    assert size == 12_802_560 and hip.used == 12_795_904 + 12_802_560
    assert alloc.stats()["in_use_bytes"] == hip.used == alloc.stats()["peak_in_use_bytes"]


def test_a_cached_block_a_little_larger_serves_a_request_and_counts_its_own_size(fake):
    hip, alloc = fake
    p, size = alloc.allocate(2 << 20)
    alloc.release(p, size)
    alloc.reset_peak()
    q, got = alloc.allocate((2 << 20) - 40_000)  # within 1/32: the cached block, no hipMalloc
    assert (q, got) == (p, 2 << 20) and hip.used == 2 << 20 and alloc.stats()["device_allocations"] == 1
    stats = alloc.stats()
    assert stats["in_use_bytes"] == stats["peak_in_use_bytes"] == 2 << 20 and stats["active_blocks"] == 1
    alloc.release(q, got)
    assert alloc.cached_bytes == 2 << 20 and alloc.stats()["in_use_bytes"] == 0
    r, got = alloc.allocate((2 << 20) - 80_000)  # past the slack: a block of its own
    assert r != p and got == round_size((2 << 20) - 80_000) and hip.used == (2 << 20) + got
    alloc.release(r, got)
    s_, got = alloc.allocate((2 << 20) - 80_000)  # its own size first, though both are cached
    assert s_ == r and alloc.stats()["device_allocations"] == 2
    alloc.release(s_, got)
    t, got = alloc.allocate(600_000)  # small requests take their own size only
    assert t not in (p, r) and got == round_size(600_000)


def test_a_request_that_recurs_without_its_size_takes_last_times_size_without_a_scan(fake):
    """irfft's (781, 4096) float32 output while the previous one is held: each call takes a
    cached spectrum block (781, 2049 complex64) by the size it took before, not by a pass
    over the pool's sizes; where none of that size is cached the scan finds the smallest."""
    hip, alloc = fake
    hip.capacity = 256 << 20
    out, spectrum = 12_795_904, 12_802_560
    kept = [alloc.allocate(spectrum) for _ in range(3)] + [alloc.allocate(spectrum + 8192)]
    for p, s in kept:
        alloc.release(p, s)
    p, got = alloc.allocate(out)  # the scan: the smallest larger block
    assert got == spectrum and alloc._fitted == {out: spectrum}

    def no_scan(size):
        raise AssertionError("the pool's sizes were scanned")

    real_slack = allocator_module.fit_slack
    allocator_module.fit_slack = no_scan  # (the scan's first step)
    try:
        q, got = alloc.allocate(out)
        assert got == spectrum and q != p and alloc.stats()["device_allocations"] == 4
        r, got = alloc.allocate(out)
        assert got == spectrum
    finally:
        allocator_module.fit_slack = real_slack
    # the spectra's blocks all taken: the scan again, the next smallest
    s_, got = alloc.allocate(out)
    assert got == spectrum + 8192 and alloc._fitted == {out: spectrum + 8192}
    for ptr, size in ((p, spectrum), (q, spectrum), (r, spectrum), (s_, spectrum + 8192)):
        alloc.release(ptr, size)
    assert alloc.stats()["in_use_bytes"] == 0 and alloc.cached_bytes == 4 * spectrum + 8192


def test_out_of_memory_releases_the_cache_and_retries_once(fake):
    hip, alloc = fake
    blocks = [alloc.allocate(1 << 20) for _ in range(3)]
    for p, s in blocks:
        alloc.release(p, s)
    p, s = alloc.allocate(2 << 20)  # needs the cached 3 MiB given back first
    assert s == 2 << 20 and hip.frees == 3 and alloc.cached_bytes == 0


def test_out_of_memory_after_retry_raises_device_memory_error(fake):
    hip, alloc = fake
    with pytest.raises(DeviceMemoryError) as info:
        alloc.allocate(8 << 20)
    assert isinstance(info.value, MemoryError)
    assert "8388608" in str(info.value) and "free" in str(info.value)


def test_a_size_past_the_address_space_is_a_device_memory_error_without_asking_hip(fake):
    """hipMalloc's size_t cannot hold it (hip-python raised OverflowError): a copy of a huge
    broadcast view asks such a size of the backend itself."""
    hip, alloc = fake
    with pytest.raises(DeviceMemoryError, match="larger than any allocation"):
        alloc.allocate(2**64 + 5)
    assert hip.used == 0 and hip.frees == 0


def test_the_block_cache_hands_out_takes_back_and_counts(blocks_in):
    free = {}
    blocks, lock = block_cache.block_cache(free)
    assert type(blocks).__name__ == "BlockCache" and (blocks_in == "Python") == (type(blocks) is block_cache.BlockCache)
    assert blocks.take(512) == 0  # nothing cached: the caller allocates, counted out all the same
    blocks.give(0x1000, 512)
    blocks.give(0x3000, 512)
    blocks.give(0x9000, 1 << 20)
    assert free == {512: [0x1000, 0x3000], 1 << 20: [0x9000]}
    assert (blocks.in_use, blocks.active, blocks.allocations) == (512 - 1024 - (1 << 20), -2, 1)
    assert blocks.take(512) == 0x3000 and blocks.take(512) == 0x1000 and blocks.take(512) == 0
    assert free[512] == [] and blocks.allocations == 4
    blocks.peak_in_use = blocks.in_use = 0
    with lock:  # the allocator's other paths count under the same lock
        blocks.count_out(2048)
        blocks.count_out(512)
        blocks.count_in(2048)
    assert (blocks.in_use, blocks.peak_in_use) == (512, 2560)


def test_the_block_cache_waits_for_its_lock(blocks_in):
    """take and give hold the allocator's lock: while another thread holds it they wait."""
    import threading

    blocks, lock = block_cache.block_cache({512: [0x1000]})
    got = []
    lock.acquire()
    worker = threading.Thread(target=lambda: got.append(blocks.take(512)))
    worker.start()
    worker.join(0.2)
    assert got == [] and worker.is_alive()
    lock.release()
    worker.join(5)
    assert got == [0x1000]
