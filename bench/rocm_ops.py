"""Element-wise, sum, GEMM and tiny-op benchmarks of the rocm backend beside PyTorch and
CuPy, in one process.

    python bench/rocm_ops.py --out DIR [--sizes 26,28] [--gemm-size 4096] [--sort-sizes 10,12,...,26]
                             [--sort-rows 4096x4096] [--sort-dtype-sizes 24,26]

Writes DIR/rocm_ops_<device-kind>.json and .md (bench/harness.py). Cases:
- host time per 16-element float32 op (add, sum, ``x[1:3]``, where), queued back to back;
- f32 copy, add, exp at 2^26 and 2^28 elements and sums (all, rows, columns of a square)
  at 2^26, as GB/s (bytes read plus written) and as a fraction of the device-to-device
  copy bandwidth measured here;
- GEMM 4096^3 in float32, float16, bfloat16: TFLOP/s (host clock) and device time per
  call (torch.profiler), torch with TF32 off;
- hipRTC first-use compile and disk-cache hit of two kernel modules (bench/diagnostics.py);
- the peak device memory of one call of each case, candlewick's allocator beside
  ``torch.cuda.max_memory_allocated`` (peak_memory.PeakTable).
- sort and stable argsort: float32 at each of ``--sort-sizes``, the rows of ``--sort-rows`` (every dtype),
  the other dtypes at each 2^k of ``--sort-dtype-sizes``, beside torch.sort/argsort (bench/rocm_sort.py).
Timings: warm-up first, then the median of timed batches each ended by a device
synchronize; bandwidth and GEMM take the best of 3 rounds that run the libraries in turn,
rotated (timing.rotated_rounds), so clock or thermal drift during the run favours none of them.
"""

import sys
import time
from pathlib import Path

import ml_dtypes
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import candlewick as cw  # noqa: E402
import harness  # noqa: E402
import peak_memory  # noqa: E402
import rocm_sort  # noqa: E402
import timing  # noqa: E402

try:
    import diagnostics  # noqa: E402
except ImportError as exc:  # the backend's internals moved: the other figures still count
    diagnostics, DIAGNOSTICS_ERROR = None, harness.error_text(exc)

EW_CASES = ("copy", "add", "exp", "sum_all", "sum_rows", "sum_cols")
TINY_CASES = ("add", "sum", "slice x[1:3]", "where")


class Lib:
    """One library's way of making arrays, synchronizing and running the benchmarked ops."""

    def __init__(self, name, mod=None):
        self.name, self.mod = name, mod
        if name == "candlewick":
            self.dev = cw.get_device("rocm")

    def sync(self):
        if self.name == "candlewick":
            self.dev.synchronize()
        elif self.name == "torch":
            self.mod.cuda.synchronize()
        else:
            self.mod.cuda.runtime.deviceSynchronize()

    def asarray(self, a):
        if self.name == "candlewick":
            return cw.asarray(a, device=self.dev)
        if self.name == "torch":
            return self.mod.from_numpy(np.ascontiguousarray(a)).cuda()
        return self.mod.asarray(a)

    def ns(self):
        return cw if self.name == "candlewick" else self.mod

    def sum(self, x, axis=None):
        if self.name == "torch":
            return x.sum() if axis is None else x.sum(dim=axis)
        return self.ns().sum(x, axis=axis)

    def copy(self, x):
        if self.name == "torch":
            return x.clone()
        if self.name == "cupy":
            return x.copy()
        return cw.asarray(x, copy=True)

    def reshape(self, x, shape):
        return cw.reshape(x, shape) if self.name == "candlewick" else x.reshape(shape)


#: rounds of the tiny ops: every library's ops in turn (rotated), each figure its best round
TINY_ROUNDS = 5


def _tiny_ops(lib):
    x = lib.asarray(np.arange(16, dtype=np.float32))
    c = x > 3
    return {"add": lambda: x + x, "sum": lambda: lib.sum(x), "slice x[1:3]": lambda: x[1:3],
            "where": lambda: lib.ns().where(c, x, x)}


def bench_tiny(libs, results, peaks):
    """µs per call of each tiny op: the best of TINY_ROUNDS rounds that time the libraries
    in turn, so that the host's drift (these hosts' clocks wander by tens of percent within
    a minute) reaches them alike, as bench/rocm_host_path does."""
    ready = {}
    for lib in libs:
        try:
            ready[lib.name] = (lib, _tiny_ops(lib))
        except Exception as exc:  # noqa: BLE001 - recorded, the run goes on
            results.setdefault(lib.name, {})["error"] = harness.error_text(exc)
    def turn(lib, ops):
        return lambda: {label: timing.timed(fn, lib.sync, reps=500, batches=5, warmup=20) * 1e6
                        for label, fn in ops.items()}

    errors = {}
    best = timing.rotated_rounds({name: turn(lib, ops) for name, (lib, ops) in ready.items()}, TINY_ROUNDS, errors)
    for name in ready:
        results.setdefault(name, {}).update(best.get(name, {}))
        if name in errors:
            results[name]["error"] = errors[name]
    for name, (lib, ops) in ready.items():
        for label, fn in ops.items():
            peaks.measure_after(f"tiny {label}", lib.name, fn)


def bench_bandwidth(libs, results, peaks, sizes, rounds=3):
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
                operands[lib.name] = (x, y, lib.reshape(x, (side, side)))
            except Exception as exc:  # noqa: BLE001
                row["error"] = harness.error_text(exc)
        for label, nbytes, op in cases:
            errors = {}
            best = timing.rotated_rounds(
                {lib.name: (lambda lib=lib, op=op: timing.timed(lambda: op(lib, *operands[lib.name]), lib.sync))
                 for lib in libs if lib.name in operands}, rounds, errors)
            for name, text in errors.items():
                rows[name][f"{label}_error"] = text
            for name, t in best.items():
                rows[name][f"{label}_GBps"] = nbytes / t / 1e9
            for lib in libs:
                if lib.name in best:
                    x, y, m = operands[lib.name]
                    peaks.measure_after(f"{label} 2^{n.bit_length() - 1}", lib.name, lambda: op(lib, x, y, m))
        operands.clear()  # free the device buffers before the next size


def bench_gemm(libs, results, peaks, size=4096, rounds=3):
    rng = np.random.default_rng(1)
    for name, np_dtype in (("float32", np.float32), ("float16", np.float16), ("bfloat16", ml_dtypes.bfloat16)):
        a = rng.standard_normal((size, size), dtype=np.float32)
        b = rng.standard_normal((size, size), dtype=np.float32)
        row = results.setdefault(name, {})
        operands = {}
        for lib in libs:
            try:
                if lib.name == "torch":
                    torch = lib.mod
                    torch.backends.cuda.matmul.allow_tf32 = False
                    tdt = getattr(torch, name)
                    operands[lib.name] = (torch.from_numpy(a).to(tdt).cuda(), torch.from_numpy(b).to(tdt).cuda())
                elif not (lib.name == "cupy" and name == "bfloat16"):  # CuPy has no bfloat16
                    operands[lib.name] = (lib.asarray(a.astype(np_dtype)), lib.asarray(b.astype(np_dtype)))
            except Exception as exc:  # noqa: BLE001
                row[f"{lib.name}_error"] = harness.error_text(exc)
        errors = {}
        best = timing.rotated_rounds(
            {lib.name: (lambda lib=lib: timing.timed(lambda: lib.ns().matmul(*operands[lib.name]), lib.sync,
                                                      reps=20, batches=3))
             for lib in libs if lib.name in operands}, rounds, errors)
        for lib_name, text in errors.items():
            row[f"{lib_name}_error"] = text
        for lib_name, t in best.items():
            row[lib_name] = 2 * size ** 3 / t / 1e12
        for lib in libs:
            if lib.name in best:
                x, y = operands[lib.name]
                peaks.measure_after(f"GEMM {size}^3 {name}", lib.name, lambda: lib.ns().matmul(x, y))
        for lib in libs:
            if lib.name in operands:
                x, y = operands[lib.name]
                us = timing.device_us(lambda: lib.ns().matmul(x, y), lib.sync)
                if us:
                    row[f"{lib.name}_device_us"] = us
        operands.clear()


def bench_compile(results):
    if diagnostics is None:
        results["error"] = DIAGNOSTICS_ERROR
        return
    results.update(diagnostics.compile_times(cw.get_device("rocm")))


def copy_bandwidth(by_lib):
    return by_lib.get("torch", {}).get("copy_GBps") or by_lib.get("candlewick", {}).get("copy_GBps")


def markdown(figures, names):
    lines = []
    for size, by_lib in figures["bandwidth"].items():
        if not isinstance(by_lib, dict):
            continue
        copy_bw = copy_bandwidth(by_lib)
        lines += [f"## f32 element-wise and sums, {size} elements (fraction of the copy bandwidth, "
                  f"{copy_bw or 0:.0f} GB/s)", "", "| library | " + " | ".join(EW_CASES) + " |",
                  "|---|" + "---|" * len(EW_CASES)]
        for lib, row in by_lib.items():
            cells = []
            for case in EW_CASES:
                v = row.get(f"{case}_GBps")
                cells.append(f"{v:.0f} GB/s ({v / copy_bw:.0%})" if v and copy_bw
                             else row.get(f"{case}_error", "-")[:60])
            lines.append(f"| {lib} | " + " | ".join(cells) + " |" + (f" {row['error']}" if "error" in row else ""))
        lines.append("")
    lines += [f"## GEMM {figures['gemm_size']}^3 (TFLOP/s, host clock; device time per call from torch.profiler)", "",
              "| dtype | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    for dtype, row in figures["gemm"].items():
        if isinstance(row, dict):
            lines.append(f"| {dtype} | " + " | ".join(
                (f"{row[lib]:.1f}" + (f" ({row[lib + '_device_us']:.1f} µs on the device)"
                                       if lib + "_device_us" in row else ""))
                if lib in row else row.get(f"{lib}_error", "-")[:60] for lib in names) + " |")
    lines += ["", "## Host time per tiny op, 16 float32 elements (µs, calls queued back to back; the best of "
              f"{TINY_ROUNDS} rounds that run the libraries in turn)", "",
              "| library | add | sum | x[1:3] | where |", "|---|---|---|---|---|"]
    for lib, row in figures["tiny"].items():
        if isinstance(row, dict):
            lines.append(f"| {lib} | " + " | ".join(f"{row[k]:.1f}" if k in row else "-" for k in TINY_CASES)
                         + " |" + (f" {row['error']}" if "error" in row else ""))
    lines += ["", "## hipRTC first-use compile and disk-cache hit", "",
              "A first launch compiles its kernel alone where the disk cache lacks its module; "
              "`backend.precompile` compiles whole modules.", "",
              "| module | kernels | whole module: compile (s) | disk hit (ms) | one kernel alone: compile (s) |",
              "|---|---|---|---|---|"]
    for module, row in figures["compile"].items():
        if isinstance(row, dict):
            alone = f"{row['kernel_alone_s']:.2f} ({row['kernel_alone']})" if "kernel_alone_s" in row else "-"
            lines.append(f"| {module} | {row['kernels']} | {row['compile_s']:.2f} | {row['disk_hit_ms']:.1f} | {alone} |")
    for section, value in figures.items():
        if isinstance(value, dict) and "error" in value:
            lines.append(f"\n{section}: {value['error']}")
    return lines + [""] + peak_memory.peak_lines(figures["peak_bytes"])


def headline(figures, names):
    lines = []
    for size, by_lib in figures["bandwidth"].items():
        copy_bw = copy_bandwidth(by_lib) if isinstance(by_lib, dict) else None
        for lib, row in (by_lib.items() if copy_bw else ()):
            shares = [f"{case} {row[case + '_GBps'] / copy_bw:.0%}" for case in EW_CASES[1:] if case + "_GBps" in row]
            lines.append(f"{size} {lib}: " + ", ".join(shares) + " of copy")
    for dtype, row in figures["gemm"].items():
        if isinstance(row, dict):
            lines.append(f"GEMM {figures['gemm_size']}^3 {dtype} TFLOP/s: " + ", ".join(
                f"{lib} {row[lib]:.1f}" if lib in row else f"{lib} {'error' if lib + '_error' in row else '-'}"
                for lib in names))
    for lib, row in figures["tiny"].items():
        if isinstance(row, dict):
            lines.append(f"tiny µs {lib}: " + " / ".join(f"{row[k]:.1f}" if k in row else "-" for k in TINY_CASES))
    return lines


def exponents(text):
    """An option's comma-separated log2 sizes, "24,26" -> [24, 26] (argparse's ``type``: a
    bad one is refused with the option's name)."""
    return [int(k) for k in text.split(",") if k]


def main(argv=None):
    def options(parser):
        parser.add_argument("--sizes", type=exponents, default="26,28", help="log2 of the element-wise sizes")
        parser.add_argument("--gemm-size", type=int, default=4096)
        parser.add_argument("--sort-sizes", type=exponents, default="10,12,14,16,18,20,22,24,26",
                            help="log2 of the float32 sort sizes")
        parser.add_argument("--sort-rows", default="4096x4096", help="rows x columns of the row sort")
        parser.add_argument("--sort-dtype-sizes", type=exponents, default="24,26",
                            help="log2 of the other dtypes' sort sizes")

    args = harness.parse_args(__doc__, options, argv)
    found = harness.gpu_peers()
    libs = [Lib("candlewick")] + [Lib(name, mod) for name, mod in found.items()]
    figures = {"bandwidth": {}, "gemm": {}, "gemm_size": args.gemm_size, "tiny": {}, "compile": {}, "sort": {}}
    peaks = peak_memory.PeakTable(device=libs[0].dev, torch=found.get("torch"))
    sort_rows = tuple(int(v) for v in args.sort_rows.split("x"))
    sections = (("compile", lambda: bench_compile(figures["compile"])),
                ("tiny", lambda: bench_tiny(libs, figures["tiny"], peaks)),
                ("bandwidth", lambda: bench_bandwidth(libs, figures["bandwidth"], peaks,
                                                      [1 << s for s in args.sizes])),
                ("gemm", lambda: bench_gemm(libs, figures["gemm"], peaks, args.gemm_size)),
                ("sort", lambda: rocm_sort.bench_sort(libs, figures["sort"], peaks, args.sort_sizes, sort_rows,
                                                      args.sort_dtype_sizes)))
    for name, run in sections:
        t0 = time.perf_counter()
        try:
            run()
        except Exception as exc:  # noqa: BLE001 - recorded, the other sections still run
            figures[name]["error"] = harness.error_text(exc, 500)
        print(f"{name}: {time.perf_counter() - t0:.1f}s", flush=True)
    figures["peak_bytes"] = peaks.rows
    names = [lib.name for lib in libs]
    peers = {name: mod.__version__ for name, mod in found.items()}
    gpu = harness.gpu_name()
    device = (f"{gpu}, rocm backend through tools/hip_on_cuda" if gpu and gpu.startswith("NVIDIA")
              else gpu or libs[0].dev.name)
    _, md_path = harness.write_record(args.out, "rocm_ops", "gpu", device, peers, figures,
                                      markdown(figures, names) + rocm_sort.markdown(figures["sort"], names),
                                      headline(figures, names) + rocm_sort.headline(figures["sort"]))
    print(md_path.read_text())


if __name__ == "__main__":
    main()
