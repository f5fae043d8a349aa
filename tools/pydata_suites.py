"""Run scikit-learn's, SciPy's and xarray's own Array API tests, from their installed
wheels, twice in one run: with array-api-strict and with candlewick in its place
(tests/pydata_suites/candlewick_substitute.py says how each library gets candlewick).

    python tools/pydata_suites.py                        # the full run on CANDLEWICK_DEVICE (cpu)
    python tools/pydata_suites.py --subset ci            # the subset CI runs
    python tools/pydata_suites.py --libraries xarray --jobs 2 --out bench/results
    python tools/pydata_suites.py --check                # exit 1 if strict passes a test candlewick fails

Output: a table per library (tests strict passed, candlewick passed, and every test that
strict passes and candlewick fails, with its error and its cause where known:
``pydata_causes.py``), printed and, with ``--out DIR``, written as the record
``DIR/pydata_suites_<device-kind>.json`` and ``.md`` (bench/harness.py's format), which
``tools/gen_ecosystem_doc.py --suites`` turns into docs/ecosystem.md's section (merging
the records of every device). Needs the ``ecosystem`` and ``pydata-suites`` extras.
"""

import argparse
import collections
import importlib.metadata
import importlib.util
import json
import os
import pathlib
import re
import subprocess
import sys
import sysconfig
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "tools"))
import harness  # noqa: E402  (bench/harness.py: the record format)
from pydata_causes import IMPLICIT_COPY, cause_of  # noqa: E402

PLUGIN_DIR = ROOT / "tests" / "pydata_suites"
SITE = pathlib.Path(sysconfig.get_paths()["purelib"])
STRICT, CANDLEWICK = "array_api_strict", "candlewick"
DISTRIBUTIONS = {"sklearn": "scikit-learn", "scipy": "scipy", "xarray": "xarray"}
PEERS = ("scikit-learn", "scipy", "xarray", "array-api-strict", "array-api-compat", "numpy", "pandas", "dask", "pytest")

# the CI subset: modules chosen to touch each library's main Array API paths in a few minutes
CI_SUBSET = {
    "sklearn": ["sklearn/utils/tests/test_array_api.py", "sklearn/preprocessing/tests/test_data.py",
                "sklearn/metrics/tests/test_pairwise.py"],
    "scipy": ["scipy/special/tests/test_logsumexp.py", "scipy/fft/tests/test_basic.py",
              "scipy/cluster/tests/test_vq.py", "scipy/integrate/tests/test_quadrature.py"],
    "xarray": ["xarray/tests/test_array_api.py", "xarray/tests/test_duck_array_wrapping.py"],
}


def sklearn_targets():
    """Every scikit-learn test module that runs tests per Array API namespace, and the
    estimator checks (sklearn/tests/test_common.py, whose array API checks take their
    namespaces from the same helper)."""
    found = set()
    for path in (SITE / "sklearn").rglob("test_*.py"):
        text = path.read_text(encoding="utf-8", errors="replace")
        if "yield_namespace" in text or "_array_api_for_tests" in text:
            found.add(path.relative_to(SITE).as_posix())
    return sorted(found | {"sklearn/tests/test_common.py"})


def targets(library, subset):
    if subset == "ci":
        return list(CI_SUBSET[library])
    return {"sklearn": sklearn_targets, "scipy": lambda: ["scipy"],
            "xarray": lambda: list(CI_SUBSET["xarray"])}[library]()


def pytest_command(library, paths, jobs):
    # a config file of our own, so that neither candlewick's pyproject (its addopts and
    # warning filters) nor a stray one of the current folder applies
    ini = pathlib.Path(tempfile.gettempdir()) / "candlewick_pydata_pytest.ini"
    ini.write_text("[pytest]\n", encoding="utf-8")
    command = [sys.executable, "-m", "pytest", "-c", str(ini), "--rootdir", str(SITE), "-p", "candlewick_substitute",
               "-p", "no:cacheprovider", "-q", "-o", "faulthandler_timeout=300", "--continue-on-collection-errors"]
    if jobs > 1 and importlib.util.find_spec("xdist") is not None:
        command += ["-n", str(jobs)]
    if library == "scipy":
        command += ["-m", "array_api_backends"]
    if paths == ["scipy"]:
        command += ["--pyargs", "scipy"]
    else:
        command += [str(SITE / p) for p in paths]
    return command


def library_env(library, results):
    env = dict(os.environ, CANDLEWICK_PYDATA_RESULTS=str(results), CANDLEWICK_PYDATA_LIBRARY=library)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), str(PLUGIN_DIR), env.get("PYTHONPATH")) if p)
    # scikit-learn wants exactly "1"; SciPy's conftest reads a JSON list as the backends to
    # run (NumPy and Dask are left out: only strict, and candlewick beside it)
    env["SCIPY_ARRAY_API"] = '["array_api_strict"]' if library == "scipy" else "1"
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        env.setdefault(var, "1")
    return env


def run_library(library, subset, jobs, deadline, log_dir):
    results = pathlib.Path(log_dir) / f"{library}.jsonl"
    results.unlink(missing_ok=True)
    paths = targets(library, subset)
    command = pytest_command(library, paths, jobs)
    log = pathlib.Path(log_dir) / f"{library}.log"
    print(f"== {library}: {len(paths)} target(s), log {log}", flush=True)
    started = time.monotonic()
    with open(log, "w", encoding="utf-8") as out:
        process = subprocess.Popen(command, cwd=tempfile.gettempdir(), env=library_env(library, results),
                                   stdout=out, stderr=subprocess.STDOUT)
        try:
            status = process.wait(timeout=deadline)
            stopped = None
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            status, stopped = None, f"stopped at the {deadline:.0f} s deadline"
    seconds = time.monotonic() - started
    tail = log.read_text(encoding="utf-8", errors="replace").strip().splitlines()[-1:] or [""]
    print(f"   pytest exit {status}, {seconds:.0f} s: {tail[0]}", flush=True)
    entries = read_entries(results)
    if deadline is not None:
        deadline = max(deadline - seconds, 1.0)
    recheck_with_copies(library, entries, jobs, deadline, log_dir)
    return {"targets": paths, "seconds": round(time.monotonic() - started, 1), "exit": status,
            "stopped": stopped, "entries": entries}


def recheck_with_copies(library, entries, jobs, deadline, log_dir):
    """Off host memory, run again the candlewick tests that failed only because a NumPy call
    met the refused implicit device-to-host copy, with implicit copies allowed: each entry's
    ``with_copies`` says whether the library's test passes once its NumPy path gets host data."""
    refused = [e for e in entries.values() if e["namespace"] == CANDLEWICK
               and e["outcome"] in ("failed", "error") and IMPLICIT_COPY in (e.get("error") or "")]
    if not refused:
        return
    results = pathlib.Path(log_dir) / f"{library}_with_copies.jsonl"
    results.unlink(missing_ok=True)
    command = pytest_command(library, [e["nodeid"] for e in refused], jobs)
    env = dict(library_env(library, results), CANDLEWICK_PYDATA_IMPLICIT_COPY="1")
    log = pathlib.Path(log_dir) / f"{library}_with_copies.log"
    print(f"== {library}: {len(refused)} test(s) again with implicit host copies allowed, log {log}", flush=True)
    with open(log, "w", encoding="utf-8") as out:
        process = subprocess.Popen(command, cwd=tempfile.gettempdir(), env=env, stdout=out, stderr=subprocess.STDOUT)
        try:
            process.wait(timeout=deadline)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    again = read_entries(results)
    for entry in refused:
        entry["with_copies"] = again.get(entry["nodeid"], {}).get("outcome", "not run")


def read_entries(path):
    """The plugin's JSON lines; a test reported twice (a failing teardown after its call)
    keeps its worst outcome."""
    rank = {"passed": 0, "xpassed": 0, "skipped": 1, "xfailed": 2, "failed": 3, "error": 4}
    entries = {}
    if not pathlib.Path(path).exists():
        return entries
    for line in pathlib.Path(path).read_text(encoding="utf-8").splitlines():
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:  # a line cut by a killed worker
            continue
        old = entries.get(entry["nodeid"])
        if old is None or rank.get(entry["outcome"], 5) > rank.get(old["outcome"], 5):
            entries[entry["nodeid"]] = entry
    return entries


def compare(library, run, device):
    """The library's table: counts per namespace, and each test strict passes while
    candlewick does not, with its error and cause."""
    entries = run["entries"]
    by_ns = collections.defaultdict(collections.Counter)
    for entry in entries.values():
        by_ns[entry["namespace"]][entry["outcome"]] += 1
    strict_passed = {e["nodeid"] for e in entries.values() if e["namespace"] == STRICT and e["outcome"] == "passed"}
    failures, missing = [], 0
    # off the CPU, the library's own markers skip what it runs only on NumPy's memory
    # (SciPy's cpu_only: CuPy and PyTorch on CUDA are skipped the same way): counted by
    # the library's reason, not listed as candlewick's failures
    skipped_by_library = collections.Counter()
    for entry in entries.values():
        if entry["namespace"] != CANDLEWICK:
            continue
        twin = entry["twin"]
        if (twin in strict_passed and entry["outcome"] == "skipped" and device != "cpu"
                and (entry.get("where") or "").startswith(f"{library}/conftest.py")):
            skipped_by_library[entry["error"] or "no reason given"] += 1
            continue
        if twin in strict_passed and entry["outcome"] not in ("passed", "xpassed"):
            failures.append({"test": entry["nodeid"], "outcome": entry["outcome"], "error": entry["error"],
                             "where": entry["where"], "caller": entry.get("caller"),
                             "with_copies": entry.get("with_copies"), "cause": cause_of(library, entry, device)})
    paired = {e["twin"] for e in entries.values() if e["namespace"] == CANDLEWICK}
    missing = sorted(strict_passed - paired)
    # candlewick's failures where strict fails too (not counted against candlewick, but
    # xarray's duck-array table asks for them: there candlewick stands beside CuPy)
    also = [{"test": e["nodeid"], "outcome": e["outcome"], "error": e["error"], "where": e["where"],
             "caller": e.get("caller"), "with_copies": e.get("with_copies"), "cause": cause_of(library, e, device)}
            for e in entries.values() if e["namespace"] == CANDLEWICK and e["outcome"] in ("failed", "error")
            and e["twin"] not in strict_passed]
    return {
        "library": DISTRIBUTIONS[library], "version": _version(DISTRIBUTIONS[library]),
        "targets": run["targets"], "seconds": run["seconds"], "stopped": run["stopped"],
        "strict": dict(by_ns[STRICT]), "candlewick": dict(by_ns[CANDLEWICK]),
        "strict_passed": len(strict_passed),
        "candlewick_passed": by_ns[CANDLEWICK]["passed"] + by_ns[CANDLEWICK]["xpassed"],
        "strict_passed_candlewick_failed": sorted(failures, key=lambda f: f["test"]),
        "strict_passed_without_candlewick_twin": missing[:50], "without_twin": len(missing),
        "both_failed": len(also),
        "skipped_by_library_off_cpu": dict(skipped_by_library.most_common()),
        "duck_array_table": _duck_table(entries, also),
    }


def _duck_table(entries, also):
    """candlewick's row of xarray's duck-array table (tests/test_duck_array_wrapping.py)."""
    rows = [e for e in entries.values() if e["namespace"] == CANDLEWICK and "test_duck_array_wrapping" in e["nodeid"]]
    if not rows:
        return None
    counts = collections.Counter(e["outcome"] for e in rows)
    return {"tests": len(rows), "passed": counts["passed"] + counts["xpassed"], "xfailed_by_xarray": counts["xfailed"],
            "failed": [f for f in also if "test_duck_array_wrapping" in f["test"]]}


def _version(name):
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def _short(nodeid):
    return re.sub(r"^.*?/(tests/)?", "", nodeid, count=1)


def markdown(tables, device, subset):
    lines = [f"Subset: {subset}; device: {device}. Each library's own Array API tests, run with "
             f"array-api-strict and with candlewick in its place (tools/pydata_suites.py).", ""]
    lines += ["| library | version | strict ran | strict passed | candlewick passed | strict passed, candlewick not | time |",
              "|---|---|---|---|---|---|---|"]
    for t in tables:
        ran = sum(t["strict"].values())
        lines.append(f"| {t['library']} | {t['version']} | {ran} | {t['strict_passed']} | {t['candlewick_passed']} "
                     f"| {len(t['strict_passed_candlewick_failed'])} | {t['seconds']:.0f} s"
                     f"{' (' + t['stopped'] + ')' if t['stopped'] else ''} |")
    for t in tables:
        skipped = t.get("skipped_by_library_off_cpu") or {}
        if skipped:
            lines += ["", f"{t['library']}: {sum(skipped.values())} tests strict passes are skipped for candlewick on "
                          f"{device} by {t['library']}'s own markers for arrays off the CPU (as for CuPy's and "
                          f"PyTorch's CUDA arrays), not counted above; by the library's reason:", ""]
            lines += [f"- {count}: {reason[:160]}" for reason, count in list(skipped.items())[:15]]
            if len(skipped) > 15:
                lines.append(f"- {sum(list(skipped.values())[15:])}: {len(skipped) - 15} other reasons")
    for t in tables:
        duck = t.get("duck_array_table")
        if duck:
            lines += ["", f"xarray's duck-array table (tests/test_duck_array_wrapping.py): candlewick passed "
                          f"{duck['passed']} of {duck['tests']}, {duck['xfailed_by_xarray']} xfailed by xarray itself "
                          f"(for every namespace), {len(duck['failed'])} failed:"]
            lines += [f"- `{_short(f['test'])}`: {f['error'][:160]} — {f['cause'] or 'cause not known'}"
                      for f in duck["failed"]]
    for t in tables:
        failures = t["strict_passed_candlewick_failed"]
        lines += ["", f"## {t['library']} {t['version']}: {len(failures)} strict passes and candlewick does not", ""]
        if not failures:
            lines.append("None.")
            continue
        lines += ["| test | outcome | error | where | cause |", "|---|---|---|---|---|"]
        for f in failures:
            cells = [f"`{_short(f['test'])}`", f["outcome"], f["error"][:200], f["where"] or "", f["cause"] or "not known"]
            lines.append("| " + " | ".join(c.replace("|", "\\|").replace("\n", " ") for c in cells) + " |")
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--libraries", default="sklearn,scipy,xarray", help="comma list of sklearn, scipy, xarray")
    parser.add_argument("--subset", choices=("full", "ci"), default="full")
    parser.add_argument("--jobs", type=int, default=1, help="pytest-xdist workers per library (1: none)")
    parser.add_argument("--deadline", type=float, default=None,
                        help="seconds for the whole run: each library gets what those before it left, and is "
                             "stopped there (its table says so)")
    parser.add_argument("--out", help="folder for the record pydata_suites_<device-kind>.json/.md")
    parser.add_argument("--logs", help="folder for the pytest logs and raw results (default: a temporary one)")
    parser.add_argument("--check", action="store_true",
                        help="exit 1 when strict passes a test that candlewick fails without a known cause of theirs")
    args = parser.parse_args(argv)
    libraries = [name.strip() for name in args.libraries.split(",") if name.strip()]
    unknown = set(libraries) - set(DISTRIBUTIONS)
    if unknown:
        parser.error(f"unknown libraries {sorted(unknown)}; choose from {sorted(DISTRIBUTIONS)}")
    device = os.environ.get("CANDLEWICK_DEVICE") or "cpu"
    logs = pathlib.Path(args.logs or tempfile.mkdtemp(prefix="pydata_suites-"))
    logs.mkdir(parents=True, exist_ok=True)
    end = None if args.deadline is None else time.monotonic() + args.deadline
    tables = []
    for lib in libraries:
        left = None if end is None else max(end - time.monotonic(), 1.0)
        tables.append(compare(lib, run_library(lib, args.subset, args.jobs, left, logs), device))
    body = markdown(tables, device, args.subset)
    print("\n".join(body))
    if args.out:
        kind = "cpu" if device == "cpu" else "gpu"
        peers = {name: _version(name) for name in PEERS}
        figures = {"device": device, "subset": args.subset, "libraries": tables}
        headline = [f"{t['library']}: strict {t['strict_passed']} passed, candlewick "
                    f"{t['candlewick_passed']}, {len(t['strict_passed_candlewick_failed'])} strict-only" for t in tables]
        # one record per device kind and run: the full run of all three, else named by its part
        # (pydata_suites_scipy_<kind>; words joined by "_", as bench/results' names allow)
        name = "pydata_suites"
        if sorted(libraries) != sorted(DISTRIBUTIONS):
            name += "_" + "_".join(libraries)
        if args.subset != "full":
            name += f"_{args.subset}"
        paths = harness.write_record(args.out, name, kind, device, peers, figures, body, headline)
        print("wrote", *paths)
    if args.check:
        open_failures = [f for t in tables for f in t["strict_passed_candlewick_failed"]
                         if not (f["cause"] or "").startswith("theirs")]
        if open_failures or any(t["without_twin"] for t in tables):
            print(f"check: {len(open_failures)} test(s) strict passes and candlewick fails without a cause of "
                  f"theirs; {sum(t['without_twin'] for t in tables)} strict test(s) without a candlewick twin")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
