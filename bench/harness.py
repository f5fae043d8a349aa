"""What every benchmark of bench/ shares: its command line, the record it writes, timing.

Every benchmark runs as ``python bench/NAME.py --out DIR`` and writes
``DIR/NAME_<device-kind>.json`` and ``DIR/NAME_<device-kind>.md`` through
:func:`write_record`: device, device kind, date, commit, the peers measured in the same
run, and the figures. The device kind names the machine the figures belong to
(``nvidia-h200``, ``cpu-amd-epyc``...), so bench/results/ holds one current record per
benchmark and kind. Peak device memory of each case: :class:`PeakTable` (candlewick's
allocator beside ``torch.cuda.max_memory_allocated``, the record's ``peak_bytes``). This
module uses no candlewick internals (only its public API, imported when a peak is measured).
"""

import argparse
import datetime
import json
import os
import platform
import re
import statistics
import subprocess
import time
import timeit
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def parse_args(doc, add_arguments=None, argv=None):
    """The common command line (``--out DIR``) plus the benchmark's own options."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--out", required=True, help="folder for NAME_<device-kind>.json and .md")
    if add_arguments is not None:
        add_arguments(parser)
    return parser.parse_args(argv)


def slug(model):
    """``"NVIDIA H100 80GB HBM3"`` -> ``"nvidia-h100"``: the words up to the first one
    holding a digit (the model number), lower case, trademarks and punctuation dropped."""
    words = re.sub(r"\((R|TM|C)\)", " ", model, flags=re.IGNORECASE).replace("-", " ").split()
    kept = []
    for word in words:
        word = re.sub(r"[^a-z0-9]", "", word.lower())
        if word in ("", "processor", "cpu"):
            continue
        kept.append(word)
        if any(ch.isdigit() for ch in word):
            break
    return "-".join(kept) or "unknown"


def gpu_name():
    """The first GPU's product name, from nvidia-smi (else torch); None without one."""
    try:
        done = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                              capture_output=True, text=True, timeout=30)
        names = done.stdout.strip().splitlines()
        if done.returncode == 0 and names:
            return names[0].strip()
    except (OSError, subprocess.SubprocessError):
        pass
    torch = gpu_peers().get("torch")
    return torch.cuda.get_device_name(0) if torch is not None else None


def cpu_name():
    """The host processor's model name (/proc/cpuinfo on Linux)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def device_kind(kind):
    """The record's device kind: ``$CANDLEWICK_DEVICE_KIND`` if set, else from the GPU's
    name (``kind="gpu"``) or the processor's (``kind="cpu"``, prefixed ``cpu-``)."""
    if os.environ.get("CANDLEWICK_DEVICE_KIND"):
        return os.environ["CANDLEWICK_DEVICE_KIND"]
    if kind == "gpu":
        return slug(gpu_name() or "no-gpu")
    return "cpu-" + slug(cpu_name())


def commit():
    """``$CANDLEWICK_COMMIT`` (for a copy without .git), else git's short HEAD, with
    ``+dirty`` when the tree differs from it."""
    if os.environ.get("CANDLEWICK_COMMIT"):
        return os.environ["CANDLEWICK_COMMIT"]
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                              text=True, timeout=30)
        if head.returncode != 0:
            return "unknown"
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                               capture_output=True, text=True, timeout=30).stdout.strip()
        return head.stdout.strip() + ("+dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def write_record(out, name, kind, device, peers, figures, markdown_body, headline=()):
    """Write ``out/NAME_<device-kind>.json`` and ``.md``; return the two paths.

    ``kind``: "gpu" or "cpu" (see :func:`device_kind`); ``device``: the device in words;
    ``peers``: {library: version} measured in the same run; ``figures``: the results
    (JSON-serializable); ``markdown_body``: the .md's lines after its header;
    ``headline``: a few short lines for a run's summary (also printed as ``HEADLINE:``).
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    record = {
        "benchmark": name, "device": device, "device_kind": device_kind(kind),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "commit": commit(), "host": f"{cpu_name()}, {os.cpu_count()} cores",
        "python": platform.python_version(), "peers": dict(peers), "headline": list(headline),
        "figures": figures,
    }
    stem = out / f"{name}_{record['device_kind']}"
    json_path, md_path = stem.with_suffix(".json"), stem.with_suffix(".md")
    json_path.write_text(json.dumps(record, indent=1, default=str) + "\n")
    peer_text = ", ".join(f"{k} {v}" for k, v in record["peers"].items()) or "none"
    header = [f"# {name} on {device} ({record['device_kind']})", "",
              f"date: {record['date']}; commit: {record['commit']}; host: {record['host']}; "
              f"python {record['python']}", "", f"Peers measured in the same run: {peer_text}.", ""]
    md_path.write_text("\n".join(header + list(markdown_body)) + "\n")
    for line in headline:
        print(f"HEADLINE: {name}: {line}", flush=True)
    return json_path, md_path


def gpu_peers():
    """{name: module} of the GPU libraries usable here (torch with CUDA, CuPy)."""
    found = {}
    try:
        import torch  # optional peer, loaded only when present

        if torch.cuda.is_available():
            found["torch"] = torch
    except Exception:  # noqa: BLE001 - any failure means "not a peer here"
        pass
    try:
        import cupy  # optional peer, loaded only when present

        cupy.cuda.runtime.getDeviceCount()
        found["cupy"] = cupy
    except Exception:  # noqa: BLE001
        pass
    return found


def timed(fn, sync, reps=10, batches=5, warmup=2):
    """Median seconds per call of ``fn``: ``batches`` batches of ``reps`` calls queued
    back to back, each batch ended by ``sync`` (host clock), after ``warmup`` calls."""
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


def issue_time(fn, sync, reps=10, batches=5):
    """Median host seconds per call of ``fn`` up to its return (its device work queued, not
    waited for): a batch of ``reps`` calls after a ``sync``, timed before the closing
    ``sync``. Beside ``timed``'s figure it tells a host-bound call (issue time at or above
    the time per call) from a device-bound one."""
    samples = []
    for _ in range(batches):
        sync()
        t0 = time.perf_counter()
        for _ in range(reps):
            fn()
        samples.append((time.perf_counter() - t0) / reps)
    sync()
    return statistics.median(samples)


def calibrate(fn, budget=0.02, timer=timeit.default_timer):
    """Calls per timing run so that one run takes about ``budget`` seconds."""
    fn()
    number = 1
    while timeit.timeit(fn, number=number, timer=timer) < budget / 4 and number < 1 << 20:
        number *= 4
    return number


def interleaved(fns, rounds=9, timer=timeit.default_timer):
    """Seconds per call of each function of ``fns`` ({name: function}): the minimum over
    ``rounds`` runs, the peers measured in turn within each round so that machine drift
    hits them alike (the minimum is the figure least disturbed by other load, as timeit's
    docs advise). ``timer``: the clock (wall time by default; ``time.process_time`` counts
    only this process's CPU time)."""
    return {k: min(times) for k, times in interleaved_rounds(fns, rounds, timer).items()}


def interleaved_rounds(fns, rounds=9, timer=timeit.default_timer):
    """``interleaved``'s runs themselves: {name: [seconds per call in each round]}, the
    k-th entry of every list from the same round (peers in turn, the order rotated by one
    place a round), for figures that pair the peers round by round."""
    numbers = {k: calibrate(f, timer=timer) for k, f in fns.items()}
    times = {k: [] for k in fns}
    order = list(fns)
    for r in range(rounds):
        for k in order[r % len(order):] + order[:r % len(order)]:
            times[k].append(timeit.timeit(fns[k], number=numbers[k], timer=timer) / numbers[k])
    return times


def rotated_rounds(turns, rounds, errors=None):
    """The best figure of each turn of ``turns`` ({name: turn}) over ``rounds`` rounds.

    Each round calls every turn once, the order rotated by one place a round, so that the
    host's drift over the run (these hosts' clocks wander by tens of percent within a
    minute) reaches every library alike instead of whichever one runs last. A turn returns
    its figure for the round: seconds, or {label: seconds} for several; the best is the
    smallest (per label). ``errors``: None lets a turn's exception propagate; a dict gets
    the error text under the turn's name, and that turn sits out the later rounds (its
    figures of the earlier rounds stand)."""
    best, order = {}, list(turns)
    for r in range(rounds if order else 0):
        shift = r % len(order)
        for name in order[shift:] + order[:shift]:
            if errors is not None and name in errors:
                continue
            try:
                figure = turns[name]()
            except Exception as exc:  # noqa: BLE001 - recorded where the caller asked
                if errors is None:
                    raise
                errors[name] = error_text(exc)
                continue
            if isinstance(figure, dict):
                held = best.setdefault(name, {})
                for label, value in figure.items():
                    held[label] = min(held.get(label, value), value)
            else:
                best[name] = min(best.get(name, figure), figure)
    return best


def kernel_times(fn, sync, reps=5):
    """[(device µs per call, launches per call, kernel name)] of ``fn``'s kernels, from
    torch.profiler (CUPTI sees every kernel of the process, candlewick's included);
    None without torch or a CUDA device."""
    try:
        import torch  # optional, loaded only when present
        from torch.profiler import ProfilerActivity, profile
    except Exception:  # noqa: BLE001
        return None
    if not torch.cuda.is_available():  # a CPU-only torch has no CUDA activity to profile
        return None
    fn()
    sync()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(reps):
            fn()
        sync()
    rows = []
    for event in prof.key_averages():
        us = getattr(event, "device_time_total", None) or getattr(event, "cuda_time_total", 0)
        if us:
            rows.append((us / reps, event.count // reps, event.key))
    return sorted(rows, reverse=True)


def device_us(fn, sync, reps=5):
    """Device microseconds per call of ``fn`` (the sum of its kernels); None without torch."""
    rows = kernel_times(fn, sync, reps)
    return None if rows is None else sum(row[0] for row in rows)


def error_text(exc, limit=300):
    return f"{type(exc).__name__}: {exc}"[:limit]


class CandlewickMemory:
    """candlewick's allocator counts on one device behind the four calls of ``torch.cuda``
    a peak measurement uses (``synchronize``, ``memory_allocated``,
    ``reset_peak_memory_stats``, ``max_memory_allocated``), so one measurement serves both.
    A device that counts nothing (cpu: NumPy keeps no counts) answers None."""

    def __init__(self, device):
        import candlewick  # the benchmark's own import: harness loads without it (gpu_run.sh)

        self.cw, self.device = candlewick, device

    def synchronize(self):
        self.cw.synchronize(self.device)

    def memory_allocated(self):
        return self.cw.memory_stats(self.device)["in_use_bytes"]

    def reset_peak_memory_stats(self):
        self.cw.reset_peak_memory_stats(self.device)

    def max_memory_allocated(self):
        return self.cw.memory_stats(self.device)["peak_in_use_bytes"]


def memory_probe(library, device=None, torch=None):
    """The device-memory counter of ``library`` (a variant's name: "candlewick fused",
    "torch.compile"...): candlewick's allocator on ``device``, ``torch.cuda``; None for a
    library that reports no high-water mark (CuPy's pool keeps none)."""
    if library.startswith("candlewick") and device is not None:
        return CandlewickMemory(device)
    if library.startswith("torch") and torch is not None:
        return torch.cuda
    return None


def peak_bytes(fn, probe):
    """The bytes ``fn`` holds on the device at its peak above what was held when it began
    (its result included: it is dropped after the call), from ``probe``'s high-water mark
    reset before the call; None where the probe counts nothing (never an estimate)."""
    probe.synchronize()
    before = probe.memory_allocated()
    probe.reset_peak_memory_stats()
    fn()
    probe.synchronize()
    peak = probe.max_memory_allocated()
    return None if peak is None or before is None else int(peak) - int(before)


class PeakTable:
    """The record's ``peak_bytes`` section: {case: {library: bytes above what was held
    before the call, or None where the library counts nothing}}, measured by one more call
    after the timed ones, so that no timing carries a measurement::

        peaks = harness.PeakTable(device=dev, torch=torch)
        peaks.measure("add 2^26", "candlewick", lambda: x + y)
        figures["peak_bytes"] = peaks.rows          # markdown: harness.peak_lines(...)
    """

    def __init__(self, device=None, torch=None):
        self.device, self.torch = device, torch
        self.rows = {}

    def measure(self, case, library, fn):
        """``fn()``'s result, its peak recorded under ``case`` and ``library`` where the
        library counts one (else it only runs); a call that raises records its error text
        and raises."""
        probe = memory_probe(library, self.device, self.torch)
        if probe is None:
            return fn()
        row = self.rows.setdefault(case, {})
        result = []
        try:
            row[library] = peak_bytes(lambda: result.append(fn()), probe)
        except Exception as exc:
            row[library] = error_text(exc)
            raise
        return result[0]

    def run_all(self, case, runs):
        """{library: its run's result, or {"error": text}} of ``runs`` {library: call}, each
        call measured under ``case`` (a whole benchmark run per library, say)."""
        out = {}
        for library, run in runs.items():
            try:
                out[library] = self.measure(case, library, run)
            except Exception as exc:  # noqa: BLE001 - recorded, the other libraries still run
                out[library] = {"error": error_text(exc)}
        return out

    def measure_after(self, case, library, fn):
        """``measure`` of one more call after the timed ones: its error is recorded in the
        row, not raised (the figures already taken stand)."""
        try:
            self.measure(case, library, fn)
        except Exception:  # noqa: BLE001 - its text is the row's entry
            pass


def peak_lines(rows):
    """Markdown of a ``PeakTable``'s rows: bytes per case and library, n/a where a library
    counts nothing."""
    libraries = list(dict.fromkeys(lib for row in rows.values() for lib in row))
    if not libraries:
        return []
    lines = ["## Peak device memory per call (above what was held before it: candlewick's "
             "allocator, torch.cuda.max_memory_allocated)", "",
             "| case | " + " | ".join(libraries) + " |", "|---|" + "---|" * len(libraries)]
    for case, row in rows.items():
        lines.append(f"| {case} | " + " | ".join(_size(row.get(lib, "-")) for lib in libraries) + " |")
    return lines + [""]


def _size(value):
    if value is None:
        return "n/a"
    if isinstance(value, int):
        for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
            if value >= scale:
                return f"{value / scale:.2f} {unit}"
        return f"{value} B"
    return " ".join(str(value).split()).replace("|", "/")[:60]
