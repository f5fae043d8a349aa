"""Probe section ``scan``: cumulative_sum along the last axis of float32 arrays of 2^24
elements (rows x length, from one row of 2^24 to 2^16 rows of 256), and along the first
axis of 4096 x 4096 and 256 x 65536, with rocm_backend.scans' choice, with each of its
two kernels forced (rows by groups of threads; tiles), the row kernel with other group
sizes than the chosen one (``rows g=N``), and beside torch.cumsum and cupy.cumsum:
median time per call and the fraction of the copy bandwidth it reaches (read + write of
the array). Each result is checked against NumPy's float64 cumulative sum."""

import numpy as np

import candlewick as cw
from run_gpu import timed

SHAPES = [(1, 1 << 24), (16, 1 << 20), (256, 1 << 16), (4096, 4096), (1 << 16, 256)]


def scan(dev, torch, cupy):
    from rocm_backend import scans

    sync = dev.synchronize
    n = 1 << 24
    x = cw.asarray(np.random.default_rng(0).standard_normal(n, dtype=np.float32), device=dev)
    copy_s = timed(lambda: cw.asarray(x, copy=True), sync)
    print(f"copy of 2^24 float32: {copy_s * 1e6:.0f} us ({8 * n / copy_s / 1e9:.0f} GB/s read + write)")
    cases = [(shape, -1) for shape in SHAPES] + [((1024, 1 << 14), -1), ((4096, 4096), 0), ((256, 1 << 16), 0),
                                                 ((1 << 16, 256), 0), ((1 << 14, 1024), 0)]
    try:
        for shape, axis in cases:
            host = np.random.default_rng(1).integers(-3, 4, shape).astype(np.float32)
            a = cw.asarray(host, device=dev)
            want = np.cumsum(host.astype(np.float64), axis=axis)
            row = [f"{shape} axis {axis}:"]
            length, stride = shape[axis], a._layout.strides[axis]
            rows = a.size // length
            chosen_group = scans.threads_per_row(length, stride, rows, dev.multiprocessors)
            chosen = "tiles" if scans.use_tiles(rows, length, stride) else f"rows g={chosen_group}"
            variants = [(f"chosen ({chosen})", None, None), ("rows", "rows", None), ("tiles", "tiles", None)]
            if rows >= 256:  # fewer rows with small groups only walk longer
                variants += [(f"rows g={g}", "rows", g) for g in (8, 16, 32, 64, 256) if g != chosen_group]
            for label, kernel, group in variants:
                scans.FORCE_KERNEL, scans.FORCE_THREADS_PER_ROW = kernel, group
                fn = lambda: cw.cumulative_sum(a, axis=axis)  # noqa: E731
                ok = np.array_equal(cw.to_numpy(fn()), want)  # small integers: exact in float32
                t = timed(fn, sync, reps=5, batches=5)
                row.append(f"{label} {t * 1e6:9.0f} us {copy_s / t:6.1%}{'' if ok else ' WRONG'}")
            scans.FORCE_KERNEL, scans.FORCE_THREADS_PER_ROW = None, None
            if torch is not None:
                ta = torch.from_numpy(host).cuda()
                t = timed(lambda: torch.cumsum(ta, dim=axis), torch.cuda.synchronize, reps=5, batches=5)
                row.append(f"torch {t * 1e6:9.0f} us {copy_s / t:6.1%}")
            if cupy is not None:
                ca = cupy.asarray(host)
                t = timed(lambda: cupy.cumsum(ca, axis=axis), cupy.cuda.Device().synchronize, reps=5, batches=5)
                row.append(f"cupy {t * 1e6:9.0f} us {copy_s / t:6.1%}")
            print("  ".join(row), flush=True)
    finally:
        scans.FORCE_KERNEL, scans.FORCE_THREADS_PER_ROW = None, None
