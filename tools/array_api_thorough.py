"""The thorough profile of tests/array_api on one backend, and the record of what it ran.

    python tools/array_api_thorough.py --backend cpu --out bench/results
    python tools/array_api_thorough.py --backend rocm --workers 8 --out bench/results

runs ``tests/array_api`` (or ``--paths``) under the Hypothesis profile ``thorough`` (400
examples a test, not derandomized; CI keeps ``ci``) with
``CANDLEWICK_TEST_BACKENDS=<backend>``, and writes
``OUT/array_api_thorough_<backend>-<device kind>.md``: the pytest outcome, the examples
each Hypothesis test ran (Hypothesis's statistics), summed per test file, and for the
element-wise, clip and masking tests each test's count, so that the record shows
hundreds of examples for each. Exit status: pytest's.
"""

import argparse
import collections
import datetime
import os
import pathlib
import platform
import re
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import harness  # noqa: E402  (device kind and commit, as the benchmarks' records name them)

#: the tests the record lists one by one: every element-wise function, clip and masking
FOCUS = re.compile(r"test_elementwise\.py::|clip|mask")
_STATS_HEADER = re.compile(r"^(tests/array_api/\S+::\S+):$")
# Hypothesis's statistics line, in both of its wordings: "- 400 passing examples, 0 failing
# examples, 50 invalid examples" (older releases) and "- 400 passing, 0 failing, and 50 invalid
# test cases" (newer ones, e.g. on the GPU machine's wheels)
_EXAMPLES = re.compile(r"- (\d+) passing(?: examples?)?, (\d+) failing(?: examples?)?, (?:and )?(\d+) invalid")
_SUMMARY = re.compile(r"^=*\s*(\d+ (?:passed|failed|errors?)\b.*?) in ([\d.]+)s", re.MULTILINE)


def run_pytest(backend, workers, paths, extra):
    command = [sys.executable, "-m", "pytest", *paths, "-q", "-p", "no:cacheprovider", "--tb=short",
               "--hypothesis-show-statistics"] + (["-n", str(workers)] if workers > 1 else []) + extra
    env = dict(os.environ, CANDLEWICK_HYPOTHESIS_PROFILE="thorough", CANDLEWICK_TEST_BACKENDS=backend)
    started = time.monotonic()
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    return command, done, time.monotonic() - started


def parse_statistics(text):
    """{test id: (passing, failing, invalid)} from Hypothesis's statistics: a test's
    phases add up (generate, and shrink after a failure)."""
    counts = {}
    current = None
    for line in text.splitlines():
        header = _STATS_HEADER.match(line.strip())
        if header:
            current = header.group(1)
            counts.setdefault(current, [0, 0, 0])
            continue
        found = _EXAMPLES.search(line)
        if found and current is not None:
            for i, value in enumerate(found.groups()):
                counts[current][i] += int(value)
    return {test: tuple(values) for test, values in counts.items()}


_SECTION = re.compile(r"^_{3,} (\S.*?) _{3,}$")


def failure_details(text, keep=25):
    """{test: its report's telling lines}: the falsifying example and the error lines
    (``E   ...``) of each failure section of pytest's output, at most ``keep`` lines each."""
    details = {}
    current = None
    in_example = False  # inside a "Falsifying example: test(" block, whose arguments are indented
    for line in text.splitlines():
        section = _SECTION.match(line)
        if section:
            current, in_example = section.group(1), False
            details[current] = []
            continue
        if line.startswith("="):
            current = None
            continue
        in_example = "Falsifying" in line or (in_example and line.startswith((" ", ")")))
        if current is not None and (line.startswith("E ") or in_example) and len(details[current]) < keep:
            details[current].append(line.rstrip()[:300])
    return {test: lines for test, lines in details.items() if lines}


def write_record(path, backend, kind, command, done, seconds, counts, workers):
    summaries = _SUMMARY.findall(done.stdout)
    outcome = summaries[-1][0] if summaries else f"pytest exited with status {done.returncode}"
    by_file = collections.defaultdict(lambda: [0, 0])
    for test, (passing, _, _) in counts.items():
        entry = by_file[test.split("::")[0]]
        entry[0] += 1
        entry[1] += passing
    focus = sorted((t, c) for t, c in counts.items() if FOCUS.search(t))
    few = [(t, c) for t, c in focus if c[0] < 100]
    passing = [c[0] for _, c in focus]
    lines = [
        f"# tests/array_api under the thorough Hypothesis profile on `{backend}`",
        "",
        f"- date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC; commit: `{harness.commit()}`; "
        f"host: {platform.node() or 'unknown'} ({os.cpu_count()} CPUs); device kind: {kind}",
        f"- command: `CANDLEWICK_HYPOTHESIS_PROFILE=thorough CANDLEWICK_TEST_BACKENDS={backend} "
        f"{' '.join(['python'] + command[1:])}` (via `python tools/array_api_thorough.py --backend {backend}"
        f"{f' --workers {workers}' if workers > 1 else ''}`); {seconds:.0f} s",
        f"- pytest: **{outcome}**",
        f"- Hypothesis tests: {len(counts)}, examples run: **{sum(c[0] for c in counts.values())}** "
        f"(CI's `ci` profile runs 25 a test)",
        f"- element-wise, clip and masking tests: {len(focus)}, examples each: min {min(passing, default=0)}, "
        f"median {sorted(passing)[len(passing) // 2] if passing else 0}, max {max(passing, default=0)}; "
        f"{len(few)} below 100" + (" (their search space is smaller: Hypothesis stops when it has tried it all)"
                                   if few else ""),
        "",
        "## Examples per test file",
        "",
        "| file | Hypothesis tests | passing examples |",
        "|---|---|---|",
    ]
    lines += [f"| {name} | {tests} | {examples} |" for name, (tests, examples) in sorted(by_file.items())]
    lines += ["", "## Element-wise, clip and masking tests", "",
              "| test | passing | failing | invalid |", "|---|---|---|---|"]
    lines += [f"| `{test.split('::', 1)[1]}` | {p} | {f} | {i} |" for test, (p, f, i) in focus]
    failures = [line for line in done.stdout.splitlines() if line.startswith(("FAILED", "ERROR"))]
    if failures:
        lines += ["", "## Failures", ""] + [f"- `{line}`" for line in failures[:60]]
        details = failure_details(done.stdout)
        for test, excerpt in list(details.items())[:20]:
            lines += ["", f"### `{test}`", "", "```", *excerpt, "```"]
    path.write_text("\n".join(lines) + "\n")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--backend", default="cpu")
    parser.add_argument("--kind", help="the device kind in the record's name (default: harness.device_kind)")
    parser.add_argument("--workers", type=int, default=1, help="pytest-xdist workers (1: none)")
    parser.add_argument("--paths", nargs="+", default=["tests/array_api"],
                        help="test files or folders (default: tests/array_api)")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results"))
    parser.add_argument("pytest_args", nargs="*", help="more pytest arguments (after --)")
    args = parser.parse_args(argv)
    kind = args.kind or harness.device_kind("cpu" if args.backend == "cpu" else "gpu")
    if args.backend != "cpu" and not kind.startswith(args.backend):
        kind = f"{args.backend}-{kind}"
    command, done, seconds = run_pytest(args.backend, args.workers, args.paths, args.pytest_args)
    counts = parse_statistics(done.stdout)
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    record = out / f"array_api_thorough_{kind}.md"
    write_record(record, args.backend, kind, command, done, seconds, counts, args.workers)
    # the whole output (tracebacks and falsifying examples included) goes to our caller's log
    sys.stdout.write(done.stdout)
    sys.stderr.write(done.stderr[-3000:])
    print(f"wrote {record}")
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
