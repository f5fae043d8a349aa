"""Backend registry and device selection (issue: foundation)."""

import subprocess
import sys

import pytest

import candlewick as cw
from candlewick import backend_discovery, errors


def test_backends_lists_cpu_and_rocm_with_reasons():
    rows = {b.name: b for b in cw.backends()}
    assert rows["cpu"].available and rows["cpu"].device_count == 1
    assert "rocm" in rows
    if not rows["rocm"].available:
        assert rows["rocm"].reason  # says why, never empty


def test_unknown_device_strings_raise_clearly():
    with pytest.raises(errors.DeviceError, match="unknown backend 'tpu'"):
        cw.zeros(3, device="tpu")
    with pytest.raises(errors.DeviceError, match="look like"):
        cw.zeros(3, device="cpu:x")
    with pytest.raises(errors.DeviceError, match="has 1 device"):
        cw.zeros(3, device="cpu:3")
    with pytest.raises(errors.DeviceError):
        cw.zeros(3, device=42)


def test_unavailable_backend_says_why():
    rows = {b.name: b for b in cw.backends()}
    if rows["rocm"].available:
        pytest.skip("rocm is available on this machine")
    with pytest.raises(errors.BackendUnavailableError, match="rocm") as info:
        cw.asarray([1.0], device="rocm")
    assert rows["rocm"].reason in str(info.value)


def test_default_device_sources(monkeypatch):
    cpu = cw.get_device("cpu")
    assert cw.zeros(2).device is cpu
    with cw.default_device("cpu") as dev:
        assert dev is cpu and cw.ones(2).device is cpu
    cw.set_default_device("cpu")
    try:
        assert cw.arange(3).device is cpu
    finally:
        cw.set_default_device(None)
    monkeypatch.setenv("CANDLEWICK_DEVICE", "nonexistent")
    with pytest.raises(errors.DeviceError):
        cw.zeros(1)


def test_device_objects_are_canonical():
    a = cw.zeros(2, device="cpu")
    assert a.device is cw.get_device("cpu:0") is cw.get_device(a.device)
    assert cw.asarray(a, device=a.device) is a
    assert a.to_device("cpu") is a


def test_broken_third_party_entry_point_is_reported_not_raised(monkeypatch):
    specs = dict(backend_discovery._discover())
    specs["broken"] = "candlewick_no_such_module:BACKEND"
    monkeypatch.setattr(backend_discovery, "_specs", specs)
    monkeypatch.setattr(backend_discovery, "_loaded", dict(backend_discovery._loaded))
    monkeypatch.setattr(backend_discovery, "_probes", dict(backend_discovery._probes))
    rows = {b.name: b for b in cw.backends()}
    assert not rows["broken"].available
    assert "ModuleNotFoundError" in rows["broken"].reason
    with pytest.raises(errors.BackendUnavailableError, match="broken"):
        cw.zeros(1, device="broken")


def test_import_never_imports_a_gpu_runtime():
    code = "import sys, candlewick; print('hip' in sys.modules, 'rocm_backend' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]
