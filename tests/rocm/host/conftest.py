"""Fixtures shared by the tests that run the rocm backend's Python path on the fake HIP
runtime (``fake_hip.py``)."""

import pytest

import fake_hip  # tests/rocm/host is on pytest's pythonpath
from rocm_backend import RocmBackend


@pytest.fixture
def fake(monkeypatch, tmp_path):
    """(the fake runtime, device 0 made on it), with a kernel cache of the test's own;
    everything is put back after the test."""
    monkeypatch.setenv("CANDLEWICK_KERNEL_CACHE", str(tmp_path / "kc"))
    runtime = fake_hip.install(monkeypatch)
    return runtime, RocmBackend().device(0)
