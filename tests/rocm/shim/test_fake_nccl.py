"""The shim's librccl.so on a CPU-only machine: it forwards each RCCL call to a stand-in
libnccl.so.2 (tools/hip_on_cuda/tests/fake_nccl.c, which logs its arguments) found
through HIP_ON_CUDA_LIB_PATH, with the stand-in libcuda of test_fake_driver.py behind
the HIP runtime. This checks the build, the loading path, that arguments (the unique id
by value, pointers, counts, enums, streams) and statuses pass unchanged, and that
hip-python's own RCCL binding loads it through ROCM_PATH; tests/rocm/gpu runs the real
NCCL on a GPU."""

import importlib.util
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
from ctypes import POINTER, Structure, byref, c_char, c_char_p, c_int, c_size_t, c_void_p

class UniqueId(Structure):
    _fields_ = [("internal", c_char * 128)]

lib = ctypes.CDLL(os.path.join(os.environ["ROCM_PATH"], "lib", "librccl.so"))
lib.rcclOnCudaLoadError.restype = c_char_p
lib.ncclGetErrorString.restype = c_char_p
lib.ncclCommInitRank.argtypes = [POINTER(c_void_p), c_int, UniqueId, c_int]
version = c_int()
assert lib.ncclGetVersion(byref(version)) == 0, lib.rcclOnCudaLoadError()
assert version.value == 22105 and lib.rcclOnCudaLoadError() == b""
fake = ctypes.CDLL(os.path.join(os.environ["FAKE_DIR"], "libnccl.so.2"), mode=os.RTLD_NOLOAD | os.RTLD_NOW)
fake.fakeNcclLog.restype = c_char_p
uid = UniqueId()
assert lib.ncclGetUniqueId(byref(uid)) == 0 and uid.internal == b"fake-nccl-id"
comm = c_void_p()
assert lib.ncclCommInitRank(byref(comm), 2, uid, 1) == 0 and comm.value == 101
comms = (c_void_p * 2)()
assert lib.ncclCommInitAll(comms, 2, (c_int * 2)(0, 0)) == 0 and [c for c in comms] == [200, 200]
assert lib.ncclGroupStart() == 0
assert lib.ncclAllReduce(c_void_p(0x1000), c_void_p(0x2000), c_size_t(1 << 33), 7, 4, comm, c_void_p(0x30)) == 0
assert lib.ncclBroadcast(c_void_p(0x1000), c_void_p(0x2000), c_size_t(5), 9, 1, comm, c_void_p(0x30)) == 0
assert lib.ncclGroupEnd() == 0
assert lib.ncclSend(c_void_p(0x1000), c_size_t(3), 1, 0, comm, c_void_p(0x30)) == 5
assert lib.ncclGetErrorString(5) == b"fake: invalid usage"
log = fake.fakeNcclLog().decode().splitlines()
assert log == ["ncclGetVersion", "ncclGetUniqueId", "ncclCommInitRank 2,fake-nccl-id,1", "ncclCommInitAll 2",
               "ncclGroupStart", "ncclAllReduce 1000,2000,8589934592,7,4,101,30",
               "ncclBroadcast 1000,2000,5,9,1,101,30", "ncclGroupEnd", "ncclSend 1000,3,1,0,101,30"], log
try:
    from hip import rccl
except ImportError:
    rccl = None
if rccl is not None:  # hip-python's own binding opens ROCM_PATH/lib/librccl.so
    status, v = rccl.ncclGetVersion()
    assert int(status) == 0 and v == 22105, (status, v)
    status, uid = rccl.ncclGetUniqueId()
    assert int(status) == 0 and ctypes.string_at(int(uid), 12) == b"fake-nccl-id"
    print("HIP-PYTHON-RCCL-OK")
print("FAKE-NCCL-OK")
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    if not shutil.which("gcc"):
        pytest.skip("gcc not found")
    tmp = tmp_path_factory.mktemp("rccl")
    subprocess.run(["bash", str(HOC / "build.sh"), str(tmp / "shim")], check=True, capture_output=True)
    fake = tmp / "fake"
    fake.mkdir()
    for source, name in (("fake_cuda.c", "libcuda.so.1"), ("fake_nccl.c", "libnccl.so.2")):
        subprocess.run(["gcc", "-shared", "-fPIC", "-O1", "-fvisibility=hidden", "-o", str(fake / name),
                        str(HOC / "tests" / source)], check=True)
    return tmp / "shim", fake


def _has_hip_python_rccl():
    """Whether hip-python's RCCL binding is installed. find_spec of a submodule imports its
    parents and raises when the top package (``rocm``) is absent, as on a machine without
    hip-python: that is an answer (no), not an error."""
    try:
        return importlib.util.find_spec("rocm.bindings.rccl") is not None
    except ModuleNotFoundError:
        return False


def test_librccl_forwards_every_argument_and_status_to_nccl(built):
    shim, fake = built
    env = dict(os.environ, ROCM_PATH=str(shim), HIP_ON_CUDA_LIB_PATH=str(fake), FAKE_DIR=str(fake))
    proc = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env, timeout=120)
    assert "FAKE-NCCL-OK" in proc.stdout, proc.stdout + proc.stderr
    if _has_hip_python_rccl():  # hip-python[systems] is installed
        assert "HIP-PYTHON-RCCL-OK" in proc.stdout, proc.stdout + proc.stderr


BINDING_SCRIPT = r"""
import ctypes, os
from rocm_backend.bindings import hip, rccl
from rocm_backend.error import RcclError
assert rccl.probe() == (True, ""), rccl.probe()
assert rccl.version() == 22105
uid = rccl.unique_id()
assert len(uid) == 128 and uid.startswith(b"fake-nccl-id\0")
(c0,) = rccl.comm_init_all([0])
comm = rccl.comm_init_rank(2, uid, 1)
stream = hip.create_stream()
s = int(stream)
rccl.group_start()
rccl.all_reduce(0x1000, 0x2000, 10, "bfloat16", "max", comm, stream)
rccl.all_gather(0x1000, 0x2000, 6, "uint8", c0, stream)
rccl.reduce_scatter(0x1000, 0x2000, 3, "float64", "avg", comm, stream)
rccl.broadcast(0x1000, 0x2000, 4, "int64", 1, comm, stream)
rccl.recv(0x3000, 5, "uint8", 0, comm, stream)
rccl.group_end()
try:
    rccl.send(0x1000, 3, "uint8", 0, comm, stream)
except RcclError as exc:
    assert exc.call == "ncclSend" and "ncclInvalidUsage" in str(exc), exc
else:
    raise AssertionError("ncclSend's status was lost")
fake = ctypes.CDLL(os.path.join(os.environ["FAKE_DIR"], "libnccl.so.2"), mode=os.RTLD_NOLOAD | os.RTLD_NOW)
fake.fakeNcclLog.restype = ctypes.c_char_p
log = fake.fakeNcclLog().decode().splitlines()
expect = ["ncclCommInitAll 1", "ncclCommInitRank 2,fake-nccl-id,1", "ncclGroupStart",
          f"ncclAllReduce 1000,2000,10,9,2,101,{s:x}", f"ncclAllGather 1000,2000,6,1,200,{s:x}",
          f"ncclReduceScatter 1000,2000,3,8,4,101,{s:x}", f"ncclBroadcast 1000,2000,4,4,1,101,{s:x}",
          f"ncclRecv 3000,5,1,0,101,{s:x}", "ncclGroupEnd", f"ncclSend 1000,3,1,0,101,{s:x}"]
assert log[-len(expect):] == expect, log
print("BINDING-OK")
"""


def test_candlewick_rccl_binding_through_the_shim(built):
    """rocm_backend/bindings/rccl.py over hip-python's real binding, the shim and the stand-in
    NCCL: the communicator handles, dtype and reduction numbers, streams and statuses."""
    if not _has_hip_python_rccl():
        pytest.skip("hip-python's RCCL binding is not installed (pip install 'hip-python[systems]')")
    shim, fake = built
    env = dict(os.environ, ROCM_PATH=str(shim), HIP_ON_CUDA_LIB_PATH=str(fake), FAKE_DIR=str(fake),
               PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    proc = subprocess.run([sys.executable, "-c", BINDING_SCRIPT], capture_output=True, text=True, env=env,
                          timeout=120)
    assert "BINDING-OK" in proc.stdout, proc.stdout + proc.stderr


def test_librccl_without_nccl_says_why(built, tmp_path):
    shim, fake = built
    lonely = tmp_path / "no_nccl"
    lonely.mkdir()
    shutil.copy(fake / "libcuda.so.1", lonely / "libcuda.so.1")
    script = (
        "import ctypes, os\n"
        "lib = ctypes.CDLL(os.path.join(os.environ['ROCM_PATH'], 'lib', 'librccl.so'))\n"
        "lib.rcclOnCudaLoadError.restype = ctypes.c_char_p\n"
        "v = ctypes.c_int()\n"
        "print(lib.ncclGetVersion(ctypes.byref(v)), lib.rcclOnCudaLoadError().decode())\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
    env.update(ROCM_PATH=str(shim), HIP_ON_CUDA_LIB_PATH=str(lonely))
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=60)
    status, _, why = proc.stdout.strip().partition(" ")
    if status == "0":
        pytest.skip("a libnccl.so.2 is installed on this machine's library path")
    assert status == "2" and "libnccl" in why, proc.stdout + proc.stderr
