"""``candlewick.fuse`` on the rocm backend beside PyTorch (eager and ``torch.compile``) and
CuPy (``cupy.fuse`` and ``ElementwiseKernel``), in one process.

    python bench/fusion.py --out DIR [--log2-size 26] [--rows 8192] [--cols 8192]

Writes DIR/fusion_<device-kind>.json and .md (bench/harness.py). Cases:
- the GELU-tanh chain of 8 element-wise ops on 2^26 float32 (one read, one write:
  8 bytes per element), as GB/s and as a fraction of the device-to-device copy bandwidth
  measured here (torch's ``clone``, else candlewick's copy);
- row softmax and logsumexp on 8192 x 8192 float32 (softmax reads and writes the matrix,
  logsumexp reads it and writes one value per row), beside ``torch.softmax`` /
  ``torch.logsumexp`` and their ``torch.compile``d forms;
- the first call of each fused function (trace and hipRTC compile, or a disk-cache hit);
- each function also written eagerly and run inside ``with cw.lazy():`` (issue 39: at
  least 90 % of the ``cw.fuse`` figure), its share of that figure in the last column;
- the peak device memory of one call of each variant, candlewick's allocator beside
  ``torch.cuda.max_memory_allocated`` (peak_memory.PeakTable);
- for candlewick's variants, the host µs a call takes to return (timing.issue_time) and
  the device µs of its kernels (timing.device_us, through torch's profiler): lazy mode
  runs cw.fuse's kernel, so where its time per call exceeds the fused one, the host
  column says whether the Python per call (the eager checks and the recording) is why.
A library or mode that fails here (``torch.compile`` without a working Triton, say)
records its error and the run goes on. Timings: warm-up, then the median of timed
batches each ended by a device synchronize, best of 3 rounds that run the variants in
turn, rotated (timing.rotated_rounds).
"""

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import candlewick as cw  # noqa: E402
import harness  # noqa: E402
import peak_memory  # noqa: E402
import timing  # noqa: E402

GELU_C = 0.7978845608028654  # sqrt(2 / pi)
GELU_K = GELU_C * 0.044715


def gelu(ns, x):
    """0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) as 8 element-wise ops, written once
    for every namespace (candlewick, torch, cupy)."""
    e = (x * x * GELU_K + GELU_C) * x
    return (x * 0.5) * (ns.tanh(e) + 1.0)


def softmax(ns, x):
    e = ns.exp(x - ns.max(x, axis=-1, keepdims=True))
    return e / ns.sum(e, axis=-1, keepdims=True)


def logsumexp(ns, x):
    m = ns.max(x, axis=-1, keepdims=True)
    return m[..., 0] + ns.log(ns.sum(ns.exp(x - m), axis=-1))


def lazily(fn):
    """``fn`` (written eagerly for a namespace) run in candlewick's lazy mode: recorded, and
    run as one graph when the block ends."""
    def run(x):
        with cw.lazy():
            return fn(cw, x)
    return run


CUPY_GELU = ("float32 x", "float32 y",
             f"float e = (x * x * {GELU_K!r}f + {GELU_C!r}f) * x; y = (x * 0.5f) * (tanhf(e) + 1.0f)",
             "cw_bench_gelu")


def variants(peers):
    """{case: {variant: (make operand, function)}} for every library found."""
    dev = cw.get_device("rocm")
    cw_in = lambda a: cw.asarray(a, device=dev)  # noqa: E731
    out = {"copy": {"candlewick": (cw_in, lambda x: cw.asarray(x, copy=True))},
           "gelu": {"candlewick eager": (cw_in, lambda x: gelu(cw, x)),
                    "candlewick fused": (cw_in, cw.fuse(lambda x: gelu(cw, x))),
                    "candlewick lazy": (cw_in, lazily(gelu))},
           "softmax": {"candlewick eager": (cw_in, lambda x: softmax(cw, x)),
                       "candlewick fused": (cw_in, cw.fuse(lambda x: softmax(cw, x))),
                       "candlewick lazy": (cw_in, lazily(softmax))},
           "logsumexp": {"candlewick eager": (cw_in, lambda x: logsumexp(cw, x)),
                         "candlewick fused": (cw_in, cw.fuse(lambda x: logsumexp(cw, x))),
                         "candlewick lazy": (cw_in, lazily(logsumexp))}}
    syncs = {"candlewick": dev.synchronize}
    torch = peers.get("torch")
    if torch is not None:
        t_in = lambda a: torch.from_numpy(np.ascontiguousarray(a)).cuda()  # noqa: E731
        syncs["torch"] = torch.cuda.synchronize
        t_gelu = lambda x: gelu(torch, x)  # noqa: E731
        t_softmax = lambda x: torch.softmax(x, dim=-1)  # noqa: E731
        t_lse = lambda x: torch.logsumexp(x, dim=-1)  # noqa: E731
        out["copy"]["torch"] = (t_in, lambda x: x.clone())
        out["gelu"]["torch eager"] = (t_in, t_gelu)
        out["softmax"]["torch.softmax"] = (t_in, t_softmax)
        out["logsumexp"]["torch.logsumexp"] = (t_in, t_lse)
        for case, fn in (("gelu", t_gelu), ("softmax", t_softmax), ("logsumexp", t_lse)):
            try:
                out[case]["torch.compile"] = (t_in, torch.compile(fn))
            except Exception as exc:  # noqa: BLE001 - recorded below as this variant's error
                out[case]["torch.compile"] = exc
    cupy = peers.get("cupy")
    if cupy is not None:
        syncs["cupy"] = cupy.cuda.runtime.deviceSynchronize
        c_in = cupy.asarray
        out["gelu"]["cupy eager"] = (c_in, lambda x: gelu(cupy, x))
        try:
            # cupy.fuse names its kernel after the function, and "<lambda>" is no C identifier
            out["gelu"]["cupy.fuse"] = (c_in, cupy.fuse(kernel_name="gelu_tanh")(lambda x: gelu(cupy, x)))
            out["gelu"]["cupy ElementwiseKernel"] = (c_in, cupy.ElementwiseKernel(*CUPY_GELU))
        except Exception as exc:  # noqa: BLE001
            out["gelu"]["cupy.fuse"] = exc
    return out, syncs


def library(variant):
    return variant.split()[0].split(".")[0]


def run_case(case, host, table, syncs, nbytes, results, peaks, rounds=3):
    rows = results.setdefault(case, {})
    operands = {}
    for name, entry in table.items():
        if isinstance(entry, Exception):
            rows[name] = {"error": harness.error_text(entry)}
            continue
        make, fn = entry
        try:
            x = make(host)
            t0 = time.perf_counter()
            fn(x)
            syncs[library(name)]()
            rows[name] = {"first_call_s": time.perf_counter() - t0}
            operands[name] = (x, fn)
        except Exception as exc:  # noqa: BLE001 - recorded, the run goes on
            rows[name] = {"error": harness.error_text(exc)}
    errors = {}
    best = timing.rotated_rounds(
        {name: (lambda x=x, fn=fn, sync=syncs[library(name)]: timing.timed(lambda: fn(x), sync))
         for name, (x, fn) in operands.items()}, rounds, errors)
    for name, text in errors.items():
        rows[name]["error"] = text
    for name, t in best.items():
        rows[name].update(us=t * 1e6, GBps=nbytes / t / 1e9)
        x, fn = operands[name]
        if library(name) == "candlewick":
            sync = syncs["candlewick"]
            rows[name]["host_us"] = timing.issue_time(lambda: fn(x), sync) * 1e6
            device = timing.device_us(lambda: fn(x), sync)
            if device is not None:
                rows[name]["device_us"] = device
        peaks.measure_after(case, name, lambda: fn(x))
    operands.clear()


def copy_bandwidth(results):
    rows = results.get("copy", {})
    return rows.get("torch", {}).get("GBps") or rows.get("candlewick", {}).get("GBps")


def markdown(figures):
    copy_bw = copy_bandwidth(figures["cases"])
    lines = [f"Copy bandwidth measured in this run: {copy_bw or 0:.0f} GB/s "
             f"({figures['n']} float32 elements, one read and one write).", ""]
    titles = {"gelu": f"GELU-tanh chain, 8 element-wise ops, {figures['n']} float32",
              "softmax": f"row softmax, {figures['rows']} x {figures['cols']} float32",
              "logsumexp": f"row logsumexp, {figures['rows']} x {figures['cols']} float32"}
    for case, title in titles.items():
        lines += [f"## {title}", "", "| variant | µs per call | GB/s | of copy | first call (s) | of cw.fuse "
                  "| host µs to return | device µs |", "|---|---|---|---|---|---|---|---|"]
        fused = figures["cases"].get(case, {}).get("candlewick fused", {}).get("GBps")
        for name, row in figures["cases"].get(case, {}).items():
            if "GBps" in row:
                share = f"{row['GBps'] / copy_bw:.0%}" if copy_bw else "-"
                of_fused = f"{row['GBps'] / fused:.0%}" if fused else "-"
                host = f"{row['host_us']:.1f}" if "host_us" in row else "-"
                device = f"{row['device_us']:.1f}" if "device_us" in row else "-"
                lines.append(f"| {name} | {row['us']:.1f} | {row['GBps']:.0f} | {share} | "
                             f"{row.get('first_call_s', 0):.2f} | {of_fused} | {host} | {device} |")
            else:
                error = " ".join(row.get("error", "-").split()).replace("|", "/")  # one table cell
                lines.append(f"| {name} | {error[:120]} | | | | | | |")
        lines.append("")
    return lines + peak_memory.peak_lines(figures["peak_bytes"])


def headline(figures):
    copy_bw = copy_bandwidth(figures["cases"])
    lines = []
    for case in ("gelu", "softmax", "logsumexp"):
        rows = figures["cases"].get(case, {})
        shares = [f"{name} {row['GBps'] / copy_bw:.0%}" for name, row in rows.items() if "GBps" in row and copy_bw]
        lines.append(f"{case} (of copy): " + ", ".join(shares))
    lazy = {case: figures["cases"].get(case, {}) for case in ("gelu", "softmax", "logsumexp")}
    shares = [f"{case} {rows['candlewick lazy']['GBps'] / rows['candlewick fused']['GBps']:.0%}"
              for case, rows in lazy.items()
              if "GBps" in rows.get("candlewick lazy", {}) and "GBps" in rows.get("candlewick fused", {})]
    lines.append("lazy mode (of cw.fuse, target >= 90 %): " + (", ".join(shares) or "not measured"))
    hosts = [f"{case} {rows['candlewick lazy']['host_us']:.0f}" for case, rows in lazy.items()
             if "host_us" in rows.get("candlewick lazy", {})]
    if hosts:
        lines.append("lazy mode, host µs to return a call: " + ", ".join(hosts))
    return lines


def main(argv=None):
    def options(parser):
        parser.add_argument("--log2-size", type=int, default=26, help="log2 of the GELU chain's elements")
        parser.add_argument("--rows", type=int, default=8192)
        parser.add_argument("--cols", type=int, default=8192)

    args = harness.parse_args(__doc__, options, argv)
    peers = harness.gpu_peers()
    n = 1 << args.log2_size
    figures = {"n": n, "rows": args.rows, "cols": args.cols, "cases": {}}
    table, syncs = variants(peers)
    peaks = peak_memory.PeakTable(device=cw.get_device("rocm"), torch=peers.get("torch"))
    rng = np.random.default_rng(0)
    vector = rng.standard_normal(n, dtype=np.float32)
    matrix = rng.standard_normal((args.rows, args.cols), dtype=np.float32)
    elements = args.rows * args.cols
    plan = (("copy", vector, 8 * n), ("gelu", vector, 8 * n), ("softmax", matrix, 8 * elements),
            ("logsumexp", matrix, 4 * elements + 4 * args.rows))
    for case, host, nbytes in plan:
        t0 = time.perf_counter()
        try:
            run_case(case, host, table[case], syncs, nbytes, figures["cases"], peaks)
        except Exception as exc:  # noqa: BLE001 - recorded, the other cases still run
            figures["cases"][case] = {"error": {"error": harness.error_text(exc, 500)}}
        print(f"{case}: {time.perf_counter() - t0:.1f}s", flush=True)
    figures["peak_bytes"] = peaks.rows
    versions = {name: mod.__version__ for name, mod in peers.items()}
    gpu = harness.gpu_name()
    device = (f"{gpu}, rocm backend through tools/hip_on_cuda" if gpu and gpu.startswith("NVIDIA")
              else gpu or cw.get_device("rocm").name)
    _, md_path = harness.write_record(args.out, "fusion", "gpu", device, versions, figures,
                                      markdown(figures), headline(figures))
    print(md_path.read_text())


if __name__ == "__main__":
    main()
