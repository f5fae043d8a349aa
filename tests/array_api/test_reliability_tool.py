"""The deep fuzz profile's runner (tools/reliability_fuzz.py), on a small budget: it
writes the record with every promise counted, a batch whose process dies (here: a memory
cap too small to import anything) is counted as a crash, not lost, and a batch the
deadline stops is listed as not finished, not as a crash."""

import importlib.util
import pathlib
import subprocess
import sys
import time

REPO = pathlib.Path(__file__).parents[2]
TOOL = REPO / "tools" / "reliability_fuzz.py"


def _tool():
    spec = importlib.util.spec_from_file_location("reliability_fuzz", TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_small_run_writes_the_record_with_zero_findings(tmp_path):
    done = subprocess.run([sys.executable, str(TOOL), "--calls", "300", "--batches", "2", "--out", str(tmp_path),
                           "--kind", "cpu-small"], capture_output=True, text=True, timeout=600, cwd=REPO)
    record = (tmp_path / "reliability_cpu-small.md").read_text()
    assert done.returncode == 0, record + done.stderr
    for promise in ("foreign exceptions", "escaped warnings", "changed inputs", "crashes or hangs"):
        assert f"| 0 {promise} | 0 |" in record, record
    assert "| namespace |" in record and "| nn |" in record and "| Array in-place operators |" in record


def test_a_batch_whose_process_dies_is_counted_as_a_crash():
    results, crash, late = _tool()._run_batch(0, ["add"], "cpu", 1, 0, 32 * 2**20, 120, None)
    assert results is None and not late
    assert "batch 0" in crash and ("exited with status" in crash or "memory cap" in crash), crash


def test_a_batch_the_deadline_stops_is_not_finished_rather_than_crashed():
    assert _tool()._run_batch(0, ["add"], "cpu", 1, 0, 0, 120, time.monotonic()) == (None, None, True)


def test_only_fuzzes_the_callables_it_names(tmp_path):
    done = subprocess.run([sys.executable, str(TOOL), "--calls", "20", "--batches", "4", "--out", str(tmp_path),
                           "--kind", "cpu-only", "--only", r"^(fft\.rfft|lib\..*|Array\.__setitem__)$",
                           "--tight-share", "0"], capture_output=True, text=True, timeout=600, cwd=REPO)
    record = (tmp_path / "reliability_cpu-only.md").read_text()
    assert done.returncode == 0, record + done.stderr
    assert "--only '^(fft" in record and "| fft | 1 |" in record and "| Array indexing | 1 |" in record, record
    assert "| namespace |" not in record, record


def test_modules_that_dir_lists_are_fuzzed(monkeypatch):
    import types

    import candlewick as cw
    import fuzz_targets

    extra = types.ModuleType("candlewick.extra_for_the_fuzz")
    extra.helper = lambda x: x
    extra.inner = types.ModuleType("candlewick.extra_for_the_fuzz.inner")
    extra.inner.deep = lambda x: x
    extra.__all__ = ["helper", "inner"]
    extra.inner.__all__ = ["deep"]
    monkeypatch.setattr(cw, "extra_for_the_fuzz", extra, raising=False)
    listed = cw.__dir__()
    monkeypatch.setattr(cw, "__dir__", lambda: [*listed, "extra_for_the_fuzz"])
    names = dict(fuzz_targets.public_targets())
    assert "extra_for_the_fuzz.helper" in names and "extra_for_the_fuzz.inner.deep" in names
    assert fuzz_targets.family_of("extra_for_the_fuzz.inner.deep") == "extra_for_the_fuzz"


def test_the_record_lists_the_errors_that_do_not_name_their_function(tmp_path):
    tool = _tool()
    merged = {
        "add": {"calls": 3, "outcomes": {"ArgumentTypeError": 3}, "findings": [], "notes": 2,
                "noted": "ArgumentTypeError: x must be an array"},
        "sum": {"calls": 1, "outcomes": {"returned": 1}, "findings": [], "notes": 0, "noted": None},
    }
    families, broken, findings, notes = tool.summarize(merged, [])
    tool.write_record(tmp_path / "r.md", "cpu", families, broken, findings, notes, 4, 1.0, 2**30)
    record = (tmp_path / "r.md").read_text()
    assert "does not name the function (noted, not counted as findings): 2 (first of each callable below)" in record
    listed = record.split("## Errors whose message does not name the function")[1]
    assert "- `add` (2): ArgumentTypeError: x must be an array" in listed and "`sum`" not in listed, record
