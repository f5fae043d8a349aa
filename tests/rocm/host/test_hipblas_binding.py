"""rocm_backend.bindings.hipblas on CPU: the ctypes prototype matches the C declaration of
hipblasGemmStridedBatchedEx (as the HIP-on-CUDA shim declares it, after hipBLAS's), and
without a loaded libhipblas the call goes through hip-python."""

import ctypes
import pathlib
import re

from rocm_backend.bindings import hipblas

SHIM = pathlib.Path(__file__).resolve().parents[3] / "tools" / "hip_on_cuda" / "src" / "hipblas.c"
_C_TO_CTYPES = {"int": ctypes.c_int, "int64_t": ctypes.c_int64}


def test_prototype_matches_the_c_declaration():
    text = SHIM.read_text()
    decl = re.search(r"hipblasGemmStridedBatchedEx\((.*?)\)\s*\{", text, re.S).group(1)
    params = [p.strip() for p in decl.replace("\n", " ").split(",")]
    assert len(params) == len(hipblas._ARGTYPES) == 23
    for param, ctype in zip(params, hipblas._ARGTYPES):
        if "*" in param or param.startswith("hipblasHandle_t"):
            assert ctype is ctypes.c_void_p, param
        else:
            assert ctype is _C_TO_CTYPES[param.split()[0]], param


def test_no_loaded_library_means_hip_python(monkeypatch):
    monkeypatch.setattr(hipblas, "_loaded_hipblas", lambda: None)
    assert hipblas._raw_function() is None
    monkeypatch.setenv("CANDLEWICK_ROCM_RAW_BLAS", "0")
    monkeypatch.setattr(hipblas, "_loaded_hipblas", lambda: "/nonexistent")
    assert hipblas._raw_function() is None
