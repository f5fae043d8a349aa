"""The deep profile of the project's fuzz: many calls of every public callable on one
device, in batches run by subprocesses under a memory cap, and a record of what they did.

    python tools/reliability_fuzz.py --device cpu --calls 100000 --out bench/results

writes ``OUT/reliability_<kind>.md`` (``--kind``, default the device's name):
calls per function family, outcomes by class, and the counts the project promises are
zero (foreign exceptions, escaped warnings, changed inputs, crashes or hangs), with the
first findings of each kind. The targets, the arguments and the rule come from
``tests/array_api/fuzz_targets.py``, ``fuzz_arguments.py`` and ``fuzz_outcomes.py`` (the
bounded CI profile, ``tests/array_api/test_fuzz.py``, uses the same). A batch whose
process dies (a signal, the memory cap, a hang past ``--batch-timeout``) counts as a
crash of the targets it held; the other batches go on. The memory cap is an
address-space limit where the device's memory is host memory; on a GPU (whose driver
reserves far more address space than it uses) the parent watches each batch's resident
memory instead and kills it past the cap. ``--deadline``: batches still running then are
stopped and listed as not finished (not as crashes), so a run with a time limit
(tools/gpu_run.sh) still writes its record. Exit status 1 when anything was found.
``--only REGEX``: the callables whose qualified name (``fft.rfft``,
``Array.__setitem__``, ``numpy.ufunc``) matches, alone (a check of newly added API; name
the record with ``--kind``).

``--tight-share`` (default 0.25; host-memory devices only): that share of each callable's
calls runs again in batches under a tight limit, the process's own footprint plus
``--tight-headroom-mib`` (256), with mid-size shapes among the integers, so that results
the size check lets through fail in the allocator, which must report DeviceMemoryError.
"""

import argparse
import collections
import concurrent.futures
import datetime
import json
import math
import os
import pathlib
import platform
import re
import resource
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "array_api")]

# the fuzz's own building blocks, from the test folder
import fuzz_arguments  # noqa: E402
import fuzz_outcomes  # noqa: E402
import fuzz_targets  # noqa: E402

ZERO_KINDS = {  # finding reason prefix -> the promise it breaks
    "foreign exception": "foreign exceptions",
    "a NumPy exception class leaked": "foreign exceptions",
    "raised inside NumPy": "foreign exceptions",
    "UnsupportedOperation on the reference": "foreign exceptions",
    "a warning escaped": "escaped warnings",
    "an input changed": "changed inputs",
    "the call ran for more than": "crashes or hangs",
    "returned a NumPy object": "NumPy objects returned",
}
PROMISES = ("foreign exceptions", "escaped warnings", "changed inputs", "crashes or hangs",
            "NumPy objects returned")


def _kind_of(reason):
    for prefix, kind in ZERO_KINDS.items():
        if prefix in reason:
            return kind
    return "foreign exceptions"


# --- worker: one batch of targets in this process ------------------------------------------

def _address_space_bytes():
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmSize:"))


def run_worker(device, names, examples, seed, memory_bytes, tight_headroom=0):
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hypothesis_seed

    import candlewick as cw
    from candlewick.backend import holds_host_memory

    dev = cw.get_device(device)
    targets = dict(fuzz_targets.public_targets())
    keywords = fuzz_arguments.keyword_pool(list(targets.items()))
    if tight_headroom:  # (host memory only: the parent runs no tight batch elsewhere)
        fuzz_arguments.MID_SIZES = True
        memory_bytes = _address_space_bytes() + tight_headroom
    if memory_bytes and holds_host_memory(dev):  # else the parent watches
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    on_reference = dev.backend == "cpu"
    sync = dev.synchronize
    report = {}
    for name in names:
        fn = targets[name]
        stats = {"calls": 0, "outcomes": collections.Counter(), "findings": {}, "notes": 0, "noted": None}

        @hypothesis_seed(seed)
        @settings(max_examples=examples, database=None, deadline=None, derandomize=False,
                  phases=[Phase.generate], suppress_health_check=list(HealthCheck))
        @given(call=fuzz_arguments.call_arguments(fn, keywords))
        def run(call):
            args, kwargs = call
            exc, result, warned, changed = fuzz_outcomes.invoke_checked(name, fn, args, kwargs, sync=sync)
            reason = fuzz_outcomes.problem_with(name, exc, result, on_reference, is_class=isinstance(fn, type),
                                                warned=warned, changed=changed)
            stats["calls"] += 1
            stats["outcomes"][fuzz_outcomes.outcome_class(exc, reason)] += 1
            if reason is not None:
                key = "|".join(map(str, fuzz_outcomes.finding_key(name, exc, reason)))
                if key not in stats["findings"]:
                    call_text = fuzz_outcomes.describe_call(name, args, kwargs)
                    stats["findings"][key] = [reason, fuzz_outcomes.format_finding(name, exc, reason, call_text)]
            elif fuzz_outcomes.soft_problem_with(name, exc):
                stats["notes"] += 1
                if stats["noted"] is None:  # the first, for the record to show
                    stats["noted"] = f"{type(exc).__name__}: {str(exc)[:200]}"

        with cw.default_device(device):
            run()
        report[name] = {"calls": stats["calls"], "outcomes": dict(stats["outcomes"]),
                        "findings": list(stats["findings"].values()), "notes": stats["notes"],
                        "noted": stats["noted"]}
    json.dump(report, sys.stdout)


# --- parent: batches in subprocesses, then the record ---------------------------------------

def _resident_bytes(pid):
    """The resident memory of process ``pid`` (0 when it cannot be read)."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _run_batch(index, group, device, examples, seed, memory_bytes, batch_timeout, deadline, tight_headroom=0):
    """(results of the batch's targets or None, a crash description or None, True when the
    deadline stopped it). ``tight_headroom``: bytes left above the worker's footprint (a
    tight-memory batch), 0 for the ``memory_bytes`` cap."""
    command = [sys.executable, __file__, "--worker", "--device", device, "--examples", str(examples),
               "--seed", str(seed + index), "--memory-bytes", str(memory_bytes), "--names", json.dumps(group),
               "--tight-headroom-bytes", str(tight_headroom)]
    started = time.monotonic()
    what = f"{'tight-memory ' if tight_headroom else ''}batch {index} ({len(group)} targets: {group[:4]}...)"
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(command, stdout=out, stderr=err, text=True, cwd=ROOT)
        stopped = None
        while proc.poll() is None:
            now = time.monotonic()
            if deadline is not None and now > deadline:
                stopped = "deadline"
            elif now - started > batch_timeout:
                stopped = f"hung past {batch_timeout:.0f} s"
            elif memory_bytes and _resident_bytes(proc.pid) > memory_bytes:
                stopped = f"passed the {memory_bytes // 2**20} MiB memory cap"
            if stopped:
                proc.kill()
                proc.wait()
                break
            time.sleep(0.2)
        if stopped == "deadline":
            return None, None, True
        if stopped:
            return None, f"{what} {stopped}", False
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if proc.returncode != 0:
        # the record keeps a line; the run's log keeps the traceback
        print(f"{what} exited with status {proc.returncode}; its stderr ends:", *stderr.strip().splitlines()[-80:],
              sep="\n", file=sys.stderr, flush=True)
        tail = stderr.strip().splitlines()[-3:]
        return None, f"{what} exited with status {proc.returncode}: {' / '.join(tail)[:300]}", False
    print(f"batch {index + 1}: {len(group)} targets, {time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)
    return json.loads(stdout), None, False


def _merge(merged, results):
    """Add a batch's per-target results to ``merged`` (a target may run in a normal and a
    tight-memory batch)."""
    for name, stats in results.items():
        into = merged.setdefault(name, {"calls": 0, "outcomes": {}, "findings": [], "notes": 0, "noted": None})
        into["calls"] += stats["calls"]
        into["notes"] += stats["notes"]
        into["noted"] = into["noted"] or stats["noted"]
        for outcome, count in stats["outcomes"].items():
            into["outcomes"][outcome] = into["outcomes"].get(outcome, 0) + count
        known = {reason for reason, _ in into["findings"]}
        into["findings"] += [f for f in stats["findings"] if f[0] not in known]


def run_batches(device, calls, batches, memory_bytes, batch_timeout, seed, jobs, deadline=None,
                tight_share=0.0, tight_headroom=0, only=None):
    """(results by target, crash descriptions, calls per callable, targets not finished,
    calls per callable under the tight limit). ``only``: a regular expression; the
    callables whose qualified name it finds, alone."""
    names = [name for name, _ in fuzz_targets.public_targets() if only is None or re.search(only, name)]
    if not names:
        raise SystemExit(f"--only {only!r} names no public callable")
    batches = min(batches, len(names))
    examples = max(1, math.ceil(calls / len(names)))
    groups = [names[i::batches] for i in range(batches)]
    tight_examples = max(1, math.ceil(examples * tight_share)) if tight_share > 0 and tight_headroom else 0
    runs = [(i, g, examples, 0) for i, g in enumerate(groups)]
    if tight_examples:
        runs += [(batches + i, g, tight_examples, tight_headroom) for i, g in enumerate(groups)]
    merged, crashes, unfinished = {}, [], []
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:  # threads only wait on processes
        futures = [pool.submit(_run_batch, i, g, device, n, seed, memory_bytes, batch_timeout, deadline, headroom)
                   for i, g, n, headroom in runs]
        for (_, group, _, _), future in zip(runs, futures):
            results, crash, late = future.result()
            if late:
                unfinished += [n for n in group if n not in unfinished]
            elif crash:
                crashes.append(crash)
            else:
                _merge(merged, results)
    return merged, crashes, examples, unfinished, tight_examples


def summarize(merged, crashes):
    families = collections.defaultdict(lambda: {"targets": 0, "calls": 0, "outcomes": collections.Counter()})
    broken = collections.Counter()
    findings = collections.defaultdict(list)
    notes = []  # (callable, how many, the first message) of errors not naming their function
    for name, stats in merged.items():
        family = families[fuzz_targets.family_of(name)]
        family["targets"] += 1
        family["calls"] += stats["calls"]
        family["outcomes"].update(stats["outcomes"])
        if stats["notes"]:
            notes.append((name, stats["notes"], stats["noted"]))
        for reason, text in stats["findings"]:
            kind = _kind_of(reason)
            broken[kind] += 1
            findings[kind].append(text)
    broken["crashes or hangs"] += len(crashes)
    findings["crashes or hangs"] += crashes
    return families, broken, findings, notes


def _commit():
    if os.environ.get("CANDLEWICK_COMMIT"):  # a copy whose .git is stale or absent (the GPU machine's)
        return os.environ["CANDLEWICK_COMMIT"]
    try:
        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT,
                             check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True,
                               text=True, cwd=ROOT).stdout.strip()
        return rev + ("+dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return os.environ.get("CANDLEWICK_COMMIT", "unknown")


def write_record(path, device, families, broken, findings, notes, examples, seconds, memory_bytes,
                 unfinished=(), device_text=None, tight_examples=0, tight_headroom=0, only=None):
    total = sum(f["calls"] for f in families.values())
    classes = sorted({c for f in families.values() for c in f["outcomes"]})
    lines = [
        f"# Reliability: the deep fuzz profile on `{device}`",
        "",
        f"- date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC; commit: `{_commit()}`; "
        f"host: {platform.node() or 'unknown'} ({os.cpu_count()} CPUs)" + (f"; device: {device_text}" if device_text else ""),
        f"- command: `python tools/reliability_fuzz.py --device {device} --calls {examples * len_targets(families)}"
        + (f" --only '{only}'" if only else "") + "` "
        f"({examples} calls per callable, batches in subprocesses capped at {memory_bytes / 2**30:g} GiB of "
        f"memory); {seconds:.0f} s",
        f"- calls: **{total}** over {sum(f['targets'] for f in families.values())} public callables",
    ]
    if tight_examples:
        lines.append(f"- of which {tight_examples} per callable under a tight memory limit (each batch's "
                     f"footprint + {tight_headroom // 2**20} MiB of address space, mid-size shapes among the "
                     f"integers: results the size check lets through fail in the allocator)")
    if unfinished:
        lines.append(f"- not finished by the deadline (not run, not counted): {len(unfinished)} callables: "
                     + ", ".join(f"`{n}`" for n in unfinished[:30]) + (" ..." if len(unfinished) > 30 else ""))
    lines += [
        "",
        "| promise | count |",
        "|---|---|",
    ]
    lines += [f"| 0 {kind} | {broken.get(kind, 0)} |" for kind in PROMISES]
    lines += ["", "Errors whose message does not name the function (noted, not counted as findings): "
                  f"{sum(count for _, count, _ in notes)}" + (" (first of each callable below)." if notes else "."),
              "", "## Calls per function family and outcomes by class", "",
              "| family | callables | calls | " + " | ".join(classes) + " |",
              "|---|---|---|" + "---|" * len(classes)]
    for name in sorted(families):
        family = families[name]
        cells = [str(family["outcomes"].get(c, 0)) for c in classes]
        lines.append(f"| {name} | {family['targets']} | {family['calls']} | " + " | ".join(cells) + " |")
    if any(findings.values()):
        lines += ["", "## Findings (first of each kind per callable)", ""]
        for kind in PROMISES:
            for text in findings.get(kind, [])[:40]:
                lines.append(text if text.startswith("- ") else f"- {text}")
    if notes:
        lines += ["", "## Errors whose message does not name the function (the first of each callable)", ""]
        lines += [f"- `{name}` ({count}): {first}" for name, count, first in sorted(notes)]
    pathlib.Path(path).write_text("\n".join(lines) + "\n")


def _holds_host_memory(device):
    """Whether ``device``'s memory is host memory (its own process answers: the parent
    imports no backend)."""
    probe = ("import sys, candlewick as cw; from candlewick.backend import holds_host_memory; "
             "print(holds_host_memory(cw.get_device(sys.argv[1])))")
    done = subprocess.run([sys.executable, "-c", probe, device], capture_output=True, text=True, cwd=ROOT)
    return done.stdout.strip() == "True"


def len_targets(families):
    return sum(f["targets"] for f in families.values())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--calls", type=int, default=100_000, help="calls in all (spread over every callable)")
    parser.add_argument("--batches", type=int, default=12)
    parser.add_argument("--memory-gib", type=float, default=4.0, help="address-space cap of each batch process")
    parser.add_argument("--batch-timeout", type=float, default=900.0)
    parser.add_argument("--seed", type=int, default=21)
    parser.add_argument("--jobs", type=int, default=1, help="batches run at once")
    parser.add_argument("--deadline", type=float, help="seconds: stop the batches still running then")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results"))
    parser.add_argument("--kind", help="the record's name after reliability_ (default: the device)")
    parser.add_argument("--device-text", help="the device in words, for the record (e.g. the GPU's model)")
    parser.add_argument("--tight-share", type=float, default=0.25,
                        help="share of each callable's calls run again under a tight memory limit (host memory)")
    parser.add_argument("--tight-headroom-mib", type=float, default=256.0,
                        help="address space a tight-memory batch has above its own footprint")
    parser.add_argument("--only", help="a regular expression: fuzz only the callables whose qualified name it "
                        "finds (e.g. 'Stream|profile|Kernel'); --calls is then spread over those")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--names", help=argparse.SUPPRESS)
    parser.add_argument("--examples", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--memory-bytes", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--tight-headroom-bytes", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        run_worker(args.device, json.loads(args.names), args.examples, args.seed, args.memory_bytes,
                   args.tight_headroom_bytes)
        return 0
    started = time.monotonic()
    memory_bytes = int(args.memory_gib * 2**30)
    deadline = None if args.deadline is None else started + args.deadline
    tight_headroom = int(args.tight_headroom_mib * 2**20) if _holds_host_memory(args.device) else 0
    merged, crashes, examples, unfinished, tight_examples = run_batches(
        args.device, args.calls, args.batches, memory_bytes, args.batch_timeout, args.seed, args.jobs, deadline,
        args.tight_share, tight_headroom, args.only)
    families, broken, findings, notes = summarize(merged, crashes)
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    record = out / f"reliability_{(args.kind or args.device).replace(':', '-')}.md"
    write_record(record, args.device, families, broken, findings, notes, examples,
                 time.monotonic() - started, memory_bytes, unfinished, args.device_text, tight_examples,
                 tight_headroom, args.only)
    print(f"wrote {record}: {sum(broken.values())} finding(s)")
    return 1 if sum(broken.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
