"""Fixtures for the HIP-on-CUDA shim tests (tools/hip_on_cuda).

They run where hip-python is importable and its libamdhip64 is the shim with
a GPU behind it (tools/gpu_run.sh sets ROCM_PATH to the shim build);
elsewhere they skip with the reason.
"""

import ctypes
import os

import pytest


def _hip_modules():
    try:
        from hip import hip, hipblas, hiprtc
    except Exception as exc:  # noqa: BLE001 - any import failure means "not here"
        pytest.skip(f"hip-python not importable: {exc!r}")
    return hip, hiprtc, hipblas


def status(res):
    """The status of a hip-python call result ((status, *values) or status)."""
    return int(res[0]) if isinstance(res, tuple) else int(res)


def ok(res):
    """Assert success; return the call's value(s)."""
    err = res[0] if isinstance(res, tuple) else res
    assert int(err) == 0, f"call failed: {err!r}"
    rest = res[1:] if isinstance(res, tuple) else ()
    if not rest:
        return None
    return rest[0] if len(rest) == 1 else rest


@pytest.fixture(scope="session")
def hipmods():
    return _hip_modules()


@pytest.fixture(scope="session")
def shim_lib():
    """The shim's libamdhip64, opened by path (skips if ROCM_PATH is not the shim)."""
    root = os.environ.get("ROCM_PATH", "")
    path = os.path.join(root, "lib", "libamdhip64.so")
    if not root or not os.path.exists(path):
        pytest.skip("ROCM_PATH does not point at a hip_on_cuda build")
    lib = ctypes.CDLL(path)
    if not hasattr(lib, "hipOnCudaLoadError"):
        pytest.skip(f"{path} is not the hip_on_cuda shim")
    lib.hipOnCudaLoadError.restype = ctypes.c_char_p
    return lib


@pytest.fixture(scope="session")
def hip(hipmods, shim_lib):
    hip = hipmods[0]
    err, count = hip.hipGetDeviceCount()
    if int(err) != 0 or count < 1:
        why = shim_lib.hipOnCudaLoadError().decode()
        pytest.skip(f"no GPU behind the shim: {err!r} {why}")
    ok(hip.hipSetDevice(0))
    return hip


@pytest.fixture(scope="session")
def hiprtc(hip, hipmods):
    return hipmods[1]


@pytest.fixture(scope="session")
def hipblas(hip, hipmods):
    return hipmods[2]


@pytest.fixture(scope="session")
def miopen(hip, shim_lib):
    import importlib.util
    from pathlib import Path

    spec = importlib.util.spec_from_file_location(
        "hoc_miopen_ctypes", Path(__file__).with_name("miopen_ctypes.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    lib = module.load(os.path.join(os.environ["ROCM_PATH"], "lib", "libMIOpen.so"))
    lib.binding = module  # the struct types live in the binding module
    return lib
