"""Issue 39's sort rows of bench/host_overhead.py: candlewick's ``sort`` (stable, the
standard's default) beside NumPy's default ``np.sort`` (its SIMD quicksort) at 2^16 to
2^24 elements of float32, float64 and int64, ascending and descending, on two kinds of
data: normal values, and values with ties where a stable sort's bits show (a tenth zeros
of both signs, a hundredth NaNs of several payloads), whose runs candlewick's cpu backend
collects while it copies the input. Target: within 5 % of NumPy's time, on both. No
candlewick internals: every call goes through the namespace. Times are CPU time of this
process (``time.process_time``): both sorts are single-threaded, and on a shared machine
other processes' load, which wall time counts, moved rows by 2-4x from one run to the next.

Alone (its table printed, no record written; bench/host_overhead.py records it):

    python bench/sort_sweep.py [--exponents 16,18,20,22,24] [--dtypes float32,float64,int64]
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np

DTYPES = (np.float32, np.float64, np.int64)
#: interleaved rounds per row up to 2^20 elements and past it; a row over the 5 % line
#: after them is timed for twice as many more, both libraries, keeping the minimum (on a
#: shared machine one library's few rounds can all fall in a burst of other load)
ROUNDS, LARGE_ROUNDS = 15, 5
#: quiet NaNs with payloads and both signs, as float32 bit patterns
NAN_BITS = (0x7FC00000, 0xFFC00000, 0x7FC00001, 0xFFC12345)


def host_input(dtype, n, ties):
    """``n`` values of ``dtype`` (seeded); with ``ties``, a tenth zeros of both signs and,
    for floats, a hundredth NaNs with payloads."""
    rng = np.random.default_rng(n)
    x = (rng.standard_normal(n) * 1e6).astype(dtype)
    if ties:
        zeros = rng.random(n) < 0.1
        x[zeros] = 0
        if x.dtype.kind == "f":
            x[zeros & (rng.random(n) < 0.5)] = -0.0
            nans = rng.random(n) < 0.01
            payloads = np.array(NAN_BITS, np.uint32).view(np.float32).astype(dtype)
            x[nans] = payloads[rng.integers(0, len(NAN_BITS), int(nans.sum()))]
    return x


def run(cw, interleaved, exponents, dtypes=DTYPES):
    """One row per (dtype, size, data, direction): seconds per call of NumPy's default
    sort and candlewick's (stable) sort of the same memory."""
    rows = []
    for dtype in dtypes:
        for e in exponents:
            for ties in (False, True):
                x = cw.asarray(host_input(dtype, 1 << e, ties))
                v = np.from_dlpack(x)  # NumPy reads candlewick's own buffer: same placement
                for descending in (False, True):
                    if descending:
                        fns = {"numpy": lambda v=v: np.flip(np.sort(v)),
                               "candlewick": lambda x=x: cw.sort(x, descending=True)}
                    else:
                        fns = {"numpy": lambda v=v: np.sort(v), "candlewick": lambda x=x: cw.sort(x)}
                    rounds = ROUNDS if e <= 20 else LARGE_ROUNDS
                    row = {"dtype": np.dtype(dtype).name, "elements": 1 << e, "exponent": e,
                           "data": "zeros ±0, NaN payloads" if ties else "normal", "descending": descending,
                           **interleaved(fns, rounds=rounds, timer=time.process_time)}
                    if not meets(row):  # host_overhead's rule: over the line, every library again
                        again = interleaved(fns, rounds=2 * rounds, timer=time.process_time)
                        row.update({lib: min(row[lib], t) for lib, t in again.items()}, retimed=True)
                    rows.append(row)
    return rows


def meets(row):
    return row["candlewick"] <= 1.05 * row["numpy"]


def _ms(t):
    return f"{t * 1e3:.3f} ms"


def summary(rows):
    kinds = {"normal": "normal data", "zeros ±0, NaN payloads": "data with ties"}
    parts, missed = [], []
    for data, words in kinds.items():
        part = [r for r in rows if r["data"] == data]
        if part:
            parts.append(f"{sum(meets(r) for r in part)} of {len(part)} rows on {words}")
            missed += [_name(r) for r in part if not meets(r)]
    line = (f"sort, 2^{min(r['exponent'] for r in rows)}-2^{max(r['exponent'] for r in rows)} elements: "
            f"{', '.join(parts)} within 5 % of np.sort")
    again = [_name(r) for r in rows if r.get("retimed")]
    line += f"; not: {', '.join(missed)}" if missed else ""
    return line + (f"; re-timed for twice the rounds (over the line at first): {', '.join(again)}" if again else "")


def _name(r):
    return f"{r['dtype']} 2^{r['exponent']}{' desc' if r['descending'] else ''}{' ties' if r['data'] != 'normal' else ''}"


def markdown(rows):
    lines = ["## Issue 39: sort at 2^16-2^24 elements beside NumPy's default sort", "",
             "candlewick's `sort` is stable by default (the standard's); its values are bitwise the "
             "stable sort's, computed by NumPy's default (SIMD quick)sort with the zero and NaN runs "
             "collected while the input is copied and put back after the sort; descending is the "
             "ascending sort of the input read backwards, viewed reversed. NumPy's column: "
             "`np.sort(v)` (descending: `np.flip(np.sort(v))`, a view) on the same memory; CPU time of the "
             "process (`time.process_time`: both sorts are single-threaded), not wall time. "
             "Target: within 5 %, on both kinds of data.", "", summary(rows), "",
             "| dtype | elements | data | order | NumPy | candlewick | candlewick / NumPy | within 5 % |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['dtype']} | 2^{r['exponent']} | {r['data']} | "
                     f"{'descending' if r['descending'] else 'ascending'} | {_ms(r['numpy'])} | "
                     f"{_ms(r['candlewick'])} | {r['candlewick'] / r['numpy']:.3f} | "
                     f"{'yes' if meets(r) else '**no**'} |")
    return lines + [""]


def main(argv=None):
    p = argparse.ArgumentParser(description="Issue 39's sort rows alone (bench/host_overhead.py records them).")
    p.add_argument("--exponents", default="16,18,20,22,24")
    p.add_argument("--dtypes", default=",".join(np.dtype(d).name for d in DTYPES))
    args = p.parse_args(argv)
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import harness  # (bench/'s shared harness, beside this file)

    import candlewick as cw

    rows = run(cw, harness.interleaved, [int(v) for v in args.exponents.split(",") if v],
               [np.dtype(d).type for d in args.dtypes.split(",") if d])
    print(f"commit {harness.commit()}, {harness.cpu_name()}; numpy {np.__version__}; candlewick from {cw.__file__}\n")
    print("\n".join(markdown(rows)))


if __name__ == "__main__":
    main()
