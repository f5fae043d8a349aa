"""The shim on a CPU-only machine: hip-python loads the built libamdhip64.so
through ROCM_PATH and the shim forwards to a stand-in libcuda
(tools/hip_on_cuda/tests/fake_cuda.c: host memory, no kernels).  This checks
the build, the dlopen path, argument translation and HIP's status numbers
without a GPU; it proves nothing about running on one (tests/rocm/shim's other
files do that, on a GPU)."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
HOC = ROOT / "tools" / "hip_on_cuda"

SCRIPT = r"""
import numpy as np
from hip import hip
def ok(r):
    assert int(r[0]) == 0, r
    return r[1] if len(r) == 2 else r[1:]
assert ok(hip.hipGetDeviceCount()) == 1
props = ok(hip.hipGetDeviceProperties(0))
assert props.name == "Fake GPU" and props.gcnArchName == "sm_90" and props.warpSize == 32, props.name
A = hip.hipDeviceAttribute_t
assert ok(hip.hipDeviceGetAttribute(A.hipDeviceAttributeMultiprocessorCount, 0)) == 132
assert int(hip.hipSetDevice(1)[0]) == 101                           # hipErrorInvalidDevice
assert int(hip.hipGetLastError()[0]) == 101 and int(hip.hipGetLastError()[0]) == 0
assert int(hip.hipMalloc(1 << 50)[0]) == 2                           # hipErrorOutOfMemory
x = np.arange(1000, dtype=np.float64)
d = ok(hip.hipMalloc(x.nbytes)); e = ok(hip.hipMalloc(x.nbytes))
K = hip.hipMemcpyKind
ok((hip.hipMemcpy(d, x, x.nbytes, K.hipMemcpyHostToDevice)[0], None))
ok((hip.hipMemcpyDtoD(e, d, x.nbytes)[0], None))
out = np.zeros_like(x)
ok((hip.hipMemcpy(out, e, x.nbytes, K.hipMemcpyDefault)[0], None))
assert (out == x).all()
ok((hip.hipMemsetD32(d, 7, 4)[0], None))
ok((hip.hipMemcpyDtoH(out, d, 16)[0], None))
assert (out[:2].view(np.uint32) == 7).all()
attr = ok(hip.hipPointerGetAttributes(d))
assert int(attr.type) == 2
s = ok(hip.hipStreamCreate()); a = ok(hip.hipEventCreate()); b = ok(hip.hipEventCreate())
ok((hip.hipEventRecord(a, s)[0], None)); ok((hip.hipEventRecord(b, s)[0], None))
assert ok(hip.hipEventElapsedTime(a, b)) >= 0.0
err = hip.hipModuleLaunchKernel(None, 1, 1, 1, 1, 1, 1, 0, None, None, None)
assert int(err[0]) == 400                                           # hipErrorInvalidHandle
assert str(hip.hipGetErrorName(hip.hipError_t.hipErrorNotReady)[1]) == "hipErrorNotReady"
for p in (d, e):
    ok((hip.hipFree(p)[0], None))
print("FAKE-DRIVER-OK")
"""


@pytest.fixture(scope="module")
def fake_env(tmp_path_factory):
    """The environment of a process whose hip-python loads the shim over the fake libcuda."""
    try:
        import hip  # noqa: F401
    except Exception as exc:  # noqa: BLE001
        pytest.skip(f"hip-python not importable: {exc!r}")
    if not shutil.which("gcc"):
        pytest.skip("gcc not found")
    tmp_path = tmp_path_factory.mktemp("fake_driver")
    subprocess.run(["bash", str(HOC / "build.sh"), str(tmp_path / "shim")], check=True,
                   capture_output=True)
    fake = tmp_path / "fake"
    fake.mkdir()
    subprocess.run(["gcc", "-shared", "-fPIC", "-O1", "-fvisibility=hidden", "-o",
                    str(fake / "libcuda.so.1"), str(HOC / "tests" / "fake_cuda.c")], check=True)
    return dict(os.environ, ROCM_PATH=str(tmp_path / "shim"), HIP_ON_CUDA_LIB_PATH=str(fake))


def test_shim_builds_loads_and_forwards(fake_env):
    proc = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                          env=fake_env, timeout=120)
    assert "FAKE-DRIVER-OK" in proc.stdout, proc.stdout + proc.stderr


GRAPH_SCRIPT = r"""
import ctypes, os
from hip import hip
def ok(r):
    assert int(r[0]) == 0, r
    return r[1] if len(r) == 2 else (r[1:] or None)
ok(hip.hipSetDevice(0))
s = ok(hip.hipStreamCreate())
import struct
image = bytearray(128)                                  # an ELF header the fake accepts, naming kernel "k"
image[0:4] = b"\x7fELF"
struct.pack_into("<Q", image, 0x28, 128)                # section headers at the end: the image is 128 bytes
image[0x50:0x52] = b"k\0"
image = bytes(image)
mod = ok(hip.hipModuleLoadData(image))
k = ok(hip.hipModuleGetFunction(mod, b"k"))
M = hip.hipStreamCaptureMode
assert int(ok(hip.hipStreamIsCapturing(s))) == 0
ok(hip.hipStreamBeginCapture(s, M.hipStreamCaptureModeRelaxed))
assert int(ok(hip.hipStreamIsCapturing(s))) == 1
for _ in range(3):
    ok(hip.hipModuleLaunchKernel(k, 1, 1, 1, 32, 1, 1, 0, s, None, None))
assert int(hip.hipStreamSynchronize(s)[0]) == 900                  # hipErrorStreamCaptureUnsupported
graph = ok(hip.hipStreamEndCapture(s))
assert int(hip.hipStreamEndCapture(s)[0]) == 903                    # hipErrorStreamCaptureUnmatched
lib = ctypes.CDLL(os.path.join(os.environ["ROCM_PATH"], "lib", "libamdhip64.so"))
n = ctypes.c_size_t(0)
assert lib.hipGraphGetNodes(ctypes.c_void_p(int(graph)), None, ctypes.byref(n)) == 0 and n.value == 3
assert lib.hipStreamBeginCapture(ctypes.c_void_p(int(s)), 7) == 1   # an unknown mode
gexec = ok(hip.hipGraphInstantiateWithFlags(graph, 0))
ok(hip.hipGraphDestroy(graph))
for _ in range(2):
    ok(hip.hipGraphLaunch(gexec, s))
fake = ctypes.CDLL(os.path.join(os.environ["HIP_ON_CUDA_LIB_PATH"], "libcuda.so.1"))
fake.fakeReplayedKernels.restype = ctypes.c_size_t
assert fake.fakeReplayedKernels() == 6
assert int(hip.hipGraphLaunch(None, s)[0]) == 1                     # hipErrorInvalidValue
ok(hip.hipGraphExecDestroy(gexec))
print("FAKE-GRAPH-OK")
"""


def test_graph_capture_calls_are_forwarded(fake_env):
    proc = subprocess.run([sys.executable, "-c", GRAPH_SCRIPT], capture_output=True, text=True,
                          env=fake_env, timeout=120)
    assert "FAKE-GRAPH-OK" in proc.stdout, proc.stdout + proc.stderr
