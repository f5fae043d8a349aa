"""Where the microseconds of one tiny op go on the rocm backend, beside PyTorch's whole op,
in one process (issue 22, item 3).

    python bench/rocm_host_path.py --out DIR [--size 16] [--reps 500]

Writes DIR/rocm_host_path_<device-kind>.json and .md (bench/harness.py). For add (x + y),
sum (all of x) and where (cond, x, y) on ``--size`` float32 elements it times, each as
host µs per call with the calls queued back to back and each batch ended by a device
synchronize (the median of 5 batches, after warm-up; every figure, torch's included, is the
minimum over ROUNDS rounds that time them all in turn):

- the namespace call (``x + y``, ``cw.sum(x)``, ``cw.where(c, x, y)``);
- the backend's primitive (``storage.binary`` ...): the namespace call minus it is the
  front end's dispatch (checks, promotion, broadcasting, layouts, the result's ``Array``);
- allocating and freeing the result (the caching allocator, the buffer objects);
- packing the argument struct and launching into a preallocated result;
- the bare launch call, as the launcher makes it: ``hipModuleLaunchKernel`` on arguments
  packed once, from C through ``candlewick._native.launch`` where that module was built
  (else through ctypes), and the same call through ctypes (the runtime's own cost: through
  tools/hip_on_cuda, the shim and the CUDA driver);
- the same launch from C (bench/launch_floor.py), through the HIP runtime and, under
  tools/hip_on_cuda, through the CUDA driver's cuLaunchKernel on the same handles: the
  launch call minus HIP-from-C is what calling from Python adds, HIP minus CUDA the shim's
  share (none on AMD hardware); and empty kernels with a 16-, 128- or 432-byte struct, for
  what the struct's size costs the launch.

The primitive minus allocation and pack-and-launch is its checks and routing; pack and
launch minus the bare call is the argument packing. torch's whole op (``x + y``,
``x.sum()``, ``torch.where``) is timed the same way in the same run. The stages come from
bench/diagnostics.py (the backend internals they use are listed there). The peak device
memory of one whole op, candlewick's allocator beside ``torch.cuda.max_memory_allocated``
(peak_memory.PeakTable).
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import candlewick as cw  # noqa: E402
import harness  # noqa: E402
import peak_memory  # noqa: E402
import timing  # noqa: E402

try:
    import diagnostics  # noqa: E402
except ImportError as exc:  # the backend's internals moved: the namespace figures still count
    diagnostics, DIAGNOSTICS_ERROR = None, harness.error_text(exc)

OPS = ("add", "sum", "where")
STAGES = ("namespace call", "primitive", "allocate and free the result", "pack and launch", "launch call")
FLOOR_STAGES = ("HIP launch from C", "CUDA launch from C")


ROUNDS = 5  # every measurement once per round, in turn; each figure is its minimum over the rounds


def _time(fn, sync, reps, launches_per_call=1):
    calls = max(1, reps // launches_per_call)
    seconds = timing.timed(fn, sync, reps=calls, batches=5, warmup=max(1, 20 // launches_per_call))
    return seconds * 1e6 / launches_per_call


def _launches(name):
    return diagnostics.launch_floor.LOOP if name in FLOOR_STAGES else 1


def _time_stage(name, call, sync, reps):
    return _time(call, sync, reps, _launches(name))


def interleaved(entries, reps, rounds=ROUNDS):
    """{key: µs per call} of ``entries`` {key: (prepare or None, call, sync, launches per call)}:
    the minimum over ``rounds`` rounds, each timing every entry in turn, rotated
    (timing.rotated_rounds), so that the host's
    drift (these machines' host clocks wander by tens of percent within a minute) reaches
    candlewick's stages and torch's ops alike."""
    def turn(prepare, call, sync, launches):
        def once():
            if prepare is not None:
                prepare()  # the bare launch calls read the argument bytes it packs
            return _time(call, sync, reps, launches)
        return once

    return timing.rotated_rounds({key: turn(*entry) for key, entry in entries.items()}, rounds)


def candlewick_entries(size):
    """({(op, stage): entry} for ``interleaved``, {(op, stage) not measurable here}, stages error,
    launch-floor error). The calls hold the arrays they read."""
    dev = cw.get_device("rocm")
    x = cw.asarray(np.arange(size, dtype=np.float32), device=dev)
    y = cw.asarray(np.ones(size, dtype=np.float32), device=dev)
    c = x > 3
    calls = {"add": lambda: x + y, "sum": lambda: cw.sum(x), "where": lambda: cw.where(c, x, y)}
    entries = {(op, "namespace call"): (None, fn, dev.synchronize, 1) for op, fn in calls.items()}
    if diagnostics is None:
        return entries, set(), DIAGNOSTICS_ERROR, None
    try:
        stages, floor_error = diagnostics.host_path_stages(dev, x._storage, y._storage, c._storage)
    except Exception as exc:  # noqa: BLE001 - recorded, the namespace figures stand
        return entries, set(), harness.error_text(exc), None
    missing = set()
    for op, steps in stages.items():
        for name, prepare, call in steps:
            if call is None:
                missing.add((op, name))
            else:
                entries[(op, name)] = (prepare, call, dev.synchronize, _launches(name))
    return entries, missing, None, floor_error


def torch_entries(torch, size):
    x = torch.arange(size, dtype=torch.float32, device="cuda")
    y = torch.ones(size, dtype=torch.float32, device="cuda")
    c = x > 3
    calls = {"add": lambda: x + y, "sum": lambda: x.sum(), "where": lambda: torch.where(c, x, y)}
    return {("torch", op): (None, fn, torch.cuda.synchronize, 1) for op, fn in calls.items()}


def bench_struct_sizes(reps):
    """{struct bytes: {stage: µs per launch}} of the empty probe kernels, or an error text."""
    dev = cw.get_device("rocm")
    try:
        calls, error = diagnostics.launch_floor_by_struct_size(dev)
    except Exception as exc:  # noqa: BLE001 - recorded, the other figures stand
        return {}, harness.error_text(exc)
    calls.pop("module", None)
    return {size: {name: _time_stage(name, call, dev.synchronize, reps) for name, call in ways.items()
                   if call is not None} for size, ways in calls.items()}, error


def breakdown(row):
    """The namespace call split into dispatch, checks, allocation, packing and the launch call,
    and the launch call into Python's share, the shim's and the driver's (where measured)."""
    if any(row.get(stage) is None for stage in STAGES):
        return None
    call, prim, alloc, pack, launch = (row[s] for s in STAGES)
    parts = {"front-end dispatch": call - prim, "primitive's checks and routing": prim - alloc - pack,
             "allocation": alloc, "argument packing": pack - launch, "launch call": launch}
    hip_c, cuda_c = row.get("HIP launch from C"), row.get("CUDA launch from C")
    if hip_c is not None:
        parts["of it: the call from Python"] = launch - hip_c
        if cuda_c is not None:
            parts["of it: the shim"] = hip_c - cuda_c
            parts["of it: the CUDA driver"] = cuda_c
    return parts


def markdown(figures):
    shown = STAGES + tuple(st for st in ("launch call through ctypes",) + FLOOR_STAGES
                           if any(row.get(st) is not None for row in figures["candlewick"].values()))
    lines = [f"## Host µs per tiny op ({figures['size']} float32 elements), calls queued back to back", "",
             "| op | " + " | ".join(shown) + " | torch (whole op) |", "|---|" + "---|" * (len(shown) + 1)]
    torch = figures.get("torch") or {}
    for op in OPS:
        row = figures["candlewick"].get(op, {})
        cells = [f"{row[s]:.2f}" if row.get(s) is not None else "-" for s in shown]
        lines.append(f"| {op} | " + " | ".join(cells) + (f" | {torch[op]:.2f} |" if op in torch else " | - |"))
    parts = [p for p in figures["breakdown"].values() if p]
    if parts:
        names = list(max(parts, key=len))
        lines += ["", "## Where the namespace call's µs go (differences of the stages above)", "",
                  "| op | " + " | ".join(names) + " | namespace call - torch |", "|---|" + "---|" * (len(names) + 1)]
        for op in OPS:
            row = figures["breakdown"].get(op)
            if row:
                gap = figures["candlewick"][op]["namespace call"] - torch[op] if op in torch else None
                lines.append(f"| {op} | " + " | ".join(f"{row[n]:.2f}" if n in row else "-" for n in names)
                             + (f" | {gap:+.2f} |" if gap is not None else " | - |"))
    verdicts = against_torch(figures)
    if verdicts:
        lines += ["", "## Against torch's whole op", "",
                  "torch launches from C++; the launch call here crosses from Python into the runtime. "
                  "The crossing is the launch call minus the same launch from C (HIP launch from C).", "",
                  "| op | namespace call - torch | the crossing | namespace call without it | torch | verdict |",
                  "|---|---|---|---|---|---|"]
        for op, (gap, crossing, without, verdict) in verdicts.items():
            lines.append(f"| {op} | {gap:+.2f} | {crossing:.2f} | {without:.2f} | {torch[op]:.2f} | {verdict} |")
    sizes = figures.get("struct_sizes") or {}
    if sizes:
        ways = [w for w in FLOOR_STAGES if any(w in row for row in sizes.values())]
        lines += ["", "## The launch from C of an empty kernel, by the size of its argument struct", "",
                  "| struct bytes | " + " | ".join(f"{w} (µs)" for w in ways) + " |", "|---|" + "---|" * len(ways)]
        for size, row in sizes.items():
            lines.append(f"| {size} | " + " | ".join(f"{row[w]:.2f}" if w in row else "-" for w in ways) + " |")
    for key, label in (("stages_error", "stages"), ("launch_floor_error", "launches from C"),
                       ("struct_sizes_error", "struct sizes")):
        if figures.get(key):
            lines += ["", f"{label}: {figures[key]}"]
    return lines + [""] + peak_memory.peak_lines(figures["peak_bytes"])


def against_torch(figures):
    """{op: (namespace call - torch, the launch call over its launch from C, the call without
    that crossing, verdict)}: where the call is over torch's whole op, whether the excess is
    the launch call's crossing from Python into the runtime (torch launches from C++)."""
    torch = figures.get("torch") or {}
    out = {}
    for op in OPS:
        row = figures["candlewick"].get(op, {})
        if op not in torch or row.get("launch call") is None or row.get("HIP launch from C") is None:
            continue
        gap = row["namespace call"] - torch[op]
        crossing = row["launch call"] - row["HIP launch from C"]
        if gap <= 0:
            verdict = "at or below torch"
        elif gap <= crossing:
            verdict = "over torch by less than the launch call's crossing from Python"
        else:
            verdict = "over torch by more than the launch call's crossing from Python"
        out[op] = (gap, crossing, row["namespace call"] - crossing, verdict)
    return out


def headline(figures):
    torch = figures.get("torch") or {}
    verdicts = against_torch(figures)
    out = []
    for op in OPS:
        ours = figures["candlewick"][op]["namespace call"]
        launch = figures["candlewick"][op].get("launch call")
        hip_c = figures["candlewick"][op].get("HIP launch from C")
        text = f"{op}: {ours:.2f} µs" + (f" (launch call {launch:.2f})" if launch is not None else "")
        text += f" (launch from C {hip_c:.2f})" if hip_c is not None else ""
        text += f", torch {torch[op]:.2f} µs" if op in torch else ""
        out.append(text + (f": {verdicts[op][3]}" if op in verdicts else ""))
    return out


def main(argv=None):
    def options(parser):
        parser.add_argument("--size", type=int, default=16)
        parser.add_argument("--reps", type=int, default=500, help="calls per timed batch")

    args = harness.parse_args(__doc__, options, argv)
    found = harness.gpu_peers()
    entries, missing, error, floor_error = candlewick_entries(args.size)
    figures = {"size": args.size, "stages_error": error, "launch_floor_error": floor_error}
    if "torch" in found:
        try:
            entries.update(torch_entries(found["torch"], args.size))
        except Exception as exc:  # noqa: BLE001
            figures["torch_error"] = harness.error_text(exc)
    times = interleaved(entries, args.reps)
    peaks = peak_memory.PeakTable(device=cw.get_device("rocm"), torch=found.get("torch"))
    for (who, name), (_, call, _, _) in entries.items():  # the whole ops: candlewick's and torch's
        if who == "torch" or name == "namespace call":
            peaks.measure_after(name if who == "torch" else who, "torch" if who == "torch" else "candlewick", call)
    figures["peak_bytes"] = peaks.rows
    rows = {op: {} for op in OPS}
    for (who, name), value in times.items():
        if who != "torch":
            rows[who][name] = value
    for op, name in missing:
        rows[op][name] = None
    figures["candlewick"] = rows
    figures["breakdown"] = {op: breakdown(row) for op, row in rows.items()}
    if "torch" in found and "torch_error" not in figures:
        figures["torch"] = {op: times[("torch", op)] for op in OPS}
    figures["rounds"] = ROUNDS
    if diagnostics is not None:
        figures["struct_sizes"], figures["struct_sizes_error"] = bench_struct_sizes(args.reps)
    peers = {"torch": found["torch"].__version__} if "torch" in found else {}
    gpu = harness.gpu_name()
    device = (f"{gpu}, rocm backend through tools/hip_on_cuda" if gpu and gpu.startswith("NVIDIA")
              else gpu or "rocm:0")
    _, md_path = harness.write_record(args.out, "rocm_host_path", "gpu", device, peers, figures,
                                      markdown(figures), headline(figures))
    print(md_path.read_text())


if __name__ == "__main__":
    main()
