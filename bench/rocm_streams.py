"""Copies overlapping compute on two streams, candlewick beside PyTorch in one process
(issue 37, item 1).

    python bench/rocm_streams.py --out DIR [--gemm 4096] [--gemms 8] [--copy-mib 256] [--copies 4]
                                           [--compute gemm|exp]

Writes DIR/rocm_streams_<device-kind>.json and .md (bench/harness.py). Two independent
pieces of work: ``--gemms`` float32 GEMMs of ``--gemm`` squared (compute), and ``--copies``
uploads of ``--copy-mib`` MiB from pinned host memory (copies). Each is timed alone, then
both queued on one stream (serial), then each on its own stream (overlapped); ms per
round, host clock, median of timed batches each ended by a device synchronize. A GPU
with a copy engine runs the uploads during the GEMMs, so the overlapped round approaches
the longer of the two rather than their sum: ``overlap`` = (compute + copies - overlapped) /
min(compute, copies) is the share of the shorter work hidden (1 is all of it, 0 none).
``--compute exp`` replaces each GEMM by an element-wise ``exp`` of the same array (for a
runtime without hipBLAS: CI's fake one).
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import candlewick as cw  # noqa: E402
import harness  # noqa: E402
import peak_memory  # noqa: E402
import timing  # noqa: E402


def _figures(timed, compute, copies, both):
    row = {"compute_ms": timed(compute) * 1e3, "copies_ms": timed(copies) * 1e3}
    row["serial_ms"] = timed(lambda: both(False)) * 1e3
    row["overlapped_ms"] = timed(lambda: both(True)) * 1e3
    shorter = min(row["compute_ms"], row["copies_ms"])
    row["overlap"] = (row["compute_ms"] + row["copies_ms"] - row["overlapped_ms"]) / shorter if shorter else None
    return row


def bench_candlewick(dev, n, gemms, copy_mib, copies, kind):
    a = cw.full((n, n), 1.0 / n, dtype=cw.float32, device=dev)
    pinned = cw.pinned_empty((copy_mib << 20) // 4, dtype=cw.float32, device=dev)
    pinned[...] = 1.0
    s_compute, s_copy = cw.Stream(dev), cw.Stream(dev)

    def compute():
        out = a
        for _ in range(gemms):
            out = out @ a if kind == "gemm" else cw.exp(out) * (1.0 / n)
        return out

    def upload():
        return [pinned.to_device(dev, non_blocking=True) for _ in range(copies)]

    def both(overlapped):
        with s_compute:
            result = compute()
        with (s_copy if overlapped else s_compute):
            moved = upload()
        return result, moved

    def timed(fn):
        with s_compute:
            return timing.timed(fn, dev.synchronize, reps=3, batches=5, warmup=1)

    result, moved = both(True)
    dev.synchronize()
    check = {"gemm_result_right": bool(np.allclose(cw.to_numpy(result[:2, :2]), 1.0 / n, rtol=1e-3))
             if kind == "gemm" else None,
             "upload_right": bool(np.all(cw.to_numpy(moved[-1][:16]) == 1.0))}
    return {**_figures(timed, compute, upload, both), **check}


def bench_torch(torch, n, gemms, copy_mib, copies, kind):
    a = torch.full((n, n), 1.0 / n, device="cuda")
    pinned = torch.ones((copy_mib << 20) // 4).pin_memory()
    s_compute, s_copy = torch.cuda.Stream(), torch.cuda.Stream()

    def compute():
        out = a
        for _ in range(gemms):
            out = out @ a if kind == "gemm" else torch.exp(out) * (1.0 / n)
        return out

    def upload():
        return [pinned.to("cuda", non_blocking=True) for _ in range(copies)]

    def both(overlapped):
        with torch.cuda.stream(s_compute):
            result = compute()
        with torch.cuda.stream(s_copy if overlapped else s_compute):
            moved = upload()
        return result, moved

    def timed(fn):
        with torch.cuda.stream(s_compute):
            return timing.timed(fn, torch.cuda.synchronize, reps=3, batches=5, warmup=1)

    return _figures(timed, compute, upload, both)


def markdown(figures):
    what = "GEMMs" if figures["compute"] == "gemm" else "exp passes"
    lines = [f"## {figures['gemms']} {what} of {figures['gemm']}^2 float32 and {figures['copies']} uploads of "
             f"{figures['copy_mib']} MiB from pinned memory: ms per round (host clock)", "",
             "| library | compute alone | copies alone | one stream | two streams | overlap |",
             "|---|---|---|---|---|---|"]
    for lib, row in figures["libraries"].items():
        if "error" in row:
            lines.append(f"| {lib} | {row['error'][:100]} | | | | |")
            continue
        ov = f"{row['overlap']:.2f}" if row["overlap"] is not None else "-"
        lines.append(f"| {lib} | {row['compute_ms']:.2f} | {row['copies_ms']:.2f} | {row['serial_ms']:.2f} | "
                     f"{row['overlapped_ms']:.2f} | {ov} |")
    lines += ["", "overlap: the share of the shorter work hidden behind the longer (1: all, 0: none).",
              ""]
    return lines + peak_memory.peak_lines(figures["peak_bytes"])


def headline(figures):
    out = []
    for lib, row in figures["libraries"].items():
        if "error" in row:
            out.append(f"{lib}: {row['error'][:100]}")
        else:
            out.append(f"{lib}: one stream {row['serial_ms']:.2f} ms, two streams {row['overlapped_ms']:.2f} ms "
                       f"(overlap {row['overlap']:.2f})" if row["overlap"] is not None else f"{lib}: no timing")
    return out


def main(argv=None):
    def options(parser):
        parser.add_argument("--gemm", type=int, default=4096)
        parser.add_argument("--gemms", type=int, default=8)
        parser.add_argument("--copy-mib", type=int, default=256)
        parser.add_argument("--copies", type=int, default=4)
        parser.add_argument("--compute", choices=("gemm", "exp"), default="gemm")

    args = harness.parse_args(__doc__, options, argv)
    found = harness.gpu_peers()
    dev = cw.get_device("rocm")
    figures = {"gemm": args.gemm, "gemms": args.gemms, "copy_mib": args.copy_mib, "copies": args.copies,
               "compute": args.compute, "libraries": {}, "peak_bytes": {}}
    work = (args.gemm, args.gemms, args.copy_mib, args.copies, args.compute)
    peaks = peak_memory.PeakTable(device=dev, torch=found.get("torch"))
    runs = {"candlewick": lambda: bench_candlewick(dev, *work)}
    if "torch" in found:
        runs["torch"] = lambda: bench_torch(found["torch"], *work)
    figures["libraries"] = peaks.run_all("the whole run", runs)
    figures["peak_bytes"] = peaks.rows
    peers = {"torch": found["torch"].__version__} if "torch" in found else {}
    gpu = harness.gpu_name()
    device = (f"{gpu}, rocm backend through tools/hip_on_cuda" if gpu and gpu.startswith("NVIDIA")
              else gpu or "rocm:0")
    _, md_path = harness.write_record(args.out, "rocm_streams", "gpu", device, peers, figures, markdown(figures),
                                      headline(figures))
    print(md_path.read_text())


if __name__ == "__main__":
    main()
