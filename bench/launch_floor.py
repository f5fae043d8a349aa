"""The floor under the rocm backend's launch call, measured in the same process: the same
kernel, stream and argument bytes launched from C (bench/launch_floor.c) through the HIP
runtime, and, under tools/hip_on_cuda, through the CUDA driver directly; and empty kernels
whose argument struct is 16, 128 or 432 bytes (the element-wise struct's size), to show what
the struct's size costs. The ctypes call minus the HIP-from-C loop is what calling from
Python adds; HIP minus CUDA is what the shim adds (absent on AMD hardware).

Needs a C compiler (``$CC`` or cc); ``build()`` returns None and the reason otherwise.
"""

import ctypes
import functools
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

SOURCE = Path(__file__).with_suffix(".c")
LOOP = 500  # launches per C call: the one ctypes call is spread over them
PROBE_SIZES = (16, 128, 432)
PROBE_SOURCE = "\n".join(
    f'struct cw_probe_{n} {{ long long w[{n // 8}]; }};\n'
    f'extern "C" __global__ void cw_probe_{n}(struct cw_probe_{n} a) {{ (void)a; }}' for n in PROBE_SIZES)


@functools.cache  # one compile per process: each floor measurement asks
def build():
    """(the C loop as a ctypes function, None), or (None, why not)."""
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        return None, "no C compiler (cc, gcc or $CC) to build bench/launch_floor.c"
    out = Path(tempfile.mkdtemp(prefix="cw_launch_floor_")) / "liblaunch_floor.so"
    done = subprocess.run([cc, "-O2", "-shared", "-fPIC", str(SOURCE), "-o", str(out)],
                          capture_output=True, text=True)
    if done.returncode:
        return None, f"{cc} failed: {done.stderr.strip()[:300]}"
    loop = ctypes.CDLL(str(out)).cw_launch_loop
    loop.restype = ctypes.c_int
    loop.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint, ctypes.c_uint, ctypes.c_void_p,
                     ctypes.c_void_p, ctypes.c_size_t, ctypes.c_size_t, ctypes.c_int]
    return loop, None


def address(ctypes_function):
    return ctypes.cast(ctypes_function, ctypes.c_void_p).value


def cuda_launch_address(runtime_path):
    """cuLaunchKernel's address when the HIP runtime is tools/hip_on_cuda (whose handles are
    CUDA's); None on a real HIP runtime."""
    try:
        runtime = ctypes.CDLL(runtime_path, mode=os.RTLD_NOLOAD | os.RTLD_NOW)
        runtime.hoc_load_error  # noqa: B018 - only the shim exports it
        return address(ctypes.CDLL("libcuda.so.1", mode=os.RTLD_NOLOAD | os.RTLD_NOW).cuLaunchKernel)
    except (OSError, AttributeError):
        return None


def batch(loop, launch, fn, grid, block, stream, args, size, end_tag):
    """A call that queues LOOP launches from C (raises on a failed launch)."""
    def call():
        status = loop(launch, fn, grid, block, stream, args, size, end_tag, LOOP)
        if status:
            raise RuntimeError(f"a launch from bench/launch_floor.c returned status {status}")
    return call
