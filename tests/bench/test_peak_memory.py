"""bench/peak_memory.py's peak device memory (issue 39, item 6): each case's peak above what was
held before the call, per library, from the library's own high-water mark; n/a where a
library counts nothing (candlewick's cpu device), never an estimate. The GPU benchmarks'
records hold these columns on the fake HIP runtime: tests/bench/test_bench_interface.py."""

import importlib.util
import pathlib
import sys
import types

import pytest

import candlewick as cw

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))  # bench/ is no package: its modules import each other by name
import peak_memory  # noqa: E402


class TorchStandIn:
    """``torch.cuda``'s four memory calls over a counter the measured calls move."""

    def __init__(self, held):
        self.held = self.peak = held
        self.cuda = types.SimpleNamespace(
            synchronize=lambda: None, memory_allocated=lambda: self.held,
            reset_peak_memory_stats=self._reset, max_memory_allocated=lambda: self.peak)

    def _reset(self):
        self.peak = self.held

    def allocate(self, nbytes):
        self.held += nbytes
        self.peak = max(self.peak, self.held)

    def free(self, nbytes):
        self.held -= nbytes


def test_peaks_beside_torch_above_what_was_held_and_na_where_nothing_is_counted():
    torch = TorchStandIn(held=1000)  # held before the call: not the call's
    peaks = peak_memory.PeakTable(device=cw.get_device("cpu"), torch=torch)

    def torch_call():
        torch.allocate(300)
        torch.allocate(200)
        torch.free(500)
        return "result"

    assert peaks.measure("case", "torch", torch_call) == "result"
    assert peaks.measure("case", "candlewick", lambda: cw.ones(1000) + 1).shape == (1000,)
    assert peaks.measure("case", "cupy", lambda: 7) == 7  # no counter: it runs, no entry
    assert peaks.rows == {"case": {"torch": 500, "candlewick": None}}
    table = "\n".join(peak_memory.peak_lines(peaks.rows))
    assert "| case | torch | candlewick |" in table and "| case | 500 B | n/a |" in table


def test_a_failing_call_records_its_error_and_the_run_goes_on():
    peaks = peak_memory.PeakTable(device=cw.get_device("cpu"), torch=TorchStandIn(held=0))
    with pytest.raises(ZeroDivisionError):
        peaks.measure("bad", "torch", lambda: 1 / 0)
    peaks.measure_after("bad again", "torch", lambda: 1 / 0)  # a figure taken already stands
    out = peaks.run_all("whole", {"torch": lambda: 1 / 0, "candlewick": lambda: {"ms": 1.0}})
    assert out == {"torch": {"error": "ZeroDivisionError: division by zero"}, "candlewick": {"ms": 1.0}}
    assert all(row["torch"].startswith("ZeroDivisionError") for row in peaks.rows.values())
    assert peaks.rows["whole"]["candlewick"] is None


def test_candlewick_counts_on_a_device_that_keeps_counts(monkeypatch):
    """The candlewick column is the device's own statistics (memory_stats after
    reset_peak_memory_stats), less what was in use when the call began."""
    stats = {"in_use_bytes": 4096, "peak_in_use_bytes": 4096}
    monkeypatch.setattr(cw, "memory_stats", lambda device=None: dict(stats))
    monkeypatch.setattr(cw, "reset_peak_memory_stats", lambda device=None: stats.update(peak_in_use_bytes=4096))
    monkeypatch.setattr(cw, "synchronize", lambda device=None: None)

    def call():
        stats["peak_in_use_bytes"] = 4096 + 2048

    assert peak_memory.peak_bytes(call, peak_memory.memory_probe("candlewick", device="rocm")) == 2048


def test_pydata_e2e_measures_candlewick_through_the_same_probe():
    """pydata_e2e's device peaks come from the same probes; on the cpu device (no allocator
    counts) a device peak is n/a, its host peaks come from tracemalloc instead."""
    spec = importlib.util.spec_from_file_location("bench_pydata_e2e", ROOT / "bench" / "pydata_e2e.py")
    pydata = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(pydata)
    libs = pydata.libraries("cpu", {})
    _, sync, probe, _ = libs["candlewick"]
    assert isinstance(probe, pydata.peak_memory.CandlewickMemory)
    data = {"x": cw.ones(64)}
    assert pydata.peak_bytes(lambda d: d["x"] * 2, data, False, sync, probe, False) is None
    assert pydata.peak_bytes(lambda d: d["x"] * 2, data, False, sync, probe, True) > 0  # host: tracemalloc
    assert pydata._fmt({"candlewick": {"s": 1.0, "peak_bytes": None}}, "candlewick", "peak_bytes") == "n/a"


def test_pydata_e2e_times_every_library_with_one_count_of_calls_per_sample():
    """A sample is as many calls as make the fastest library's last ``sample_s``, the same
    count for every library (a 0.1 ms call timed alone is mostly the timer's and the
    host's noise): here 0.02 s over the fastest call's 0.8 ms."""
    spec = importlib.util.spec_from_file_location("bench_pydata_e2e", ROOT / "bench" / "pydata_e2e.py")
    pydata = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(pydata)
    assert pydata.calls_per_sample({"a": lambda: 0.004, "b": lambda: 0.0008}, 0.02) == 25
    assert pydata.calls_per_sample({"a": lambda: 0.5}, 0.02) == 1
