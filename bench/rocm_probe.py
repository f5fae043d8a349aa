"""Where the rocm backend's time goes on a GPU (prints, writes nothing): the evidence
behind the tuning of launches, element-wise/reduction kernels, GEMM and convolutions.

    python3 bench/rocm_probe.py [section ...]
    (sections: launch, launch_depth, grid, ew, kernels, reduce, conv, conv_host, nn_host,
    conv_parts)

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
from run_gpu import kernel_times, timed  # noqa: E402
from rocm_probe_sweeps import ew, reduce  # noqa: E402


def per_call(fn, sync, n=2000, rounds=5):
    """Best host microseconds per call of ``fn`` over ``rounds`` bursts of ``n`` calls, each
    burst started on an empty queue (its synchronize outside the timing). Large ``n``
    can fill the driver's launch queue and then measures the GPU's pace instead."""
    best = float("inf")
    for _ in range(rounds):
        sync()
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - t0) / n)
    sync()
    return best * 1e6


def shallow(fn, sync, n=100, rounds=30):
    """per_call with a queue that stays shallow."""
    return per_call(fn, sync, n, rounds)


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


def profile(label, fn, sync, reps=5):
    rows = kernel_times(fn, sync, reps)
    print(f"[{label}] device {sum(r[0] for r in rows):.1f} us per call")
    for us, count, key in rows[:6]:
        print(f"    {us:9.1f} us x{count} {key[:150]}")


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


def conv(dev, torch):
    """MIOpen (cuDNN) convolutions called directly, NCHW against channels-last (NHWC with
    our transposes around it): device time per kernel, host time per call, agreement."""
    from candlewick._core import wrap
    from rocm_backend import miopen
    from rocm_backend.storage import RocmStorage

    mio = miopen.for_device(dev)
    sync = dev.synchronize
    rng = np.random.default_rng(0)
    cases = [("conv3x3", (64, 64, 3, 3), 1, 1), ("conv1x1", (64, 64, 1, 1), 1, 0), ("conv3x3_s2", (64, 64, 3, 3), 2, 1)]
    for dtype in (dt.float16, dt.bfloat16, dt.float32):
        npd = dtype.numpy
        xs = rng.standard_normal((32, 64, 56, 56), dtype=np.float32).astype(npd)
        x = cw.asarray(xs, device=dev)
        for name, wshape, stride, pad in cases:
            w = cw.asarray((rng.standard_normal(wshape) * 0.05).astype(npd), device=dev)
            oh = (56 + 2 * pad - wshape[2]) // stride + 1
            yshape = (32, 64, oh, oh)
            n_out = int(np.prod(yshape))

            def nchw():
                y = RocmStorage.empty(dev, dtype, n_out)
                mio.convolution(miopen.CONVOLUTION, dtype, x._storage.ptr, x.shape, w._storage.ptr, w.shape, y.ptr,
                                yshape, (stride, stride), (pad, pad), (1, 1), 1)
                return y

            def nhwc():
                xl = cw.asarray(cw.permute_dims(x, (0, 2, 3, 1)), copy=True)
                wl = cw.asarray(cw.permute_dims(w, (0, 2, 3, 1)), copy=True)
                y = RocmStorage.empty(dev, dtype, n_out)
                mio.convolution(miopen.CONVOLUTION, dtype, xl._storage.ptr, x.shape, wl._storage.ptr, w.shape,
                                y.ptr, yshape, (stride, stride), (pad, pad), (1, 1), 1, channels_last=True)
                yl = wrap(y, (32, oh, oh, 64), dtype, dev)
                return cw.asarray(cw.permute_dims(yl, (0, 3, 1, 2)), copy=True)

            label = f"{name} {dtype.name}"
            try:
                a = cw.to_numpy(wrap(nchw(), yshape, dtype, dev)).astype(np.float64)
                b = cw.to_numpy(nhwc()).astype(np.float64)
                print(f"[{label}] NCHW vs NHWC max abs diff {np.max(np.abs(a - b)):.3g}")
                for lname, fn in (("NCHW", nchw), ("NHWC+transposes", nhwc)):
                    if torch is not None:
                        profile(f"{lname} {label}", fn, sync)
                    print(f"  {lname}: host-clock cached {timed(fn, sync, reps=20) * 1e3:.3f} ms; "
                          f"queue-only {per_call(fn, sync, n=20, rounds=3):.1f} us")
            except Exception as exc:  # noqa: BLE001
                print(f"[{label}] failed: {type(exc).__name__}: {exc}")


def conv_host(dev, torch):
    """Host microseconds per call of the pieces of one cached MIOpen convolution (3x3,
    N=32, C=64, 56x56): our Python around it, the shim's descriptor set-up (inside
    GetWorkSpaceSize) and cudnnConvolutionForward's own host work."""
    import ctypes as C

    from rocm_backend import miopen
    from rocm_backend.storage import RocmStorage

    mio = miopen.for_device(dev)
    sync = dev.synchronize
    for dtype in (dt.float32, dt.float16):
        x = RocmStorage.empty(dev, dtype, 32 * 64 * 56 * 56)
        w = RocmStorage.empty(dev, dtype, 64 * 64 * 9)
        y = RocmStorage.empty(dev, dtype, 32 * 64 * 56 * 56)
        x.slice.memset(0), w.slice.memset(0)
        args = (miopen.CONVOLUTION, dtype, x.ptr, (32, 64, 56, 56), w.ptr, (64, 64, 3, 3), y.ptr, (32, 64, 56, 56),
                (1, 1), (1, 1), (1, 1), 1)
        mio.convolution(*args)
        plan = next(p for k, p in mio.plans.items() if k[1] is dtype and k[2] == (32, 64, 56, 56) and not k[-1])
        size = C.c_size_t()
        lib = mio.lib
        print(f"[{dtype.name}] algo {plan.algo} workspace {plan.workspace}")
        print(f"  mio.convolution (all of it): {per_call(lambda: mio.convolution(*args), sync, n=50, rounds=3):.1f} us")
        print(f"  shim GetWorkSpaceSize (descriptor set-up + 8 queries): "
              f"{per_call(lambda: lib.miopenConvolutionForwardGetWorkSpaceSize(mio.handle, plan.w, plan.x, plan.conv, plan.y, C.byref(size)), sync, n=50, rounds=3):.1f} us")
        ws = mio._workspace(plan.workspace)
        fwd = lambda: mio._forward(mio.handle, mio._one, plan.x, x.ptr, plan.w, w.ptr, plan.conv,  # noqa: E731
                                   plan.algo, mio._zero, plan.y, y.ptr, ws.ptr if ws else None, plan.workspace)
        print(f"  miopenConvolutionForward ctypes call: {per_call(fwd, sync, n=50, rounds=3):.1f} us")
        print(f"  device.make_current: {per_call(dev.make_current, sync, n=200, rounds=3):.1f} us")
        print(f"  workspace allocation: {per_call(lambda: mio._workspace(plan.workspace), sync, n=200, rounds=3):.1f} us")


def conv_parts(dev, torch):
    """Where the host time of a cached convolution goes (N=32, C=64, 56x56; 3x3, 1x1,
    3x3 stride 2; float16 then float32): the benchmark's figure (20 calls back to back,
    then a synchronize) beside torch's, host microseconds per call of each layer with the
    queue kept shallow, the benchmark's figure without the padding fix-up, and a profile."""
    import cProfile
    import pstats

    from rocm_backend import nn_kernels
    from rocm_backend.storage import RocmStorage

    sync = dev.synchronize
    rng = np.random.default_rng(0)
    tsync = torch.cuda.synchronize if torch is not None else None
    if torch is not None:
        torch.backends.cudnn.benchmark = True
        torch.backends.cudnn.allow_tf32 = False
    for dtype in (dt.float16, dt.float32):
        xn = rng.standard_normal((32, 64, 56, 56), dtype=np.float32).astype(dtype.numpy)
        x = cw.asarray(xn, device=dev)
        tx = torch.from_numpy(xn).cuda() if torch is not None else None
        for name, k, s, p in (("3x3", 3, 1, 1), ("1x1", 1, 1, 0), ("3x3_s2", 3, 2, 1)):
            wn = (rng.standard_normal((64, 64, k, k)) * 0.05).astype(dtype.numpy)
            w = cw.asarray(wn, device=dev)
            fn = lambda: cw.nn.conv2d(x, w, stride=s, padding=p)  # noqa: E731
            fn()
            sync()
            key = next(key for key in dev._nn_convs if key[4] == w._layout.shape and key[6] == (s, s)
                       and key[1] is dtype)
            fast = dev._nn_convs[key]
            xs, wst = x._storage, w._storage
            out = RocmStorage.empty(dev, dtype, fast.size)
            mio, plan = fast.mio, fast.plan
            ws = mio._workspace(plan.workspace)
            fwd = lambda: mio._forward(mio.handle, mio._one, plan.x, xs.ptr, plan.w, wst.ptr,  # noqa: E731
                                       plan.conv, plan.algo, mio._zero, plan.y, out.ptr,
                                       ws.ptr if ws else None, plan.workspace)
            rows = [("bench figure (20 back to back + sync)", timed(fn, sync, reps=20, batches=7) * 1e6)]
            if torch is not None:
                tw = torch.from_numpy(wn).cuda()
                tfn = lambda: torch.nn.functional.conv2d(tx, tw, stride=s, padding=p)  # noqa: E731
                tfn()
                rows.append(("torch bench figure", timed(tfn, tsync, reps=20, batches=7) * 1e6))
                rows.append(("torch host per call", shallow(tfn, tsync, n=20, rounds=15)))
            rows += [
                ("cw.nn.conv2d host per call", shallow(fn, sync, n=20, rounds=15)),
                ("storage.conv2d", shallow(lambda: xs.conv2d(x._layout, wst, w._layout, (s, s), (p, p), (1, 1), 1),
                                           sync, n=20, rounds=15)),
                ("mio.run (workspace, forward)", shallow(lambda: mio.run(plan, xs.ptr, wst.ptr, out.ptr), sync,
                                                         n=20, rounds=15)),
                ("forward ctypes call alone", shallow(fwd, sync, n=20, rounds=15)),
                ("padding fix-up launch", shallow(lambda: fast.fixup(out.ptr, wst.ptr), sync, n=50, rounds=10)),
                ("output allocation", shallow(lambda: RocmStorage.empty(dev, dtype, fast.size), sync, n=50,
                                              rounds=10)),
                (f"workspace allocation ({plan.workspace} B)", shallow(lambda: mio._workspace(plan.workspace),
                                                                      sync, n=50, rounds=10)),
            ]
            saved, fast.fixup = fast.fixup, nn_kernels.nothing
            rows.append(("bench figure without the fix-up", timed(fn, sync, reps=20, batches=7) * 1e6))
            rows.append(("host per call without the fix-up", shallow(fn, sync, n=20, rounds=15)))
            fast.fixup = saved
            known = wst.slice.finite_at == wst.slice.version
            print(f"[{dtype.name} conv {name}] algo {plan.algo}, workspace {plan.workspace} B, "
                  f"weight known finite (fix-up skipped): {known}")
            for label, us in rows:
                print(f"  {label:<44} {us:8.1f} us")
            if dtype is dt.float16 and name == "3x3_s2":
                prof = cProfile.Profile()
                prof.enable()
                for _ in range(20):
                    for _ in range(20):
                        fn()
                    sync()
                prof.disable()
                pstats.Stats(prof).sort_stats("tottime").print_stats(14)


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
    x = cw.asarray(np.arange(16, dtype=np.float32), device=dev)
    c = x > 3
    for label, fn in (("x + x", lambda: x + x), ("sum(x)", lambda: cw.sum(x)),
                      ("where", lambda: cw.where(c, x, x))):
        print(f"candlewick {label}, 100 per synchronize: {shallow(fn, sync):.2f} us")
    if torch is not None:
        t = torch.arange(16, dtype=torch.float32, device="cuda")
        tc = t > 3
        for label, fn in (("x + x", lambda: t + t), ("sum(x)", lambda: t.sum()),
                          ("where", lambda: torch.where(tc, t, t))):
            print(f"torch {label}, 100 per synchronize: {shallow(fn, torch.cuda.synchronize):.2f} us")
    import cProfile
    import pstats

    prof = cProfile.Profile()
    prof.enable()
    for _ in range(2000):
        x + x
    prof.disable()
    sync()
    pstats.Stats(prof).sort_stats("tottime").print_stats(12)


def nn_host(dev, torch):
    """Host microseconds per call (queue kept shallow) of whole cw.nn calls on the benchmark
    shapes, the hipBLAS call of a direct 1x1 convolution alone, and the shim's
    graph/legacy counters (tools/hip_on_cuda: miopenOnCudaConvStats)."""
    import ctypes as C

    from rocm_backend import blas_call, miopen

    sync = dev.synchronize
    rng = np.random.default_rng(0)

    for dtype in (dt.float32, dt.float16):
        x = cw.asarray(rng.standard_normal((32, 64, 56, 56), dtype=np.float32).astype(dtype.numpy), device=dev)
        for name, k, s, p in (("3x3", 3, 1, 1), ("1x1", 1, 1, 0), ("3x3_s2", 3, 2, 1)):
            w = cw.asarray((rng.standard_normal((64, 64, k, k)) * 0.05).astype(dtype.numpy), device=dev)
            fn = lambda: cw.nn.conv2d(x, w, stride=s, padding=p)  # noqa: E731
            fn()
            us = shallow(fn, sync, n=20, rounds=10)
            print(f"[{dtype.name} conv {name}] cw.nn.conv2d host {us:.1f} us per call (queue not full)")
        fn = lambda: cw.nn.max_pool2d(x, 3, 2, 1)  # noqa: E731
        fn()
        us = shallow(fn, sync, n=20, rounds=10)
        print(f"[{dtype.name} max_pool] cw.nn.max_pool2d host {us:.1f} us per call")
        a = cw.asarray(np.zeros((32, 64, 56 * 56), dtype.numpy), device=dev)
        wt = cw.asarray(np.zeros((64, 64), dtype.numpy), device=dev)
        out = cw.asarray(np.zeros((32, 64, 56 * 56), dtype.numpy), device=dev)
        types = blas_call.types(dtype)
        gemm = lambda: blas_call.gemm_strided_batched(  # noqa: E731
            dev, False, False, 3136, 64, 64, a._storage.ptr, 3136, 64 * 3136, wt._storage.ptr, 64, 0,
            out._storage.ptr, 3136, 64 * 3136, 32, types)
        gemm()
        us = shallow(gemm, sync, n=20, rounds=10)
        print(f"[{dtype.name}] hipBLAS strided-batched GEMM of a 1x1 conv, host {us:.1f} us per call")
    mio = miopen.for_device(dev)
    stats = getattr(getattr(mio, "lib", None), "miopenOnCudaConvStats", None)
    if stats is not None:
        g, l, f = C.c_longlong(), C.c_longlong(), C.c_longlong()
        rc = stats(C.byref(g), C.byref(l), C.byref(f))
        print(f"shim conv stats (rc {rc}): graph runs {g.value}, legacy runs {l.value}, graph finds {f.value}")


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
             "conv_parts": lambda: conv_parts(dev, torch)}[name]()
        except Exception as exc:  # noqa: BLE001
            import traceback

            traceback.print_exc()
            print(f"{name} failed: {type(exc).__name__}: {exc}")
        print(f"--- {name}: {time.perf_counter() - t0:.1f}s", flush=True)


if __name__ == "__main__":
    main()
