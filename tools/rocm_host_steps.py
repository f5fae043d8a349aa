"""Host µs of the rocm backend's eager tiny ops on a machine without a GPU: HOST STEPS ONLY.

    python tools/rocm_host_steps.py [--reps 2000] [--profile OP]

The rocm backend runs on the fake HIP runtime of tests/rocm/host/fake_hip.py, and every
launch that the launcher makes from C (candlewick._native, built by tools/build_native.py)
goes to a launch function that returns at once (compiled here with ``$CC`` or cc): what is
timed is the host's work around the launch (dispatch, checks, allocation, packing, the
call into C), not the runtime's launch call nor anything on a device. Without the C module
or a compiler the launches go through the fake's Python functions and the figures include
them (the output says so). The GPU figures are bench/rocm_host_path.py's and rocm_ops.py's.

It prints µs per call (the minimum over batches, in this process's CPU time: on a shared
machine the other processes' work stays out) for the namespace calls of bench/rocm_ops'
tiny case (16 float32 elements: ``x + y``, ``cw.sum(x)``, ``cw.where(c, x, y)``, ``x[1:3]``,
a loop of 100 ``z = z + y`` per op) and the stages of bench/rocm_host_path (the primitive,
allocating and freeing the result, pack and launch), with launches counted so that a view
is seen to launch nothing; ``--profile OP`` adds a cProfile of 1000 calls of OP.
"""

import argparse
import cProfile
import ctypes
import os
import pstats
import shutil
import subprocess
import sys
import tempfile
import time
import timeit
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
NOOP_SOURCE = ("int cw_noop_launch(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,"
               " unsigned bz, unsigned shared, void *stream, void **params, void **extra) { return 0; }\n")


def noop_launch():
    """(the address of a C launch function that does nothing, None) or (None, why not)."""
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        return None, "no C compiler"
    tmp = Path(tempfile.mkdtemp(prefix="cw_host_steps_"))
    (tmp / "noop.c").write_text(NOOP_SOURCE)
    done = subprocess.run([cc, "-O2", "-shared", "-fPIC", str(tmp / "noop.c"), "-o", str(tmp / "libnoop.so")],
                          capture_output=True, text=True)
    if done.returncode:
        return None, f"{cc} failed: {done.stderr.strip()[:200]}"
    return ctypes.cast(ctypes.CDLL(str(tmp / "libnoop.so")).cw_noop_launch, ctypes.c_void_p).value, None


def fake_device():
    """(a rocm device on the fake runtime with launches from C to a no-op where it can,
    the fake runtime, a note on what the launches go through)."""
    sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "rocm" / "host")]
    os.environ.setdefault("CANDLEWICK_KERNEL_CACHE", tempfile.mkdtemp(prefix="cw_host_steps_kc_"))
    import fake_hip

    runtime = fake_hip.install()
    from rocm_backend.runtime import launcher

    address, why = noop_launch()
    if launcher._c_launch is None or address is None:
        why = why or "candlewick._native not built (python tools/build_native.py)"
        return _device(), runtime, f"launches through the fake's Python functions ({why}): they count in every figure"
    made = launcher.BoundKernel.__init__

    def bind(self, spec, fn):  # the fake's handles are objects: give each kernel an address-like int
        made(self, spec, fn)
        self.fn_int = 0x1000 + len(runtime.launches) + (id(fn) & 0xFFFFF)

    launcher.BoundKernel.__init__ = bind
    dev = _device()
    la = dev.launcher
    la.c_launch, la.raw_address = launcher._c_launch, address
    dev.streams.default.ptr = 0
    from rocm_backend.families import ew_launch

    la.stream_launch = la.make_stream_launch()
    dev.ew_contiguous = ew_launch.contiguous_launch(dev)
    return dev, runtime, "launches from C to a launch function that returns at once"


def _device():
    import candlewick as cw

    return cw.get_device("rocm")


def cases(dev):
    """{name: (call, ops per call)}: the namespace calls, then the host path's stages."""
    import candlewick as cw
    from candlewick.layout import Layout
    from candlewick.opdefs import BinaryOp, ReduceOp
    from rocm_backend import kernels
    from rocm_backend.families import ew_launch, reductions

    x = cw.asarray(np.arange(16, dtype=np.float32), device=dev)
    y = cw.asarray(np.ones(16, dtype=np.float32), device=dev)
    c = x > 3

    def loop():
        z = x
        for _ in range(100):
            z = z + y

    xs, ys, f32, lay = x._storage, y._storage, x._storage.dtype, Layout.contiguous((16,))
    out, out1 = dev.storage_type.empty(dev, f32, 16), dev.storage_type.empty(dev, f32, 1)
    add_k, _ = kernels.ew_kernel(dev, "binary", BinaryOp.ADD, f32)
    return {
        "add": (lambda: x + y, 1), "sum": (lambda: cw.sum(x), 1), "where": (lambda: cw.where(c, x, y), 1),
        "x[1:3]": (lambda: x[1:3], 1), "100 adds in a loop (per op)": (loop, 100),
        "add: primitive": (lambda: xs.binary(BinaryOp.ADD, lay, ys, lay), 1),
        "sum: primitive": (lambda: xs.reduce(ReduceOp.SUM, lay, (0,)), 1),
        "allocate and free a result": (lambda: dev.storage_type.empty(dev, f32, 16), 1),
        "add: pack and launch": (lambda: dev.ew_contiguous(add_k, 16, (out.ptr, 0, xs.ptr, 0, ys.ptr, 0)), 1),
        "sum: pack and launch": (lambda: reductions._flat(dev, ReduceOp.SUM, f32, xs, 0, out1, 16), 1),
    }


def launches_per_call(dev, runtime, call):
    """Kernel launches one call queues (through C or the fake), counted by the stream's use marks."""
    record, before = dev.streams.default, len(runtime.launches)
    record.last_use = -1  # every launch sets it (to the allocator's clock, >= 0)
    call()
    return len(runtime.launches) - before or int(record.last_use != -1)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=1000, help="calls per timed batch")
    parser.add_argument("--batches", type=int, default=15, help="timed batches per case (the minimum is shown)")
    parser.add_argument("--profile", help="a case name to profile (e.g. sum)")
    args = parser.parse_args(argv)
    dev, runtime, note = fake_device()
    table = cases(dev)
    print(f"host steps only, on the fake HIP runtime: {note}")
    print("| case | host µs per op | launches per call |\n|---|---|---|")
    for name, (call, ops) in table.items():
        call()  # first use: kernels load, plans are made
        n = max(1, args.reps // ops)
        best = min(timeit.repeat(call, timer=time.process_time, number=n, repeat=args.batches)) / n / ops * 1e6
        print(f"| {name} | {best:.2f} | {launches_per_call(dev, runtime, call) if ops == 1 else '-'} |")
    if args.profile:
        call = table[args.profile][0]
        profile = cProfile.Profile()
        profile.enable()
        for _ in range(1000):
            call()
        profile.disable()
        pstats.Stats(profile).sort_stats("tottime").print_stats(20)


if __name__ == "__main__":
    main()
