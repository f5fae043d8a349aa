"""The nn sections of bench/rocm_probe.py (``conv``, ``conv_host``, ``conv_parts``,
``nn_host``): where a convolution's device and host time goes, ours beside torch's, on a
GPU. Run through ``python3 bench/rocm_probe.py conv_parts`` (and the other names)."""

import numpy as np

import candlewick as cw
from candlewick import dtypes as dt
from run_gpu import per_call, profile, shallow, timed

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

