"""Faults on a rocm device: out-of-range indices (raised at the next synchronization,
naming the operation; a scatter with one writes nothing, and no memory out of bounds), out-of-memory and recovery, allocation churn,
concurrent threads, a hipRTC compile failure, and a kernel that faults on the device (in a
subprocess: the runtime keeps such a fault for the rest of the process)."""

import json
import os
import pathlib
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import candlewick as cw
from candlewick import dtypes as dt
from candlewick.errors import DeviceMemoryError
from candlewick.layout import Layout

from .gpu_helpers import read, upload

GiB = 1 << 30


# --- index bounds ---------------------------------------------------------------------

def _on(rocm, host):
    return cw.asarray(np.asarray(host), device=rocm)


def test_take_out_of_range_raises_at_sync(rocm):
    x = _on(rocm, np.arange(10.0))
    y = cw.take(x, _on(rocm, np.array([1, 10, 2])))  # queued: no error yet
    with pytest.raises(IndexError, match="index_select"):
        cw.to_numpy(y)
    # the flag was reset: the next operations run and read normally
    np.testing.assert_array_equal(cw.to_numpy(cw.take(x, _on(rocm, np.array([-1, 0])))), [9.0, 0.0])


def test_take_negative_beyond_range(rocm):
    x = _on(rocm, np.arange(6.0).reshape(2, 3))
    y = cw.take(x, _on(rocm, np.array([-4])), axis=1)
    with pytest.raises(IndexError, match="index_select"):
        rocm.synchronize()
    del y


def test_take_along_axis_out_of_range(rocm):
    x = _on(rocm, np.arange(12.0).reshape(3, 4))
    idx = _on(rocm, np.array([[0, 1], [4, 0], [3, 3]]))
    y = cw.take_along_axis(x, idx, axis=1)
    with pytest.raises(IndexError, match="gather"):
        cw.to_numpy(y)


def test_integer_array_indexing_out_of_range(rocm):
    x = _on(rocm, np.arange(20.0).reshape(4, 5))
    y = x[_on(rocm, np.array([0, 7]))]
    with pytest.raises(IndexError, match="index_select"):
        cw.to_numpy(y)
    z = x[_on(rocm, np.array([1, 2])), _on(rocm, np.array([0, 5]))]
    with pytest.raises(IndexError):
        cw.to_numpy(z)


def test_scatter_out_of_range_leaves_memory_alone(rocm):
    guard_before = _on(rocm, np.full(64, 7.0))
    x = _on(rocm, np.zeros(8))
    guard_after = _on(rocm, np.full(64, 7.0))
    x[_on(rocm, np.array([1, 1000, -9, 3]))] = _on(rocm, np.array([1.0, 2.0, 3.0, 4.0]))
    with pytest.raises(IndexError, match="scatter"):
        rocm.synchronize()
    np.testing.assert_array_equal(cw.to_numpy(x), np.zeros(8))  # not even the valid indices wrote
    assert (cw.to_numpy(guard_before) == 7).all() and (cw.to_numpy(guard_after) == 7).all()


@pytest.mark.parametrize("prim", ["scatter_add", "index_add"])
def test_accumulating_scatters_out_of_range(rocm, prim):
    dst, dl = upload(rocm, np.zeros((3, 4), np.float32))
    src, sl = upload(rocm, np.ones((3, 2), np.float32))
    if prim == "scatter_add":
        idx, il = upload(rocm, np.array([[0, 4], [1, 1], [-5, 3]], np.int64))
    else:
        idx, il = upload(rocm, np.array([2, 9], np.int64))
    getattr(dst, prim)(dl, idx, il, src, sl, 1)
    with pytest.raises(IndexError, match=prim):
        rocm.synchronize()
    rocm.synchronize()  # reported once
    np.testing.assert_array_equal(read(dst, (3, 4)), np.zeros((3, 4), np.float32))  # nothing accumulated


@pytest.mark.parametrize("n", [7, 100_003])
def test_scatter_with_one_bad_index_among_many_writes_nothing(rocm, n):
    """The bad index last, in a launch of many blocks: the check pass sees it before any
    block of the write pass runs."""
    x = _on(rocm, np.zeros(n))
    idx = np.arange(n)
    idx[-1] = n
    x[_on(rocm, idx)] = _on(rocm, np.ones(n))
    with pytest.raises(IndexError, match="scatter"):
        rocm.synchronize()
    assert not cw.to_numpy(x).any()
    x[_on(rocm, idx[:-1])] = _on(rocm, np.ones(n - 1))  # a good scatter afterwards writes
    np.testing.assert_array_equal(cw.to_numpy(x), np.r_[np.ones(n - 1), 0.0])


def test_index_errors_stay_in_their_thread(rocm):
    x = _on(rocm, np.arange(100.0))
    barrier = threading.Barrier(8)

    def work(k):
        barrier.wait()
        for _ in range(20):
            bad = k % 2 == 0
            idx = _on(rocm, np.array([5, 100 if bad else 50]))
            y = cw.take(x, idx)
            if bad:
                with pytest.raises(IndexError, match="index_select"):
                    cw.to_numpy(y)
            else:
                np.testing.assert_array_equal(cw.to_numpy(y), [5.0, 50.0])
        return k

    with ThreadPoolExecutor(8) as pool:
        assert sorted(pool.map(work, range(8))) == list(range(8))


# --- memory -------------------------------------------------------------------------

def test_out_of_memory_raises_and_recovers(rocm):
    free, total = rocm.memory_info()
    with pytest.raises(DeviceMemoryError) as info:
        rocm.empty((total,), dt.float64)  # eight times the device
    err = info.value
    assert err.requested >= 8 * total and err.free is not None and 0 <= err.free <= total
    assert "asked for" in str(err) and "free" in str(err)
    a = cw.ones((1 << 26,), dtype=cw.float32, device=rocm)  # 256 MiB
    hold = []
    try:
        for block in (4 * GiB, GiB // 4, 16 << 20, 1 << 20):  # fill the device
            for _ in range(total // block + 2):
                try:
                    hold.append(rocm.empty((block // 4,), dt.float32))
                except DeviceMemoryError:
                    break
        with pytest.raises(DeviceMemoryError) as info:
            a + a  # the output cannot be allocated: fails mid-computation
        assert info.value.requested >= 1 << 28
    finally:
        hold.clear()
    b = a + a  # the next allocation works (the cache is released and retried)
    np.testing.assert_array_equal(cw.to_numpy(b[:5]), [2.0] * 5)
    c = cw.ones((3 << 27,), dtype=cw.uint8, device=rocm)  # a size the cache does not hold
    assert int(cw.to_numpy(cw.sum(c, dtype=cw.int64))) == 3 << 27


def test_allocate_free_cycles_leave_memory_flat(rocm):
    sizes = (1, 100, 5000, 70_000, 1 << 20, 3 << 20)
    x = _on(rocm, np.arange(1000.0))

    def cycles(n):
        for i in range(n):
            st = rocm.empty((sizes[i % len(sizes)],), dt.float32)
            del st
            if i % 1000 == 0:
                (x + i) * 2  # front-end ops: temporaries of several sizes
        rocm.synchronize()

    def held():
        # this process's own counters: the device's free memory also moves with every other
        # process on the GPU (pytest-xdist's workers: 20 MiB between two reads on the H200)
        stats = rocm.memory_stats()
        return stats["reserved_bytes"], stats["in_use_bytes"]

    cycles(1000)  # warm the pool
    held0 = held()
    cycles(50_000)
    held1 = held()
    cycles(50_000)
    held2 = held()
    assert held1 == held0 and held2 == held0, (held0, held1, held2)


# --- threads ------------------------------------------------------------------------

def test_eight_threads_get_correct_results(rocm):
    cpu = cw.get_device("cpu")

    def work(k):
        rng = np.random.default_rng(k)
        a_h = rng.standard_normal((48, 48)).astype(np.float32)
        idx_h = rng.integers(-48, 48, 64)
        a, idx = _on(rocm, a_h), _on(rocm, idx_h)
        for it in range(25):
            b = (a * (k + 1) + it) @ a
            ref = (a_h.astype(np.float64) * (k + 1) + it) @ a_h.astype(np.float64)
            np.testing.assert_allclose(cw.to_numpy(b), ref, rtol=1e-4, atol=1e-3 * (k + 1 + it))
            np.testing.assert_allclose(cw.to_numpy(cw.sum(b, axis=0)), ref.sum(axis=0), rtol=1e-4,
                                       atol=0.05 * (k + 1 + it))
            np.testing.assert_array_equal(cw.to_numpy(cw.take(a, idx, axis=0)), a_h[idx_h])
        x_h = rng.standard_normal((2, 3, 9, 9)).astype(np.float32)
        w_h = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
        got = cw.nn.conv2d(_on(rocm, x_h), _on(rocm, w_h), padding=1, stride=(1, 2))
        ref = cw.nn.conv2d(cw.asarray(x_h, device=cpu), cw.asarray(w_h, device=cpu), padding=1, stride=(1, 2))
        np.testing.assert_allclose(cw.to_numpy(got), cw.to_numpy(ref), rtol=1e-4, atol=1e-4)
        pooled = cw.nn.max_pool2d(_on(rocm, x_h), 3, 2, 1)
        np.testing.assert_array_equal(cw.to_numpy(pooled), cw.to_numpy(cw.nn.max_pool2d(cw.asarray(x_h), 3, 2, 1)))
        return k

    with ThreadPoolExecutor(8) as pool:
        assert sorted(pool.map(work, range(8))) == list(range(8))


# --- compiler failures --------------------------------------------------------------

BROKEN = 'extern "C" __global__ void broken_kernel(float* p) { p[0] = not_declared_anywhere; }\n'


def test_hiprtc_failure_shows_the_log_and_the_name(rocm, monkeypatch):
    from rocm_backend import ops
    from rocm_backend.error import RocmError
    from rocm_backend import kernels

    with pytest.raises(RocmError) as info:
        kernels.compile_source("broken_kernel", BROKEN, [], rocm.arch)
    msg = str(info.value)
    assert "broken_kernel" in msg and "not_declared_anywhere" in msg, msg
    # through the runtime: the failure notes which kernel was being loaded
    original = rocm.kernels.module_source
    monkeypatch.setattr(rocm.kernels, "module_source",
                        lambda m: BROKEN if m == "broken_module" else original(m))
    spec = ops.KernelSpec(("test", "broken"), "broken_kernel", "broken_module", "cw_ew_args", "", 256)
    with pytest.raises(RocmError) as info:
        rocm.kernels.function(spec)
    text = str(info.value) + " ".join(getattr(info.value, "__notes__", []))
    assert "broken_kernel" in text and "not_declared_anywhere" in text


def test_device_still_works_after_faults(rocm):
    s, layout = upload(rocm, np.arange(6, dtype=np.float32))
    np.testing.assert_array_equal(read(s.copy(Layout.contiguous((6,))), (6,)), np.arange(6))


# --- a kernel that faults on the device (issue 21) -----------------------------------

FAULTING = """
struct cw_test_fault_args { float* out; const float* in; long long out_offset; long long in_offset;
                            long long B, R, C, sB, sC; };  /* cw_transpose_args' layout */
extern "C" __global__ void cw_test_fault(cw_test_fault_args a) { a.out[a.out_offset] = 1.0f; }
"""

FAULT_RUN = """
import json, sys
import numpy as np
import candlewick as cw
from candlewick.errors import CandlewickError
from rocm_backend import ops
from rocm_backend.abi import structs
from rocm_backend.error import RocmDeviceFault

rocm = cw.get_device("rocm:0")
x = cw.asarray(np.arange(4.0, dtype=np.float32), device=rocm)
report = {"before": cw.to_numpy(x + 1).tolist()}
original = rocm.kernels.module_source
rocm.kernels.module_source = lambda m: FAULTING if m == "cw_test_faulting" else original(m)
spec = ops.KernelSpec(("test", "fault"), "cw_test_fault", "cw_test_faulting", "cw_transpose_args", "", 32)
kernel = rocm.kernels.kernel(spec)
far = 1 << 40  # elements past x's buffer: an address nothing maps
rocm.launcher.launch(kernel, 1, 1, structs.TRANSPOSE_ARGS, (x._storage.ptr, x._storage.ptr, far, 0, 0, 0, 0, 0, 0))
for step, action in (("fault", rocm.synchronize), ("after", lambda: cw.to_numpy(x + 1))):
    try:
        action()
        report[step] = None
    except Exception as exc:
        report[step] = [type(exc).__name__, isinstance(exc, RocmDeviceFault), isinstance(exc, CandlewickError), str(exc)]
report["cpu"] = cw.to_numpy(cw.asarray([1.0, 2.0]) * 3).tolist()
print(json.dumps(report), flush=True)
"""


def test_kernel_fault_says_so_and_later_calls_say_the_device_is_lost(rocm):
    """A kernel writing far outside its buffer, queued through the one launcher: the next
    synchronization raises RocmDeviceFault saying a kernel faulted; every later call on
    the device raises the same error (the runtime keeps the fault); the cpu still works
    and the process ends normally."""
    repo = pathlib.Path(__file__).resolve().parents[3]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(repo), os.environ.get("PYTHONPATH", "")]))
    script = f"FAULTING = {FAULTING!r}\n" + FAULT_RUN
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["before"] == [1.0, 2.0, 3.0, 4.0]
    for step in ("fault", "after"):
        assert report[step] is not None, f"{step}: no error raised"
        name, is_fault, is_candlewick, message = report[step]
        assert is_fault and is_candlewick, (step, name, message)
        assert "kernel faulted on the device" in message and "cannot be used again" in message, message
    assert report["cpu"] == [3.0, 6.0]
