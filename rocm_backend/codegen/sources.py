"""[codegen] The HIP source of each kernel module: the shared prelude (``hip/abi.h`` first, then
every ``hip/*`` file) plus the generated ``extern "C"`` entry points that ``ops.py``
lists for the module. Kernel bodies live in ``hip/*.hip`` (package data)."""

import functools
from pathlib import Path

from .. import ops

HIP_DIR = Path(__file__).resolve().parents[1] / "hip"
# prelude order: the generated ABI, types, complex math, functors, then the kernel bodies
PRELUDE_FILES = ("abi.h", "common.h", "complex.h", "complex_inv.h", "math_ops.h", "elementwise.hip", "binary.hip",
                 "reduce_ops.h", "reduce.hip", "scan.hip", "index.hip", "sort.hip", "random.hip", "matmul.hip", "nn.hip",
                 "transpose.hip", "eig_schur.h", "eig.hip")

# kernel bodies only one module needs, appended to the prelude for that module alone
MODULE_FILES = {ops.SORT_MODULE: ("radix.hip", "radix_block.hip", "radix_sweep.hip", "radix_digits.hip",
                                    "radix_fill.hip"),
                ops.SVD_MODULE: ("svd_jacobi.h", "svd_jacobi.hip"),
                ops.BYTES_MODULE: ("mask_select.hip",),
                ops.QR_MODULE: ("qr_householder.h", "qr_householder.hip")}


@functools.cache
def hip_files(names):
    """The ``hip/`` files ``names`` (a tuple) in order, each under a ``// ---- name``
    line: read once a process, as every first launch builds a source over them."""
    return "".join(f"// ---- {name}\n" + (HIP_DIR / name).read_text() for name in names)


def prelude():
    return hip_files(PRELUDE_FILES)


def module_entry_points(module):
    return "".join(ops.entry_point(spec) for spec in ops.MODULES[module])


def _module_prelude(module):
    return prelude() + hip_files(MODULE_FILES.get(module, ())) + "\n// ---- generated entry points (rocm_backend/ops.py)\n"


def module_source(module):
    """Every kernel of ``module``: what ``precompile`` builds, and what a first launch loads
    where the disk cache holds it."""
    return _module_prelude(module) + module_entry_points(module)


def kernel_source(spec):
    """The kernel ``spec`` (an op-table entry) alone, with its module's prelude: what a first
    launch compiles where the disk cache lacks the whole module. hipRTC's time grows with
    the kernels instantiated, not with the prelude parsed: a module of 36 to 60 kernels
    took 13-18 s into an empty cache on an H100 (bench/results/rocm_ops_nvidia-h100.md), a
    first cholesky of a batch 9.8 s; one of its kernels alone is a few tenths of a second
    (CUDA 13's nvcc for sm_90 on a 2-core VM: one kernel of each module 0.43 s at the median,
    1.3 s at most; reduce_float32 whole 6.7 s). None for a kernel the table does not list
    in that module: its module's source is compiled whole."""
    if spec not in ops.MODULES.get(spec.module, ()):
        return None
    return _module_prelude(spec.module) + ops.entry_point(spec)
