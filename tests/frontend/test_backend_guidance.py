"""What a new user is told when a backend cannot run: every unavailable-backend reason
says what to install or set next, an unknown backend name gets the registered names and
a suggestion, and ``rocm_backend.precompile`` fails as ``asarray(device="rocm")`` does."""

import enum
import importlib.metadata
import sys
import types

import pytest

import candlewick as cw
from candlewick import registry
from candlewick.errors import BackendUnavailableError, DeviceError
from rocm_backend.bindings import hip as rocm_device
import rocm_backend


@pytest.mark.parametrize("asked, suggested", [("cuda", "rocm"), ("CUDA", "rocm"), ("gpu", "rocm"),
                                              ("cpuu", "cpu"), ("rocn", "rocm")])
def test_unknown_backend_suggests_a_registered_one(asked, suggested):
    with pytest.raises(DeviceError, match=f"unknown backend '{asked}'") as info:
        cw.asarray([1.0], device=asked)
    message = str(info.value)
    # (every registered name: cpu and rocm, and whatever else is installed here)
    assert f"registered backends: {sorted(b.name for b in cw.backends())}" in message
    assert f"did you mean '{suggested}'" in message
    assert not isinstance(info.value, BackendUnavailableError)


def test_unknown_backend_far_from_every_name_gets_no_guess():
    with pytest.raises(DeviceError) as info:
        cw.get_device("opencl:0")
    assert "did you mean" not in str(info.value)
    assert "registered backends" in str(info.value)


def _fake_hip(monkeypatch, get_device_count):
    package = types.ModuleType("hip")
    package.hip = types.SimpleNamespace(hipGetDeviceCount=get_device_count)
    monkeypatch.setitem(sys.modules, "hip", package)


def test_missing_hip_python_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "hip", None)  # import hip -> ImportError
    ok, reason = rocm_device.probe()
    assert not ok
    assert "hip-python is not installed" in reason
    # candlewick is on no package index: the extra's packages by name (pinned as the installed
    # metadata pins them; a source tree on sys.path has none), and the checkout's form
    try:
        importlib.metadata.requires("candlewick")
        pinned = "=="
    except importlib.metadata.PackageNotFoundError:
        pinned = "'"
    assert "pip install 'hip-python[libraries,systems]" + pinned in reason and "pip install '.[rocm]'" in reason
    assert "'candlewick[rocm]'" not in reason


def test_unloadable_runtime_says_install_rocm_or_set_rocm_path(monkeypatch):
    def no_runtime():
        raise RuntimeError("libamdhip64.so: cannot open shared object file")

    _fake_hip(monkeypatch, no_runtime)
    ok, reason = rocm_device.probe()
    assert not ok
    assert "libamdhip64.so not loadable" in reason and "cannot open shared object" in reason
    assert "install the ROCm runtime" in reason and "ROCM_PATH" in reason


class _Status(enum.IntEnum):
    hipSuccess = 0
    hipErrorNoDevice = 100


@pytest.mark.parametrize("result, words", [((_Status.hipErrorNoDevice, 0), "hipErrorNoDevice"),
                                           ((_Status.hipSuccess, 0), "reported 0 devices")])
def test_no_device_says_what_to_check(monkeypatch, result, words):
    _fake_hip(monkeypatch, lambda: result)
    ok, reason = rocm_device.probe()
    assert not ok and words in reason
    assert "/dev/kfd" in reason and "HIP_VISIBLE_DEVICES" in reason


def test_precompile_without_a_device_raises_what_asarray_raises():
    if any(b.name == "rocm" and b.available for b in registry.backends()):
        pytest.skip("a rocm device is usable here: precompile would compile every kernel")
    with pytest.raises(BackendUnavailableError) as from_asarray:
        cw.asarray([1.0], device="rocm")
    with pytest.raises(BackendUnavailableError) as from_precompile:
        rocm_backend.precompile(progress=False)
    assert str(from_precompile.value) == str(from_asarray.value)
    assert "backend 'rocm' is unavailable" in str(from_precompile.value)
