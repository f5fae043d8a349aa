"""Several GPUs in one host, and collectives over RCCL (candlewick.distributed).

On one GPU: groups of one device, in one process and as a process group of one (its
unique id, ncclCommInitRank and the cross-rank agreement all run), every collective and
dtype against NumPy, and bad input. On two GPUs (skipped, saying so, on fewer): arrays
on rocm:1, isolation of the devices, peer copies, operands on two GPUs, collectives over
a two-device group and across two processes, with mismatched input raising on both
ranks instead of hanging."""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import candlewick as cw
import candlewick.distributed as dist
from candlewick import dtypes as dt
from candlewick import registry
from candlewick.errors import ArgumentValueError, DeviceMismatchError, DTypeError, ShapeError, UnsupportedOperation

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def rccl(rocm):
    from rocm_backend.bindings import rccl as binding

    ok, why = binding.probe()
    if not ok:
        pytest.skip(f"RCCL unusable: {why} (for a GPU run, tools/fetch_wheels.sh fetches the wheel)")
    return binding


@pytest.fixture(scope="module")
def two_gpus(rocm):
    count = registry.get_backend("rocm").device_count()
    if count < 2:
        pytest.skip(f"needs 2 GPUs; this machine has {count}")
    return registry.get_device("rocm:0"), registry.get_device("rocm:1")


def _on(device, host):
    return cw.asarray(np.asarray(host), device=device)


def _np(x):
    return cw.to_numpy(x)


_REDUCE = {"sum": np.add, "prod": np.multiply, "max": np.maximum, "min": np.minimum}


# --- one GPU -----------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "int32", "int64", "uint8",
                                   "complex64", "bool"])
def test_group_of_one_device(rocm, rccl, dtype):
    host = (np.arange(24).reshape(6, 4) % 5).astype(dt.from_name(dtype).numpy)
    x = _on(rocm, host)
    with dist.new_group(["rocm:0"]) as group:
        assert (group.size, group.ranks, group.devices) == (1, (0,), (rocm,))
        op = "max" if dtype == "bool" else "sum"
        (y,) = dist.all_reduce([x], op=op, group=group)
        assert y.device is rocm and y.dtype == x.dtype
        np.testing.assert_array_equal(_np(y), host)
        (g,) = dist.all_gather([x], group=group)
        np.testing.assert_array_equal(_np(g), host[None])
        (b,) = dist.broadcast([x], 0, group=group)
        np.testing.assert_array_equal(_np(b), host)
        if dtype != "bool":
            (r,) = dist.reduce_scatter([x], group=group)
            np.testing.assert_array_equal(_np(r), host)


def test_group_of_one_device_takes_views(rocm, rccl):
    host = np.arange(12, dtype=np.float32).reshape(3, 4)
    x = _on(rocm, host)
    with dist.new_group(["rocm:0"]) as group:
        for view, expected in ((x.T, host.T), (x[1:, ::2], host[1:, ::2])):
            (y,) = dist.all_reduce([view], op="avg", group=group)
            np.testing.assert_array_equal(_np(y), expected)


def test_process_group_of_one(rocm, rccl):
    uid = dist.get_unique_id("rocm:0")
    assert isinstance(uid, bytes) and len(uid) == rccl.unique_id_size()
    group = dist.init_process_group(uid, world_size=1, rank=0, device="rocm:0", default=False)
    try:
        x = _on(rocm, np.arange(6.0))
        np.testing.assert_array_equal(_np(dist.all_reduce(x, op="prod", group=group)), np.arange(6.0))
        np.testing.assert_array_equal(_np(dist.all_gather(x, group=group)), np.arange(6.0)[None])
        # this rank's own bad input is raised after the agreement round, which it still joins
        with pytest.raises(DeviceMismatchError, match="all_reduce"):
            dist.all_reduce(cw.asarray(np.arange(6.0)), group=group)
        with pytest.raises(ArgumentValueError, match="own rank"):
            dist.send(x, 0, group=group)
        np.testing.assert_array_equal(_np(dist.all_reduce(x, group=group)), np.arange(6.0))  # still usable
    finally:
        group.close()
    with pytest.raises(ArgumentValueError, match="closed"):
        dist.all_reduce(x, group=group)


def test_bad_input_raises_naming_the_function(rocm, rccl):
    x = _on(rocm, np.ones(4, np.float32))
    with dist.new_group(["rocm:0"]) as group:
        with pytest.raises(ArgumentValueError, match="all_gather: the group has 1 device"):
            dist.all_gather([x, x], group=group)
        with pytest.raises(DeviceMismatchError, match="broadcast: array 0 is on cpu"):
            dist.broadcast([cw.ones(4)], 0, group=group)
        with pytest.raises(ArgumentValueError, match="op must be one of"):
            dist.all_reduce([x], op="or", group=group)
        with pytest.raises(UnsupportedOperation, match="prod"):
            dist.all_reduce([_on(rocm, np.ones(2, np.complex64))], op="prod", group=group)
    with pytest.raises(ArgumentValueError, match="new_group: each device may appear once"):
        dist.new_group(["rocm:0", "rocm:0"])
    with pytest.raises(UnsupportedOperation, match="no collectives"):
        dist.new_group(["cpu"])


# --- two GPUs ----------------------------------------------------------------------------

def test_arrays_on_the_second_gpu(two_gpus):
    d0, d1 = two_gpus
    a = np.random.default_rng(0).standard_normal((64, 64))
    x = _on(d1, a)
    cached0, free0 = d0.allocator.cached_bytes, d0.memory_info()
    y = cw.sum(x @ x.T + 1.0, axis=0)
    assert y.device is d1
    np.testing.assert_allclose(_np(y), (a @ a.T + 1.0).sum(axis=0), rtol=1e-10)
    np.testing.assert_allclose(_np(cw.linalg.inv(x)), np.linalg.inv(a), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(_np(cw.fft.fft(cw.astype(x[0], cw.complex128))), np.fft.fft(a[0]), rtol=1e-9, atol=1e-9)
    d1.synchronize()
    assert (d0.allocator.cached_bytes, d0.memory_info()) == (cached0, free0), "work on rocm:1 allocated on rocm:0"
    assert d1.stream is not d0.stream and d1.blas is not d0.blas


def test_work_on_one_gpu_does_not_wait_for_the_other(two_gpus):
    d0, d1 = two_gpus
    big = _on(d0, np.ones((4096, 4096)))
    small = _on(d1, np.arange(8.0))
    _np(small + 1.0)  # warm: kernels of rocm:1 loaded
    t = time.perf_counter()
    for _ in range(40):  # a long queue on rocm:0
        big = big @ big * (1.0 / 4096)
    queued = time.perf_counter()
    np.testing.assert_array_equal(_np(small + 1.0), np.arange(8.0) + 1.0)
    t1 = time.perf_counter()
    d0.synchronize()
    t0 = time.perf_counter()
    if t0 - queued < 0.05:
        pytest.skip(f"rocm:0's queue drained in {t0 - queued:.3f}s: too short to tell")
    assert t1 - queued < (t0 - queued) / 2, (t - queued, t1 - queued, t0 - queued)


@pytest.mark.parametrize("case", ["contiguous", "transposed", "offset slice"])
def test_peer_copy_between_gpus(two_gpus, case):
    d0, d1 = two_gpus
    host = np.arange(48, dtype=np.float32).reshape(6, 8)
    x = _on(d0, host)
    view, expected = {"contiguous": (x, host), "transposed": (x.T, host.T),
                      "offset slice": (x[2:5], host[2:5])}[case]
    y = view.to_device("rocm:1")
    x[...] = -1.0  # queued on rocm:0 right after: must not reach the copy
    assert y.device is d1
    np.testing.assert_array_equal(_np(y), expected)
    back = y.to_device(d0)
    np.testing.assert_array_equal(_np(back), expected)


def test_operands_on_two_gpus_raise(two_gpus):
    d0, d1 = two_gpus
    with pytest.raises(DeviceMismatchError):
        _on(d0, [1.0]) + _on(d1, [1.0])
    with dist.new_group(["rocm:0"]) as group:
        with pytest.raises(DeviceMismatchError, match="rank 0 of the group is rocm:0"):
            dist.all_reduce([_on(d1, [1.0])], group=group)


def test_two_gpu_group(two_gpus, rccl):
    d0, d1 = two_gpus
    a = np.arange(12, dtype=np.float32).reshape(4, 3)
    b = 10 * a + 1
    xs = [_on(d0, a), _on(d1, b)]
    with dist.new_group([d0, d1]) as group:
        for op, fn in _REDUCE.items():
            ys = dist.all_reduce(xs, op=op, group=group)
            assert [y.device for y in ys] == [d0, d1]
            for y in ys:
                np.testing.assert_allclose(_np(y), fn(a, b), rtol=1e-6)
        for y in dist.all_gather(xs, group=group):
            np.testing.assert_array_equal(_np(y), np.stack([a, b]))
        r0, r1 = dist.reduce_scatter(xs, group=group)
        np.testing.assert_array_equal(_np(r0), (a + b)[:2])
        np.testing.assert_array_equal(_np(r1), (a + b)[2:])
        for y in dist.broadcast(xs, 1, group=group):
            np.testing.assert_array_equal(_np(y), b)
        got = dist.send_recv([(xs[0], 1), (xs[1], 0)], [((4, 3), "float32", 0, 1), ((4, 3), "float32", 1, 0)],
                             group=group)
        np.testing.assert_array_equal(_np(got[0]), a)
        np.testing.assert_array_equal(_np(got[1]), b)
        assert got[0].device is d1 and got[1].device is d0
        with pytest.raises(ShapeError, match="all_reduce"):
            dist.all_reduce([xs[0], _on(d1, b[:3])], group=group)
        with pytest.raises(DTypeError, match="all_gather"):
            dist.all_gather([xs[0], _on(d1, b.astype(np.float64))], group=group)


CHILD = r"""
import json, sys
import numpy as np
import candlewick as cw
import candlewick.distributed as dist
rank = int(sys.argv[1])
uid = bytes.fromhex(sys.argv[2])
out = {}
group = dist.init_process_group(uid, world_size=2, rank=rank, device=f"rocm:{rank}")
x = cw.asarray(np.arange(6, dtype=np.float64) + 100 * rank, device=f"rocm:{rank}")
out["all_reduce"] = cw.to_numpy(dist.all_reduce(x)).tolist()
out["all_gather"] = cw.to_numpy(dist.all_gather(x)).tolist()
out["reduce_scatter"] = cw.to_numpy(dist.reduce_scatter(x)).tolist()
out["broadcast"] = cw.to_numpy(dist.broadcast(x, 1)).tolist()
if rank == 0:
    dist.send(x, 1)
else:
    out["recv"] = cw.to_numpy(dist.recv((6,), "float64", 0)).tolist()
# shapes new to the group on both ranks: both wait for the round, raise the detailed error,
# and the group stays usable
for name, bad in (("shape", x[: 2 + rank]), ("dtype", x[:4] if rank else x[:4].astype(cw.float32))):
    try:
        dist.all_reduce(bad)
        out[name] = "no error"
    except Exception as exc:
        out[name] = type(exc).__name__ + ": " + str(exc)
try:  # rank 1 expects a different shape than rank 0 sends: both must raise
    if rank == 0:
        dist.send(x, 1)
    else:
        dist.recv((5,), "float64", 0)
    out["p2p"] = "no error"
except Exception as exc:
    out["p2p"] = type(exc).__name__ + ": " + str(exc)
out["after"] = cw.to_numpy(dist.all_reduce(x)).tolist()  # the group still works
# shapes both ranks agreed on before, different now: neither waits; both raise at the next
# synchronization and the group is aborted
dist.all_reduce(x[:2])
y = dist.all_reduce(x[:2] if rank else x)
try:
    cw.to_numpy(y)
    out["cached"] = "no error"
except Exception as exc:
    out["cached"] = type(exc).__name__ + ": " + str(exc)
out["closed"] = group.closed
group.close()
print("RESULT " + json.dumps(out))
"""


def test_two_processes(two_gpus, rccl):
    uid = dist.get_unique_id("rocm:0").hex()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    procs = [subprocess.Popen([sys.executable, "-c", CHILD, str(r), uid], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=env) for r in (0, 1)]
    results = []
    try:
        for p in procs:
            stdout, stderr = p.communicate(timeout=240)
            lines = [line for line in stdout.splitlines() if line.startswith("RESULT ")]
            assert p.returncode == 0 and lines, stdout + stderr
            results.append(json.loads(lines[0][len("RESULT "):]))
    except subprocess.TimeoutExpired:
        for p in procs:
            p.kill()
        pytest.fail("the two processes hung")
    a, b = np.arange(6.0), np.arange(6.0) + 100
    for rank, out in enumerate(results):
        np.testing.assert_array_equal(out["all_reduce"], a + b)
        np.testing.assert_array_equal(out["all_gather"], np.stack([a, b]))
        np.testing.assert_array_equal(out["reduce_scatter"], (a + b)[3 * rank:3 * rank + 3])
        np.testing.assert_array_equal(out["broadcast"], b)
        assert out["shape"].startswith("ShapeError: all_reduce: the ranks' arrays differ in shape"), out["shape"]
        assert out["dtype"].startswith("DTypeError: all_reduce"), out["dtype"]
        assert out["p2p"].startswith("ShapeError: send_recv: rank 0 sends shape (6,) to rank 1"), out["p2p"]
        np.testing.assert_array_equal(out["after"], a + b)
        assert out["cached"].startswith("ArgumentValueError: all_reduce (call "), out["cached"]
        assert "aborted" in out["cached"] and out["closed"], out
    np.testing.assert_array_equal(results[1]["recv"], a)
