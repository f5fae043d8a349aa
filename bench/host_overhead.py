"""Host overhead of candlewick on the cpu backend beside NumPy and array-api-strict.

Issue 2: add, sum, matmul at 1 element and 10^7 elements.
Issue 3: dispatch overhead of ten common functions on tiny inputs.
Writes a markdown table (and JSON) with device, date and every peer measured in the run.

    python bench/host_overhead.py --out bench/results
"""

import argparse
import datetime
import json
import pathlib
import platform
import statistics
import timeit

import array_api_strict as xs
import numpy as np

import candlewick as cw


def per_call(fn, budget=0.4, repeats=7):
    """Median seconds per call over ``repeats`` runs, each sized to ~budget/repeats."""
    fn()
    number = 1
    while True:
        t = timeit.timeit(fn, number=number)
        if t > budget / repeats / 4 or number > 1 << 20:
            break
        number *= 4
    times = [timeit.timeit(fn, number=number) / number for _ in range(repeats)]
    return statistics.median(times)


def namespaces():
    return {"numpy": (np, np.asarray), "array-api-strict": (xs, xs.asarray), "candlewick": (cw, cw.asarray)}


def size_cases(n_large):
    rng = np.random.default_rng(0)
    side = int(round(n_large ** 0.5))
    cases = []
    for label, n in (("1 element", 1), (f"{n_large:.0e} elements", n_large)):
        a = rng.standard_normal(n).astype(np.float32)
        b = rng.standard_normal(n).astype(np.float32)
        m = 1 if n == 1 else side
        ma = rng.standard_normal((m, m)).astype(np.float32)
        cases.append((label, "add", (a, b), lambda ns, x, y: ns.add(x, y)))
        cases.append((label, "sum", (a,), lambda ns, x: ns.sum(x)))
        cases.append((label, f"matmul {m}x{m}", (ma, ma), lambda ns, x, y: ns.matmul(x, y)))
    return cases


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
        for ns_name, (ns, conv) in namespaces().items():
            args = [conv(h) for h in host_args]
            try:
                row[ns_name] = per_call(lambda: call(ns, *args))
            except Exception as exc:  # a peer lacking a function is recorded, not fatal
                row[ns_name] = None
                row[f"{ns_name} error"] = f"{type(exc).__name__}: {exc}"
        rows.append(row)
    return rows


def fmt(t):
    if t is None:
        return "n/a"
    return f"{t * 1e6:.2f} µs" if t < 1e-3 else f"{t * 1e3:.2f} ms"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="bench/results")
    ap.add_argument("--large", type=int, default=10**7)
    args = ap.parse_args()
    sizes = run(size_cases(args.large))
    dispatch = run([("16 elements", n, h, c) for n, h, c in dispatch_cases()])
    meta = {
        "date": datetime.date.today().isoformat(),
        "device": f"cpu: {platform.processor() or platform.machine()}, {__import__('os').cpu_count()} cores",
        "python": platform.python_version(),
        "numpy": np.__version__,
        "array_api_strict": xs.__version__,
        "candlewick": cw.__version__,
    }
    lines = [f"# Host overhead on cpu ({meta['date']})", "", "; ".join(f"{k}: {v}" for k, v in meta.items()), ""]
    for title, rows in (("Issue 2: per-op cost, candlewick vs peers", sizes),
                        ("Issue 3: dispatch overhead of common functions", dispatch)):
        lines += [f"## {title}", "", "| case | op | NumPy | array-api-strict | candlewick | candlewick − NumPy | candlewick / NumPy |",
                  "|---|---|---|---|---|---|---|"]
        for r in rows:
            c, n = r["candlewick"], r["numpy"]
            diff = fmt(c - n) if c is not None and n is not None else "n/a"
            ratio = f"{c / n:.3f}" if c is not None and n else "n/a"
            lines.append(f"| {r['case']} | {r['op']} | {fmt(n)} | {fmt(r['array-api-strict'])} | {fmt(c)} | {diff} | {ratio} |")
        lines.append("")
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    stem = f"host_overhead_cpu_{meta['date']}"
    (out / f"{stem}.md").write_text("\n".join(lines) + "\n")
    (out / f"{stem}.json").write_text(json.dumps({"meta": meta, "sizes": sizes, "dispatch": dispatch}, indent=1))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
