"""Convolution and pooling benchmark of the rocm backend beside PyTorch (cuDNN), in one
process.

    python bench/rocm_nn.py --out DIR [--reps N]

Writes DIR/rocm_nn_<device-kind>.json and .md (bench/harness.py). Cases: conv2d N=32,
C=64->64, 56x56 with a 3x3 kernel (pad 1), a 1x1 kernel and a 3x3 stride-2 kernel;
max_pool2d 3x3 stride 2 pad 1; float32 and float16. candlewick runs each case on both nn
paths (MIOpen, im2col+GEMM fallback, chosen through ``CANDLEWICK_ROCM_NN``) and on the
default (``auto``: the path a user gets, named in the record) through ``candlewick.nn``; the
headline compares the default with torch. Reported per case: the first call of a new shape (MIOpen's Find, or
cuDNN's benchmark for torch with ``cudnn.benchmark = True``; kernels already compiled,
handles already made) and the cached call (median of batches of back-to-back calls, each
batch ended by a device synchronize, host clock), with the device time per call from
torch.profiler, and the peak device memory of one cached call (workspaces included:
candlewick's allocator beside ``torch.cuda.max_memory_allocated``, peak_memory.PeakTable).
torch runs float32 convolutions without TF32 (``allow_tf32 = False``), as MIOpen and
candlewick's GEMM compute them.
"""

import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import candlewick as cw  # noqa: E402
import harness  # noqa: E402
import peak_memory  # noqa: E402
import timing  # noqa: E402

try:
    import diagnostics  # noqa: E402
except ImportError as exc:  # the backend's internals moved: the timings still count
    diagnostics, DIAGNOSTICS_ERROR = None, harness.error_text(exc)

NN_PATH_ENV = "CANDLEWICK_ROCM_NN"  # the rocm backend's documented nn path setting

CASES = [  # name, kind, x shape, weight shape (conv) or kernel (pool), stride, padding
    ("conv3x3", "conv", (32, 64, 56, 56), (64, 64, 3, 3), 1, 1),
    ("conv1x1", "conv", (32, 64, 56, 56), (64, 64, 1, 1), 1, 0),
    ("conv3x3_s2", "conv", (32, 64, 56, 56), (64, 64, 3, 3), 2, 1),
    ("maxpool3x3_s2", "pool", (32, 64, 56, 56), 3, 2, 1),
]


def flops(kind, x_shape, w_shape, stride, padding):
    if kind != "conv":
        return None
    n, c, h, w = x_shape
    cout, _, kh, kw = w_shape
    oh = (h + 2 * padding - kh) // stride + 1
    ow = (w + 2 * padding - kw) // stride + 1
    return 2.0 * n * cout * oh * ow * c * kh * kw


def timed(fn, sync, reps, batches=5):
    """(first call seconds, median seconds per cached call, device µs per call or None)."""
    sync()
    t0 = time.perf_counter()
    fn()
    sync()
    first = time.perf_counter() - t0
    cached = timing.timed(fn, sync, reps=reps, batches=batches, warmup=1)
    return first, cached, timing.device_us(fn, sync)


def bench_candlewick(dev, path, case, dtype, reps, peaks):
    os.environ[NN_PATH_ENV] = path
    name, kind, xs, ws, stride, padding = case
    rng = np.random.default_rng(0)
    x = cw.asarray(rng.standard_normal(xs).astype(dtype), device=dev)
    if kind == "conv":
        w = cw.asarray((rng.standard_normal(ws) * 0.05).astype(dtype), device=dev)

        def fn():
            return cw.nn.conv2d(x, w, stride=stride, padding=padding)
    else:

        def fn():
            return cw.nn.max_pool2d(x, ws, stride, padding)

    before = diagnostics.nn_path_counts() if diagnostics else None
    first, cached, dev_us = timed(fn, dev.synchronize, reps)
    peaks.measure_after(f"{name} {np.dtype(dtype).name}", f"candlewick {path}", fn)
    row = {"first_ms": first * 1e3, "cached_ms": cached * 1e3, "device_ms": dev_us / 1e3 if dev_us else None}
    if diagnostics is None:
        row["diagnostics_error"] = DIAGNOSTICS_ERROR
        return row
    row["path"] = "+".join(diagnostics.paths_between(before, diagnostics.nn_path_counts()))
    if path == "miopen" and kind == "conv":
        row["find_ms"] = diagnostics.last_find_ms(dev)
    return row


def bench_torch(torch, case, dtype, reps, peaks):
    name, kind, xs, ws, stride, padding = case
    tdtype = torch.float16 if dtype == np.float16 else torch.float32
    g = torch.Generator(device="cuda").manual_seed(0)
    x = torch.randn(xs, device="cuda", dtype=tdtype, generator=g)
    if kind == "conv":
        w = torch.randn(ws, device="cuda", dtype=tdtype, generator=g) * 0.05

        def fn():
            return torch.nn.functional.conv2d(x, w, stride=stride, padding=padding)
    else:

        def fn():
            return torch.nn.functional.max_pool2d(x, ws, stride, padding)

    first, cached, dev_us = timed(fn, torch.cuda.synchronize, reps)
    peaks.measure_after(f"{name} {np.dtype(dtype).name}", "torch", fn)
    return {"first_ms": first * 1e3, "cached_ms": cached * 1e3, "device_ms": dev_us / 1e3 if dev_us else None}


def warm_up(dev):
    """Compile the nn kernels and create the MIOpen/hipBLAS handles on a tiny problem of
    another shape, so that first-call figures are Find (or cuDNN benchmark) alone."""
    for path in ("miopen", "fallback"):
        os.environ[NN_PATH_ENV] = path
        for dtype in (np.float32, np.float16):
            try:
                x = cw.asarray(np.ones((1, 8, 9, 9), dtype), device=dev)
                w = cw.asarray(np.ones((8, 8, 3, 3), dtype), device=dev)
                cw.nn.conv2d(x, w, padding=1)
                cw.nn.max_pool2d(x, 2)
            except Exception as exc:  # noqa: BLE001 - the case rows record the error
                print(f"warm-up {path} {np.dtype(dtype).name}: {harness.error_text(exc)}")
    dev.synchronize()


def torch_peer():
    torch = harness.gpu_peers().get("torch")
    if torch is not None:
        torch.backends.cudnn.benchmark = True
        torch.backends.cudnn.allow_tf32 = False
        torch.backends.cuda.matmul.allow_tf32 = False
    return torch


def main(argv=None):
    args = harness.parse_args(__doc__, lambda p: p.add_argument("--reps", type=int, default=20), argv)
    dev = cw.get_device("rocm")
    torch = torch_peer()
    rocm_info = next(b for b in cw.backends() if b.name == "rocm")
    warm_up(dev)
    peaks = peak_memory.PeakTable(device=dev, torch=torch)
    rows = []
    for case in CASES:
        for dtype in (np.float32, np.float16):
            row = {"case": case[0], "dtype": np.dtype(dtype).name,
                   "gflop": (flops(case[1], case[2], case[3], case[4], case[5]) or 0) / 1e9}
            # auto (the default a user gets) runs last: its first call is the other paths' cached one
            for path in ("miopen", "fallback", "auto"):
                try:
                    row[f"candlewick_{path}"] = bench_candlewick(dev, path, case, dtype, args.reps, peaks)
                except Exception as exc:  # noqa: BLE001 - recorded, the run goes on
                    row[f"candlewick_{path}"] = {"error": harness.error_text(exc)}
            if torch is not None:
                row["torch"] = bench_torch(torch, case, dtype, args.reps, peaks)
            rows.append(row)
            print(row, flush=True)
    os.environ.pop(NN_PATH_ENV, None)
    figures = {"rocm_nn_path": rocm_info.details.get("nn"),
               "cudnn": torch.backends.cudnn.version() if torch is not None else None, "rows": rows,
               "peak_bytes": peaks.rows}
    peers = {"torch": torch.__version__} if torch is not None else {}
    gpu = harness.gpu_name()
    device = (f"{gpu}, rocm backend through tools/hip_on_cuda" if gpu and gpu.startswith("NVIDIA")
              else gpu or dev.name)
    _, md_path = harness.write_record(args.out, "rocm_nn", "gpu", device, peers, figures,
                                      markdown(figures), headline(rows))
    print(md_path.read_text())


def _fmt(entry, gflop, key="cached_ms"):
    if not entry or "error" in entry:
        return "error" if entry else "-"
    ms = entry[key]
    rate = f" ({gflop / ms:.1f} TFLOP/s)" if gflop and key == "cached_ms" else ""
    device = f"; device {entry['device_ms']:.3f}" if key == "cached_ms" and entry.get("device_ms") else ""
    return f"{ms:.3f} ms{rate}{device}"


def markdown(figures):
    lines = [f"rocm nn path: {figures['rocm_nn_path']}; cuDNN {figures['cudnn']} (benchmark=True, TF32 off). "
             "N=32, C=64->64, 56x56.", "",
             "## cached call (median host clock per call; device: kernel time per call, torch.profiler)", "",
             "| case | dtype | candlewick default (path it took) | candlewick MIOpen | candlewick fallback | torch |",
             "|---|---|---|---|---|---|"]
    for r in figures["rows"]:
        auto = r.get("candlewick_auto") or {}
        took = f" ({auto['path']})" if auto.get("path") else ""
        lines.append(f"| {r['case']} | {r['dtype']} | {_fmt(auto, r['gflop'])}{took} | "
                     f"{_fmt(r.get('candlewick_miopen'), r['gflop'])} | "
                     f"{_fmt(r.get('candlewick_fallback'), r['gflop'])} | {_fmt(r.get('torch'), r['gflop'])} |")
    lines += ["", "## first call of the shape (MIOpen Find / cuDNN benchmark)", "",
              "| case | dtype | candlewick MIOpen (Find alone) | candlewick fallback | torch |", "|---|---|---|---|---|"]
    for r in figures["rows"]:
        m = r.get("candlewick_miopen") or {}
        find = f" (Find {m['find_ms']:.1f} ms)" if m.get("find_ms") is not None else ""
        lines.append(f"| {r['case']} | {r['dtype']} | {_fmt(m, 0, 'first_ms')}{find} | "
                     f"{_fmt(r.get('candlewick_fallback'), 0, 'first_ms')} | {_fmt(r.get('torch'), 0, 'first_ms')} |")
    errors = [f"{r['case']} {r['dtype']} {k}: {v['error']}" for r in figures["rows"]
              for k, v in r.items() if isinstance(v, dict) and "error" in v]
    return lines + ([""] + errors if errors else []) + [""] + peak_memory.peak_lines(figures["peak_bytes"])


def headline(rows):
    """candlewick's cached time on the default path as a share of torch's, per case."""
    lines = []
    for r in rows:
        ours, theirs = r.get("candlewick_auto") or {}, r.get("torch") or {}
        if "cached_ms" in ours and "cached_ms" in theirs:
            lines.append(f"{r['case']} {r['dtype']} ({ours.get('path', 'default path')}): {ours['cached_ms']:.3f} ms vs torch "
                         f"{theirs['cached_ms']:.3f} ms ({theirs['cached_ms'] / ours['cached_ms']:.0%} of torch's speed)")
    return lines


if __name__ == "__main__":
    main()
