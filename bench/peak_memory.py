"""Peak device memory of each case of a benchmark (the record's ``peak_bytes``):
candlewick's allocator beside ``torch.cuda.max_memory_allocated``, each reset before one
more call of the case and read after it, so that no timing carries a measurement
(:class:`PeakTable`, its markdown :func:`peak_lines`). Only candlewick's public API is
used, imported when a peak is measured."""

from harness import error_text  # (bench/ is on sys.path wherever a benchmark runs)


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

        peaks = peak_memory.PeakTable(device=dev, torch=torch)
        peaks.measure("add 2^26", "candlewick", lambda: x + y)
        figures["peak_bytes"] = peaks.rows          # markdown: peak_memory.peak_lines(...)
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
