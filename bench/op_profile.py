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
from candlewick.opdefs import BinaryOp, CompareOp, ReduceOp

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


def layer_cases(storage_of):
    """(op, candlewick call, the same storage primitive called directly with ready layouts,
    the NumPy call the cpu backend makes): front end = first - second, backend routing =
    second - third."""
    rng = np.random.default_rng(0)
    a = rng.uniform(0.1, 0.9, 16).astype(np.float32)
    b = rng.uniform(0.1, 0.9, 16).astype(np.float32)
    idx = rng.integers(0, 16, 16)
    mask = a > 0.5
    x, y, ci, cm = cw.asarray(a), cw.asarray(b), cw.asarray(idx), cw.asarray(mask)
    (sx, lx), (sy, ly), (si, li), (sm, lm) = (storage_of(v) for v in (x, y, ci, cm))
    half = np.float32(0.5)
    return [
        ("add", lambda: x + y, lambda: sx.binary(BinaryOp.ADD, lx, sy, ly), lambda: np.add(a, b)),
        ("x > 0.5", lambda: x > 0.5, lambda: sx.compare_scalar(CompareOp.GREATER, lx, 0.5, False),
         lambda: np.greater(a, half)),
        ("where(mask, x, y)", lambda: cw.where(cm, x, y), lambda: sm.where(lm, sx, lx, sy, ly),
         lambda: np.where(mask, a, b)),
        ("sum", lambda: cw.sum(x), lambda: sx.reduce(ReduceOp.SUM, lx, (0,)), lambda: np.add.reduce(a, (0,))),
        ("x[idx]", lambda: x[ci], lambda: sx.index_select(lx, si, li, 0), lambda: a.take(idx, 0)),
        ("x[mask]", lambda: x[cm], lambda: sx.compress(lx, sm, lm), lambda: a[mask]),
        ("concat", lambda: cw.concat([x, y]), lambda: sx.concat(lx, [(sy, ly)], 0),
         lambda: np.concatenate([a, b])),
        ("sort", lambda: cw.sort(x), lambda: sx.sort_values(lx, 0, False, True),
         lambda: np.sort(a, kind="stable")),
    ]


def layers(storage_of):
    rows = []
    for name, full, primitive, kernel in layer_cases(storage_of):
        t_full, t_prim, t_kernel = _best(full), _best(primitive), _best(kernel)
        rows.append({"op": name, "candlewick": t_full, "primitive": t_prim, "numpy kernel": t_kernel})
    return rows


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


def layers_markdown(rows):
    lines = ["## The layers of one tiny op (16 elements, cpu), by subtraction", "",
             "Each op three ways in one run: the candlewick call; the backend's storage primitive "
             "called directly with ready layouts (no front end); the NumPy call the cpu backend makes. "
             "Front end (argument checks, dtype and device dispatch, layout arithmetic, the result "
             "array) = the first minus the second; backend routing (op table, NumPy views of the "
             "buffers, the floating-point policy, wrapping the result storage) = the second minus the "
             "third; the kernel = the third.", "",
             "| op | candlewick | front end | backend routing | NumPy kernel call |", "|---|---|---|---|---|"]
    for r in rows:
        front = r["candlewick"] - r["primitive"]
        routing = r["primitive"] - r["numpy kernel"]
        lines.append(f"| {r['op']} | {r['candlewick'] * 1e6:.2f} µs | {front * 1e6:.2f} µs | "
                     f"{routing * 1e6:.2f} µs | {r['numpy kernel'] * 1e6:.2f} µs |")
    return lines + [""]


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
