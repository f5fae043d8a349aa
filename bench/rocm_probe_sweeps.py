"""Launch-geometry sweeps of bench/rocm_probe.py (sections ``reduce`` and ``ew``): the
reduction TUNING variants of rocm_backend.reductions and the element-wise grid shapes,
each beside torch, on a GPU. Run through ``python3 bench/rocm_probe.py reduce ew``."""

import numpy as np

import candlewick as cw
from candlewick import dtypes as dt
from run_gpu import kernel_times, timed


# (case, label, TUNING overrides): the launch-geometry variants the reduce section measures
REDUCE_VARIANTS = [
    ("all", "default", {}), ("all", "all_waves=2", {"all_waves": 2}), ("all", "all_waves=4", {"all_waves": 4}),
    ("all", "block=128", {"block": 128}), ("all", "block=128,all_waves=2", {"block": 128, "all_waves": 2}),
    ("all", "seg_min=65536", {"seg_min": 65536}),
    ("rows", "default", {}), ("rows", "rows_group=8", {"rows_group": 8}), ("rows", "rows_group=16", {"rows_group": 16}),
    ("rows", "rows_group=64", {"rows_group": 64}), ("rows", "rows_group=128", {"rows_group": 128}),
    ("rows", "rows_group=256", {"rows_group": 256}), ("rows", "block=128", {"block": 128}),
    ("rows", "block=128,rows_group=64", {"block": 128, "rows_group": 64}),
    ("cols", "default", {}), ("cols", "cols_bx=8", {"cols_bx": 8}), ("cols", "cols_bx=16", {"cols_bx": 16}),
    ("cols", "cols_bx=64", {"cols_bx": 64}), ("cols", "cols_bx=128", {"cols_bx": 128}),
    ("cols", "cols_bx=256", {"cols_bx": 256}),
    ("cols", "cols_waves=2", {"cols_waves": 2}), ("cols", "cols_waves=4", {"cols_waves": 4}),
    ("cols", "block=128", {"block": 128}), ("cols", "block=128,cols_bx=32,cols_waves=2",
                                            {"block": 128, "cols_bx": 32, "cols_waves": 2}),
]


def reduce(dev, torch):
    """Sums of 2^26 float32 (all; rows = axis 1 and cols = axis 0 of 8192x8192) for each
    launch-geometry variant of rocm_backend.reductions.TUNING (REDUCE_VARIANTS): device
    time per call (torch.profiler), host-clock fraction of the copy bandwidth (4n bytes
    over the median time per call of 10 back-to-back calls + sync), registers and
    resident blocks of the kernels, and each variant's sum and argmax against NumPy."""
    from rocm_backend import reductions

    sync = dev.synchronize
    n, side = 1 << 26, 8192
    a = np.random.default_rng(0).standard_normal(n, dtype=np.float32)
    a2 = a.reshape(side, side)
    x = cw.asarray(a, device=dev)
    m = cw.reshape(x, (side, side))
    copy_bw = 8 * n / timed(lambda: cw.asarray(x, copy=True), sync)
    print(f"copy bandwidth {copy_bw / 1e9:.0f} GB/s (read + write)")
    axis = {"all": None, "rows": 1, "cols": 0}
    arrays = {"all": x, "rows": m, "cols": m}
    refs = {c: (a.sum(dtype=np.float64) if ax is None else a2.sum(axis=ax, dtype=np.float64)) for c, ax in axis.items()}
    args = {c: (a.argmax() if ax is None else a2.argmax(axis=ax)) for c, ax in axis.items()}
    n_red = {"all": n, "rows": side, "cols": side}
    saved = dict(reductions.TUNING)
    rows_out = []

    def measure(fn, s):
        times = kernel_times(fn, s, reps=10) or []
        host = timed(fn, s, reps=10, batches=5)
        return times, host

    try:
        for case, label, overrides in REDUCE_VARIANTS:
            reductions.TUNING.clear()
            reductions.TUNING.update(saved, **overrides)
            src = arrays[case]
            fn = (lambda src=src, ax=axis[case]: cw.sum(src, axis=ax))
            try:
                got = np.asarray(cw.to_numpy(fn()), dtype=np.float64)
                ok = np.allclose(got, refs[case], rtol=1e-4, atol=1e-4 * np.sqrt(n_red[case]))
                err = float(np.max(np.abs(got - refs[case])))
                idx = cw.to_numpy(cw.argmax(src, axis=axis[case]))
                ok_arg = np.array_equal(idx, args[case])
                times, host = measure(fn, sync)
            except Exception as exc:  # noqa: BLE001
                print(f"[reduce {case} {label}] failed: {type(exc).__name__}: {exc}")
                continue
            dev_us = sum(t[0] for t in times)
            names = " + ".join(f"{k.split('(')[0]} x{c}" for _, c, k in times)
            check = ("ok" if ok else f"SUM FAIL (max abs err {err:.3g})") + ("" if ok_arg else ", ARGMAX FAIL")
            rows_out.append((case, label, dev_us, host * 1e6, 4 * n / host / copy_bw, check, names))
    finally:
        reductions.TUNING.clear()
        reductions.TUNING.update(saved)
    if torch is not None:
        t = torch.from_numpy(a).cuda()
        tm = t.reshape(side, side)
        for case, fn in (("all", lambda: t.sum()), ("rows", lambda: tm.sum(dim=1)), ("cols", lambda: tm.sum(dim=0))):
            times, host = measure(fn, torch.cuda.synchronize)
            got = fn().double().cpu().numpy()
            ok = np.allclose(got, refs[case], rtol=1e-4, atol=1e-4 * np.sqrt(n_red[case]))
            rows_out.append((case, "torch", sum(r[0] for r in times), host * 1e6, 4 * n / host / copy_bw,
                             "ok" if ok else "SUM FAIL", " + ".join(k.split("(")[0][:40] for _, _, k in times)))
    print(f"{'case':5} {'variant':36} {'device us':>9} {'host us':>8} {'%copy':>6}  check  kernels")
    for case, label, dev_us, host_us, frac, check, names in sorted(rows_out, key=lambda r: (r[0], r[2])):
        print(f"{case:5} {label:36} {dev_us:9.1f} {host_us:8.1f} {100 * frac:5.1f}%  {check}  {names[:90]}")
    best = {}
    for case, label, dev_us, *_, check, _ in rows_out:
        if label != "torch" and check == "ok" and (case not in best or dev_us < best[case][1]):
            best[case] = (label, dev_us)
    print("fastest (device time): " + "; ".join(f"{c} {lb} {us:.1f} us" for c, (lb, us) in sorted(best.items())))
    _reduce_kernel_facts(dev, reductions)


def _reduce_kernel_facts(dev, reductions):
    """Registers and resident blocks per multiprocessor of the float32 sum kernels."""
    from hip import hip

    from candlewick.opdefs import ReduceOp

    for shape in ("rows_vec", "cols_vec", "rows", "cols"):
        k = reductions._kernel(dev, shape, ReduceOp.SUM, dt.float32)
        st, regs = hip.hipFuncGetAttribute(hip.hipFunction_attribute.HIP_FUNC_ATTRIBUTE_NUM_REGS, k.fn)
        res = {b: reductions.resident_blocks(dev, k, b) // dev.multiprocessors for b in (128, 256)}
        print(f"  {k.name}: {regs} registers; resident blocks per SM: 256 threads {res[256]}, 128 threads {res[128]}")


def ew(dev, torch):
    """exp f32 at 2^26 and 2^28 on the device for element-wise block sizes and elements per
    thread (the contiguous path's loop takes any grid), beside torch's."""
    from candlewick.opdefs import UnaryOp
    from rocm_backend import ops, storage
    from rocm_backend.kernels import runtime

    sync = dev.synchronize
    kernel = runtime(dev).kernel(ops.lookup(("unary", UnaryOp.EXP, dt.float32)))
    base_block, base_items = storage._EW_CONTIG_BLOCK, storage._EW_ITEMS_PER_THREAD
    for n in (1 << 26, 1 << 28):
        a = np.random.default_rng(0).standard_normal(n, dtype=np.float32)
        x = cw.asarray(a, device=dev)
        out = storage.RocmStorage.empty(dev, dt.float32, n)
        src = x._storage
        for block, items in ((256, 8), (128, 8), (256, 16)):
            storage._EW_CONTIG_BLOCK, storage._EW_ITEMS_PER_THREAD = block, items
            fn = lambda: storage.launch_contiguous(dev, kernel, n, out.ptr, 0, src.ptr, 0)  # noqa: E731
            rows = kernel_times(fn, sync, reps=20)
            print(f"exp 2^{n.bit_length() - 1} block {block} items/thread {items}: device "
                  f"{sum(r[0] for r in rows):.1f} us")
        storage._EW_CONTIG_BLOCK, storage._EW_ITEMS_PER_THREAD = base_block, base_items
        if torch is not None:
            t = torch.from_numpy(a).cuda()
            rows = kernel_times(lambda: torch.exp(t), torch.cuda.synchronize, reps=20)
            print(f"torch exp 2^{n.bit_length() - 1}: device {sum(r[0] for r in rows):.1f} us")
            t = None
        x = out = src = None
