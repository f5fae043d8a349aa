"""A backend author's first run (issue 35, item 1), end to end on a deliberately broken
host-memory backend (broken_backend.py) through ``python -m candlewick.conformance``:
the staged run blocks what a broken host transfer would fail, ``--fast`` reports without
shrinking, the report names a missing primitive, shows each failure's assertion and the
backend's warnings, is written as the run goes and on the first Ctrl-C, and a missing
``conformance`` extra is said plainly. (The time to a first report is recorded by
bench/conformance_first_report.py.)"""

import json
import os
import pathlib
import signal
import subprocess
import sys
import time

import pytest

import broken_backend


@pytest.fixture
def run(tmp_path):
    """Run ``python -m candlewick.conformance broken ...`` in tmp_path with the given mistakes."""
    path = os.pathsep.join(broken_backend.register(tmp_path / "site"))

    def go(args, mistakes, timeout=300):
        env = dict(os.environ, PYTHONPATH=path, **{broken_backend.MISTAKES_ENV: mistakes})
        return subprocess.run([sys.executable, "-m", "candlewick.conformance", "broken", *args], cwd=tmp_path,
                              env=env, capture_output=True, text=True, timeout=timeout)

    go.env = lambda mistakes: dict(os.environ, PYTHONPATH=path, **{broken_backend.MISTAKES_ENV: mistakes})
    return go


def _report(tmp_path):
    (backend,) = json.loads((tmp_path / "r.json").read_text())["backends"]
    return backend, (tmp_path / "r.md").read_text()


def test_a_broken_host_transfer_blocks_the_later_stages(run, tmp_path):
    done = run(["--fast", "--markdown", "r.md", "--json", "r.json", "--", "-q"], "to_host_0d")
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]
    backend, md = _report(tmp_path)
    assert backend["state"] == "complete" and backend["blocked_by"] == "device and host transfer"
    assert set(backend["stages"]["creation"]) == {"blocked"} and set(backend["stages"]["primitives"]) == {"blocked"}
    assert backend["stages"]["device and host transfer"]["fail"] == len(backend["failures"]) > 0
    assert all("to_host" in f["test"] for f in backend["failures"])
    # the assertion itself, not the test's parameters
    assert any("to_host of shape () returned bool, not a C-contiguous NumPy array" in f["message"]
               for f in backend["failures"]), backend["failures"][0]["message"]
    assert "**Stage 'device and host transfer' failed**" in md and "*blocked*" in md
    assert "stage 'device and host transfer' failed: the later stages wait for it" in done.stdout


def test_missing_primitive_assertions_and_warnings_are_reported(run, tmp_path):
    tests = "has_the_primitive or test_unary or test_isin or test_fusion"
    done = run(["--fast", "--markdown", "r.md", "--json", "r.json", "--", "-q", "-k", tests], "isin,warnings")
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]
    backend, md = _report(tmp_path)
    assert backend["blocked_by"] is None and backend["state"] == "complete"
    failed = {f["test"]: f["message"] for f in backend["failures"]}
    named = failed["test_device.py::test_storage_has_the_primitive[broken-isin]"]
    assert "BrokenStorage has no method 'isin': BackendStorage.isin of candlewick/backend.py" in named
    assert all("isin" in test for test in failed), sorted(failed)
    assert "AttributeError: 'BrokenStorage' object has no attribute 'isin'" in md
    warned = {w["warning"].split(" (")[0] for w in backend["warnings"]}
    assert "RuntimeWarning: divide by zero encountered in log" in warned, backend["warnings"]
    assert all("broken_backend.py" in w["warning"] for w in backend["warnings"])  # the backend's own only
    assert backend["rows"]["unary"]["cells"]["float64"] == {"status": "pass", "warnings": True}
    assert "### warnings raised by the backend" in md and "pass ⚠" in md
    # the optional group it does not declare: skipped, and said so
    assert backend["rows"]["fusion.compile_fused"]["cells"]["float32"] == {"status": "not declared"}
    assert "*skipped: not declared by the backend*" in md


def test_the_report_is_written_during_the_run_and_on_the_first_ctrl_c(run, tmp_path):
    """A run without --fast (shrinking every failure) is stopped by one SIGINT; the report
    was on disk, marked partial, before, and says interrupted after."""
    log = tmp_path / "run.log"
    with open(log, "w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "candlewick.conformance", "broken", "--markdown", "r.md", "--json", "r.json",
             "--", "-q"], cwd=tmp_path, env=run.env("binary_rhs"), stdout=out, stderr=subprocess.STDOUT,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # (a shell's background jobs ignore it)
    try:
        deadline = time.monotonic() + 240
        while not (tmp_path / "r.md").exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert "**This report is partial: in progress:" in (tmp_path / "r.md").read_text(), log.read_text()[-3000:]
        proc.send_signal(signal.SIGINT)
        try:
            code = proc.wait(timeout=240)
        except subprocess.TimeoutExpired:
            code = "still running 240 s after one SIGINT"
        assert code == 2, f"{code}: {log.read_text()[-3000:]}"  # 2: pytest's "interrupted"
    finally:
        proc.kill()
        proc.wait()
    backend, md = _report(tmp_path)
    assert backend["state"].startswith("interrupted (Ctrl-C) after") and "interrupted (Ctrl-C)" in md


def test_a_missing_conformance_extra_is_said_plainly(tmp_path):
    blocked = ("import sys, runpy\n"
               "class Missing:\n"
               "    def find_spec(self, name, path=None, target=None):\n"
               "        if name.split('.')[0] in ('pytest', 'hypothesis'):\n"
               "            raise ModuleNotFoundError(f'No module named {name!r}')\n"
               "sys.meta_path.insert(0, Missing())\n"
               "sys.argv = ['python -m candlewick.conformance'] + sys.argv[1:]\n"
               "runpy.run_module('candlewick.conformance', run_name='__main__', alter_sys=True)\n")
    repo = pathlib.Path(__file__).resolve().parents[2]
    env = dict(os.environ, PYTHONPATH=str(repo))
    helped = subprocess.run([sys.executable, "-c", blocked, "--help"], env=env, capture_output=True, text=True)
    assert helped.returncode == 0 and "--fast" in helped.stdout and "candlewick[conformance]" in helped.stdout
    done = subprocess.run([sys.executable, "-c", blocked, "cpu"], env=env, capture_output=True, text=True)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert "needs pytest and hypothesis (the 'conformance' extra)" in done.stderr
    assert "pip install 'candlewick[conformance]'" in done.stderr and "pip install '.[conformance]'" in done.stderr
