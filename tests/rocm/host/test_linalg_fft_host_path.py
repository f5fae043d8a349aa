"""What one call of the benchmarked fft and Cholesky cases queues, pinned: kernel launches and
library/runtime calls on the fake runtime with no-op hipSOLVER/hipFFT
(linalg_fft_host_path.py, which also times them). An extra pass, upload or library call
shows here before a GPU run does."""

import importlib.util
import pathlib

import pytest

import linalg_fft_host_path as host_path  # tests/rocm/host is on pytest's pythonpath

# by path: this folder is no package, and the name "rocm" belongs to hip-python
_spec = importlib.util.spec_from_file_location("rocm_fake_hip", pathlib.Path(__file__).with_name("fake_hip.py"))
fake_hip = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fake_hip)

#: case -> (kernels launched, library and runtime calls) of one call in the steady state
EXPECTED = {
    # one hipFFT exec, no copy, no scaling pass ("backward": the forward transform is unscaled)
    "fft (1024, 4096) complex64, last axis": ([], {"hipfftExecC2C": 1}),
    # the real pass along the rows, the column pass writing the result transposed; no copy
    "rfftn (4096, 4096) float32": ([], {"hipfftExecR2C": 1, "hipfftExecC2C": 1}),
    # the transposed copy potrf LOWER factors, potrfBatched, the info ints' copy to pinned
    # memory with its event, the pass that zeroes the upper triangle reading the factor
    # transposed, then the wait for that event alone (no stream synchronize); the pointer
    # array, lwork and triangle mask come from the caches
    "cholesky (1024, 64, 64) float32": (["transpose_b4", "where_b4"], {
        "hipModuleLaunchKernel": 2, "hipsolverSpotrfBatched": 1, "hipMemcpyDtoHAsync": 1,
        "hipEventRecord": 1, "hipEventSynchronize": 1}),
}


@pytest.fixture
def fake(monkeypatch, tmp_path):
    from rocm_backend.bindings import hipfft, hipsolver

    monkeypatch.setenv("CANDLEWICK_KERNEL_CACHE", str(tmp_path / "kc"))
    rt = fake_hip.install(monkeypatch)
    host_path.install_libraries(rt, fake_hip.OK, monkeypatch.setattr)
    monkeypatch.setattr(hipsolver, "_resolved", {})
    monkeypatch.setattr(hipfft, "_resolved", {})
    from rocm_backend import RocmBackend

    return rt, RocmBackend().device(0)


def test_each_case_queues_only_its_passes(fake):
    rt, dev = fake
    cases = host_path.cases(dev)
    assert set(cases) == set(EXPECTED)
    for name, fn in cases.items():
        launches, calls = host_path.one_call(rt, fn)
        assert (launches, calls) == EXPECTED[name], name


def test_plans_are_made_once(fake):
    """Repeated calls of one shape make no new hipFFT plan, pointer array or workspace query."""
    rt, dev = fake
    cases = host_path.cases(dev)
    for fn in cases.values():
        for _ in range(3):
            fn()
    rt.calls.clear()
    for fn in cases.values():
        fn()
    made = {k: v for k, v in rt.calls.items() if "Plan" in k or "bufferSize" in k or k == "hipMemcpyHtoDAsync"}
    assert made == {}, made
