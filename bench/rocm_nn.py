"""nn benchmark of the rocm backend beside PyTorch (cuDNN), in one process.

    python bench/rocm_nn.py --out DIR [--reps N]

Cases: conv2d N=32, C=64->64, 56x56 with a 3x3 kernel (pad 1), a 1x1 kernel and a 3x3
stride-2 kernel; max_pool2d 3x3 stride 2 pad 1; float32 and float16. candlewick runs each
case on both nn paths (MIOpen, im2col+GEMM fallback) through the front end
(``candlewick.nn``). Reported per case: the first call of a new shape (MIOpen's Find,
or cuDNN's benchmark for torch with ``cudnn.benchmark = True``; kernels already
compiled, handles already made) and the cached call (median of batches of back-to-back
calls, each batch ended by a device synchronize, host clock). torch runs float32
convolutions without TF32 (``allow_tf32 = False``), as MIOpen and our GEMM compute them.
Writes DIR/bench_rocm_nn.json and DIR/bench_rocm_nn.md.
"""

import argparse
import datetime
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import candlewick as cw  # noqa: E402
from run_gpu import device_us  # noqa: E402  (bench/ is this script's sys.path[0])
from run_gpu import timed as cached_time  # noqa: E402

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
    """(first call seconds, median seconds per cached call)."""
    sync()
    t0 = time.perf_counter()
    fn()
    sync()
    first = time.perf_counter() - t0
    return first, cached_time(fn, sync, reps=reps, batches=batches, warmup=1), device_us(fn, sync)


def bench_candlewick(dev, path, case, dtype, reps):
    from rocm_backend import miopen, nn

    os.environ[nn.ENV] = path
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

    before = dict(nn.path_counts)
    first, cached, dev_us = timed(fn, dev.synchronize, reps)
    used = sorted({p for (op, p), v in nn.path_counts.items() if v != before.get((op, p), 0)})
    find_ms = None
    state = getattr(dev, "_miopen", None)
    if path == "miopen" and kind == "conv" and isinstance(state, miopen.DeviceMIOpen):
        plans = [p for p in state.plans.values() if isinstance(p, miopen.ConvPlan)]
        find_ms = plans[-1].find_ms if plans else None
    return {"first_ms": first * 1e3, "cached_ms": cached * 1e3, "find_ms": find_ms, "path": "+".join(used),
            "device_ms": dev_us / 1e3 if dev_us else None}


def bench_torch(torch, case, dtype, reps):
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
    return {"first_ms": first * 1e3, "cached_ms": cached * 1e3, "device_ms": dev_us / 1e3 if dev_us else None}


def warm_up(dev):
    """Compile the nn kernels and create the MIOpen/hipBLAS handles on a tiny problem of
    another shape, so that first-call figures are Find (or cuDNN benchmark) alone."""
    from rocm_backend import nn

    for path in ("miopen", "fallback"):
        os.environ[nn.ENV] = path
        for dtype in (np.float32, np.float16):
            try:
                x = cw.asarray(np.ones((1, 8, 9, 9), dtype), device=dev)
                w = cw.asarray(np.ones((8, 8, 3, 3), dtype), device=dev)
                cw.nn.conv2d(x, w, padding=1)
                cw.nn.max_pool2d(x, 2)
            except Exception as exc:  # noqa: BLE001 - the case rows record the error
                print(f"warm-up {path} {np.dtype(dtype).name}: {type(exc).__name__}: {exc}")
    dev.synchronize()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=".")
    parser.add_argument("--reps", type=int, default=20)
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    dev = cw.get_device("rocm")
    try:
        import torch

        torch.backends.cudnn.benchmark = True
        torch.backends.cudnn.allow_tf32 = False
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.zeros(1, device="cuda")
    except Exception as exc:  # noqa: BLE001
        print(f"torch unavailable: {exc}")
        torch = None
    rocm_info = next(b for b in cw.backends() if b.name == "rocm")
    warm_up(dev)
    rows = []
    for case in CASES:
        for dtype in (np.float32, np.float16):
            row = {"case": case[0], "dtype": np.dtype(dtype).name,
                   "gflop": (flops(case[1], case[2], case[3], case[4], case[5]) or 0) / 1e9}
            for path in ("miopen", "fallback"):
                try:
                    row[f"candlewick_{path}"] = bench_candlewick(dev, path, case, dtype, args.reps)
                except Exception as exc:  # noqa: BLE001 - record and go on
                    row[f"candlewick_{path}"] = {"error": f"{type(exc).__name__}: {exc}"[:300]}
            if torch is not None:
                row["torch"] = bench_torch(torch, case, dtype, args.reps)
            rows.append(row)
            print(json.dumps(row), flush=True)
    result = {
        "device": dev.product_name, "arch": dev.arch,
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "rocm_nn": rocm_info.details.get("nn"), "torch": getattr(torch, "__version__", None),
        "cudnn": torch.backends.cudnn.version() if torch is not None else None, "rows": rows,
    }
    (out / "bench_rocm_nn.json").write_text(json.dumps(result, indent=1))
    (out / "bench_rocm_nn.md").write_text(markdown(result))
    print(markdown(result))


def _fmt(entry, gflop, key="cached_ms"):
    if not entry or "error" in entry:
        return "error" if entry else "-"
    ms = entry[key]
    rate = f" ({gflop / ms:.1f} TFLOP/s)" if gflop and key == "cached_ms" else ""
    device = f"; device {entry['device_ms']:.3f}" if key == "cached_ms" and entry.get("device_ms") else ""
    return f"{ms:.3f} ms{rate}{device}"


def markdown(result):
    lines = [f"# candlewick nn on {result['device']} ({result['arch']}), {result['date']}", "",
             f"rocm nn path: {result['rocm_nn']}; torch {result['torch']}, cuDNN {result['cudnn']} "
             f"(benchmark=True, TF32 off). N=32, C=64->64, 56x56.", "",
             "## cached call (median host clock per call; device: kernel time per call, torch.profiler)", "",
             "| case | dtype | candlewick MIOpen | candlewick fallback | torch |", "|---|---|---|---|---|"]
    for r in result["rows"]:
        lines.append(f"| {r['case']} | {r['dtype']} | {_fmt(r.get('candlewick_miopen'), r['gflop'])} | "
                     f"{_fmt(r.get('candlewick_fallback'), r['gflop'])} | {_fmt(r.get('torch'), r['gflop'])} |")
    lines += ["", "## first call of the shape (MIOpen Find / cuDNN benchmark)", "",
              "| case | dtype | candlewick MIOpen (Find alone) | candlewick fallback | torch |", "|---|---|---|---|---|"]
    for r in result["rows"]:
        m = r.get("candlewick_miopen") or {}
        find = f" (Find {m['find_ms']:.1f} ms)" if m.get("find_ms") is not None else ""
        lines.append(f"| {r['case']} | {r['dtype']} | {_fmt(m, 0, 'first_ms')}{find} | "
                     f"{_fmt(r.get('candlewick_fallback'), 0, 'first_ms')} | {_fmt(r.get('torch'), 0, 'first_ms')} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
