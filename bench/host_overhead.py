"""Host overhead of candlewick on the cpu backend beside NumPy and array-api-strict.

Issue 2: add, sum, matmul at 1 element and 10^7 elements.
Issue 22: every function of the namespace (bench/namespace_cases.py) at 16 and at 2^20
elements, and a profile of where the microseconds of one tiny op go.
Issue 39: sort at 2^16-2^24 elements beside NumPy's default sort (bench/sort_sweep.py).

    python bench/host_overhead.py --out DIR [--large N] [--namespace-sizes 16,1048576]
                                  [--sort-exponents 16,18,20,22,24] [--clock wall|process]

``--clock process`` times the namespace and size rows in CPU time of this process
(``time.process_time``) instead of wall time: on a shared machine under load, other
processes' work stays out of the figures (multi-threaded BLAS calls then count every
thread's time). The sort rows always use CPU time (bench/sort_sweep.py).

Writes DIR/host_overhead_<device-kind>.json and .md (bench/harness.py; the device kind
names the host's processor, e.g. cpu-amd-epyc).
"""

import os
import sys
import time
import timeit
from pathlib import Path

import array_api_strict as xs
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import candlewick as cw  # noqa: E402
import harness  # noqa: E402
import namespace_cases  # noqa: E402
import op_profile  # noqa: E402
import sort_sweep  # noqa: E402
import timing  # noqa: E402


calibrate, interleaved = timing.calibrate, timing.interleaved


def namespaces():
    return {"numpy": (np, np.asarray), "array-api-strict": (xs, xs.asarray), "candlewick": (cw, cw.asarray)}


def size_cases(n):
    """add, sum and matmul on ``n`` elements (matmul: square matrices of about n elements)."""
    rng = np.random.default_rng(0)
    label = "1 element" if n == 1 else f"{n:.0e} elements"
    side = max(1, int(round(n ** 0.5)))
    a = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    ma = rng.standard_normal((side, side)).astype(np.float32)
    return [
        (label, "add", (a, b), lambda ns, x, y: ns.add(x, y)),
        (label, "sum", (a,), lambda ns, x: ns.sum(x)),
        (label, f"matmul {side}x{side}", (ma, ma), lambda ns, x, y: ns.matmul(x, y)),
    ]


def run(cases_with_label):
    rows = []
    for label, name, host_args, call in cases_with_label:
        row = {"case": label, "op": name}
        fns = {}
        for ns_name, (ns, conv) in namespaces().items():
            args = [conv(h) for h in host_args]
            try:
                call(ns, *args)
                fns[ns_name] = (lambda ns=ns, args=args: call(ns, *args))
            except Exception as exc:  # a peer lacking a function is recorded, not fatal
                row[ns_name] = None
                row[f"{ns_name} error"] = f"{type(exc).__name__}: {exc}"
        large = max(h.size for h in host_args) > 100_000
        rows.append({**row, **interleaved(fns, rounds=5 if large else 9, timer=CLOCKS[CLOCK[0]])})
    return rows


def shared_inputs(host):
    """Each library's arrays of ``host``, all reading the same memory: candlewick copies the
    host arrays into its own buffers, and NumPy and array-api-strict get views of those
    buffers (from_dlpack). Where a 4 MiB input lies changes a streaming kernel's time by
    up to 20 % on this machine (the same np.arccos call on two copies of one array), so
    separate copies would time the allocator's placement, not the libraries."""
    cw_arrays = namespace_cases.as_namespace_arrays(cw, host)
    views = {k: np.from_dlpack(getattr(cw_arrays, k)) for k in host}
    return {"numpy": namespace_cases.as_namespace_arrays(np, views),
            "array-api-strict": namespace_cases.as_namespace_arrays(xs, views),
            "candlewick": cw_arrays}


def run_namespace(n):
    """Seconds per call of every row of namespace_cases at ``n`` elements, per library."""
    arrays = shared_inputs(namespace_cases.host_inputs(n))
    rows = []
    for name, call, numpy_call in namespace_cases.rows():
        row = {"case": f"{n} elements", "op": name}
        fns = {}
        for lib, (ns, _) in namespaces().items():
            fn = numpy_call if (lib == "numpy" and numpy_call is not None) else call
            A = arrays[lib]
            try:
                fn(ns, A)
                fns[lib] = (lambda fn=fn, ns=ns, A=A: fn(ns, A))
            except Exception as exc:  # a peer lacking a function is recorded, not fatal
                row[lib] = None
                row[f"{lib} error"] = f"{type(exc).__name__}: {exc}"[:200]
        large = n > 100_000
        row.update(interleaved(fns, rounds=LARGE_ROUNDS if large else 9, timer=CLOCKS[CLOCK[0]]))
        if large and meets(row, n) is False and not fixed_cost(row):
            again = interleaved(fns, rounds=CONFIRM_ROUNDS, timer=CLOCKS[CLOCK[0]])
            row.update({lib: min(row[lib], again[lib]) for lib in again})
            row["re-timed"] = True
        rows.append(row)
    return rows


#: the clocks rows may be timed by (``--clock``), and the one this run uses
CLOCKS = {"wall": timeit.default_timer, "process": time.process_time}
CLOCK = ["wall"]

#: interleaved rounds per row at 2^20 elements; a row over the 5 % line after them (not a
#: fixed cost) is timed for CONFIRM_ROUNDS more, every library again, and the minimum over
#: all rounds kept: on the shared VM one library's few rounds can all fall in a burst of
#: other load (a row 10-20 µs over in one run and within 1 % the next)
LARGE_ROUNDS = 7
CONFIRM_ROUNDS = 14


def fmt(t):
    if t is None:
        return "n/a"
    return f"{t * 1e6:.2f} µs" if t < 1e-3 else f"{t * 1e3:.2f} ms"


def meets(row, n):
    """The issue's target: within 2 µs of NumPy at 16 elements, within 5 % at 2^20."""
    c, p = row.get("candlewick"), row.get("numpy")
    if c is None or p is None:
        return None
    return c - p <= 2e-6 if n <= 16 else c <= 1.05 * p


def as_strict(row):
    """candlewick no slower than array-api-strict, a thin Python wrapper over the same NumPy
    call (the share of a difference that any wrapper pays on this machine)."""
    c, s = row.get("candlewick"), row.get("array-api-strict")
    return None if c is None or s is None else c <= s


def table(rows, n=None):
    lines = ["| op | NumPy | array-api-strict | candlewick | candlewick − NumPy | candlewick / NumPy"
             + (" | target met | ≤ array-api-strict |" if n else " |"),
             "|---|---|---|---|---|---" + ("|---|---|" if n else "|")]
    for r in rows:
        c, p = r["candlewick"], r["numpy"]
        diff = fmt(c - p) if c is not None and p is not None and c >= p else (
            f"−{fmt(p - c)}" if c is not None and p is not None else "n/a")
        ratio = f"{c / p:.3f}" if c is not None and p else "n/a"
        met = {True: "yes", False: "**no**", None: "n/a"}[meets(r, n)] if n else None
        strict = {True: "yes", False: "no", None: "n/a"}[as_strict(r)] if n else None
        lines.append(f"| {r['op']} | {fmt(p)} | {fmt(r.get('array-api-strict'))} | {fmt(c)} | {diff} | {ratio}"
                     + (f" | {met} | {strict} |" if n else " |"))
    return lines + [""]


#: NumPy calls faster than this at 2^20 elements make no pass over the data (4 MiB in 5 µs
#: would be 800 GB/s): their cost is fixed, and so is candlewick's on top of it
FIXED_COST_S = 5e-6


def fixed_cost(row):
    """A 5 % miss that is a fixed cost: NumPy's call makes no pass over the data (a view, a
    dtype query, an uninitialised allocation, a short-circuiting test) and candlewick stays
    within 2 µs of it, the 16-element target."""
    c, p = row.get("candlewick"), row.get("numpy")
    return None if c is None or p is None else p < FIXED_COST_S and c - p <= 2e-6


def summary(rows, n):
    verdicts = [meets(r, n) for r in rows]
    missed = [r["op"] for r, v in zip(rows, verdicts) if v is False]
    target = "within 2 µs of NumPy" if n <= 16 else "within 5 % of NumPy"
    line = f"{n} elements: {verdicts.count(True)} of {len(rows) - verdicts.count(None)} functions {target}"
    wrapped = [r["op"] for r in rows if meets(r, n) is False and as_strict(r)]
    line += f" ({len(wrapped)} more no slower than array-api-strict)" if wrapped else ""
    line += f"; not: {', '.join(missed)}" if missed else ""
    again = [r["op"] for r in rows if r.get("re-timed")]
    if again:
        line += (f"; re-timed for {CONFIRM_ROUNDS} more rounds after {LARGE_ROUNDS} (over the line at first): "
                 f"{', '.join(again)}")
    if n > 16 and missed:
        fixed = [r["op"] for r in rows if meets(r, n) is False and fixed_cost(r)]
        passes = [op for op in missed if op not in fixed]
        line += (f". Of these, {len(fixed)} are a fixed cost within 2 µs of NumPy (NumPy's own call under "
                 f"{FIXED_COST_S * 1e6:.0f} µs: no pass over the data): {', '.join(fixed) or 'none'}; "
                 f"the {len(passes)} others: {', '.join(passes) or 'none'}")
    return line


def main(argv=None):
    def options(p):
        p.add_argument("--large", type=int, default=10**7)
        p.add_argument("--namespace-sizes", default="16,1048576")
        p.add_argument("--sort-exponents", default="16,18,20,22,24")
        p.add_argument("--clock", choices=sorted(CLOCKS), default="wall")

    args = harness.parse_args(__doc__, options, argv)
    CLOCK[0] = args.clock
    load_before = os.getloadavg()
    # small cases first: while tens of MB were freshly allocated, every library's tiny
    # calls measured ~1.6x slower on the 2-core VM this was written on
    sizes_n = [int(v) for v in args.namespace_sizes.split(",")]
    namespace = {n: run_namespace(n) for n in sorted(sizes_n)}
    profile = op_profile.profile_tiny_ops()
    try:  # bench/diagnostics.py reads the internals a layer breakdown needs
        import diagnostics  # noqa: E402  (imported here: its failure costs only these figures)

        layers = op_profile.layers(diagnostics.storage_of)
    except Exception as exc:  # noqa: BLE001 - recorded, the rest of the run goes on
        layers = {"error": harness.error_text(exc)}
    sizes = run(size_cases(1)) + run(size_cases(args.large))
    exponents = [int(v) for v in args.sort_exponents.split(",") if v]
    sorts = sort_sweep.run(cw, timing.interleaved_rounds, exponents) if exponents else []
    load_after = os.getloadavg()
    small = namespace.get(min(sizes_n), [])
    dispatch = [r for r in small if r["op"] in DISPATCH_OPS]
    load = (f"load average (1, 5, 15 min) {', '.join(f'{v:.2f}' for v in load_before)} at the start, "
            f"{', '.join(f'{v:.2f}' for v in load_after)} at the end, on {os.cpu_count()} cores shared "
            "with other work: the minimum of interleaved runs is the figure least disturbed by it")
    clock = {"wall": "wall time", "process": "CPU time of this process (--clock process)"}[args.clock]
    md = [load, "", f"Clock: {clock}.", "", "Targets (issue 22): candlewick within 2 µs of NumPy per call at 16 elements, "
          "within 5 % of NumPy at 2^20 elements. Reading the 2^20 table: views and dtype functions "
          "(slices, reshape, broadcast_to, finfo...) cost the same at any size, so their 2^20 row is "
          "their 16-element overhead again; element-wise rows call the very NumPy function of the NumPy "
          "row, and their spread on this shared machine is that of array-api-strict, a thin wrapper over "
          "the same call (last column). A 2^20 row over the 5 % line after "
          f"{LARGE_ROUNDS} interleaved rounds (not a fixed cost) is timed for {CONFIRM_ROUNDS} more, "
          "every library, and the minimum over all rounds kept; the summary names those rows.", ""]
    for n, rows in namespace.items():
        md += [f"## Every namespace function at {n} elements", "",
               summary(rows, n), ""] + table(rows, n)
    md += op_profile.markdown(profile)
    md += op_profile.layers_markdown(layers) if isinstance(layers, list) else [
        f"Layer breakdown not measured: {layers['error']}", ""]
    md += ["## Issue 2: per-op cost, candlewick vs peers", ""] + table(sizes)
    md += sort_sweep.markdown(sorts) if sorts else []
    coverage = namespace_cases.coverage(cw)
    md += ["Functions of `candlewick.__all__` not measured, and why: " + "; ".join(
        f"`{k}` ({v})" for k, v in namespace_cases.NOT_MEASURED.items()) + "."]
    if coverage:
        md += [f"Functions without a row (to add): {', '.join(coverage)}."]
    peers = {"numpy": np.__version__, "array-api-strict": xs.__version__}
    device = f"cpu backend on {harness.cpu_name()}, {os.cpu_count()} cores"
    figures = {"candlewick": cw.__version__, "load_average": {"start": load_before, "end": load_after},
               "clock": args.clock,
               "namespace": {str(n): rows for n, rows in namespace.items()}, "profile": profile, "layers": layers,
               "sizes": sizes, "dispatch": dispatch, "sort_sizes": sorts}
    headline = [summary(rows, n) for n, rows in namespace.items()] + ([sort_sweep.summary(sorts)] if sorts else [])
    _, md_path = harness.write_record(args.out, "host_overhead", "cpu", device, peers, figures, md, headline)
    print(md_path.read_text())


# the ten functions of issue 3's table, kept as figures["dispatch"] for the notebook's plot
DISPATCH_OPS = ("add", "multiply", "sum", "mean", "matmul", "reshape", "take", "where", "sort", "x[1:3] (slice)")


if __name__ == "__main__":
    main()
