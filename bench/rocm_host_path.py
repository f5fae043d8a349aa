"""Where the microseconds of one tiny op go on the rocm backend, beside PyTorch's whole op,
in one process (issue 22, item 3).

    python bench/rocm_host_path.py --out DIR [--size 16] [--reps 500]

Writes DIR/rocm_host_path_<device-kind>.json and .md (bench/harness.py). For add (x + y),
sum (all of x) and where (cond, x, y) on ``--size`` float32 elements it times, each as
host µs per call with the calls queued back to back and each batch ended by a device
synchronize (the median of 5 batches, after warm-up):

- the namespace call (``x + y``, ``cw.sum(x)``, ``cw.where(c, x, y)``);
- the backend's primitive (``storage.binary`` ...): the namespace call minus it is the
  front end's dispatch (checks, promotion, broadcasting, layouts, the result's ``Array``);
- allocating and freeing the result (the caching allocator, the buffer objects);
- packing the argument struct and launching into a preallocated result;
- the bare launch call: ctypes ``hipModuleLaunchKernel`` on arguments packed once (the
  runtime's own cost: through tools/hip_on_cuda, the shim and the CUDA driver).

The primitive minus allocation and pack-and-launch is its checks and routing; pack and
launch minus the bare call is the argument packing. torch's whole op (``x + y``,
``x.sum()``, ``torch.where``) is timed the same way in the same run. The stages come from
bench/diagnostics.py (the backend internals they use are listed there).
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import candlewick as cw  # noqa: E402
import harness  # noqa: E402

try:
    import diagnostics  # noqa: E402
except ImportError as exc:  # the backend's internals moved: the namespace figures still count
    diagnostics, DIAGNOSTICS_ERROR = None, harness.error_text(exc)

OPS = ("add", "sum", "where")
STAGES = ("namespace call", "primitive", "allocate and free the result", "pack and launch", "launch call")


def _time(fn, sync, reps):
    return harness.timed(fn, sync, reps=reps, batches=5, warmup=20) * 1e6


def bench_candlewick(size, reps):
    dev = cw.get_device("rocm")
    x = cw.asarray(np.arange(size, dtype=np.float32), device=dev)
    y = cw.asarray(np.ones(size, dtype=np.float32), device=dev)
    c = x > 3
    calls = {"add": lambda: x + y, "sum": lambda: cw.sum(x), "where": lambda: cw.where(c, x, y)}
    rows = {op: {"namespace call": _time(fn, dev.synchronize, reps)} for op, fn in calls.items()}
    if diagnostics is None:
        return rows, DIAGNOSTICS_ERROR
    try:
        stages = diagnostics.host_path_stages(dev, x._storage, y._storage, c._storage)
    except Exception as exc:  # noqa: BLE001 - recorded, the namespace figures stand
        return rows, harness.error_text(exc)
    for op, steps in stages.items():
        for name, prepare, call in steps:
            if call is None:
                rows[op][name] = None
                continue
            if prepare is not None:
                prepare()
            rows[op][name] = _time(call, dev.synchronize, reps)
    return rows, None


def breakdown(row):
    """The namespace call split into dispatch, checks, allocation, packing and the launch call."""
    if any(row.get(stage) is None for stage in STAGES):
        return None
    call, prim, alloc, pack, launch = (row[s] for s in STAGES)
    return {"front-end dispatch": call - prim, "primitive's checks and routing": prim - alloc - pack,
            "allocation": alloc, "argument packing": pack - launch, "launch call": launch}


def bench_torch(torch, size, reps):
    x = torch.arange(size, dtype=torch.float32, device="cuda")
    y = torch.ones(size, dtype=torch.float32, device="cuda")
    c = x > 3
    calls = {"add": lambda: x + y, "sum": lambda: x.sum(), "where": lambda: torch.where(c, x, y)}
    return {op: _time(fn, torch.cuda.synchronize, reps) for op, fn in calls.items()}


def markdown(figures):
    lines = [f"## Host µs per tiny op ({figures['size']} float32 elements), calls queued back to back", "",
             "| op | " + " | ".join(STAGES) + " | torch (whole op) |", "|---|" + "---|" * (len(STAGES) + 1)]
    torch = figures.get("torch") or {}
    for op in OPS:
        row = figures["candlewick"].get(op, {})
        cells = [f"{row[s]:.2f}" if row.get(s) is not None else "-" for s in STAGES]
        lines.append(f"| {op} | " + " | ".join(cells) + f" | {torch[op]:.2f} |" if op in torch
                     else f"| {op} | " + " | ".join(cells) + " | - |")
    lines += ["", "## Where the namespace call's µs go (differences of the stages above)", "",
              "| op | front-end dispatch | primitive's checks and routing | allocation | argument packing "
              "| launch call | namespace call - torch |", "|---|---|---|---|---|---|---|"]
    for op in OPS:
        parts = figures["breakdown"].get(op)
        if parts:
            gap = figures["candlewick"][op]["namespace call"] - torch[op] if op in torch else None
            lines.append(f"| {op} | " + " | ".join(f"{v:.2f}" for v in parts.values())
                         + (f" | {gap:+.2f} |" if gap is not None else " | - |"))
    if figures.get("stages_error"):
        lines += ["", f"stages: {figures['stages_error']}"]
    return lines


def headline(figures):
    torch = figures.get("torch") or {}
    out = []
    for op in OPS:
        ours = figures["candlewick"][op]["namespace call"]
        launch = figures["candlewick"][op].get("launch call")
        text = f"{op}: {ours:.2f} µs" + (f" (launch call {launch:.2f})" if launch is not None else "")
        out.append(text + (f", torch {torch[op]:.2f} µs" if op in torch else ""))
    return out


def main(argv=None):
    def options(parser):
        parser.add_argument("--size", type=int, default=16)
        parser.add_argument("--reps", type=int, default=500, help="calls per timed batch")

    args = harness.parse_args(__doc__, options, argv)
    found = harness.gpu_peers()
    rows, error = bench_candlewick(args.size, args.reps)
    figures = {"size": args.size, "candlewick": rows, "stages_error": error,
               "breakdown": {op: breakdown(row) for op, row in rows.items()}}
    if "torch" in found:
        try:
            figures["torch"] = bench_torch(found["torch"], args.size, args.reps)
        except Exception as exc:  # noqa: BLE001
            figures["torch_error"] = harness.error_text(exc)
    peers = {"torch": found["torch"].__version__} if "torch" in found else {}
    gpu = harness.gpu_name()
    device = (f"{gpu}, rocm backend through tools/hip_on_cuda" if gpu and gpu.startswith("NVIDIA")
              else gpu or "rocm:0")
    _, md_path = harness.write_record(args.out, "rocm_host_path", "gpu", device, peers, figures,
                                      markdown(figures), headline(figures))
    print(md_path.read_text())


if __name__ == "__main__":
    main()
