"""The shim's libhipsolver and libhipfft on a CPU-only machine: hip-python calls them
through ROCM_PATH and they forward to stand-ins for cuSOLVER and cuFFT
(tools/hip_on_cuda/tests/fake_cusolver_cufft.c; also cuBLAS's batched LU and trsm) that record what they were passed and
return the status the test sets. This checks the enum mapping (fill mode, operation, eig
mode), the status mapping, handles and plan numbers, and the per-matrix loop behind
syevjBatched past cuSOLVER's n <= 32 - without a GPU; results on one are checked by the
conformance suite on the device."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
HOC = ROOT / "tools" / "hip_on_cuda"

SCRIPT = r"""
import ctypes, os
from hip import hipsolver as hs, hipfft as hf, hipblas as hb
d = os.environ["FAKE_DIR"]
def lib(name):
    l = ctypes.CDLL(os.path.join(d, name))
    return {"name": (ctypes.c_char * 64).in_dll(l, "fake_last_name"),
            "args": (ctypes.c_longlong * 8).in_dll(l, "fake_last_args"),
            "status": ctypes.c_int.in_dll(l, "fake_status"), "calls": ctypes.c_int.in_dll(l, "fake_calls")}
cs, cf, cb = lib("libcusolver.so.12"), lib("libcufft.so.12"), lib("libcublas.so.12")
def last(l, n):
    return l["name"].value.decode(), list(l["args"][:n])
def ok(r):
    assert int(r[0]) == 0, r
    return r[1] if len(r) == 2 else None
F, O, E = hs.hipsolverFillMode_t, hs.hipsolverOperation_t, hs.hipsolverEigMode_t
h = ok(hs.hipsolverCreate())
assert ok(hs.hipsolverSpotrf_bufferSize(h, F.HIPBLAS_FILL_MODE_LOWER, 5, 0x1000, 5)) == 15
assert last(cs, 4) == ("cusolverDnXpotrf_bufferSize", [0, 5, 0, 5])      # 64-bit API; lower -> 0, R_32F
ok(hs.hipsolverSpotrf(h, F.HIPBLAS_FILL_MODE_UPPER, 5, 0x1000, 6, 0x2000, 15, 0x3000))
assert last(cs, 6) == ("cusolverDnXpotrf", [1, 5, 0, 6, 60, 1])          # upper -> 1; 15 floats = 60 bytes
assert int(hs.hipsolverSpotrf(h, F.HIPBLAS_FILL_MODE_UPPER, 5, 0x1000, 6, 0x2000, 14, 0x3000)[0]) == 3
ok(hs.hipsolverZpotrf(h, F.HIPBLAS_FILL_MODE_LOWER, 5, 0x1000, 5, 0x2000, 4, 0x3000))
assert last(cs, 6) == ("cusolverDnXpotrf", [0, 5, 5, 5, 64, 1])          # C_64F; 4 x 16 bytes
ctypes.c_int.in_dll(ctypes.CDLL(os.path.join(d, "libcusolver.so.12")), "fake_host_bytes").value = 8
assert ok(hs.hipsolverSpotrf_bufferSize(h, F.HIPBLAS_FILL_MODE_LOWER, 5, 0x1000, 5)) == 15
assert last(cs, 3) == ("cusolverDnSpotrf_bufferSize", [0, 5, 5])         # wants host memory: legacy API
ok(hs.hipsolverSpotrf(h, F.HIPBLAS_FILL_MODE_UPPER, 5, 0x1000, 6, 0x2000, 15, 0x3000))
assert last(cs, 4) == ("cusolverDnSpotrf", [1, 5, 6, 15])
calls = cs["calls"].value
assert int(hs.hipsolverSpotrf(h, F.HIPBLAS_FILL_MODE_FULL, 5, 0x1000, 5, 0x2000, 15, 0x3000)[0]) == 10
assert cs["calls"].value == calls                                         # INVALID_ENUM, not forwarded
ok(hs.hipsolverZgetrs(h, O.HIPBLAS_OP_C, 4, 2, 0x1000, 4, 0x2000, 0x3000, 4, 0x4000, 0, 0x5000))
assert last(cs, 5) == ("cusolverDnZgetrs", [2, 4, 2, 4, 4])               # op C -> 2
ok(hs.hipsolverCheevd(h, E.HIPSOLVER_EIG_MODE_VECTOR, F.HIPBLAS_FILL_MODE_LOWER, 3, 0x1000, 3, 0x2000, 0x3000, 9, 0x4000))
assert last(cs, 5) == ("cusolverDnCheevd", [1, 0, 3, 3, 9])               # vector -> 1
ok(hs.hipsolverDgesvd(h, ord("A"), ord("S"), 6, 4, 0x1000, 6, 0x2000, 0x3000, 6, 0x4000, 4, 0x5000, 1, 0x6000, 0x7000))
assert last(cs, 6) == ("cusolverDnDgesvd", [65, 83, 6, 4, 6, 4])
ok(hs.hipsolverSgesvdj(h, E.HIPSOLVER_EIG_MODE_VECTOR, 1, 6, 4, 0x1000, 6, 0x2000, 0x3000, 6, 0x4000, 4, 0x5000, 7, 0x6000, 0))
assert last(cs, 6) == ("cusolverDnSgesvdj", [1, 1, 6, 4, 6, 7])          # vector -> 1, econ as given
ok(hs.hipsolverSsyevjBatched(h, E.HIPSOLVER_EIG_MODE_NOVECTOR, F.HIPBLAS_FILL_MODE_UPPER, 8, 0x1000, 8, 0x2000, 0x3000, 1, 0x4000, 0, 5))
assert last(cs, 5) == ("cusolverDnSsyevjBatched", [0, 1, 8, 8, 5])
calls = cs["calls"].value
ok(hs.hipsolverSsyevjBatched(h, E.HIPSOLVER_EIG_MODE_VECTOR, F.HIPBLAS_FILL_MODE_LOWER, 40, 0x100000, 40, 0x2000, 0x3000, 1, 0x4000, 0, 3))
assert cs["calls"].value == calls + 3                                     # n > 32: one syevj per matrix
assert last(cs, 6) == ("cusolverDnSsyevj", [1, 0, 40, 40, 0x100000 + 2 * 40 * 40 * 4, 0x4000 + 2 * 4])
for cu, hip in ((10, 12), (4, 8), (9, 7), (6, 5), (5, 4)):                 # cusolverStatus -> hipsolverStatus
    cs["status"].value = cu
    assert int(hs.hipsolverSpotrf(h, F.HIPBLAS_FILL_MODE_LOWER, 5, 0x1000, 5, 0x2000, 15, 0x3000)[0]) == hip, cu
cs["status"].value = 0
assert int(hs.hipsolverSpotrf(None, F.HIPBLAS_FILL_MODE_LOWER, 5, 0x1000, 5, 0x2000, 15, 0x3000)[0]) == 9
T = hf.hipfftType_t
first = ok(hf.hipfftPlanMany(1, [16], [16], 1, 16, [16], 1, 16, T.HIPFFT_C2C, 4))
assert last(cf, 6) == ("cufftMakePlanMany", [0, 16, 1, 16, 0x29, 4])      # cuFFT's plan 0 is a plan
second = ok(hf.hipfftPlanMany(1, [8], [8], 2, 1, [5], 3, 1, T.HIPFFT_D2Z, 7))
assert last(cf, 6) == ("cufftMakePlanMany", [1, 8, 2, 1, 0x6a, 7])
ok((hf.hipfftExecC2C(first, 0x1000, 0x2000, hf.HIPFFT_BACKWARD)[0], None))
assert last(cf, 2) == ("cufftExecC2C", [0, 1])
ok((hf.hipfftExecC2C(first, 0x1000, 0x2000, hf.HIPFFT_FORWARD)[0], None))
assert last(cf, 2) == ("cufftExecC2C", [0, -1])
assert int(hf.hipfftExecC2C(first, 0x1000, 0x2000, 5)[0]) == 4            # not a direction
ok((hf.hipfftExecD2Z(second, 0x1000, 0x2000)[0], None))
assert last(cf, 1) == ("cufftExecD2Z", [1])
cf["status"].value = 15                                                   # cuFFT's LICENSE_ERROR
assert int(hf.hipfftExecD2Z(second, 0x1000, 0x2000)[0]) == 16
cf["status"].value = 0
assert int(hf.hipfftExecC2C(None, 0x1000, 0x2000, hf.HIPFFT_FORWARD)[0]) == 1   # INVALID_PLAN
ok((hf.hipfftDestroy(second)[0], None))
assert last(cf, 1) == ("cufftDestroy", [1])
b = ok(hb.hipblasCreate())
ok((hb.hipblasDgetrfBatched(b, 6, 0x1000, 6, 0x2000, 0x3000, 9)[0], None))
assert last(cb, 3) == ("cublasDgetrfBatched", [6, 6, 9])
info = ctypes.c_int(0)
ok((hb.hipblasCgetrsBatched(b, hb.hipblasOperation_t.HIPBLAS_OP_T, 6, 2, 0x1000, 6, 0x2000, 0x3000, 6,
                             ctypes.addressof(info), 9)[0], None))
assert last(cb, 6) == ("cublasCgetrsBatched", [1, 6, 2, 6, 6, 9])        # op T -> 1
one = ctypes.c_float(1)
ok((hb.hipblasStrsm(b, hb.hipblasSideMode_t.HIPBLAS_SIDE_LEFT, hb.hipblasFillMode_t.HIPBLAS_FILL_MODE_LOWER,
                     hb.hipblasOperation_t.HIPBLAS_OP_N, hb.hipblasDiagType_t.HIPBLAS_DIAG_NON_UNIT, 4, 7,
                     ctypes.addressof(one), 0x1000, 4, 0x2000, 5)[0], None))
assert last(cb, 6) == ("cublasStrsm_v2", [0, 0, 0, 0, 4, 7])       # left, lower, N, non-unit -> 0s
ok((hb.hipblasStrsm(b, hb.hipblasSideMode_t.HIPBLAS_SIDE_RIGHT, hb.hipblasFillMode_t.HIPBLAS_FILL_MODE_UPPER,
                     hb.hipblasOperation_t.HIPBLAS_OP_T, hb.hipblasDiagType_t.HIPBLAS_DIAG_UNIT, 4, 7,
                     ctypes.addressof(one), 0x1000, 7, 0x2000, 4)[0], None))
assert last(cb, 6) == ("cublasStrsm_v2", [1, 1, 1, 1, 4, 7])       # right, upper, T, unit -> 1s
embeds_null = ctypes.c_int.in_dll(ctypes.CDLL(os.path.join(d, "libcufft.so.12")), "fake_embeds_null")
assert embeds_null.value == 0                                             # the last plan had both embeds
ok(hf.hipfftPlanMany(1, [16], None, 1, 16, None, 1, 16, T.HIPFFT_C2C, 4))
assert embeds_null.value == 3                                             # None reaches cuFFT as NULL: basic layout
print("FAKE-SOLVER-FFT-OK")
"""


def test_hipsolver_and_hipfft_forwarding(tmp_path):
    try:
        from hip import hipfft, hipsolver  # noqa: F401
    except Exception as exc:  # noqa: BLE001
        pytest.skip(f"hip-python's hipsolver/hipfft not importable: {exc!r}")
    if not shutil.which("gcc"):
        pytest.skip("gcc not found")
    subprocess.run(["bash", str(HOC / "build.sh"), str(tmp_path / "shim")], check=True, capture_output=True)
    fake = tmp_path / "fake"
    fake.mkdir()
    cc = ["gcc", "-shared", "-fPIC", "-O1", "-fvisibility=hidden"]
    subprocess.run(cc + ["-o", str(fake / "libcuda.so.1"), str(HOC / "tests" / "fake_cuda.c")], check=True)
    for name in ("libcusolver.so.12", "libcufft.so.12", "libcublas.so.12"):  # one copy each: separate records
        subprocess.run(cc + ["-o", str(fake / name), str(HOC / "tests" / "fake_cusolver_cufft.c")], check=True)
    env = dict(os.environ, ROCM_PATH=str(tmp_path / "shim"), HIP_ON_CUDA_LIB_PATH=str(fake),
               FAKE_DIR=str(fake))
    proc = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env, timeout=120)
    assert "FAKE-SOLVER-FFT-OK" in proc.stdout, proc.stdout + proc.stderr
