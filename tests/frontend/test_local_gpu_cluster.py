"""candlewick.dask_cluster.local_gpu_cluster: one dask worker process per GPU, each pinned
to its GPU; on a machine without one, one worker with cpu chunks. The cluster test starts
a real LocalCluster (one worker process: about 5 s alone, 10-15 s on the 2-core CI
machine under load) and checks a reduction and a matrix product of chunks made on the
worker against NumPy; on a GPU machine (tools/gpu_run.sh's tests stage) the same test
runs one worker per GPU and checks each is pinned and makes rocm chunks."""

import os

import numpy as np
import pytest

import candlewick as cw
from candlewick import dask_cluster
from candlewick.errors import ArgumentTypeError, ArgumentValueError


@pytest.mark.parametrize("env,expected", [
    ({"HIP_VISIBLE_DEVICES": "3, 5"}, ["3", "5"]),
    ({"CUDA_VISIBLE_DEVICES": "1"}, ["1"]),
    ({"HIP_VISIBLE_DEVICES": "2", "CUDA_VISIBLE_DEVICES": "0,1"}, ["2"]),
    ({"HIP_VISIBLE_DEVICES": ""}, []),
])
def test_visible_gpus_follow_the_environment(monkeypatch, env, expected):
    for name in dask_cluster.PIN_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert dask_cluster.visible_gpus() == expected


def test_a_worker_is_pinned_to_its_gpu_with_rocm_as_its_default_device():
    assert dask_cluster.worker_environment("3") == {"HIP_VISIBLE_DEVICES": "3", "CUDA_VISIBLE_DEVICES": "3",
                                                    "CANDLEWICK_DEVICE": "rocm"}
    assert dask_cluster.worker_environment(None) == {}


def test_each_new_worker_takes_the_next_free_gpu():
    pytest.importorskip("distributed")
    cls = dask_cluster._gpu_cluster_class()
    cluster = cls.__new__(cls)  # the spec logic alone: no scheduler, no process
    cluster.gpus, cluster._i, cluster.worker_spec = ["4", "6"], 0, {}
    cluster.new_spec = {"cls": object, "options": {"env": {"KEEP": "1"}}}
    for expected in ("4", "6", None):
        ((name, spec),) = cls.new_worker_spec(cluster).items()
        cluster.worker_spec[name] = spec
        env = spec["options"]["env"]
        assert env.get("HIP_VISIBLE_DEVICES") == expected and env["KEEP"] == "1"
        cluster._i += 1
    assert cluster.new_spec["options"]["env"] == {"KEEP": "1"}, "the template was changed"


@pytest.mark.parametrize("devices,error,match", [
    ("0", ArgumentTypeError, "devices must be a sequence"),
    ([0, 0], ArgumentValueError, "each GPU may appear once"),
    ([1.5], ArgumentTypeError, "each of devices must be a GPU id"),
    ([-1], ArgumentTypeError, "each of devices must be a GPU id"),
])
def test_bad_devices(devices, error, match):
    with pytest.raises(error, match="local_gpu_cluster: " + match):
        dask_cluster.local_gpu_cluster(devices)


def test_reduction_and_matmul_through_the_cluster_equal_numpy():
    da = pytest.importorskip("dask.array")
    distributed = pytest.importorskip("distributed")
    import candlewick.dask_dispatch  # noqa: F401  (the client joins chunks too)

    rng = np.random.default_rng(4)
    a, b = rng.uniform(-1, 1, (48, 32)), rng.uniform(-1, 1, (32, 24))
    gpus = dask_cluster.visible_gpus()
    meta = cw.zeros((0, 0), device="cpu")
    with dask_cluster.local_gpu_cluster(dashboard_address=None, memory_limit="1GiB") as cluster, \
            distributed.Client(cluster) as client:
        seen = client.run(lambda: (os.environ.get("HIP_VISIBLE_DEVICES"), cw.asarray([1.0]).device.name))
        assert len(seen) == max(1, len(gpus))
        if gpus:
            assert sorted(pin for pin, _ in seen.values()) == sorted(gpus)
            assert {name for _, name in seen.values()} == {"rocm:0"}
        else:
            assert [pin for pin, _ in seen.values()] == [os.environ.get("HIP_VISIBLE_DEVICES")]
        # chunks made by the workers' tasks, on their default device
        x = da.from_array(a, chunks=(12, 16)).map_blocks(cw.asarray, meta=meta)
        y = da.from_array(b, chunks=(16, 12)).map_blocks(cw.asarray, meta=meta)
        col_sum, col_max = client.compute([x.sum(axis=0), da.reduction(x, cw.max, cw.max, axis=0, dtype=x.dtype,
                                                                         meta=cw.zeros((0,), device="cpu"))],
                                          sync=True)
        product = client.compute(da.blockwise(cw.matmul, "ik", x, "ij", y, "jk", dtype=x.dtype, concatenate=True,
                                              meta=meta), sync=True)
    for got, expected in ((col_sum, a.sum(axis=0)), (col_max, a.max(axis=0)), (product, a @ b)):
        assert isinstance(got, cw.Array)
        np.testing.assert_allclose(cw.to_numpy(got), expected, rtol=1e-10, atol=1e-12)
