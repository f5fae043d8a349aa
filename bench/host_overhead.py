"""Host overhead of candlewick on the cpu backend beside NumPy and array-api-strict.

Issue 2: add, sum, matmul at 1 element and 10^7 elements.
Issue 3: dispatch overhead of ten common functions on tiny inputs.

    python bench/host_overhead.py --out DIR [--large N]

Writes DIR/host_overhead_<device-kind>.json and .md (bench/harness.py; the device kind
names the host's processor, e.g. cpu-amd-epyc).
"""

import os
import statistics
import sys
import timeit
from pathlib import Path

import array_api_strict as xs
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import candlewick as cw  # noqa: E402
import harness  # noqa: E402


def calibrate(fn, budget=0.05):
    """Calls per timing run so that one run takes about ``budget`` seconds."""
    fn()
    number = 1
    while timeit.timeit(fn, number=number) < budget / 4 and number < 1 << 20:
        number *= 4
    return number


def interleaved(fns, rounds=15):
    """Seconds per call of each function: the minimum over ``rounds`` runs, the peers
    measured in turn within each round so that machine drift hits them alike (the
    minimum is the figure least disturbed by other load, as timeit's docs advise)."""
    numbers = {k: calibrate(f) for k, f in fns.items()}
    best = {k: float("inf") for k in fns}
    for _ in range(rounds):
        for k, f in fns.items():
            best[k] = min(best[k], timeit.timeit(f, number=numbers[k]) / numbers[k])
    return best


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


def dispatch_cases():
    rng = np.random.default_rng(1)
    a = rng.standard_normal(16).astype(np.float32)
    b = rng.standard_normal(16).astype(np.float32)
    m = rng.standard_normal((4, 4)).astype(np.float32)
    idx = np.array([3, 1, 2], dtype=np.int64)
    cond = a > 0
    return [
        ("add", (a, b), lambda ns, x, y: ns.add(x, y)),
        ("multiply", (a, b), lambda ns, x, y: ns.multiply(x, y)),
        ("sum", (a,), lambda ns, x: ns.sum(x)),
        ("mean", (a,), lambda ns, x: ns.mean(x)),
        ("matmul", (m, m), lambda ns, x, y: ns.matmul(x, y)),
        ("reshape", (a,), lambda ns, x: ns.reshape(x, (4, 4))),
        ("take", (a, idx), lambda ns, x, i: ns.take(x, i)),
        ("where", (cond, a, b), lambda ns, c, x, y: ns.where(c, x, y)),
        ("sort", (a,), lambda ns, x: ns.sort(x)),
        ("__getitem__", (a,), lambda ns, x: x[1:3]),
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
        rows.append({**row, **interleaved(fns, rounds=11 if large else 15)})
    return rows


def fmt(t):
    if t is None:
        return "n/a"
    return f"{t * 1e6:.2f} µs" if t < 1e-3 else f"{t * 1e3:.2f} ms"


def markdown(sections):
    lines = []
    for title, rows in sections:
        lines += [f"## {title}", "", "| case | op | NumPy | array-api-strict | candlewick | candlewick − NumPy "
                  "| candlewick / NumPy |", "|---|---|---|---|---|---|---|"]
        for r in rows:
            c, n = r["candlewick"], r["numpy"]
            diff = fmt(c - n) if c is not None and n is not None else "n/a"
            ratio = f"{c / n:.3f}" if c is not None and n else "n/a"
            lines.append(f"| {r['case']} | {r['op']} | {fmt(n)} | {fmt(r['array-api-strict'])} | {fmt(c)} "
                         f"| {diff} | {ratio} |")
        lines.append("")
    return lines


def headline(dispatch, sizes):
    extra = [r["candlewick"] - r["numpy"] for r in dispatch if r["candlewick"] is not None and r["numpy"] is not None]
    lines = [f"16-element ops: candlewick adds {fmt(statistics.median(extra))} to NumPy (median of {len(extra)} ops)"]
    for r in sizes:
        if r["candlewick"] is not None and r["numpy"]:
            lines.append(f"{r['case']} {r['op']}: {fmt(r['candlewick'])}, {r['candlewick'] / r['numpy']:.2f}x NumPy")
    return lines


def main(argv=None):
    args = harness.parse_args(__doc__, lambda p: p.add_argument("--large", type=int, default=10**7), argv)
    # small cases first: while tens of MB were freshly allocated, every library's tiny
    # calls measured ~1.6x slower on the 2-core VM this was written on
    dispatch = run([("16 elements", n, h, c) for n, h, c in dispatch_cases()])
    sizes = run(size_cases(1)) + run(size_cases(args.large))
    sections = (("Issue 2: per-op cost, candlewick vs peers", sizes),
                ("Issue 3: dispatch overhead of common functions", dispatch))
    peers = {"numpy": np.__version__, "array-api-strict": xs.__version__}
    device = f"cpu backend on {harness.cpu_name()}, {os.cpu_count()} cores"
    _, md_path = harness.write_record(args.out, "host_overhead", "cpu", device, peers,
                                      {"candlewick": cw.__version__, "sizes": sizes, "dispatch": dispatch},
                                      markdown(sections), headline(dispatch, sizes))
    print(md_path.read_text())


if __name__ == "__main__":
    main()
