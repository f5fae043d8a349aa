"""The optional hook ``MemoryStatsDevice`` (``candlewick.backend``): the allocator's
statistics, cache and limit, checked where a device declares it (the report files them
under ``memory_info``). A value the device reports as None (not known) is not checked."""

import pytest

import candlewick as cw
from candlewick.backend import MEMORY_STAT_KEYS, MemoryStatsDevice
from candlewick.errors import DeviceMemoryError, UnsupportedOperation

from .report import NOT_DECLARED

pytestmark = pytest.mark.primitive("memory_info")
_MiB = 1 << 20


@pytest.fixture
def memory(device):
    if not isinstance(device, MemoryStatsDevice):
        pytest.skip(f"{NOT_DECLARED}: {device.name} does not implement candlewick.backend.MemoryStatsDevice")
    return device


def _known(stats, key):
    return stats[key] is not None


def test_stats_hold_every_key(memory):
    stats = memory.memory_stats()
    assert set(MEMORY_STAT_KEYS) <= set(stats)
    for key in MEMORY_STAT_KEYS:
        value = stats[key]
        assert value is None or (isinstance(value, int) and not isinstance(value, bool) and value >= 0), key
    assert stats["total_bytes"] > 0 and stats["free_bytes"] <= stats["total_bytes"]
    if _known(stats, "in_use_bytes") and _known(stats, "peak_in_use_bytes"):
        assert stats["peak_in_use_bytes"] >= stats["in_use_bytes"]


def test_use_peak_and_cache_follow_an_array(memory):
    dev = memory
    memory.synchronize()
    before = dev.memory_stats()
    if not _known(before, "in_use_bytes"):
        pytest.skip(f"{dev.name} does not count the memory in use")
    x = cw.zeros(16 * _MiB // 8, dtype=cw.int64, device=dev)  # int64: every device declares it
    held = dev.memory_stats()
    assert held["in_use_bytes"] >= before["in_use_bytes"] + 16 * _MiB
    assert held["peak_in_use_bytes"] >= held["in_use_bytes"]
    del x
    freed = dev.memory_stats()
    assert freed["in_use_bytes"] <= held["in_use_bytes"] - 16 * _MiB
    dev.reset_peak_memory_stats()
    now = dev.memory_stats()
    assert now["peak_in_use_bytes"] == now["in_use_bytes"]
    dev.empty_cache()
    assert dev.memory_stats()["cached_bytes"] == 0


def test_a_limit_is_enforced_or_refused(memory):
    dev = memory
    reserved = dev.memory_stats()["reserved_bytes"]
    try:
        dev.set_memory_limit((reserved or 0) + 8 * _MiB)
    except UnsupportedOperation:
        return  # a backend that cannot enforce one says so
    try:
        assert dev.memory_stats()["limit_bytes"] == (reserved or 0) + 8 * _MiB
        with pytest.raises(DeviceMemoryError):
            cw.empty(8 * _MiB, dtype=cw.int64, device=dev)
    finally:
        dev.set_memory_limit(None)
    assert dev.memory_stats()["limit_bytes"] is None
    cw.empty(8 * _MiB, dtype=cw.int64, device=dev)
