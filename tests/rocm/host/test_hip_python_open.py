"""hip-python's libraries are opened once, under one lock, before a binding hands their
module out: hip-python's own first call is not safe between threads (two threads' first
hipFFT calls handed dlopen a freed path in tests/rocm/gpu/test_streams.py)."""

import sys
import threading
import time
import types

import pytest

from rocm_backend.bindings import hip_python


def _fake_hip(monkeypatch, names):
    """A ``hip`` package whose modules record each has_symbol call and whether another one
    was running at the same time."""
    calls, overlaps, running = [], [], []
    pkg = types.ModuleType("hip")
    pkg.__path__ = []
    for name in names:
        def has_symbol(symbol, name=name):
            if running:
                overlaps.append((running[0], name))
            running.append(name)
            time.sleep(0.01)  # wide enough for a second thread to come in, if it could
            calls.append((name, symbol))
            running.pop()
            return True
        setattr(pkg, name, types.SimpleNamespace(has_symbol=has_symbol, name=name))
    monkeypatch.setitem(sys.modules, "hip", pkg)
    return calls, overlaps


def test_a_library_is_opened_before_its_module_is_returned(monkeypatch):
    calls, _ = _fake_hip(monkeypatch, ["hipfft"])
    module = hip_python.opened("hipfft")
    assert module.name == "hipfft"
    assert calls == [("hipfft", "hipfftGetVersion")]


def test_threads_never_open_libraries_together(monkeypatch):
    calls, overlaps = _fake_hip(monkeypatch, ["hipfft", "hipsolver", "rccl"])
    got, start = [], threading.Barrier(6)

    def worker(name):
        start.wait()
        got.append(hip_python.opened(name).name)

    threads = [threading.Thread(target=worker, args=(n,)) for n in ["hipfft", "hipsolver", "rccl"] * 2]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(got) == sorted(["hipfft", "hipsolver", "rccl"] * 2)
    assert len(calls) == 6 and not overlaps


def test_a_missing_binding_is_an_import_error(monkeypatch):
    _fake_hip(monkeypatch, [])
    with pytest.raises(ImportError, match="'hipfft'"):
        hip_python.opened("hipfft")


def test_the_bindings_take_their_modules_from_it(monkeypatch):
    """hipFFT, hipSOLVER and RCCL's bindings and the HIP API come through opened()."""
    from rocm_backend.bindings import hip, hipfft, hipsolver, rccl

    calls, _ = _fake_hip(monkeypatch, ["hip", "hiprtc", "hipblas", "hipfft", "hipsolver", "rccl"])
    for module in (hipfft, hipsolver, rccl, hip):
        monkeypatch.setattr(module, "_api", None)
    assert hipfft._hipfft().name == "hipfft"
    assert hipsolver._hipsolver().name == "hipsolver"
    assert rccl.rccl_api().name == "rccl"
    api = hip.hip_api()
    assert (api.hip.name, api.hiprtc.name, api.hipblas.name) == ("hip", "hiprtc", "hipblas")
    assert {name for name, _ in calls} == {"hip", "hiprtc", "hipblas", "hipfft", "hipsolver", "rccl"}
