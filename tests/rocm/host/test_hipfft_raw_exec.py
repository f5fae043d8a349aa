"""hipFFT's exec called through ctypes on the library hip-python loaded (bindings/hipfft.py's
raw path, as stream_sync_function does for synchronizations): the plan's address, both
pointers and the direction reach the library as hip-python would pass them; a failed
status raises naming the call and hipFFT's status; ``CANDLEWICK_ROCM_RAW_FFT=0`` and
stand-in modules (no file: not the loaded library's binding) keep hip-python's call.
A ctypes callback of the exec's C signature stands in for the library (no GPU needed)."""

import ctypes
import enum
import types

import pytest

from rocm_backend.bindings import hipfft
from rocm_backend.error import RocmError

R2C = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)
C2C = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int)


class Result(enum.IntEnum):  # hip-python's hipfftResult_t, the members the test needs
    HIPFFT_SUCCESS = 0
    HIPFFT_INVALID_PLAN = 1
    HIPFFT_EXEC_FAILED = 6


class Plan:
    """hip-python's handle: its int is the plan's address."""

    def __int__(self):
        return 0x7F00_0000_1230


def _module(file="/opt/hip/hipfft.cpython.so"):
    hf = types.ModuleType("hip.hipfft")
    if file is not None:
        hf.__file__ = file
    hf.HIPFFT_FORWARD, hf.HIPFFT_BACKWARD = -1, 1
    hf.hipfftResult_t = Result
    hf.python_calls = []
    for kind in ("R2C", "C2R", "C2C"):
        setattr(hf, "hipfftExec" + kind, lambda *a, kind=kind: (hf.python_calls.append((kind, a)), 0)[1])
    return hf


@pytest.fixture
def library(monkeypatch):
    """(the stand-in module, the calls the 'library' saw, its status list)."""
    calls, status = [], [0]
    functions = {
        "hipfftExecR2C": R2C(lambda plan, src, dst: (calls.append(("R2C", plan, src, dst)), status[0])[1]),
        "hipfftExecC2C": C2C(lambda plan, src, dst, d: (calls.append(("C2C", plan, src, dst, d)), status[0])[1]),
    }
    hf = _module()
    monkeypatch.setattr(hipfft, "_api", hf)
    monkeypatch.setattr(hipfft, "_resolved", {})
    monkeypatch.setattr(hipfft, "loaded_library_path", lambda name: "/opt/rocm/lib/libhipfft.so" if name == "libhipfft" else None)
    monkeypatch.setattr(hipfft, "loaded_function", lambda path, symbol: functions.get(symbol) if path else None)
    monkeypatch.delenv("CANDLEWICK_ROCM_RAW_FFT", raising=False)
    yield hf, calls, status


def test_the_exec_goes_to_the_loaded_library_with_the_plan_address(library):
    hf, calls, _ = library
    hipfft.execute("R2C", Plan(), 0x1000_0000_0000, 0x2000_0000_0040)
    hipfft.execute("C2C", Plan(), 0x10, 0x20, inverse=True)
    hipfft.execute("C2C", Plan(), 0x10, 0x20)
    assert calls == [("R2C", 0x7F00_0000_1230, 0x1000_0000_0000, 0x2000_0000_0040),
                     ("C2C", 0x7F00_0000_1230, 0x10, 0x20, 1), ("C2C", 0x7F00_0000_1230, 0x10, 0x20, -1)]
    assert hf.python_calls == []


def test_a_failed_raw_exec_raises_naming_the_call_and_status(library):
    _, _, status = library
    status[0] = 6
    with pytest.raises(RocmError, match="hipfftExecR2C failed: HIPFFT_EXEC_FAILED"):
        hipfft.execute("R2C", Plan(), 0x10, 0x20)


def test_a_kind_the_library_lacks_and_a_plan_without_an_address_use_hip_python(library):
    hf, calls, _ = library
    hipfft.execute("C2R", Plan(), 0x10, 0x20)  # no raw function found for it
    hipfft.execute("R2C", "plan", 0x10, 0x20)  # a stand-in plan: no address
    assert calls == []
    assert [k for k, _ in hf.python_calls] == ["C2R", "R2C"]


@pytest.mark.parametrize("case", ["knob off", "stand-in module"])
def test_the_knob_and_stand_in_modules_keep_hip_pythons_call(library, monkeypatch, case):
    hf, calls, _ = library
    if case == "knob off":
        monkeypatch.setenv("CANDLEWICK_ROCM_RAW_FFT", "0")
    else:
        hf = _module(file=None)
        monkeypatch.setattr(hipfft, "_api", hf)
    hipfft.execute("R2C", Plan(), 0x10, 0x20)
    assert calls == []
    assert hf.python_calls == [("R2C", (hf.python_calls[0][1][0], 0x10, 0x20))]


# --- a prepared plan's exec (``runner``, kept per plan by families/fft.py's PlanCache) ----------

def test_a_prepared_exec_runs_from_c_and_returns_the_status(library):
    """With candlewick._native built, ``runner`` is a partial of its fft_exec (no Python
    frame a call), the plan's address and direction fixed: the library sees what
    ``execute`` passes, and a failed status raises through ``raise_failed``."""
    if hipfft._c_fft_exec is None:
        pytest.skip("candlewick._native was not built here (no C compiler)")
    hf, calls, status = library
    r2c, c2c = hipfft.runner("R2C", Plan()), hipfft.runner("C2C", Plan(), inverse=True)
    assert r2c.func is hipfft._c_fft_exec and c2c.func is hipfft._c_fft_exec
    assert r2c(0x1000_0000_0000, 0x2000_0000_0040) == 0 and c2c(0x10, 0x20) == 0
    assert calls == [("R2C", 0x7F00_0000_1230, 0x1000_0000_0000, 0x2000_0000_0040),
                     ("C2C", 0x7F00_0000_1230, 0x10, 0x20, 1)]
    status[0] = 6
    assert r2c(0x10, 0x20) == 6
    with pytest.raises(RocmError, match="hipfftExecR2C failed: HIPFFT_EXEC_FAILED"):
        hipfft.raise_failed("R2C", 6)
    assert hf.python_calls == []


@pytest.mark.parametrize("case", ["no C module", "no raw function", "no plan address"])
def test_a_prepared_exec_without_c_goes_through_execute(library, monkeypatch, case):
    hf, calls, _ = library
    kind, plan = ("C2R", Plan()) if case == "no raw function" else ("R2C", "plan" if case == "no plan address" else Plan())
    if case == "no C module":
        monkeypatch.setattr(hipfft, "_c_fft_exec", None)
    run = hipfft.runner(kind, plan)
    assert run(0x10, 0x20) == 0
    if case == "no C module":  # execute's ctypes call
        assert calls == [("R2C", 0x7F00_0000_1230, 0x10, 0x20)] and hf.python_calls == []
    else:  # hip-python's
        assert calls == [] and [k for k, _ in hf.python_calls] == [kind]


# --- the memset of fft's zero padding: hipMemsetAsync through ctypes too ----------------------

MEMSET = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t, ctypes.c_void_p)


class HipError(enum.IntEnum):  # hip-python's hipError_t, the members the test needs
    hipSuccess = 0
    hipErrorInvalidValue = 1


class Stream:
    def __int__(self):
        return 0x5500


@pytest.fixture
def runtime(monkeypatch):
    """(the stand-in hip-python api, the calls the 'runtime' saw, its status list)."""
    from rocm_backend.bindings import hip, hip_ctypes

    calls, status = [], [0]
    raw = MEMSET(lambda ptr, byte, n, stream: (calls.append((ptr, byte, n, stream)), status[0])[1])
    api = types.SimpleNamespace(hip=types.SimpleNamespace(python_calls=[]))
    api.hip.hipMemsetAsync = lambda *a: (api.hip.python_calls.append(a), (0,))[1]
    api.hip.hipError_t = HipError
    monkeypatch.setattr(hip, "hip_api", lambda: api)
    monkeypatch.setattr(hip_ctypes, "_raw_memset", [None, None])
    monkeypatch.setattr(hip_ctypes, "loaded_runtime_path", lambda: "/opt/rocm/lib/libamdhip64.so")
    monkeypatch.setattr(hip_ctypes, "loaded_function", lambda path, symbol: raw if symbol == "hipMemsetAsync" else None)
    monkeypatch.delenv("CANDLEWICK_ROCM_RAW_LAUNCH", raising=False)
    yield hip_ctypes, api, calls, status


def test_the_memset_goes_to_the_loaded_runtime(runtime):
    hip, api, calls, _ = runtime
    hip.memset_async(0x7000_0000_0010, 0, 13_000_000, Stream())
    assert calls == [(0x7000_0000_0010, 0, 13_000_000, 0x5500)]
    assert api.hip.python_calls == []


def test_a_failed_raw_memset_raises_naming_the_call(runtime):
    hip, _, _, status = runtime
    status[0] = 1
    with pytest.raises(RocmError, match="hipMemsetAsync failed: hipErrorInvalidValue"):
        hip.memset_async(0x10, 0, 4, Stream())


@pytest.mark.parametrize("case", ["knob off", "stream without an address"])
def test_the_knob_and_address_less_streams_keep_hip_pythons_memset(runtime, monkeypatch, case):
    hip, api, calls, _ = runtime
    stream = Stream()
    if case == "knob off":
        monkeypatch.setenv("CANDLEWICK_ROCM_RAW_LAUNCH", "0")
    else:
        stream = None  # the null stream as a stand-in passes it
    hip.memset_async(0x10, 0, 4, stream)
    assert calls == []
    assert api.hip.python_calls == [(0x10, 0, 4, stream)]
