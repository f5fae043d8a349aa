"""Diagnostics for open questions of the rocm backend on a GPU (prints, writes nothing):

* launch cost on the host: hip-python's hipModuleLaunchKernel vs the ctypes path of
  rocm_backend/launch.py, same kernel and arguments;
* complex matmul through hipBLAS: finite inputs, K = 0, and inf/NaN inputs, against the
  conformance oracle's explicit products (and torch's cuBLAS, when present).
"""

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from candlewick import dtypes as dt  # noqa: E402
from candlewick import registry  # noqa: E402
from candlewick.layout import Layout  # noqa: E402


def launch_cost(dev):
    from rocm_backend.argpack import EW_ARGS
    from rocm_probe import fill_kernel

    rt, kernel, buf = fill_kernel(dev)
    hip_launch = rt.launcher._hip_launch
    n = 2000
    for label, call in (
        ("hip-python", lambda: hip_launch(kernel.fn, 1, 1, 1, 256, 1, 1, 0, dev.stream, None, EW_ARGS.extra_address)),
        ("ctypes", lambda: rt.launcher.raw(kernel.fn_arg, 1, 1, 1, 256, 1, 1, 0, rt.launcher.stream_arg, None,
                                           EW_ARGS.extra_arg)),
    ):
        if label == "ctypes" and rt.launcher.raw is None:
            print("launch ctypes: unavailable")
            continue
        best = float("inf")
        for _ in range(5):
            dev.synchronize()
            t0 = time.perf_counter()
            for _ in range(n):
                call()
            best = min(best, (time.perf_counter() - t0) / n)
            dev.synchronize()
        print(f"launch {label}: {best * 1e6:.2f} us per call (best of 5 x {n}, queue drained between)")


def oracle(a, b):
    aw, bw = a.astype(np.complex128), b.astype(np.complex128)
    with np.errstate(all="ignore"):
        return (aw[:, :, None] * bw[None, :, :]).sum(axis=1)


def matmul_cases(dev):
    rng = np.random.default_rng(7)
    for dtype in (dt.complex64, dt.complex128):
        cases = {}
        a = (rng.standard_normal((2, 3)) + 1j * rng.standard_normal((2, 3))).astype(dtype.numpy)
        b = (rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3))).astype(dtype.numpy)
        cases["finite"] = (a, b)
        cases["K=0"] = (np.zeros((2, 0), dtype.numpy), np.zeros((0, 3), dtype.numpy))
        s = a.copy()
        s[0, 1] = complex(np.inf, 0.0)
        s[1, 2] = complex(0.0, np.nan)
        cases["inf/nan"] = (s, b)
        z = a.copy()
        z[0, 0] = complex(-0.0, 2.5)
        cases["signed zero, halves"] = (z, b * 0.5)
        for name, (x, y) in cases.items():
            sx = dev.storage_from_host(np.ascontiguousarray(x))
            sy = dev.storage_from_host(np.ascontiguousarray(y))
            got = sx.matmul(sy, Layout.contiguous(x.shape), Layout.contiguous(y.shape)).to_host(
                Layout.contiguous((x.shape[0], y.shape[1])))
            want = oracle(x, y)
            with np.errstate(all="ignore"):
                rel = np.abs(got - want) / np.maximum(np.abs(want), 1e-300)
            line = f"matmul {dtype.name} {name}: max rel err {np.nanmax(rel) if rel.size else 0:.3g}"
            if not np.array_equal(np.isfinite(got), np.isfinite(want)):
                line += f"; class differs: got {got.ravel()} want {want.ravel()}"
            try:
                import torch

                tt = (torch.from_numpy(x).cuda() @ torch.from_numpy(y).cuda()).cpu().numpy()
                with np.errstate(all="ignore"):
                    trel = np.abs(tt - want) / np.maximum(np.abs(want), 1e-300)
                line += f"; torch max rel err {np.nanmax(trel) if trel.size else 0:.3g}"
            except Exception as exc:  # torch absent or no complex matmul: say so
                line += f"; torch: {type(exc).__name__}"
            print(line)


def main():
    dev = registry.get_device("rocm")
    print(dev)
    for section in (launch_cost, matmul_cases):
        try:
            section(dev)
        except Exception as exc:
            print(f"{section.__name__} failed: {type(exc).__name__}: {exc}")


if __name__ == "__main__":
    main()
