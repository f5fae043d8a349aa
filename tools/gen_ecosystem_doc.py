"""Write docs/ecosystem.md: from a run of tests/ecosystem, one row per case (library,
function), one column per backend, and the reason where a case does not pass; and, from
the records of tools/pydata_suites.py (bench/results/pydata_suites_*.json, one per device
kind: cpu, the GPU runs), the section on the libraries' own test suites.

    python tools/gen_ecosystem_doc.py --run                  # run on CANDLEWICK_TEST_BACKENDS (default cpu)
    python tools/gen_ecosystem_doc.py --results cpu.jsonl rocm.jsonl   # merge recorded runs
    python tools/gen_ecosystem_doc.py --suites [RECORD.json ...]       # only the suites' section, from records

A run records its outcomes through tests/ecosystem/conftest.py (CANDLEWICK_ECOSYSTEM_RESULTS);
on the GPU machine: ``CANDLEWICK_TEST_BACKENDS=cpu,rocm CANDLEWICK_ECOSYSTEM_RESULTS=eco.jsonl
python -m pytest tests/ecosystem`` and then ``--results eco.jsonl``.
"""

import argparse
import datetime
import glob
import importlib.metadata
import json
import re
import os
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
BACKENDS = ("cpu", "rocm")
LIBRARIES = ("scikit-learn", "scipy", "xarray", "dask", "distributed", "cubed", "zarr", "numpy")
SHOWN = {"passed": "pass", "failed": "FAIL", "xfailed": "known", "skipped": "skip"}
SUITES_BEGIN = "<!-- pydata-suites: generated from bench/results/pydata_suites_*.json -->"
SUITES_END = "<!-- pydata-suites: end -->"
SUITE_RECORDS = str(ROOT / "bench" / "results" / "pydata_suites_*.json")
IMPLICIT_COPY = "hands the array to NumPy"  # tools/pydata_causes.py's words for such a cause


def _cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def suites_section(record_paths):
    """The libraries' own suites, merged from the records of several devices."""
    records = [json.loads(pathlib.Path(p).read_text(encoding="utf-8")) for p in sorted(record_paths)]
    lines = [
        SUITES_BEGIN, "", "## The libraries' own test suites", "",
        "scikit-learn's, SciPy's and xarray's own Array API tests, run from their installed wheels by",
        "`tools/pydata_suites.py`: each test for array-api-strict and its twin with candlewick in its place,",
        "in the same run (tests/pydata_suites/candlewick_substitute.py: the libraries' own backend selection,",
        "candlewick added as they add CuPy or PyTorch). The bar: every test strict passes, candlewick passes;",
        "each exception is listed below with its cause (*theirs*: the library's line that shows it).",
        "",
    ]
    if not records:
        return lines + ["No record yet: run `python tools/pydata_suites.py --out bench/results`.", "", SUITES_END]
    lines += ["| library | version | device (record) | date, commit | strict ran | strict passed | candlewick passed "
              "| strict passed, candlewick not |", "|---|---|---|---|---|---|---|---|"]
    for record in records:
        for t in record["figures"]["libraries"]:
            ran = sum(t["strict"].values())
            stopped = f" ({t['stopped']})" if t.get("stopped") else ""
            lines.append(f"| {t['library']} | {t['version']} | {record['figures']['device']} ({record['device_kind']}, "
                         f"{record['figures']['subset']}) | {record['date'][:10]}, {record['commit']} | {ran}{stopped} "
                         f"| {t['strict_passed']} | {t['candlewick_passed']} | "
                         f"{len(t['strict_passed_candlewick_failed'])} |")
    for record in records:
        where = f"{record['figures']['device']} ({record['device_kind']})"
        for t in record["figures"]["libraries"]:
            duck = t.get("duck_array_table")
            if duck:
                lines += ["", f"**xarray's duck-array table on {where}** (tests/test_duck_array_wrapping.py, where "
                              f"xarray lists CuPy, JAX, pint and sparse): candlewick passed {duck['passed']} of "
                              f"{duck['tests']}, {duck['xfailed_by_xarray']} are xfailed by xarray for every "
                              f"namespace; failed: {len(duck['failed'])}" + (":" if duck["failed"] else ".")]
                lines += [f"- `{f['test'].split('::', 1)[-1]}`: {_cell(f['cause'] or f['error'])}" for f in duck["failed"]]
            skipped = t.get("skipped_by_library_off_cpu") or {}
            if skipped:
                top = "; ".join(f"{count}: {_cell(reason[:100])}" for reason, count in list(skipped.items())[:5])
                lines += ["", f"**{t['library']} on {where}:** {sum(skipped.values())} tests strict passes are skipped "
                              f"for candlewick by {t['library']}'s own markers for arrays off the CPU (its `cpu_only`, "
                              f"as for CuPy's and PyTorch's CUDA arrays); by reason: {top}."]
            failures = t["strict_passed_candlewick_failed"]
            if not failures:
                continue
            lines += ["", f"**{t['library']} on {where}: {len(failures)} test(s) strict passes and candlewick does "
                          f"not**", "", "| tests | error | cause |", "|---|---|---|"]
            grouped = {}
            for f in failures:
                test = f["test"].split("::", 1)[-1].split("[")[0]
                grouped.setdefault((test, f["error"][:160], f["cause"] or "not known yet"), []).append(f)
            for (test, error, cause), group in sorted(grouped.items()):
                lines.append(f"| `{test}` ({len(group)}) | {_cell(error)} | {_cell(cause)} |")
    lines += ["", "### SciPy on rocm: what converts to NumPy", ""]
    rocm = [(f, r) for r in records if r["figures"]["device"] != "cpu"
            for t in r["figures"]["libraries"] if t["library"] == "scipy"
            for f in t["strict_passed_candlewick_failed"] if IMPLICIT_COPY in (f["cause"] or "")]
    if rocm:
        modules = {}
        for f, _ in rocm:
            module = (f.get("caller") or f["where"] or "?").rsplit(":", 1)[0]
            modules.setdefault(module, set()).add(f["test"].split("::", 1)[-1].split("[")[0])
        lines += ["SciPy functions that convert their input with NumPy (SciPy's file that hands the array to NumPy, "
                  "the tests that met it; each passes with implicit host copies allowed):", ""]
        lines += [f"- `{m}`: {', '.join(f'`{t}`' for t in sorted(tests)[:8])}{' ...' if len(tests) > 8 else ''}"
                  for m, tests in sorted(modules.items())]
        # scipy.special's own tests name the function in their id ([candlewick-<function>-...])
        special = sorted({m.group(1) for f, _ in rocm
                          for m in [re.search(r"test_support_alternative_backends\w*\[candlewick-(\w+?)-", f["test"])]
                          if m})
        if special:
            lines += ["", f"The scipy.special functions among them ({len(special)}, from scipy.special's own tests; "
                          "the statistics tests above reach them through scipy.stats): "
                          + ", ".join(f"`{name}`" for name in special) + "."]
    else:
        lines += ["No GPU record of the suites yet: `tools/gpu_run.sh OUT pydata` writes them (its steps `pydata`, "
                  "scikit-learn and xarray, and `pydata_scipy`: `bench/pydata_suites_<libraries>_<gpu>.json` in "
                  "results.tar.gz, to be copied to bench/results/ before `python tools/gen_ecosystem_doc.py --suites`); "
                  "the tests/ecosystem table below lists the SciPy functions found to convert so far (rocm rows whose "
                  "reason says *converts the array with NumPy*)."]
    lines += ["", "What to do: SciPy computes these on the host with NumPy. Allow the copy "
              "(`candlewick.set_implicit_host_copy(True)` or `CANDLEWICK_IMPLICIT_HOST_COPY=1`): SciPy then copies "
              "the data to the host, computes, and hands back NumPy or candlewick arrays as its wrapper does; or "
              "convert explicitly (`candlewick.to_numpy(x)` in, `candlewick.asarray(result, device=x.device)` out), "
              "which keeps every copy visible in the code. Functions with a native path (SciPy's `fft`, "
              "`special.logsumexp`, the Array API paths of `stats`) stay on the device.", "", SUITES_END]
    return lines


def write_suites(out, record_paths):
    """Replace the suites' section of ``out`` (placed after the header's list where the
    document has none yet)."""
    path = pathlib.Path(out)
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    section = "\n".join(suites_section(record_paths)) + "\n"
    if SUITES_BEGIN in text and SUITES_END in text:
        head, rest = text.split(SUITES_BEGIN, 1)
        tail = rest.split(SUITES_END, 1)[1].lstrip("\n")
        text = head + section + ("\n" + tail if tail else "")
    elif "\n- passed: " in text:  # after the header's list, before the tests/ecosystem table
        cut = text.index("\n", text.index("\n- passed: ") + 1) + 1
        text = text[:cut] + "\n" + section + text[cut:]
    else:
        text = text.rstrip("\n") + "\n\n" + section
    path.write_text(text, encoding="utf-8")


def run_tests(results_path):
    env = dict(os.environ, CANDLEWICK_ECOSYSTEM_RESULTS=str(results_path))
    env.setdefault("CANDLEWICK_TEST_BACKENDS", "cpu")
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/ecosystem"]
    print("running:", " ".join(command), "on", env["CANDLEWICK_TEST_BACKENDS"], flush=True)
    # failures are part of the table, so pytest's exit status is reported, not raised
    status = subprocess.call(command, cwd=ROOT, env=env)
    print("pytest exit status:", status)


def read_results(paths):
    rows = {}
    for path in paths:
        for line in pathlib.Path(path).read_text(encoding="utf-8").splitlines():
            entry = json.loads(line)
            key = (entry["library"], entry["case"])
            rows.setdefault(key, {})[entry["backend"]] = entry
    return rows


def _reason(entries):
    for backend in BACKENDS:
        entry = entries.get(backend)
        if entry and entry["outcome"] != "passed" and entry["reason"]:
            where = entry.get("where")
            text = entry["reason"].replace("|", "\\|").replace("\n", " ")
            if where and where not in text:
                text = f"{text} (at {where})"
            return f"{backend}: {text}" if len(entries) > 1 else text
    return ""


def _commit():
    try:
        # "-dirty" when the tests ran with uncommitted changes
        return subprocess.check_output(["git", "describe", "--always", "--dirty"], cwd=ROOT, text=True).strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def render(rows):
    versions = []
    for name in LIBRARIES:
        try:
            versions.append(f"{name} {importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            versions.append(f"{name} (not installed)")
    counts = {b: sum(1 for e in rows.values() if e.get(b, {}).get("outcome") == "passed") for b in BACKENDS}
    ran = {b: sum(1 for e in rows.values() if b in e) for b in BACKENDS}
    lines = [
        "# candlewick in the PyData stack",
        "",
        "Generated by `tools/gen_ecosystem_doc.py` from a run of `tests/ecosystem` (each case",
        "runs the library on candlewick arrays and compares with the same call on NumPy arrays).",
        "Do not edit by hand.",
        "",
        f"- date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC; commit {_commit()}",
        f"- versions: {', '.join(versions)}",
        "- passed: " + "; ".join(f"{b} {counts[b]} of {ran[b]}" if ran[b] else f"{b} not run" for b in BACKENDS),
        "",
        "`pass`: equal to NumPy (and the result is a candlewick array where the library returns",
        "arrays); `known`: an expected failure, with its reason: *theirs* names the library's",
        "line, *ours* a candlewick gap; `FAIL`: an unexpected failure; `-`: not run on that backend.",
        "On rocm, implicit device-to-host conversion stays refused by default: a case that needs",
        "host data (a library that calls NumPy on the array) is a known failure there, and the",
        "reason says where. cubed, which writes every chunk to Zarr through `numpy.asarray`, runs",
        "with implicit host copies turned on (`candlewick.set_implicit_host_copy(True)`).",
        "",
        "| library | function | " + " | ".join(BACKENDS) + " | reason |",
        "|---|---|" + "---|" * len(BACKENDS) + "---|",
    ]
    for (library, case), entries in sorted(rows.items()):
        cells = [SHOWN.get(entries[b]["outcome"], entries[b]["outcome"]) if b in entries else "-"
                 for b in BACKENDS]
        lines.append(f"| {library} | `{case}` | " + " | ".join(cells) + f" | {_reason(entries)} |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--run", action="store_true", help="run tests/ecosystem first")
    parser.add_argument("--results", nargs="*", default=[], help="JSON-lines files of earlier runs")
    parser.add_argument("--out", default=str(ROOT / "docs" / "ecosystem.md"))
    parser.add_argument("--suites", nargs="*", default=None,
                        help="only (re)write the suites' section, from these records (default: bench/results/"
                             "pydata_suites_*.json)")
    args = parser.parse_args(argv)
    suite_records = args.suites if args.suites else glob.glob(SUITE_RECORDS)
    if args.suites is not None and not args.run and not args.results:
        write_suites(args.out, suite_records)
        print(f"wrote the suites' section of {args.out} from {len(suite_records)} record(s)")
        return
    paths = list(args.results)
    if args.run:
        handle, fresh = tempfile.mkstemp(suffix=".jsonl", prefix="ecosystem-")
        os.close(handle)
        run_tests(fresh)
        paths.append(fresh)
    if not paths:
        parser.error("nothing to write from: give --run and/or --results")
    rows = read_results(paths)
    if not rows:
        parser.error(f"no ecosystem results in {paths}")
    pathlib.Path(args.out).write_text(render(rows), encoding="utf-8")
    write_suites(args.out, suite_records)
    print(f"wrote {args.out}: {len(rows)} cases, and the suites' section from {len(suite_records)} record(s)")


if __name__ == "__main__":
    main()
