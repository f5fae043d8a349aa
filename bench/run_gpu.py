"""GPU benchmarks of the rocm backend beside PyTorch and CuPy, in one process.

    python bench/run_gpu.py --out DIR

Writes DIR/bench_rocm.json and DIR/bench_rocm.md: device name, date, and for each case
candlewick's figure beside the peers measured in the same run. Bandwidth-bound cases are
reported as a fraction of the device-to-device copy bandwidth measured here (bytes read
plus written). Timings: warm-up first, then the median of several timed batches, each
ended by a device synchronize (host clock around synchronized batches).
"""

import argparse
import datetime
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import candlewick as cw  # noqa: E402
from candlewick import registry  # noqa: E402


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


def profile(label, fn, sync, reps=5):
    rows = kernel_times(fn, sync, reps)
    print(f"[{label}] device {sum(r[0] for r in rows):.1f} us per call")
    for us, count, key in rows[:6]:
        print(f"    {us:9.1f} us x{count} {key[:150]}")


def timed(fn, sync, reps=10, batches=5, warmup=2):
    """Median seconds per call of ``fn`` (calls queued back to back, then synchronized)."""
    for _ in range(warmup):
        fn()
    sync()
    samples = []
    for _ in range(batches):
        t0 = time.perf_counter()
        for _ in range(reps):
            fn()
        sync()
        samples.append((time.perf_counter() - t0) / reps)
    return statistics.median(samples)


def peers():
    out = {}
    try:
        import torch

        if torch.cuda.is_available():
            out["torch"] = torch
    except Exception:
        pass
    try:
        import cupy

        cupy.cuda.runtime.getDeviceCount()
        out["cupy"] = cupy
    except Exception:
        pass
    return out


class Lib:
    """One library's way of making arrays and running the benchmarked ops."""

    def __init__(self, name, mod=None):
        self.name, self.mod = name, mod
        if name == "candlewick":
            self.dev = registry.get_device("rocm")

    def sync(self):
        if self.name == "candlewick":
            self.dev.synchronize()
        elif self.name == "torch":
            self.mod.cuda.synchronize()
        else:
            self.mod.cuda.runtime.deviceSynchronize()

    def asarray(self, a):
        if self.name == "candlewick":
            return cw.asarray(a, device="rocm")
        if self.name == "torch":
            return self.mod.from_numpy(np.ascontiguousarray(a)).cuda()
        return self.mod.asarray(a)

    def ns(self):
        return cw if self.name == "candlewick" else self.mod

    def sum(self, x, axis=None):
        if self.name == "torch":
            return x.sum() if axis is None else x.sum(dim=axis)
        return self.ns().sum(x, axis=axis)

    def where(self, c, x, y):
        return self.ns().where(c, x, y)

    def copy(self, x):
        if self.name == "torch":
            return x.clone()
        if self.name == "cupy":
            return x.copy()
        return cw.asarray(x, copy=True)

    def matmul(self, a, b):
        return self.ns().matmul(a, b)


def bench_bandwidth(libs, results, sizes, rounds=3):
    """GB/s of copy, add, exp and sums, each the best of ``rounds`` rounds that take the
    libraries in turn (so clock or thermal drift during the run favours none of them)."""
    rng = np.random.default_rng(0)
    for n in sizes:
        a = rng.standard_normal(n, dtype=np.float32)
        b = rng.standard_normal(n, dtype=np.float32)
        side = int(round(n ** 0.5))
        cases = [("copy", 2 * 4 * n, lambda lib, x, y, m: lib.copy(x)),
                 ("add", 3 * 4 * n, lambda lib, x, y, m: x + y),
                 ("exp", 2 * 4 * n, lambda lib, x, y, m: lib.ns().exp(x))]
        if n <= 1 << 26:
            cases += [("sum_all", 4 * n, lambda lib, x, y, m: lib.sum(x)),
                      ("sum_rows", 4 * n, lambda lib, x, y, m: lib.sum(m, 1)),
                      ("sum_cols", 4 * n, lambda lib, x, y, m: lib.sum(m, 0))]
        operands, rows = {}, {}
        for lib in libs:
            row = rows[lib.name] = results.setdefault(f"2^{n.bit_length() - 1}", {}).setdefault(lib.name, {})
            try:
                x, y = lib.asarray(a), lib.asarray(b)
                m = cw.reshape(x, (side, side)) if lib.name == "candlewick" else x.reshape(side, side)
                operands[lib.name] = (x, y, m)
            except Exception as exc:  # record, keep going
                row["error"] = f"{type(exc).__name__}: {exc}"[:300]
        for label, nbytes, op in cases:
            best = {}
            for _ in range(rounds):
                for lib in libs:
                    if lib.name not in operands or f"{label}_error" in rows[lib.name]:
                        continue
                    x, y, m = operands[lib.name]
                    try:
                        t = timed(lambda: op(lib, x, y, m), lib.sync)
                        best[lib.name] = min(best.get(lib.name, t), t)
                    except Exception as exc:  # record, keep going
                        rows[lib.name][f"{label}_error"] = f"{type(exc).__name__}: {exc}"[:300]
            for lib_name, t in best.items():
                rows[lib_name][f"{label}_GBps"] = nbytes / t / 1e9
        operands.clear()  # free the device buffers before the next size


def kernel_times(fn, sync, reps=5):
    """[(device µs per call, launches per call, kernel name)] of ``fn``'s kernels, from
    torch.profiler, which sees every kernel of the process (CUPTI); None without torch."""
    try:
        from torch.profiler import ProfilerActivity, profile
    except Exception:  # noqa: BLE001
        return None
    fn()
    sync()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(reps):
            fn()
        sync()
    rows = []
    for ev in prof.key_averages():
        us = getattr(ev, "device_time_total", None) or getattr(ev, "cuda_time_total", 0)
        if us:
            rows.append((us / reps, ev.count // reps, ev.key))
    return sorted(rows, reverse=True)


def device_us(fn, sync, reps=5):
    """Device microseconds per call of ``fn`` (sum of its kernels); None without torch."""
    rows = kernel_times(fn, sync, reps)
    return None if rows is None else sum(r[0] for r in rows)


def bench_gemm(libs, results, size=4096, rounds=3):
    """Host-clock TFLOP/s (best of ``rounds`` interleaved rounds, 20 calls per batch so
    the first call's host latency weighs little) and the device time per call."""
    rng = np.random.default_rng(1)
    import ml_dtypes

    for name, np_dtype in (("float32", np.float32), ("float16", np.float16), ("bfloat16", ml_dtypes.bfloat16)):
        a = rng.standard_normal((size, size), dtype=np.float32).astype(np_dtype)
        b = rng.standard_normal((size, size), dtype=np.float32).astype(np_dtype)
        row = results.setdefault(name, {})
        operands = {}
        for lib in libs:
            try:
                if lib.name == "torch":
                    torch = lib.mod
                    torch.backends.cuda.matmul.allow_tf32 = False
                    tdt = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}[name]
                    operands[lib.name] = (torch.from_numpy(a.astype(np.float32)).to(tdt).cuda(),
                                          torch.from_numpy(b.astype(np.float32)).to(tdt).cuda())
                elif lib.name == "cupy" and name == "bfloat16":
                    continue
                else:
                    operands[lib.name] = (lib.asarray(a), lib.asarray(b))
            except Exception as exc:  # noqa: BLE001
                row[f"{lib.name}_error"] = f"{type(exc).__name__}: {exc}"[:300]
        best = {}
        for _ in range(rounds):
            for lib in libs:
                if lib.name not in operands:
                    continue
                x, y = operands[lib.name]
                try:
                    t = timed(lambda: lib.matmul(x, y), lib.sync, reps=20, batches=3)
                    best[lib.name] = min(best.get(lib.name, t), t)
                except Exception as exc:  # noqa: BLE001
                    row[f"{lib.name}_error"] = f"{type(exc).__name__}: {exc}"[:300]
        for lib_name, t in best.items():
            row[lib_name] = 2 * size ** 3 / t / 1e12
        for lib in libs:
            if lib.name in operands:
                x, y = operands[lib.name]
                us = device_us(lambda: lib.matmul(x, y), lib.sync)
                if us:
                    row[f"{lib.name}_device_us"] = us
        operands.clear()


def tiny_ops(lib):
    """``lib``'s 16-element float32 ops of the tiny-op benchmark: {label: call}."""
    x = lib.asarray(np.arange(16, dtype=np.float32))
    c = x > 3
    return {
        "add": lambda: x + x,
        "sum": lambda: lib.sum(x),
        "slice x[1:3]": lambda: x[1:3],
        "where": lambda: lib.where(c, x, x),
    }


def bench_tiny(libs, results):
    for lib in libs:
        row = results.setdefault(lib.name, {})
        try:
            for label, fn in tiny_ops(lib).items():
                row[label] = timed(fn, lib.sync, reps=500, batches=5, warmup=20) * 1e6
        except Exception as exc:
            row["error"] = f"{type(exc).__name__}: {exc}"[:300]


def bench_compile(results):
    """First-use hipRTC compile of one module, then the same module from the disk cache."""
    from rocm_backend import kernels, ops

    dev = registry.get_device("rocm")
    with tempfile.TemporaryDirectory() as tmp:
        old = os.environ.get("CANDLEWICK_KERNEL_CACHE")
        os.environ["CANDLEWICK_KERNEL_CACHE"] = tmp
        try:
            # two modules: the GPU session's time is scarce (each compile is several seconds)
            for module in ("binary_float32", "reduce_float32"):
                kernels._code_memory.clear()
                t0 = time.perf_counter()
                kernels.code_object(module, dev.arch)
                compiled = time.perf_counter() - t0
                kernels._code_memory.clear()
                t0 = time.perf_counter()
                kernels.code_object(module, dev.arch)
                hit = time.perf_counter() - t0
                results[module] = {"kernels": len(ops.MODULES[module]), "compile_s": compiled,
                                   "disk_hit_ms": hit * 1e3}
        finally:
            if old is None:
                os.environ.pop("CANDLEWICK_KERNEL_CACHE", None)
            else:
                os.environ["CANDLEWICK_KERNEL_CACHE"] = old


def write_markdown(path, report):
    lines = [f"# rocm backend benchmarks ({report['device']}, {report['date']})", "",
             f"Peers in the same run: {', '.join(report['peers']) or 'none'}. "
             "Kernels run through tools/hip_on_cuda (HIP on CUDA), not on AMD silicon.", ""]
    for size, by_lib in report["bandwidth"].items():
        copy_bw = by_lib.get("torch", {}).get("copy_GBps") or by_lib.get("candlewick", {}).get("copy_GBps")
        lines += [f"## f32 element-wise and sums, {size} elements (fraction of copy bandwidth {copy_bw:.0f} GB/s; "
                  "best of 3 rounds taking the libraries in turn)"
                  if copy_bw else f"## {size}", "", "| library | " + " | ".join(
                      k for k in ("copy", "add", "exp", "sum_all", "sum_rows", "sum_cols")) + " |",
                  "|---|" + "---|" * 6]
        for lib, row in by_lib.items():
            cells = []
            for k in ("copy", "add", "exp", "sum_all", "sum_rows", "sum_cols"):
                v = row.get(f"{k}_GBps")
                cells.append(f"{v:.0f} GB/s ({v / copy_bw:.0%})" if v and copy_bw
                             else row.get(f"{k}_error", "-")[:60])
            lines.append(f"| {lib} | " + " | ".join(cells) + " |" + (f" {row['error']}" if "error" in row else ""))
        lines.append("")
    lines += ["## GEMM 4096^3 (TFLOP/s, host clock, best of 3 interleaved rounds; device time per call "
              "from torch.profiler)", "", "| dtype | " + " | ".join(report["libs"]) + " |",
              "|---|" + "---|" * len(report["libs"])]
    for dtype, row in report["gemm"].items():
        lines.append(f"| {dtype} | " + " | ".join(
            (f"{row[lib]:.1f}" + (f" ({row[lib + '_device_us']:.1f} µs on the device)"
                                   if lib + "_device_us" in row else ""))
            if lib in row else row.get(f"{lib}_error", "-")[:60] for lib in report["libs"]) + " |")
    lines += ["", "## Host overhead per tiny op, 16 elements (µs, async, sync amortized)", "",
              "| library | add | sum | x[1:3] | where |", "|---|---|---|---|---|"]
    for lib, row in report["tiny"].items():
        lines.append(f"| {lib} | " + " | ".join(
            f"{row[k]:.1f}" if k in row else "-" for k in ("add", "sum", "slice x[1:3]", "where")) + " |"
            + (f" {row['error']}" if "error" in row else ""))
    lines += ["", "## hipRTC first-use compile and disk-cache hit", "", "| module | kernels | compile (s) | disk hit (ms) |",
              "|---|---|---|---|"]
    for module, row in report["compile"].items():
        lines.append(f"| {module} | {row['kernels']} | {row['compile_s']:.2f} | {row['disk_hit_ms']:.1f} |")
    Path(path).write_text("\n".join(lines) + "\n")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--sizes", default="26,28")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    dev = registry.get_device("rocm")
    found = peers()
    libs = [Lib("candlewick")] + [Lib(name, mod) for name, mod in found.items()]
    report = {"device": dev.product_name, "arch": dev.arch,
              "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
              "peers": list(found), "libs": [lib.name for lib in libs],
              "bandwidth": {}, "gemm": {}, "tiny": {}, "compile": {}}
    sections = (("compile", lambda: bench_compile(report["compile"])),
                ("tiny", lambda: bench_tiny(libs, report["tiny"])),
                ("bandwidth", lambda: bench_bandwidth(libs, report["bandwidth"],
                                                      [1 << int(s) for s in args.sizes.split(",")])),
                ("gemm", lambda: bench_gemm(libs, report["gemm"])))
    for name, fn in sections:
        t0 = time.perf_counter()
        try:
            fn()
        except Exception as exc:
            report[name]["error"] = f"{type(exc).__name__}: {exc}"[:500]
        print(f"{name}: {time.perf_counter() - t0:.1f}s", flush=True)
        (out / "bench_rocm.json").write_text(json.dumps(report, indent=1, default=str))
    try:
        write_markdown(out / "bench_rocm.md", report)
    except Exception as exc:
        print("markdown failed:", exc)
    print((out / "bench_rocm.md").read_text() if (out / "bench_rocm.md").exists() else json.dumps(report))


if __name__ == "__main__":
    main()
