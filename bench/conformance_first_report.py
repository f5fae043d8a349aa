"""Time to a first conformance report for a broken backend (issue 35, item 1).

A backend author's first run, measured: ``python -m candlewick.conformance broken
--markdown r.md --json r.json`` against tests/conformance_report/broken_backend.py (a
host-memory backend with the mistakes of a first backend: a ``to_host`` that returns a
scalar for 0-d arrays, a missing ``isin``, NumPy warnings on; or a ``binary`` that reads
its right operand as contiguous). For each scenario the report file is polled: the time
until it first exists, until it lists a failure with its assertion, and until the run
ends, with the run's counts. ``--no-stages`` with the default profile is the behaviour
before stages and ``--fast`` (every test run and shrunk one by one); it is cut off at
``--limit`` seconds and its share of tests done then is recorded.

    python bench/conformance_first_report.py --out DIR [--scenarios NAME,...] [--limit S]
"""

import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import harness

ROOT = harness.ROOT
# by path: tests/ is no package (the backend module registers itself with a dist-info)
_spec = importlib.util.spec_from_file_location("broken_backend", ROOT / "tests" / "conformance_report" /
                                               "broken_backend.py")

#: name -> (mistakes, CLI options); the default run takes the first three (a few minutes)
SCENARIOS = {
    "to_host fast": ("to_host_0d,isin,warnings", ["--fast"]),
    "to_host default": ("to_host_0d,isin,warnings", []),
    "binary fast": ("isin,warnings,binary_rhs", ["--fast"]),
    "binary default": ("isin,warnings,binary_rhs", []),
    "to_host unstaged": ("to_host_0d,isin,warnings", ["--no-stages"]),  # as before stages and --fast
}


def _add_arguments(parser):
    parser.add_argument("--scenarios", default=",".join(list(SCENARIOS)[:3]),
                        help="comma list of scenario names (default: the first three): " + ", ".join(SCENARIOS))
    parser.add_argument("--limit", type=float, default=300.0, help="seconds before a run is cut off")


def _pythonpath(work):
    sys.path.insert(0, str(ROOT / "examples" / "host_backend"))  # broken_backend imports host_backend
    module = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(module)
    return module.MISTAKES_ENV, os.pathsep.join(module.register(work / "site"))


def run_scenario(name, mistakes, options, limit):
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        env_name, path = _pythonpath(work)
        env = dict(os.environ, PYTHONPATH=path, **{env_name: mistakes})
        env.pop("CANDLEWICK_HYPOTHESIS_PROFILE", None)
        md, js = work / "r.md", work / "r.json"
        cmd = [sys.executable, "-m", "candlewick.conformance", "broken", *options, "--markdown", str(md),
               "--json", str(js), "--", "-q"]
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=work, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        first = first_failure = None
        while proc.poll() is None and time.perf_counter() - t0 < limit:
            if first is None and md.exists():
                first = time.perf_counter() - t0
            if first_failure is None and md.exists() and "### failing tests" in md.read_text():
                first_failure = time.perf_counter() - t0
            time.sleep(0.25)
        cut = proc.poll() is None
        if cut:
            proc.kill()
            proc.wait()
        end = time.perf_counter() - t0
        if first_failure is None and md.exists() and "### failing tests" in md.read_text():
            first_failure = end
        backend = json.loads(js.read_text())["backends"][0] if js.exists() else {}
        tests_run = sum(sum(tally.values()) for tally in backend.get("stages", {}).values())
        return {"mistakes": mistakes, "options": " ".join(options) or "(none)",
                "first_report_s": first, "first_failure_s": first_failure,
                "end_s": None if cut else end, "cut_off_after_s": end if cut else None,
                "exit_code": None if cut else proc.returncode, "state": backend.get("state"),
                "tests_run": tests_run, "blocked_by": backend.get("blocked_by"), "counts": backend.get("counts"),
                "failing_tests": len(backend.get("failures", [])), "warnings": len(backend.get("warnings", []))}


def _s(value):
    return "-" if value is None else f"{value:.1f}"


def main(argv=None):
    args = harness.parse_args(__doc__, _add_arguments, argv)
    names = [n.strip() for n in args.scenarios.split(",") if n.strip()]
    unknown = [n for n in names if n not in SCENARIOS]
    if unknown:
        raise SystemExit(f"unknown scenarios {unknown}; known: {list(SCENARIOS)}")
    figures = {"limit_s": args.limit, "scenarios": {}}
    for name in names:
        mistakes, options = SCENARIOS[name]
        figures["scenarios"][name] = row = run_scenario(name, mistakes, options, args.limit)
        print(f"{name}: first report {_s(row['first_report_s'])} s, first failure {_s(row['first_failure_s'])} s, "
              f"end {_s(row['end_s'])} s ({row['tests_run']} tests, state {row['state']})", flush=True)
    import hypothesis
    import pytest

    body = ["Each run: `python -m candlewick.conformance broken OPTIONS --markdown r.md --json r.json` on "
            "tests/conformance_report/broken_backend.py with `CANDLEWICK_BROKEN_MISTAKES=MISTAKES`; the report "
            "file polled every 0.25 s. *first failure*: the Markdown report lists a failing test with its "
            "assertion. A run past the limit is cut off (its report says how far it got).", "",
            "| scenario | mistakes | options | first report (s) | first failure (s) | run ends (s) | tests run "
            "| state | failing tests | later stages blocked by |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    for name, row in figures["scenarios"].items():
        end = _s(row["end_s"]) if row["end_s"] is not None else f"cut off at {_s(row['cut_off_after_s'])}"
        body.append(f"| {name} | {row['mistakes']} | {row['options']} | {_s(row['first_report_s'])} | "
                    f"{_s(row['first_failure_s'])} | {end} | {row['tests_run']} | {row['state']} | "
                    f"{row['failing_tests']} | {row['blocked_by'] or '-'} |")
    headline = [f"{name}: first failure reported after {_s(row['first_failure_s'])} s, run ends "
                f"{_s(row['end_s']) if row['end_s'] is not None else 'cut off'}"
                for name, row in figures["scenarios"].items()]
    harness.write_record(args.out, "conformance_first_report", "cpu", harness.cpu_name(),
                         {"pytest": pytest.__version__, "hypothesis": hypothesis.__version__}, figures, body,
                         headline)


if __name__ == "__main__":
    main()
