"""Where the rocm backend's time goes on a GPU (prints, writes nothing): the evidence
behind the tuning of launches, element-wise/reduction kernels, GEMM and convolutions.

    python3 bench/rocm_probe.py [section ...]
    (sections: launch, launch_depth, grid, ew, kernels, reduce, conv, conv_host, nn_host,
    conv_parts, launch_params, launch_floor, scan)

* launch: host cost of one kernel launch through hip-python, through our ctypes path
  (hipModuleLaunchKernel of the HIP-on-CUDA shim), and through libcuda's cuLaunchKernel
  directly (the floor the shim forwards to); a 16-element add of candlewick, torch, CuPy.
* launch_depth: the same launch with the queue kept shallow (N launches per synchronize),
  tiny ops of candlewick and torch the same way, and a profile of candlewick's x + x.
* grid: exp/add f32 at 2^28 elements for several caps of the element-wise grid.
* ew: device time of exp f32 at 2^26 for element-wise block sizes and elements per thread.
* kernels: torch.profiler (CUPTI sees every kernel of the process, ours included) over
  exp, sums, GEMM (with and without a hipBLAS workspace) and the nn cases of
  bench/rocm_nn.py, ours beside torch's: kernel names and device microseconds.
* reduce: sums of 2^26 float32 (all / rows / cols) for each launch-geometry variant of
  rocm_backend.reductions.TUNING beside torch: device time, host-clock share of the copy
  bandwidth, a check against NumPy; registers and occupancy of the kernels.
* conv: MIOpen convolutions called directly, NCHW against channels-last with our
  transposes around them (device time, host time per call, agreement of the two).
* conv_host: host time of the pieces of one cached MIOpen convolution.
* conv_parts: a cached convolution's host time layer by layer, beside torch's; the
  benchmark's figure with and without the padding fix-up.
* launch_params: host cost of one launch by argument-struct size, through ``extra``,
  ``kernelParams`` and libcuda (bench/rocm_probe_launch.py).
* launch_floor: one launch timed by a C loop (libcuda and the shim, no Python) beside
  tiny ops of candlewick, torch and CuPy on the same host (bench/rocm_probe_floor.py).
* scan: cumulative_sum of 2^24 float32 by rows x length, each scan kernel forced and the
  backend's choice, beside torch and CuPy (bench/rocm_probe_scan.py).
* nn_host: host time of whole cw.nn calls on the benchmark shapes, of a 1x1 convolution's
  hipBLAS call alone, and the shim's graph/legacy convolution counters.
"""

import ctypes
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import candlewick as cw  # noqa: E402
from candlewick import dtypes as dt  # noqa: E402
from rocm_probe_floor import launch_floor  # noqa: E402
from rocm_probe_launch import launch_params  # noqa: E402
from rocm_probe_nn import conv, conv_host, conv_parts, nn_host  # noqa: E402
from rocm_probe_scan import scan  # noqa: E402
from rocm_probe_sweeps import ew, reduce  # noqa: E402
from run_gpu import Lib, per_call, profile, shallow, timed, tiny_ops  # noqa: E402


def fill_kernel(dev):
    """(runtime, kernel, buffer): the 16-element float32 fill kernel with its arguments
    packed in EW_ARGS's launch buffer, ready for timing bare launches (keep the buffer)."""
    from rocm_backend import ops
    from rocm_backend.argpack import EW_ARGS, ew_values
    from rocm_backend.kernels import runtime
    from rocm_backend.storage import RocmStorage

    rt = runtime(dev)
    kernel = rt.kernel(ops.lookup(("fill", 4)))
    buf = RocmStorage.empty(dev, dt.float32, 16)
    with EW_ARGS.lock:
        EW_ARGS.struct.pack_into(EW_ARGS.buffer, 0, *ew_values((16,), [(buf.ptr, 0, (1,))], b"\0" * 16))
    return rt, kernel, buf


def launch(dev, torch, cupy):
    from rocm_backend.argpack import EW_ARGS
    from rocm_backend.storage import RocmStorage

    rt, kernel, buf = fill_kernel(dev)
    sync = dev.synchronize
    hip_launch = rt.launcher._hip_launch
    print(f"launch hip-python: {per_call(lambda: hip_launch(kernel.fn, 1, 1, 1, 256, 1, 1, 0, dev.stream, None, EW_ARGS.extra_address), sync):.2f} us")
    raw = rt.launcher.raw
    print(f"launch ctypes shim: {per_call(lambda: raw(kernel.fn_arg, 1, 1, 1, 256, 1, 1, 0, rt.launcher.stream_arg, None, EW_ARGS.extra_arg), sync):.2f} us")
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
        size = ctypes.c_size_t(EW_ARGS.struct.size)
        cu_extra = (ctypes.c_void_p * 5)(1, ctypes.addressof(EW_ARGS.buffer), 2, ctypes.addressof(size), 0)
        fn = cuda.cuLaunchKernel
        fn.restype = ctypes.c_int
        fx = ctypes.c_void_p(int(kernel.fn))
        extra = ctypes.cast(cu_extra, ctypes.c_void_p)
        status = fn(fx, 1, 1, 1, 256, 1, 1, 0, rt.launcher.stream_arg, None, extra)
        print(f"launch ctypes libcuda: status {status}: "
              f"{per_call(lambda: fn(fx, 1, 1, 1, 256, 1, 1, 0, rt.launcher.stream_arg, None, extra), sync):.2f} us")
        noop = cuda.cuCtxGetCurrent
        cur = ctypes.c_void_p()
        print(f"ctypes cuCtxGetCurrent: {per_call(lambda: noop(ctypes.byref(cur)), sync):.2f} us")
    except OSError as exc:
        print("libcuda:", exc)
    x = cw.asarray(np.arange(16, dtype=np.float32), device=dev)
    s = x._storage if hasattr(x, "_storage") else None
    print(f"candlewick x + x: {per_call(lambda: x + x, sync):.2f} us")
    print(f"candlewick RocmStorage.empty(16): {per_call(lambda: RocmStorage.empty(dev, dt.float32, 16), sync):.2f} us")
    if s is not None:
        from candlewick.opdefs import BinaryOp
        from candlewick.layout import Layout

        lay = Layout.contiguous((16,))
        print(f"candlewick storage.binary: {per_call(lambda: s.binary(BinaryOp.ADD, lay, s, lay), sync):.2f} us")
    if torch is not None:
        t = torch.arange(16, dtype=torch.float32, device="cuda")
        print(f"torch x + x: {per_call(lambda: t + t, torch.cuda.synchronize):.2f} us")
    if cupy is not None:
        c = cupy.arange(16, dtype=cupy.float32)
        print(f"cupy x + x: {per_call(lambda: c + c, cupy.cuda.runtime.deviceSynchronize):.2f} us")


def grid(dev, torch):
    n = 1 << 28
    x = cw.asarray(np.random.default_rng(0).standard_normal(n, dtype=np.float32), device=dev)
    sync = dev.synchronize
    base = dev.ew_grid_cap
    sm = dev.multiprocessors
    for mult in (4, 8, 16, 32, 64, 128, 100000):
        dev.ew_grid_cap = sm * mult
        t_exp = timed(lambda: cw.exp(x), sync)
        t_add = timed(lambda: x + x, sync)
        t_cp = timed(lambda: cw.asarray(x, copy=True), sync)
        print(f"grid cap SM*{mult}: exp {8 * n / t_exp / 1e9:.0f} GB/s, add {12 * n / t_add / 1e9:.0f} GB/s, "
              f"copy {8 * n / t_cp / 1e9:.0f} GB/s")
    dev.ew_grid_cap = base
    if torch is not None:
        t = torch.from_numpy(np.ones(n, np.float32)).cuda()
        print(f"torch: exp {8 * n / timed(lambda: torch.exp(t), torch.cuda.synchronize) / 1e9:.0f} GB/s, "
              f"copy {8 * n / timed(lambda: t.clone(), torch.cuda.synchronize) / 1e9:.0f} GB/s")


def kernels(dev, torch):
    import ml_dtypes

    sync = dev.synchronize
    tsync = torch.cuda.synchronize
    rng = np.random.default_rng(0)
    n = 1 << 26
    a = rng.standard_normal(n, dtype=np.float32)
    x, t = cw.asarray(a, device=dev), torch.from_numpy(a).cuda()
    m, tm = cw.reshape(x, (8192, 8192)), t.reshape(8192, 8192)
    for label, ours, theirs in (("exp 2^26", lambda: cw.exp(x), lambda: torch.exp(t)),
                                ("sum all", lambda: cw.sum(x), lambda: t.sum()),
                                ("sum rows", lambda: cw.sum(m, axis=1), lambda: tm.sum(dim=1)),
                                ("sum cols", lambda: cw.sum(m, axis=0), lambda: tm.sum(dim=0))):
        profile("cw " + label, ours, sync)
        profile("torch " + label, theirs, tsync)
    x = m = t = tm = None
    torch.backends.cuda.matmul.allow_tf32 = False
    for name, npd, tdt in (("float16", np.float16, torch.float16), ("bfloat16", ml_dtypes.bfloat16, torch.bfloat16)):
        g = rng.standard_normal((4096, 4096), dtype=np.float32)
        xa = cw.asarray(g.astype(npd), device=dev)
        ta = torch.from_numpy(g).to(tdt).cuda()
        profile(f"cw gemm {name}", lambda: xa @ xa, sync)
        profile(f"torch gemm {name}", lambda: ta @ ta, tsync)
        for label, fn, s in (("cw", lambda: xa @ xa, sync), ("torch", lambda: ta @ ta, tsync)):
            best = min(timed(fn, s, reps=10, batches=3) for _ in range(3))
            print(f"  {label} gemm {name}: {2 * 4096 ** 3 / best / 1e12:.1f} TFLOP/s")
    try:
        from hip import hipblas

        ws = cw.empty((32 << 20,), dtype=cw.uint8, device=dev)
        st = hipblas.hipblasSetWorkspace(dev.blas(), ws._storage.ptr if hasattr(ws, "_storage") else 0, 32 << 20)
        print("hipblasSetWorkspace 32 MiB:", st)
        for name, npd in (("float16", np.float16), ("bfloat16", ml_dtypes.bfloat16)):
            xa = cw.asarray(rng.standard_normal((4096, 4096), dtype=np.float32).astype(npd), device=dev)
            profile(f"cw gemm {name} +workspace", lambda: xa @ xa, sync)
            best = min(timed(lambda: xa @ xa, sync, reps=10, batches=3) for _ in range(3))
            print(f"  cw gemm {name} +workspace: {2 * 4096 ** 3 / best / 1e12:.1f} TFLOP/s")
    except Exception as exc:  # noqa: BLE001
        print("workspace probe:", type(exc).__name__, exc)

    from rocm_backend import nn

    torch.backends.cudnn.benchmark = True
    torch.backends.cudnn.allow_tf32 = False
    cases = [("conv3x3", (64, 64, 3, 3), 1, 1), ("conv1x1", (64, 64, 1, 1), 1, 0), ("conv3x3_s2", (64, 64, 3, 3), 2, 1)]
    for dtype, tdt in ((np.float32, torch.float32), (np.float16, torch.float16)):
        xs = rng.standard_normal((32, 64, 56, 56), dtype=np.float32).astype(dtype)
        xc, txc = cw.asarray(xs, device=dev), torch.from_numpy(xs).cuda()
        for name, wshape, stride, pad in cases:
            w = (rng.standard_normal(wshape) * 0.05).astype(dtype)
            wc, twc = cw.asarray(w, device=dev), torch.from_numpy(w).cuda()
            for path in ("miopen", "fallback"):
                os.environ[nn.ENV] = path
                fn = lambda: cw.nn.conv2d(xc, wc, stride=stride, padding=pad)  # noqa: E731
                profile(f"cw {path} {name} {np.dtype(dtype).name}", fn, sync)
                print(f"  host-clock cached: {timed(fn, sync, reps=20) * 1e3:.3f} ms; "
                      f"queue-only: {per_call(fn, sync, n=20, rounds=3):.1f} us")
            os.environ[nn.ENV] = "auto"
            tf = lambda: torch.nn.functional.conv2d(txc, twc, stride=stride, padding=pad)  # noqa: E731
            profile(f"torch {name} {np.dtype(dtype).name}", tf, tsync)
            print(f"  host-clock cached: {timed(tf, tsync, reps=20) * 1e3:.3f} ms")
        fn = lambda: cw.nn.max_pool2d(xc, 3, 2, 1)  # noqa: E731
        profile(f"cw maxpool {np.dtype(dtype).name}", fn, sync)
        print(f"  host-clock cached: {timed(fn, sync, reps=20) * 1e3:.3f} ms")
        os.environ[nn.ENV] = "miopen"
        profile(f"cw miopen maxpool {np.dtype(dtype).name}", fn, sync)
        os.environ[nn.ENV] = "auto"
        tf = lambda: torch.nn.functional.max_pool2d(txc, 3, 2, 1)  # noqa: E731
        profile(f"torch maxpool {np.dtype(dtype).name}", tf, tsync)
        print(f"  host-clock cached: {timed(tf, tsync, reps=20) * 1e3:.3f} ms")


def launch_depth(dev, torch, cupy):
    """Host cost of one launch with the queue kept shallow (100 launches, then a
    synchronize outside the timing): per_call's 2000 back-to-back launches can fill the
    driver's launch queue, and then they measure the GPU's tiny-kernel throughput."""
    from rocm_backend.argpack import EW_ARGS

    rt, kernel, buf = fill_kernel(dev)
    raw = rt.launcher.raw
    sync = dev.synchronize
    for n in (20, 100, 400, 2000):
        us = shallow(lambda: raw(kernel.fn_arg, 1, 1, 1, 256, 1, 1, 0, rt.launcher.stream_arg, None,
                                 EW_ARGS.extra_arg), sync, n=n, rounds=max(3, 3000 // n))
        print(f"launch ctypes shim, {n} per synchronize: {us:.2f} us")
    for lib in [Lib("candlewick")] + ([Lib("torch", torch)] if torch is not None else []):
        for label, fn in tiny_ops(lib).items():
            print(f"{lib.name} {label}, 100 per synchronize: {shallow(fn, lib.sync):.2f} us")
    x = cw.asarray(np.arange(16, dtype=np.float32), device=dev)
    import cProfile
    import pstats

    prof = cProfile.Profile()
    prof.enable()
    for _ in range(2000):
        x + x
    prof.disable()
    sync()
    pstats.Stats(prof).sort_stats("tottime").print_stats(12)


def main():
    wanted = sys.argv[1:] or os.environ.get("CANDLEWICK_PROBE", "launch,grid,kernels,conv,conv_host").split(",")
    dev = cw.get_device("rocm")
    try:
        import torch

        torch.zeros(1, device="cuda")
    except Exception:  # noqa: BLE001
        torch = None
    try:
        import cupy
    except Exception:  # noqa: BLE001
        cupy = None
    print(dev, "torch", getattr(torch, "__version__", None))
    for name in wanted:
        t0 = time.perf_counter()
        try:
            {"launch": lambda: launch(dev, torch, cupy), "grid": lambda: grid(dev, torch),
             "kernels": lambda: kernels(dev, torch), "reduce": lambda: reduce(dev, torch),
             "conv": lambda: conv(dev, torch), "conv_host": lambda: conv_host(dev, torch),
             "launch_depth": lambda: launch_depth(dev, torch, cupy), "ew": lambda: ew(dev, torch),
             "nn_host": lambda: nn_host(dev, torch),
             "conv_parts": lambda: conv_parts(dev, torch),
             "launch_params": lambda: launch_params(dev, torch, cupy),
             "launch_floor": lambda: launch_floor(dev, torch, cupy, fill_kernel(dev)),
             "scan": lambda: scan(dev, torch, cupy)}[name]()
        except Exception as exc:  # noqa: BLE001
            import traceback

            traceback.print_exc()
            print(f"{name} failed: {type(exc).__name__}: {exc}")
        print(f"--- {name}: {time.perf_counter() - t0:.1f}s", flush=True)


if __name__ == "__main__":
    main()
