"""Running rocm_backend/hip kernels on the CPU, end to end through the backend's host code.

``build`` has g++ compile kernels of the op table for the host against
``hip_host_fibers.h`` (every thread of a block a fiber: real barriers, warp shuffles of
width 32 or 64, shared memory; blocks one after another in a chosen order), one C entry
point per kernel. ``ExecRuntime`` is fake_hip's runtime with host memory behind its
device pointers: the backend's launches of those kernels run in the library, so what is
tested is the backend's own host path (kernel choice, launch geometry, argument
packing) and the kernels' own code. ``device_factory`` installs it as the hip package.
``build_scan_sort`` and ``build_linalg_fft`` build the libraries several test files share
(conftest.py's session fixtures).
"""

import ctypes
import importlib.util
import pathlib
import shutil
import subprocess

import numpy as np
import pytest

from candlewick import dtypes as dt
from candlewick.opdefs import BinaryOp, CompareOp, ReduceOp, UnaryOp
from rocm_backend import ops
from rocm_backend.abi import structs
from rocm_backend.codegen.sources import MODULE_FILES

HERE = pathlib.Path(__file__).resolve().parent
HIP_DIR = HERE.parents[2] / "rocm_backend" / "hip"
_spec = importlib.util.spec_from_file_location("rocm_fake_hip", HERE / "fake_hip.py")
fake_hip = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fake_hip)

#: what every kernel module includes, in the order codegen/sources.py puts them
HEADERS = ("abi.h", "common.h", "complex.h", "complex_inv.h", "math_ops.h", "elementwise.hip", "binary.hip",
           "reduce_ops.h")


def build(tmp, modules, specs, extra_lines=(), defines=()):
    """ctypes library of ``specs`` (op-table KernelSpecs from the .hip ``modules``):
    ``cwh_<name>(args, gx, gy, bx, by, warp, order)`` returns an error text or None.
    ``defines``: "NAME VALUE" macros set before the kernels are included."""
    gxx = shutil.which("g++")
    if gxx is None:
        pytest.skip("g++ not found: these tests compile rocm_backend/hip kernels for the host with g++")
    specs = _with_launch_twins(specs)
    lines = ['#include "hip_host_fibers.h"'] + [f"#define {d}" for d in defines]
    lines += [f'#include "{name}"' for name in HEADERS + tuple(modules)]
    lines += ["#include <stddef.h>", *extra_lines]
    for spec in specs:
        lines.append(
            f'extern "C" const char* cwh_{spec.name}(const void* args, int gx, int gy, int bx, int by, int warp, '
            f"const int* order) {{\n"
            f"    {spec.abi} a;\n    memcpy(&a, args, sizeof a);\n"
            f"    return cwh_launch(gx, gy, bx, by, warp, order, [&a] {{ {spec.body} }});\n}}")
    src, out = tmp / "host_kernels.cpp", tmp / "libcw_host_kernels.so"
    src.write_text("\n".join(lines) + "\n")
    # -fno-gnu-unique: ``__shared__`` arrays are static locals of kernel templates, which
    # g++ would make process-wide unique symbols, so two libraries built with different
    # tile sizes would share the first one's (too small) array; -U_FORTIFY_SOURCE: the fibers
    # switch stacks by _longjmp, which a fortified build (Ubuntu's default) refuses as a
    # jump into an "uninitialized stack frame"
    cmd = [gxx, "-std=c++17", "-O0", "-shared", "-fPIC", "-fno-gnu-unique", "-U_FORTIFY_SOURCE", "-w", "-I", str(HERE), "-I",
           str(HIP_DIR), str(src), "-o", str(out), "-lm"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, f"g++ failed:\n{proc.stderr[-20000:]}"
    lib = ctypes.CDLL(str(out))
    for spec in specs:
        getattr(lib, f"cwh_{spec.name}").restype = ctypes.c_char_p
    return lib


def _with_launch_twins(specs):
    """``specs`` and the kernels the launch path may take in their place: where a strided
    copy kernel is among them, row_copy of every unit size (families/copies.py copies rows
    that are contiguous runs through it, in the widest unit up to 16 bytes dividing them);
    a binary or compare kernel's column and flat entries (ew_launch's two-axes tiles,
    kernels.ew_kernel's kernel)."""
    from rocm_backend import ops

    specs = list(specs)
    have = {tuple(spec.key) for spec in specs if hasattr(spec, "key")}  # (a test's own specs have none)
    twins = [ops.entry(key, kind) for key in have for kind in ops.ENTRIES]
    if any(key[0] == "copy" for key in have):
        twins += [spec for key, spec in ops.TABLE.items() if key[0] == "row_copy"]
    return specs + [t for t in twins if t is not None and tuple(t.key) not in have]


class _Props(fake_hip._Props):
    multiProcessorCount = 3


class ExecRuntime(fake_hip.FakeRuntime):
    """fake_hip's runtime with host memory behind the device pointers; launches of the
    library's kernels run there (block order: ``order`` = "forward", "reverse" or
    "shuffle"), the contiguous fill runs in Python."""

    def __init__(self, lib, warp=64, occupancy=2):
        self.lib, self.warp, self.occupancy = lib, warp, occupancy
        self.order = "forward"
        self.rng = np.random.default_rng(7)
        self.memory = {}
        self.launches = []  # (kernel name, grid, block)
        super().__init__()

    def _hip_functions(self):
        ok = fake_hip.OK
        props = _Props()
        props.warpSize = self.warp
        fns = super()._hip_functions()
        fns.update({
            "hipGetDeviceProperties": lambda o: (ok, props),
            "hipMemcpyHtoDAsync": self._copy,
            "hipMemcpyDtoHAsync": self._copy,
            "hipMemcpyDtoDAsync": self._copy,
            "hipMemsetAsync": lambda p, byte, n, s: (ctypes.memset(p, byte, n), (ok,))[1],
            "hipModuleOccupancyMaxActiveBlocksPerMultiprocessor": lambda f, block, shmem: (ok, self.occupancy),
        })
        return fns

    def _copy(self, dst, src, n, stream):
        ctypes.memmove(int(dst), int(src), n)
        return (fake_hip.OK,)

    def _malloc(self, size):
        buf = np.full(size + 512, 0xA5, np.uint8)  # not zeroed, as device memory is not
        ptr = (buf.ctypes.data + 511) & ~511
        self.memory[ptr] = buf
        return (fake_hip.OK, ptr)

    def _launch(self, fn, gx, gy, gz, bx, by, bz, shmem, stream, params, extra):
        name = fn.name.decode()
        args = ctypes.cast(extra, ctypes.POINTER(ctypes.c_void_p))[1]
        if name.startswith("fill_b") and self._fill(int(name[6:]), args):
            return (fake_hip.OK,)
        entry = getattr(self.lib, f"cwh_{name}", None)
        assert entry is not None, f"{name} is not in the host library"
        assert gz == 1 and bz == 1 and bx * by <= 256
        self.launches.append((name, (gx, gy), (bx, by)))
        n = gx * gy
        order = {"forward": np.arange(n), "reverse": np.arange(n)[::-1],
                 "shuffle": self.rng.permutation(n)}[self.order].astype(np.int32)
        err = entry(ctypes.c_void_p(args), gx, gy, bx, by, self.warp, order.ctypes.data_as(ctypes.c_void_p))
        assert err is None, f"{name}: {err.decode()}"
        return (fake_hip.OK,)

    def _fill(self, size, args):
        """The contiguous fill kernel (empty reductions fill their result); False for a
        strided fill, which runs the library's kernel when the library has it."""
        raw = ctypes.string_at(args, structs.EW_ARGS.size)
        v = structs.EW_ARGS.struct.unpack(raw)
        n, flags = v[0], v[2]
        if not flags & structs.CONTIGUOUS:
            return False
        ptr, offset = v[3 + structs.MAX_DIMS], v[4 + structs.MAX_DIMS]
        value = v[-1][:size]
        ctypes.memmove(ptr + offset * size, value * n, size * n)
        return True


def device_factory(lib, monkeypatch, tmp_path):
    """``make(warp=64, occupancy=2)`` -> (ExecRuntime, rocm device on it)."""
    monkeypatch.setenv("CANDLEWICK_KERNEL_CACHE", str(tmp_path / "kc"))

    def make(warp=64, occupancy=2):
        from rocm_backend import RocmBackend

        rt = fake_hip.install(monkeypatch, ExecRuntime(lib, warp, occupancy))
        return rt, RocmBackend().device(0)

    return make


def build_scan_sort(tmp, wanted):
    """The scan, index, sort and transpose modules built for the host with the op table's
    kernels whose key ``wanted(key)`` accepts, one scan item per thread (what the
    compositions of unique, nonzero and compress use)."""
    specs = [s for s in ops.TABLE.values() if wanted(tuple(s.key))]
    return build(tmp, ["scan.hip", "index.hip", "sort.hip", *MODULE_FILES[ops.SORT_MODULE], "transpose.hip",
                       *MODULE_FILES[ops.BYTES_MODULE]], specs,
                 defines=["CW_SCAN_ITEMS 1"])


def scan_sort_runtime(lib, monkeypatch, tmp_path):
    """(ExecRuntime, rocm device on it) over ``build_scan_sort``'s library, the scans set to its one item."""
    from rocm_backend.families import scans

    monkeypatch.setattr(scans, "SCAN_ITEMS", 1)
    monkeypatch.setattr(scans, "SCAN_TILE", structs.EW_BLOCK)
    return device_factory(lib, monkeypatch, tmp_path)(warp=64)


def scan_sort_device(lib, monkeypatch, tmp_path):
    """A rocm device over ``build_scan_sort``'s library, the scans set to its one item."""
    return scan_sort_runtime(lib, monkeypatch, tmp_path)[1]


#: the dtypes test_linalg_fft_exec.py runs the linalg and fft families in
LINALG_FFT_DTYPES = (dt.float64, dt.complex128)


def build_linalg_fft(tmp):
    """The kernels test_linalg_fft_exec.py and test_linalg_tall_*_host.py launch, built for
    the host (conftest.py's ``linalg_fft_lib``: once a test process)."""
    specs = [s for s in ops.TABLE.values() if _linalg_fft_wanted(s)]
    return build(tmp, ["transpose.hip", "reduce.hip", *MODULE_FILES[ops.SVD_MODULE], *MODULE_FILES[ops.QR_MODULE]],
                 specs)


def _linalg_fft_wanted(spec):
    k = spec.key  # ops.kernel_key's form: enum values and dtype names
    fam = k[0]
    names = {d.name for d in LINALG_FFT_DTYPES}
    if fam in ("copy", "where", "transpose", "fill", "svd_jacobi", "qr_householder"):
        return True
    if fam == "arange":
        return k[1] in ("int64", "int32")
    if fam == "compare":
        return k[2] in ("int64", "int32") and k[1] in ops.kernel_key(
            CompareOp.GREATER_EQUAL, CompareOp.LESS_EQUAL, CompareOp.NOT_EQUAL)
    if fam == "astype":  # (int64: the tall QR's counts of nonzeros)
        return (k[1] == "bool" and k[2] in names) or (k[1] == "int64" and k[2] in ("float32", "float64"))
    if fam == "binary":  # (float32 multiply: the tall QR's column scale of Q)
        return (k[2] in names or k[2] == "float32") and k[1] in ops.kernel_key(BinaryOp.MULTIPLY, BinaryOp.ADD)
    if fam == "binary_column":  # the tall QR's signs: a row scale of R
        return k[2] in ("float32", "float64") and k[1] in ops.kernel_key(BinaryOp.MULTIPLY)
    if fam == "unary" and k[2] == "complex64":  # the single-precision SVD's Vh
        return k[1] == ops.kernel_key(UnaryOp.CONJ)[0]
    if k[-1] in ("float32", "float64") and fam in ("binary", "binary_flat", "unary", "reduce"):
        # the Cholesky QR's check (the tall SVD's, the tall QR's) and the QR's tails
        if k[-2] in ops.kernel_key(BinaryOp.SUBTRACT, UnaryOp.ABS, ReduceOp.MAX, ReduceOp.COUNT_NONZERO):
            return True
    if fam == "unary":
        return k[2] in names and k[1] in ops.kernel_key(UnaryOp.SIGN, UnaryOp.ABS, UnaryOp.LOG, UnaryOp.CONJ)
    if fam == "reduce":
        return k[3] in names and k[2] in ops.kernel_key(ReduceOp.PROD, ReduceOp.SUM)
    return False
