"""cubed on candlewick past a worker's memory limit: reductions and a matmul over an
array several times larger than the memory each task may use, with the intermediates
in Zarr on disk, checked against a NumPy reference computed block by block.

    PYTHONPATH=. python bench/cubed_out_of_core.py                     # 800 MB, 250 MB per task
    PYTHONPATH=. python bench/cubed_out_of_core.py --rows 4000 --quick  # a small smoke run

Writes bench/results/cubed_out_of_core_<namespace>_cpu_<date>.md (date, commit, machine,
figures). cubed reads its backend namespace when it is imported: this script makes it
candlewick unless CUBED_BACKEND_ARRAY_API_MODULE says otherwise (=numpy gives the same run
on NumPy chunks, to compare); CANDLEWICK_DEVICE picks candlewick's device.
"""

import argparse
import datetime
import os
import pathlib
import platform
import shutil
import subprocess
import sys
import tempfile
import time

NAMESPACE = os.environ.setdefault("CUBED_BACKEND_ARRAY_API_MODULE", "candlewick")

import cubed  # noqa: E402
import cubed.array_api as cxp  # noqa: E402
import numpy as np  # noqa: E402
import zarr  # noqa: E402
from cubed.runtime.types import Callback  # noqa: E402

import candlewick as cw  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent


class PeakMemory(Callback):
    """The largest peak resident memory any task reported (cubed measures it in the
    process that ran the task)."""

    def __init__(self):
        self.peak = 0
        self.tasks = 0

    def on_task_end(self, event):
        self.tasks += event.num_tasks
        if event.peak_measured_mem_end is not None:
            self.peak = max(self.peak, event.peak_measured_mem_end)


def _host(value):
    return cw.to_numpy(value) if isinstance(value, cw.Array) else np.asarray(value)


def _mb(n):
    return f"{n / 1e6:,.0f} MB"


def _disk_bytes(path):
    return sum(f.stat().st_size for f in pathlib.Path(path).rglob("*") if f.is_file())


def _numpy_reference(store, rows, cols, block_rows):
    """Column sums, the maximum and x.T @ x of the stored input, one block at a time."""
    stored = zarr.open_array(store, mode="r")
    col_sum = np.zeros(cols)
    gram = np.zeros((cols, cols))
    top = -np.inf
    for start in range(0, rows, block_rows):
        block = np.asarray(stored[start:start + block_rows])
        col_sum += block.sum(axis=0)
        top = max(top, block.max())
        gram += block.T @ block
    return col_sum, top, gram


def run(args):
    work = pathlib.Path(tempfile.mkdtemp(prefix="cubed-candlewick-"))
    spec = cubed.Spec(work_dir=str(work / "intermediates"), allowed_mem=args.allowed_mem,
                      executor_name=args.executor,
                      executor_options={"max_workers": args.workers} if args.executor == "processes" else None)
    rows, cols, chunk_rows = args.rows, args.cols, args.chunk_rows
    data_bytes = rows * cols * 8
    figures = []
    try:
        x = cubed.random.random((rows, cols), chunks=(chunk_rows, cols), spec=spec)
        input_store = str(work / "input.zarr")
        started = time.perf_counter()
        cubed.to_zarr(x, input_store)
        figures.append(("write the random input to Zarr", time.perf_counter() - started, None))
        x = cubed.from_zarr(input_store, spec=spec)

        results = {}
        for name, build in (("sum over axis 0", lambda: cxp.sum(x, axis=0)),
                            ("max", lambda: cxp.max(x)),
                            ("x.T @ x", lambda: cxp.matmul(cxp.permute_dims(x, (1, 0)), x))):
            memory = PeakMemory()
            started = time.perf_counter()
            results[name] = build().compute(callbacks=[memory])
            figures.append((name, time.perf_counter() - started, memory))
        intermediate_bytes = _disk_bytes(work / "intermediates")

        col_sum, top, gram = _numpy_reference(input_store, rows, cols, chunk_rows)
        checks = {
            "sum over axis 0": np.allclose(_host(results["sum over axis 0"]), col_sum, rtol=1e-10),
            "max": float(_host(results["max"])) == top,
            "x.T @ x": np.allclose(_host(results["x.T @ x"]), gram, rtol=1e-10),
        }
        types = {name: type(value).__module__.split(".")[0] for name, value in results.items()}
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return data_bytes, intermediate_bytes, figures, checks, types


def _commit():
    try:
        return subprocess.check_output(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, text=True).strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def report(args, data_bytes, intermediate_bytes, figures, checks, types):
    now = datetime.datetime.now(datetime.timezone.utc)
    device = cw.get_device(None) if hasattr(cw, "get_device") else "cpu"
    lines = [
        f"# cubed on {NAMESPACE} chunks past the memory limit ({now:%Y-%m-%d})",
        "",
        f"- date: {now:%Y-%m-%d %H:%M} UTC; commit {_commit()}",
        f"- machine: {platform.machine()}, {os.cpu_count()} cores, {platform.system()} {platform.release()}; "
        f"python {platform.python_version()}; device {device}",
        f"- versions: candlewick {cw.__version__}, cubed {cubed.__version__}, zarr {zarr.__version__}, "
        f"numpy {np.__version__}",
        "- command: `" + " ".join([f"CUBED_BACKEND_ARRAY_API_MODULE={NAMESPACE} PYTHONPATH=. python",
                                    "bench/cubed_out_of_core.py", *sys.argv[1:]]) + "`",
        "",
        f"Input: a {args.rows:,} x {args.cols:,} float64 array, {_mb(data_bytes)}, in chunks of "
        f"{args.chunk_rows:,} rows ({_mb(args.chunk_rows * args.cols * 8)}). cubed's memory limit per "
        f"task (`allowed_mem`): {args.allowed_mem}, so no task may hold the input at once. Executor: "
        f"{args.executor}" + (f" ({args.workers} worker processes)" if args.executor == "processes" else "")
        + f". Zarr intermediates on disk: {_mb(intermediate_bytes)} after the run.",
        "",
        "| step | wall time | task-end events | peak memory of a task | result type | equals NumPy |",
        "|---|---|---|---|---|---|",
    ]
    for name, seconds, memory in figures:
        tasks = str(memory.tasks) if memory else "-"
        peak = _mb(memory.peak) if memory and memory.peak else "-"
        lines.append(f"| {name} | {seconds:.2f} s | {tasks} | {peak} | {types.get(name, '-')} | "
                     f"{'yes' if checks.get(name) else ('-' if name not in checks else 'NO')} |")
    lines += ["", "Peak memory of a task: the largest resident memory a worker process reported "
              "(cubed measures it after each task; the interpreter and the imported libraries, "
              "about 100 MB, included). The NumPy reference reads the stored input back block by "
              "block (column sums, maximum, and the sum of block.T @ block), so it too stays "
              "within memory."]
    return "\n".join(lines) + "\n", now


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--cols", type=int, default=1_000)
    parser.add_argument("--chunk-rows", type=int, default=2_500)
    parser.add_argument("--allowed-mem", default="250MB")
    parser.add_argument("--executor", default="processes", choices=["single-threaded", "threads", "processes"])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="print the table, write no result file")
    args = parser.parse_args()
    data_bytes, intermediate_bytes, figures, checks, types = run(args)
    text, now = report(args, data_bytes, intermediate_bytes, figures, checks, types)
    print(text)
    if not args.quick:
        out = ROOT / "bench" / "results" / f"cubed_out_of_core_{NAMESPACE}_cpu_{now:%Y-%m-%d}.md"
        out.write_text(text, encoding="utf-8")
        print("wrote", out)
    if not all(checks.values()):
        sys.exit("a result differs from the NumPy reference")


if __name__ == "__main__":
    main()
