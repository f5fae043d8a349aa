"""Pinned host memory and copies that do not wait (issue 37, item 3), on fake HIP runtimes:
one whose copies move real bytes (fake_devices.py, real_memory) for values, one that
models stream order (fake_streams.py) for what waits for what."""

import numpy as np
import pytest

import candlewick as cw
import fake_devices  # tests/rocm/host is on pytest's pythonpath
import fake_hip
import fake_streams
from candlewick.errors import DeviceMemoryError
from rocm_backend import RocmBackend


@pytest.fixture
def real(monkeypatch, tmp_path):
    """(runtime, device) where copies, memsets and pinned memory are real host memory."""
    monkeypatch.setenv("CANDLEWICK_KERNEL_CACHE", str(tmp_path / "kc"))
    rt = fake_hip.install(monkeypatch, runtime=fake_devices.MultiDeviceRuntime(devices=1, real_memory=True))
    return rt, RocmBackend().device(0)


@pytest.fixture
def model(monkeypatch, tmp_path):
    monkeypatch.setenv("CANDLEWICK_KERNEL_CACHE", str(tmp_path / "kc"))
    rt = fake_streams.install(monkeypatch)
    return rt, RocmBackend().device(0)


def _address(x):
    return np.from_dlpack(x).ctypes.data if x.dtype != cw.bfloat16 else x._storage.buf.ctypes.data


@pytest.mark.parametrize("dtype", [cw.float32, cw.int8, cw.bfloat16, cw.complex128])
def test_pinned_empty_is_a_host_array_over_a_pinned_block(real, dtype):
    rt, dev = real
    h = cw.pinned_empty((3, 5), dtype=dtype, device=dev)
    assert h.device == "cpu" and h.shape == (3, 5) and h.dtype == dtype
    block = dev.pinned.find(_address(h), 15 * dtype.itemsize)
    assert block is not None and rt.calls["hipHostMalloc"] >= 1
    h[...] = 2
    assert np.all(cw.to_numpy(h) == 2)
    assert cw.memory_stats(dev)["pinned_bytes"] >= 15 * dtype.itemsize


def test_non_blocking_round_trip_through_pinned_memory(real):
    rt, dev = real
    data = np.arange(1000, dtype=np.float32)
    h = cw.pinned_empty(1000, dtype=cw.float32, device=dev)
    h[...] = cw.asarray(data)
    syncs = rt.synchronizing_calls
    g = h.to_device(dev, non_blocking=True)
    back = g.to_device("cpu", non_blocking=True)
    assert rt.synchronizing_calls == syncs + 1  # the download's hipMemcpyDtoHAsync alone: no wait
    assert rt.calls["hipStreamSynchronize"] == 0 and back.device == "cpu"
    assert dev.pinned.find(_address(back), 4000) is not None  # the result lies in pinned memory
    cw.current_stream(dev).synchronize()
    np.testing.assert_array_equal(cw.to_numpy(back), data)
    np.testing.assert_array_equal(cw.to_numpy(g), data)


def test_non_blocking_from_pageable_memory_copies_as_usual(real):
    rt, dev = real
    x = cw.asarray(np.arange(8, dtype=np.int64))  # ordinary host memory
    before = rt.calls["hipEventRecord"]
    g = x.to_device(dev, non_blocking=True)
    assert rt.calls["hipEventRecord"] == before  # no pinned block to mark
    np.testing.assert_array_equal(cw.to_numpy(g), np.arange(8))


def test_a_strided_download_is_made_contiguous_on_the_device_first(real):
    rt, dev = real
    g = cw.asarray(np.arange(12, dtype=np.float32).reshape(3, 4), device=dev)
    launches = len(rt.launches)
    back = g.T.to_device("cpu", non_blocking=True)
    assert back.shape == (4, 3) and len(rt.launches) == launches + 1  # one copy kernel


def test_an_ordinary_upload_from_pinned_memory_waits_for_its_copy(model):
    """cw.asarray of a NumPy view of pinned memory returns with the source free to change:
    the copy from pinned memory does not wait by itself, so the upload waits for it."""
    rt, dev = model
    h = cw.pinned_empty(64, dtype=cw.float32, device=dev)
    view = np.from_dlpack(h)
    syncs = rt.calls["hipEventSynchronize"]
    cw.asarray(view, device=dev)
    assert rt.calls["hipEventSynchronize"] == syncs + 1
    upload = max(i for i, node in enumerate(rt.nodes) if node[1] == "upload")
    assert rt.host_waited(upload)


def test_a_pinned_block_is_reused_only_after_its_copies_ran(model):
    rt, dev = model
    g = cw.asarray(np.ones(256, np.float32), device=dev)
    back = g.to_device("cpu", non_blocking=True)  # a download into a pinned block, not waited for
    address = _address(back)
    download = max(i for i, node in enumerate(rt.nodes) if node[1] == "download")
    del back
    again = cw.pinned_empty(256, dtype=cw.float32, device=dev)  # the same block, handed out again
    assert _address(again) == address
    assert rt.host_waited(download)  # the host waited for the copy before handing it out


def test_empty_cache_gives_pinned_blocks_back(real):
    rt, dev = real
    h = cw.pinned_empty(1 << 16, dtype=cw.uint8, device=dev)
    held = cw.memory_stats(dev)["pinned_bytes"]
    del h
    cw.empty_cache(dev)
    assert rt.calls["hipHostFree"] >= 1 and cw.memory_stats(dev)["pinned_bytes"] == held - (1 << 16)


def test_to_device_takes_a_stream_of_either_device(model):
    rt, dev = model
    s = cw.Stream(dev)
    h = cw.pinned_empty(16, dtype=cw.float32, device=dev)
    h[...] = 1
    h.to_device(dev, stream=s, non_blocking=True)
    uploads = [node for node in rt.nodes if node[1] == "upload"]
    assert uploads and uploads[-1][0] is s._backend.record.handle
    with pytest.raises(cw.errors.ArgumentTypeError, match="stream"):
        h.to_device(dev, stream=7)
    with pytest.raises(cw.errors.ArgumentTypeError, match="non_blocking"):
        h.to_device(dev, non_blocking=1)


def test_a_host_copy_larger_than_host_memory_is_refused(real):
    """to_numpy of a 2**62-byte broadcast view: DeviceMemoryError on "host" before NumPy is
    asked (NumPy's _ArrayMemoryError on the H200 run at 5bf3006), as on the cpu backend."""
    _, dev = real
    with pytest.raises(DeviceMemoryError, match=r"out of memory on host.*to_host: a host copy of shape"):
        cw.to_numpy(cw.broadcast_to(cw.ones(1, device=dev), (2**29, 2**30)))
    np.testing.assert_array_equal(cw.to_numpy(cw.asarray([1.0, 2.0], device=dev)), [1.0, 2.0])  # small: no query
