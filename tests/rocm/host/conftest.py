"""Fixtures shared by the tests that run the rocm backend's Python path on the fake HIP
runtime (``fake_hip.py``)."""

import pytest

import fake_hip  # tests/rocm/host is on pytest's pythonpath
from host_exec import build_linalg_fft
from rocm_backend import RocmBackend


@pytest.fixture
def fake(monkeypatch, tmp_path):
    """(the fake runtime, device 0 made on it), with a kernel cache of the test's own;
    everything is put back after the test."""
    monkeypatch.setenv("CANDLEWICK_KERNEL_CACHE", str(tmp_path / "kc"))
    runtime = fake_hip.install(monkeypatch)
    return runtime, RocmBackend().device(0)


@pytest.fixture(scope="session")
def scan_sort_lib(tmp_path_factory):
    """``host_exec.build_scan_sort``'s library of the kernels the set functions (test_sets_host)
    and the lean primitives (test_lean_primitives_host) launch: built once a test process."""
    from host_exec import build_scan_sort
    import test_lean_primitives_host as lean
    import test_sets_host as sets_host

    return build_scan_sort(tmp_path_factory.mktemp("scan_sort"), lambda key: sets_host._wanted(key) or lean._wanted(key))


@pytest.fixture
def scan_sort_exec(scan_sort_lib, monkeypatch, tmp_path):
    """(ExecRuntime, rocm device on it) over ``scan_sort_lib``, the scans at one item a thread."""
    from host_exec import scan_sort_runtime

    return scan_sort_runtime(scan_sort_lib, monkeypatch, tmp_path)


@pytest.fixture(scope="session")
def linalg_fft_lib(tmp_path_factory):
    """``host_exec.build_linalg_fft``'s library of the linalg and fft families' kernels
    (test_linalg_fft_exec and test_linalg_tall_svd_host run on it): built once a test process."""
    return build_linalg_fft(tmp_path_factory.mktemp("linalg_fft_exec"))
