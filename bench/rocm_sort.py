"""The sort section of bench/rocm_ops.py (issue 39, item 5): candlewick's ``sort`` and
``argsort`` (both stable) beside ``torch.sort`` (its default, ``stable=False``; the
issue's target), ``torch.argsort(stable=True)`` and CuPy's ``sort``/``argsort`` in the same
process: float32 1-D at each size asked (2^10-2^26 by default), rows along the last axis of
a (rows, cols) array of every dtype timed, and the other dtypes 1-D at each size asked
(2^24 and 2^26). Seconds per call: median of timed batches ended by a device synchronize
(bench/timing.py), best of ``rounds`` rounds that run the libraries in turn, rotated
(timing.rotated_rounds), SMALL_ROUNDS up to 2^22 elements; the peak device memory of one more call of each. Data: normal values with a tenth zeros of both signs.
"""

import numpy as np

import harness
import timing

#: the dtypes timed at ``--sort-dtype-sizes`` besides float32 (torch has no uint16/uint32 sort)
OTHER_DTYPES = ("float64", "float16", "int64", "int32", "int16", "int8", "uint8", "bool")


def host_input(dtype, shape, seed=0):
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    if dtype == "bool":
        return (rng.random(n) < 0.5).reshape(shape)
    if np.dtype(dtype).kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True).reshape(shape)
    x = rng.standard_normal(n).astype(dtype)
    zeros = rng.random(n) < 0.1
    x[zeros] = 0
    x[zeros & (rng.random(n) < 0.5)] = -0.0
    return x.reshape(shape)


def _calls(lib):
    """{case: fn(x)} of ``lib`` (rocm_ops.Lib): sort and stable argsort along the last axis."""
    if lib.name == "torch":
        torch = lib.mod
        return {"sort": lambda x: torch.sort(x, dim=-1), "argsort": lambda x: torch.argsort(x, dim=-1, stable=True)}
    ns = lib.ns()
    return {"sort": lambda x: ns.sort(x, axis=-1), "argsort": lambda x: ns.argsort(x, axis=-1)}


#: rounds of a case of at most 2^22 elements: its calls take tens of us, so two rounds left
#: the host's noise in the record (float32 2^14 read 0.059-0.091 ms across records with its
#: path unchanged); more rounds cost a second or so
SMALL_ROUNDS = 7


def _time(libs, label, dtype, shape, results, peaks, rounds):
    a = host_input(dtype, shape)
    if a.size <= 1 << 22:
        rounds = max(rounds, SMALL_ROUNDS)
    row = results.setdefault(label, {})
    operands = {}
    for lib in libs:
        try:
            operands[lib.name] = lib.asarray(a)
        except Exception as exc:  # noqa: BLE001 - recorded, the run goes on
            row[f"{lib.name}_error"] = harness.error_text(exc)
    reps = 10 if a.size <= 1 << 22 else 3
    for case in ("sort", "argsort"):
        errors = {}
        best = timing.rotated_rounds(
            {lib.name: (lambda fn=_calls(lib)[case], x=operands[lib.name], lib=lib:
                        timing.timed(lambda: fn(x), lib.sync, reps=reps, batches=5))
             for lib in libs if lib.name in operands}, rounds, errors)
        for name, text in errors.items():
            row[f"{name}_{case}_error"] = text
        for name, t in best.items():
            row[f"{name}_{case}_ms"] = t * 1e3
        for lib in libs:
            if lib.name in best:
                fn, x = _calls(lib)[case], operands[lib.name]
                peaks.measure_after(f"{case} {label}", lib.name, lambda: fn(x))
    operands.clear()


def bench_sort(libs, results, peaks, sizes, rows_shape, dtype_sizes, rounds=2):
    """Fill ``results`` {label: {lib_case_ms: ...}} and ``peaks`` (peak_memory.PeakTable): float32
    1-D at 2^k for k in ``sizes``; float32 and each of OTHER_DTYPES in rows of ``rows_shape``;
    each of OTHER_DTYPES 1-D at 2^k for k in ``dtype_sizes`` (the issue asks sizes up to 2^26
    for every dtype)."""
    for k in sizes:
        _time(libs, f"float32 2^{k}", "float32", (1 << k,), results, peaks, rounds)
    for dtype in ("float32",) + OTHER_DTYPES:
        _time(libs, f"{dtype} rows {rows_shape[0]}x{rows_shape[1]}", dtype, rows_shape, results, peaks, rounds)
    for k in dtype_sizes:
        for dtype in OTHER_DTYPES:
            _time(libs, f"{dtype} 2^{k}", dtype, (1 << k,), results, peaks, rounds)


def markdown(results, names):
    lines = ["## sort and stable argsort along the last axis (ms per call; torch.sort is its default, "
             "unstable; torch.argsort stable=True)", "",
             "| case | " + " | ".join(f"{n} sort" for n in names) + " | "
             + " | ".join(f"{n} argsort" for n in names) + " |", "|---|" + "---|" * (2 * len(names))]
    for label, row in results.items():
        if not isinstance(row, dict):
            continue
        cells = [f"{row[f'{n}_{case}_ms']:.3f}" if f"{n}_{case}_ms" in row
                 else row.get(f"{n}_{case}_error", row.get(f"{n}_error", "-"))[:50]
                 for case in ("sort", "argsort") for n in names]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    if "error" in results:
        lines.append(f"\nsort: {results['error']}")
    return lines + [""]


def headline(results):
    """One line per case where torch was timed: candlewick's time over torch's."""
    lines = []
    for label, row in results.items():
        if isinstance(row, dict) and "torch_sort_ms" in row and "candlewick_sort_ms" in row:
            ratio = row["candlewick_sort_ms"] / row["torch_sort_ms"]
            arg = (f", argsort {row['candlewick_argsort_ms'] / row['torch_argsort_ms']:.2f}x torch"
                   if "torch_argsort_ms" in row and "candlewick_argsort_ms" in row else "")
            lines.append(f"sort {label}: candlewick {row['candlewick_sort_ms']:.3f} ms, {ratio:.2f}x torch{arg}")
    return lines
