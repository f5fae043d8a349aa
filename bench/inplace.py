"""In-place updates (issue 38, docs/inplace.md): time and peak memory of ``x += y``,
``x *= 2.0``, ``x[mask] = v``, ``x[::2] += 1`` and ``np.add(x, y, out=x)``, on cpu beside
NumPy and on rocm beside PyTorch's in-place ops and CuPy, in one run.

    python bench/inplace.py --out DIR [--log2-sizes 20,26] [--dtype float32] [--backends cpu,rocm]

Writes DIR/inplace_<device-kind>.json and .md (bench/harness.py; the GPU's kind where
rocm runs, else the processor's). Default backends: rocm where it is available, else cpu:
one record per device kind (``--backends cpu,rocm`` puts both in one).

- Time: cpu, the minimum over interleaved rounds (timing.interleaved: NumPy and
  candlewick in turn) of the process's CPU time (the shared VM's other processes moved
  wall-time figures 2-4x between runs; an update is one thread's work), NumPy on the very
  memory of candlewick's arrays; rocm, the median of synchronized batches (timing.timed), the
  best of ``ROCM_ROUNDS`` rounds that run the three libraries in turn (rotated), all three
  libraries' arrays on the device at once.
- Peak memory above the inputs. cpu: each (library, case, size) in a fresh process, which
  once its inputs exist resets the kernel's high-water mark of its resident memory
  (``/proc/self/clear_refs``) and starts tracemalloc, runs the update once and takes the
  larger of the two growths (``VmHWM``; tracemalloc's peak, which NumPy's buffers report
  to, for a temporary placed in memory already resident): a temporary the size of x
  shows as x's bytes. rocm: each allocator's high-water mark over one update, above what
  it held before (peak_memory.peak_bytes): candlewick's ``memory_stats()["peak_in_use_bytes"]``
  beside PyTorch's ``max_memory_allocated``; CuPy's pool keeps no mark: its
  ``total_bytes`` growth over the update, the pool emptied first (every block the update
  took, an upper bound of its peak).
Targets: no memory above the inputs; cpu within 5 % of NumPy's time; rocm at or below
PyTorch's.
"""

import json
import os
import re
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness  # noqa: E402
import peak_memory  # noqa: E402
import rocm_ops  # noqa: E402
import timing  # noqa: E402

CASES = ("x += y", "x *= 2.0", "x[mask] = v", "x[::2] += 1", "np.add(x, y, out=x)")
#: which inputs each case reads: x always, y and the mask where named
_NEEDS = {"x += y": "xy", "x *= 2.0": "x", "x[mask] = v": "xm", "x[::2] += 1": "x", "np.add(x, y, out=x)": "xy"}


def update(case, lib, x, y, mask):
    """Run ``case`` once on the arrays of library ``lib`` (numpy, candlewick, torch, cupy)."""
    if case == "x += y":
        x += y
    elif case == "x *= 2.0":
        x *= 2.0
    elif case == "x[mask] = v":
        x[mask] = 0.5
    elif case == "x[::2] += 1":
        x[::2] += 1
    elif lib == "torch":  # NumPy refuses out= a tensor: torch's own spelling
        sys.modules["torch"].add(x, y, out=x)
    else:
        np.add(x, y, out=x)


def host_inputs(n, dtype):
    rng = np.random.default_rng(38)
    return (rng.standard_normal(n).astype(dtype), rng.standard_normal(n).astype(dtype), rng.random(n) < 0.5)


def input_bytes(case, host):
    x, y, mask = host
    return sum(a.nbytes for key, a in (("x", x), ("y", y), ("m", mask)) if key in _NEEDS[case])


# --- cpu -----------------------------------------------------------------------------------

def cpu_arrays(lib, host):
    if lib == "numpy":
        return [a.copy() for a in host]
    import candlewick as cw  # (in the child processes too)

    return [cw.asarray(a, device="cpu") for a in host]


def _status(field):
    return int(re.search(rf"^{field}:\s+(\d+) kB", Path("/proc/self/status").read_text(), re.M).group(1)) * 1024


def child(lib, case, n, dtype):
    """In a fresh process: bytes of memory above the inputs while ``case`` runs once, the
    larger of two readings: the resident set's high-water mark (reset once the inputs
    exist), and tracemalloc's peak, which NumPy's buffers report to and which also sees a
    temporary that reuses memory already resident (the resident set would not grow)."""
    update(case, lib, *cpu_arrays(lib, host_inputs(1024, dtype)))  # code paths loaded first
    arrays = cpu_arrays(lib, host_inputs(n, dtype))
    tracemalloc.start()
    Path("/proc/self/clear_refs").write_text("5")  # the high-water mark from now on
    before = _status("VmRSS")
    update(case, lib, *arrays)
    resident = _status("VmHWM") - before
    traced = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return max(0, resident, traced)


def cpu_peak(lib, case, n, dtype):
    code = (f"import sys; sys.path.insert(0, {str(Path(__file__).resolve().parent)!r}); import inplace; "
            f"print(inplace.child({lib!r}, {case!r}, {n}, {dtype!r}))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600,
                          cwd=harness.ROOT, env=dict(os.environ, PYTHONPATH=str(harness.ROOT)))
    if done.returncode != 0:
        return harness.error_text(RuntimeError(done.stderr.strip().splitlines()[-1] if done.stderr else "failed"))
    return int(done.stdout.strip().splitlines()[-1])


def run_cpu(sizes, dtype):
    rows = []
    for log2 in sizes:
        n = 1 << log2
        host = host_inputs(n, dtype)
        for case in CASES:
            # NumPy runs on the memory candlewick's arrays hold (np.asarray shares it): the
            # two then differ only in the code that runs (on this VM NumPy's own add on two
            # fresh allocations of one size differed by up to 35 %, at 2^22, by placement)
            ours = cpu_arrays("candlewick", host)
            arrays = {"numpy": [np.asarray(a) for a in ours], "candlewick": ours}
            times = timing.interleaved({lib: (lambda lib=lib: update(case, lib, *arrays[lib])) for lib in arrays},
                                       rounds=15 if log2 < 26 else 5, timer=time.process_time)
            row = {"log2": log2, "case": case, "input_bytes": input_bytes(case, host)}
            for lib in arrays:
                row[f"{lib}_ms"] = times[lib] * 1e3
                row[f"{lib}_extra_bytes"] = cpu_peak(lib, case, n, dtype)
            row["time_ratio"] = row["candlewick_ms"] / row["numpy_ms"]
            rows.append(row)
            print(json.dumps(row), flush=True)
    return rows


# --- rocm ----------------------------------------------------------------------------------

class Gpu(rocm_ops.Lib):
    """rocm_ops' library (arrays, synchronization) with its memory figure for an update."""

    def arrays(self, host):
        return [self.asarray(a) for a in host]

    def extra_bytes(self, run):
        """Device memory above the inputs that one ``run()`` takes: the allocator's
        high-water mark over the run above what it held before (peak_memory.peak_bytes:
        candlewick's ``memory_stats``, torch's ``max_memory_allocated``); CuPy's pool keeps
        no mark, so it is emptied of cached blocks first and its growth taken (every block
        the run took, an upper bound of its peak)."""
        self.sync()
        probe = peak_memory.memory_probe(self.name, self.dev if self.name == "candlewick" else None, self.mod)
        if probe is not None:
            return peak_memory.peak_bytes(run, probe)
        if self.name == "cupy":
            pool = self.mod.get_default_memory_pool()
            pool.free_all_blocks()
            before = pool.total_bytes()
            run()
            self.sync()
            return pool.total_bytes() - before
        raise ValueError(self.name)


#: rounds of the rocm timing: the libraries in turn, rotated, each one's best round kept
ROCM_ROUNDS = 5


def run_rocm(sizes, dtype):
    peers = harness.gpu_peers()
    libs = [Gpu("candlewick")] + [Gpu(name, mod) for name, mod in peers.items()]
    rows = []
    for log2 in sizes:
        host = host_inputs(1 << log2, dtype)
        for case in CASES:
            row = {"log2": log2, "case": case, "input_bytes": input_bytes(case, host)}
            ready = {}
            for lib in libs:
                try:
                    arrays = lib.arrays(host)
                    row[f"{lib.name}_extra_bytes"] = lib.extra_bytes(lambda: update(case, lib.name, *arrays))
                    ready[lib.name] = (lib, arrays)
                except Exception as exc:  # noqa: BLE001 - a library failing a case is recorded
                    row[f"{lib.name}_error"] = harness.error_text(exc)
            errors = {}
            turns = {name: (lambda name=name, lib=lib, arrays=arrays:
                            timing.timed(lambda: update(case, name, *arrays), lib.sync))
                     for name, (lib, arrays) in ready.items()}
            for name, s in timing.rotated_rounds(turns, ROCM_ROUNDS, errors).items():
                row[f"{name}_ms"] = s * 1e3
            for name, text in errors.items():
                row[f"{name}_error"] = text
            del ready, turns
            if "torch_ms" in row and "candlewick_ms" in row:
                row["time_ratio_torch"] = row["candlewick_ms"] / row["torch_ms"]
            rows.append(row)
            print(json.dumps(row), flush=True)
    return rows, {name: getattr(mod, "__version__", "?") for name, mod in peers.items()}


# --- the record ----------------------------------------------------------------------------

def _mb(value):
    return f"{value / 2**20:.1f}" if isinstance(value, (int, float)) else str(value)


def table(rows, libs, ratio_key, ratio_label):
    lines = [f"| size | case | input MB | " + " | ".join(f"{lib} ms" for lib in libs) + f" | {ratio_label} | "
             + " | ".join(f"{lib} extra MB" for lib in libs) + " |",
             "|" + "---|" * (4 + 2 * len(libs))]
    for r in rows:
        ms = " | ".join(f"{r[f'{lib}_ms']:.3f}" if f"{lib}_ms" in r else r.get(f"{lib}_error", "-") for lib in libs)
        extra = " | ".join(_mb(r.get(f"{lib}_extra_bytes", "-")) for lib in libs)
        ratio = f"{r[ratio_key]:.3f}" if ratio_key in r else "-"
        lines.append(f"| 2^{r['log2']} | `{r['case']}` | {_mb(r['input_bytes'])} | {ms} | {ratio} | {extra} |")
    return lines


def main(argv=None):
    np.seterr(all="ignore")  # (x *= 2.0 repeated reaches inf: NumPy's warning is no figure)
    def options(parser):
        parser.add_argument("--log2-sizes", default="20,26")
        parser.add_argument("--dtype", default="float32")
        parser.add_argument("--backends", default=None, help="cpu,rocm (default: rocm where available, else cpu)")

    args = harness.parse_args(__doc__, options, argv)
    sizes = [int(s) for s in args.log2_sizes.split(",")]
    import candlewick as cw

    rocm_here = any(info.name == "rocm" and info.available for info in cw.backends())
    backends = args.backends.split(",") if args.backends else ["rocm" if rocm_here else "cpu"]
    figures, body, headline, peers = {"dtype": args.dtype}, [], [], {"numpy": np.__version__}
    if "cpu" in backends:
        rows = run_cpu(sizes, args.dtype)
        figures["cpu"] = rows
        body += [f"## cpu ({harness.cpu_name()}), {args.dtype}", "",
                 "Time: minimum of interleaved rounds, CPU time of the process, NumPy on the memory of "
                 "candlewick's arrays. Extra MB: memory above the "
                 "inputs while the update runs once, in a fresh process (the larger of the resident set's "
                 "high-water growth and tracemalloc's peak).", ""]
        body += table(rows, ("numpy", "candlewick"), "time_ratio", "candlewick / NumPy") + [""]
        worst = max(rows, key=lambda r: r["time_ratio"])
        extra = max((r["candlewick_extra_bytes"] for r in rows if isinstance(r["candlewick_extra_bytes"], int)),
                    default=None)
        headline.append(f"cpu: slowest case {worst['time_ratio']:.3f}x NumPy ({worst['case']} at 2^{worst['log2']}); "
                        f"most memory above the inputs {_mb(extra)} MB")
    if "rocm" in backends:
        rows, gpu_peers = run_rocm(sizes, args.dtype)
        peers.update(gpu_peers)
        figures["rocm"] = rows
        libs = ["candlewick"] + list(gpu_peers)
        body += [f"## rocm, {args.dtype}", "",
                 f"Time: median of synchronized batches, the best of {ROCM_ROUNDS} rounds that run the libraries "
                 "in turn. Extra MB: the allocator's high-water mark above the inputs "
                 "over one update (candlewick's peak_in_use_bytes, torch's max_memory_allocated; CuPy's pool "
                 "keeps none: its total_bytes growth, the pool emptied first).",
                 ""]
        body += table(rows, libs, "time_ratio_torch", "candlewick / torch") + [""]
        ratios = [r["time_ratio_torch"] for r in rows if "time_ratio_torch" in r]
        if ratios:
            headline.append(f"rocm: candlewick / torch time {min(ratios):.2f}-{max(ratios):.2f}")
    kind = "gpu" if "rocm" in backends else "cpu"
    device = harness.gpu_name() if kind == "gpu" else harness.cpu_name()
    harness.write_record(args.out, "inplace", kind, device, peers, figures, body, headline)


if __name__ == "__main__":
    main()
