"""Host-to-device and device-to-host bandwidth, from pageable and from pinned host memory,
candlewick beside PyTorch in one process (issue 37, item 3).

    python bench/rocm_transfers.py --out DIR [--sizes-mib 1,16,256] [--reps 10]

Writes DIR/rocm_transfers_<device-kind>.json and .md (bench/harness.py). Per size (float32
arrays of that many MiB) and direction, GB/s (10^9 bytes per second, host clock, median of
timed batches each ended by a device synchronize):

- host to device, pageable: ``cw.asarray(numpy_array, device=...)`` /
  ``torch.from_numpy(a).to("cuda")``;
- host to device, pinned: ``x.to_device(dev, non_blocking=True)`` of a ``cw.pinned_empty``
  array / ``t.to("cuda", non_blocking=True)`` of a ``pin_memory()`` tensor;
- device to host, pageable: ``cw.to_numpy(x)`` / ``t.cpu()``;
- device to host, pinned: ``x.to_device("cpu", non_blocking=True)`` / ``t.to("cpu",
  non_blocking=True)`` (both land in pinned memory).

Every copy is checked against the source once first; the peak device memory of each
library's run is recorded (peak_memory.PeakTable).
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import candlewick as cw  # noqa: E402
import harness  # noqa: E402
import peak_memory  # noqa: E402
import timing  # noqa: E402

DIRECTIONS = ("h2d pageable", "h2d pinned", "d2h pageable", "d2h pinned")


def bench_candlewick(dev, sizes_mib, reps):
    sync = dev.synchronize
    out = {}
    for mib in sizes_mib:
        n = (mib << 20) // 4
        host = np.arange(n, dtype=np.float32)
        pinned = cw.pinned_empty(n, dtype=cw.float32, device=dev)
        pinned[...] = cw.asarray(host)
        on_device = cw.asarray(host, device=dev)
        calls = {
            "h2d pageable": lambda: cw.asarray(host, device=dev),
            "h2d pinned": lambda: pinned.to_device(dev, non_blocking=True),
            "d2h pageable": lambda: cw.to_numpy(on_device),
            "d2h pinned": lambda: on_device.to_device("cpu", non_blocking=True),
        }
        row = {}
        for name, call in calls.items():
            got = call()
            sync()
            if not np.array_equal(cw.to_numpy(got) if not isinstance(got, np.ndarray) else got, host):
                row[name] = {"error": "the copy differs from its source"}
                continue
            seconds = timing.timed(call, sync, reps=reps, batches=5, warmup=1)
            row[name] = {"GBps": n * 4 / seconds / 1e9}
        out[str(mib)] = row
    return out


def bench_torch(torch, sizes_mib, reps):
    sync = torch.cuda.synchronize
    out = {}
    for mib in sizes_mib:
        n = (mib << 20) // 4
        host = torch.arange(n, dtype=torch.float32)
        pinned = host.pin_memory()
        on_device = host.to("cuda")
        calls = {
            "h2d pageable": lambda: host.to("cuda"),
            "h2d pinned": lambda: pinned.to("cuda", non_blocking=True),
            "d2h pageable": lambda: on_device.cpu(),
            "d2h pinned": lambda: on_device.to("cpu", non_blocking=True),
        }
        row = {}
        for name, call in calls.items():
            got = call()
            sync()
            if not torch.equal(got.cpu(), host):
                row[name] = {"error": "the copy differs from its source"}
                continue
            seconds = timing.timed(call, sync, reps=reps, batches=5, warmup=1)
            row[name] = {"GBps": n * 4 / seconds / 1e9}
        out[str(mib)] = row
    return out


def markdown(figures, sizes_mib):
    lines = ["## Copy bandwidth, GB/s (host clock, float32)", "",
             "| MiB | direction | " + " | ".join(figures["libraries"]) + " |",
             "|---|---|" + "---|" * len(figures["libraries"])]
    for mib in sizes_mib:
        for direction in DIRECTIONS:
            cells = []
            for lib, rows in figures["libraries"].items():
                cell = rows.get("error") or rows.get(str(mib), {}).get(direction, {})
                if isinstance(cell, str):
                    cells.append(cell[:60])
                else:
                    cells.append(f"{cell['GBps']:.1f}" if "GBps" in cell else cell.get("error", "")[:60])
            lines.append(f"| {mib} | {direction} | " + " | ".join(cells) + " |")
    return lines + [""] + peak_memory.peak_lines(figures["peak_bytes"])


def headline(figures, sizes_mib):
    big = str(max(sizes_mib))
    out = []
    for lib, rows in figures["libraries"].items():
        row = rows.get(big, {}) if "error" not in rows else {}
        parts = [f"{d} {row[d]['GBps']:.1f}" for d in ("h2d pageable", "h2d pinned") if "GBps" in row.get(d, {})]
        out.append(f"{lib} {big} MiB GB/s: " + (", ".join(parts) or str(rows.get("error", "no figures"))[:80]))
    return out


def main(argv=None):
    def options(parser):
        parser.add_argument("--sizes-mib", default="1,16,256")
        parser.add_argument("--reps", type=int, default=10, help="copies per timed batch")

    args = harness.parse_args(__doc__, options, argv)
    sizes = [int(s) for s in args.sizes_mib.split(",")]
    found = harness.gpu_peers()
    dev = cw.get_device("rocm")
    figures = {"sizes_mib": sizes, "libraries": {}, "peak_bytes": {}}
    peaks = peak_memory.PeakTable(device=dev, torch=found.get("torch"))
    runs = {"candlewick": lambda: bench_candlewick(dev, sizes, args.reps)}
    if "torch" in found:
        runs["torch"] = lambda: bench_torch(found["torch"], sizes, args.reps)
    figures["libraries"] = peaks.run_all("the whole run", runs)
    figures["peak_bytes"] = peaks.rows
    peers = {"torch": found["torch"].__version__} if "torch" in found else {}
    gpu = harness.gpu_name()
    device = (f"{gpu}, rocm backend through tools/hip_on_cuda" if gpu and gpu.startswith("NVIDIA")
              else gpu or "rocm:0")
    _, md_path = harness.write_record(args.out, "rocm_transfers", "gpu", device, peers, figures,
                                      markdown(figures, sizes), headline(figures, sizes))
    print(md_path.read_text())


if __name__ == "__main__":
    main()
