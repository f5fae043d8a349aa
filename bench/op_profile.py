"""Where the microseconds of one tiny candlewick op go on the cpu backend (issue 22).

For each op: its time per call beside NumPy's (timeit, minimum of repeats), and a
cProfile of many calls whose own time (``tottime``) is grouped by where the code lives:
the front end's dispatch and checks, the layout arithmetic, the device lookup, the cpu
backend's routing (op table, NumPy views, the floating-point policy), Python builtins
called along the way, and NumPy's Python-level functions. A NumPy ufunc or C function
called from the cpu backend is not a profiled call of its own: its time counts in the
cpu backend's share (the NumPy column of the same call measured alone is that floor).
cProfile adds a fixed cost to every Python function call, so its shares overstate the
Python side.
"""

import cProfile
import pstats
import timeit

import numpy as np

import candlewick as cw

CATEGORIES = ("front end: dispatch, checks, promotion", "front end: layout", "front end: device lookup",
              "cpu backend: op table, views, FP policy", "Python builtins", "NumPy (the kernel call)", "other")


def _category(filename, function):
    if filename.endswith("candlewick/layout.py"):
        return "front end: layout"
    if filename.endswith("candlewick/registry.py"):
        return "front end: device lookup"
    if "/candlewick/" in filename:
        return "front end: dispatch, checks, promotion"
    if "/cpu_backend/" in filename:
        return "cpu backend: op table, views, FP policy"
    if "/numpy/" in filename or "numpy" in function:
        return "NumPy (the kernel call)"
    if filename == "~":
        return "Python builtins"
    return "other"


def cases():
    rng = np.random.default_rng(0)
    a = rng.uniform(0.1, 0.9, 16).astype(np.float32)
    b = rng.uniform(0.1, 0.9, 16).astype(np.float32)
    idx = rng.integers(0, 16, 16)
    mask = a > 0.5
    x, y, ci, cm = cw.asarray(a), cw.asarray(b), cw.asarray(idx), cw.asarray(mask)
    values = a.tolist()
    return [
        ("add", lambda: x + y, lambda: a + b),
        ("x > 0.5", lambda: x > 0.5, lambda: a > 0.5),
        ("where(x > 0.5, x, y)", lambda: cw.where(x > 0.5, x, y), lambda: np.where(a > 0.5, a, b)),
        ("sum", lambda: cw.sum(x), lambda: np.sum(a)),
        ("x[idx]", lambda: x[ci], lambda: a[idx]),
        ("x[mask]", lambda: x[cm], lambda: a[mask]),
        ("concat", lambda: cw.concat([x, y]), lambda: np.concatenate([a, b])),
        ("sort", lambda: cw.sort(x), lambda: np.sort(a, kind="stable")),
        ("asarray (16 floats)", lambda: cw.asarray(values, dtype=cw.float32),
         lambda: np.asarray(values, dtype=np.float32)),
    ]


def _best(fn, number=2000, repeat=7):
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number


def _shares(fn, calls=5000):
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(calls):
        fn()
    profiler.disable()
    totals = dict.fromkeys(CATEGORIES, 0.0)
    functions = []
    for (filename, _line, function), (_cc, ncalls, tottime, _ct, _callers) in pstats.Stats(profiler).stats.items():
        totals[_category(filename, function)] += tottime
        functions.append((tottime, ncalls / calls, f"{filename.rsplit('/', 1)[-1]}:{function}"))
    whole = sum(totals.values()) or 1.0
    top = [{"function": f, "calls per op": round(c, 2), "share": t / whole}
           for t, c, f in sorted(functions, reverse=True)[:6]]
    return {k: v / whole for k, v in totals.items()}, top


def profile_tiny_ops():
    rows = []
    for name, candlewick_call, numpy_call in cases():
        shares, top = _shares(candlewick_call)
        rows.append({"op": name, "candlewick": _best(candlewick_call), "numpy": _best(numpy_call),
                     "shares": shares, "top functions": top})
    return rows


def markdown(rows):
    lines = ["## Where the microseconds of one tiny op go (16 elements, cpu)", "",
             "cProfile's own time of each part, as a share of the op's profiled time, times the op's "
             "measured time. cProfile inflates every Python call alike, so the Python parts read high; "
             "NumPy's C calls (the ufunc itself) count in the cpu backend's share, and NumPy's time for "
             "the same call, measured alone, is their floor.", "",
             "| op | candlewick | NumPy | " + " | ".join(CATEGORIES) + " |",
             "|---|---|---|" + "---|" * len(CATEGORIES)]
    for r in rows:
        parts = " | ".join(f"{r['shares'][k] * r['candlewick'] * 1e6:.2f} µs ({r['shares'][k]:.0%})"
                           for k in CATEGORIES)
        lines.append(f"| {r['op']} | {r['candlewick'] * 1e6:.2f} µs | {r['numpy'] * 1e6:.2f} µs | {parts} |")
    lines += ["", "The functions with the most own time per op:", ""]
    for r in rows:
        top = "; ".join(f"`{t['function']}` {t['share']:.0%}" for t in r["top functions"])
        lines.append(f"- {r['op']}: {top}")
    return lines + [""]
