"""cubed on candlewick past a worker's memory limit: reductions and a matmul over an
array larger than the memory each task may use, with the intermediates in Zarr on disk,
checked against a NumPy reference computed block by block; the same run on NumPy chunks
(the peer) in the same invocation.

    python bench/cubed_out_of_core.py --out DIR               # 800 MB, 250 MB per task
    python bench/cubed_out_of_core.py --rows 4000 --quick     # a small smoke run, prints only

Writes DIR/cubed_out_of_core_<device-kind>.json and .md (bench/harness.py). cubed reads its
backend namespace (CUBED_BACKEND_ARRAY_API_MODULE) when it is imported, so each namespace
runs in a child process of this script (the hidden --child-json option); this process never
imports cubed. CANDLEWICK_DEVICE picks candlewick's device (the record's kind is the GPU's
when it is rocm, the processor's otherwise).
"""

import argparse
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time
from importlib import metadata

import numpy as np
import zarr

import candlewick as cw
import harness
from candlewick.backend import holds_host_memory

NAME = "cubed_out_of_core"
NAMESPACES = ("candlewick", "numpy")
STEPS = ("write the random input to Zarr", "sum over axis 0", "max", "x.T @ x")


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


def measure(args):
    """One namespace's run, in a child process whose CUBED_BACKEND_ARRAY_API_MODULE names it:
    {step: {seconds, tasks, peak_bytes, result_type, equals_numpy}} and the sizes."""
    # cubed fixes its backend namespace at import: imported here, in the child only
    import cubed
    import cubed.array_api as cxp
    from cubed.runtime.types import Callback

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

    work = pathlib.Path(tempfile.mkdtemp(prefix="cubed-out-of-core-"))
    spec = cubed.Spec(work_dir=str(work / "intermediates"), allowed_mem=args.allowed_mem,
                      executor_name=args.executor,
                      executor_options={"max_workers": args.workers} if args.executor == "processes" else None)
    rows, cols, chunk_rows = args.rows, args.cols, args.chunk_rows
    steps = {}
    try:
        x = cubed.random.random((rows, cols), chunks=(chunk_rows, cols), spec=spec)
        input_store = str(work / "input.zarr")
        started = time.perf_counter()
        cubed.to_zarr(x, input_store)
        steps[STEPS[0]] = {"seconds": time.perf_counter() - started}
        x = cubed.from_zarr(input_store, spec=spec)

        results = {}
        for name, build in ((STEPS[1], lambda: cxp.sum(x, axis=0)),
                            (STEPS[2], lambda: cxp.max(x)),
                            (STEPS[3], lambda: cxp.matmul(cxp.permute_dims(x, (1, 0)), x))):
            memory = PeakMemory()
            started = time.perf_counter()
            results[name] = build().compute(callbacks=[memory])
            steps[name] = {"seconds": time.perf_counter() - started, "tasks": memory.tasks,
                           "peak_bytes": memory.peak or None,
                           "result_type": type(results[name]).__module__.split(".")[0]}
        intermediate_bytes = _disk_bytes(work / "intermediates")

        col_sum, top, gram = _numpy_reference(input_store, rows, cols, chunk_rows)
        steps[STEPS[1]]["equals_numpy"] = bool(np.allclose(_host(results[STEPS[1]]), col_sum, rtol=1e-10))
        steps[STEPS[2]]["equals_numpy"] = bool(float(_host(results[STEPS[2]])) == top)
        steps[STEPS[3]]["equals_numpy"] = bool(np.allclose(_host(results[STEPS[3]]), gram, rtol=1e-10))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return {"namespace": os.environ["CUBED_BACKEND_ARRAY_API_MODULE"], "cubed": cubed.__version__,
            "data_bytes": rows * cols * 8, "intermediate_bytes": intermediate_bytes, "steps": steps}


def run_namespace(namespace, args, work):
    """measure() in a child process on `namespace`'s chunks; its figures, or {"error": ...}."""
    out = pathlib.Path(work) / f"{namespace}.json"
    options = ["--rows", str(args.rows), "--cols", str(args.cols), "--chunk-rows", str(args.chunk_rows),
               "--allowed-mem", args.allowed_mem, "--executor", args.executor, "--workers", str(args.workers)]
    # the child imports the candlewick this process imported, wherever it comes from
    path = os.pathsep.join(filter(None, [str(pathlib.Path(cw.__file__).resolve().parents[1]),
                                         os.environ.get("PYTHONPATH")]))
    # cubed stores every chunk in Zarr through numpy.asarray: GPU chunks need implicit host
    # copies, which the worker processes inherit from the environment (candlewick.host_copy)
    env = dict(os.environ, CUBED_BACKEND_ARRAY_API_MODULE=namespace, PYTHONPATH=path,
               CANDLEWICK_IMPLICIT_HOST_COPY="1")
    done = subprocess.run([sys.executable, __file__, *options, "--child-json", str(out)], env=env,
                          capture_output=True, text=True)
    if done.returncode != 0 or not out.exists():
        return {"namespace": namespace, "error": f"exit {done.returncode}: {done.stderr.strip()[-1000:]}"}
    return json.loads(out.read_text())


def all_equal(runs):
    return all("error" not in run and all(s.get("equals_numpy", True) for s in run["steps"].values())
               for run in runs.values())


def markdown(args, argv, runs):
    sizes = next((run for run in runs.values() if "error" not in run), {})
    lines = [f"Command: `python bench/{NAME}.py " + " ".join(argv) + "`", "",
             f"Input: a {args.rows:,} x {args.cols:,} float64 array, {_mb(args.rows * args.cols * 8)}, in "
             f"chunks of {args.chunk_rows:,} rows ({_mb(args.chunk_rows * args.cols * 8)}). cubed's memory "
             f"limit per task (`allowed_mem`): {args.allowed_mem}. "
             f"Executor: {args.executor}"
             + (f" ({args.workers} worker processes)" if args.executor == "processes" else "")
             + (f". Zarr intermediates on disk: {_mb(sizes['intermediate_bytes'])} after the run."
                if sizes else "."), "",
             "| step | chunks | wall time | task-end events | peak memory of a task | result type | equals NumPy |",
             "|---|---|---|---|---|---|---|"]
    for step in STEPS:
        for namespace, run in runs.items():
            if "error" in run:
                lines.append(f"| {step} | {namespace} | failed | - | - | - | - |")
                continue
            s = run["steps"][step]
            equal = "-" if "equals_numpy" not in s else ("yes" if s["equals_numpy"] else "NO")
            peak = _mb(s["peak_bytes"]) if s.get("peak_bytes") else "-"
            lines.append(f"| {step} | {namespace} | {s['seconds']:.2f} s | {s.get('tasks', '-')} | {peak} | "
                         f"{s.get('result_type', '-')} | {equal} |")
    lines += ["", "Each namespace writes its own random input and runs in its own process (cubed "
              "fixes its namespace at import). Peak memory of a task: the largest resident memory a "
              "worker process reported (cubed measures it after each task; the interpreter and the "
              "imported libraries, about 100 MB, included). The NumPy reference reads the stored input "
              "back block by block (column sums, maximum, and the sum of block.T @ block), so it too "
              "stays within memory."]
    for namespace, run in runs.items():
        if "error" in run:
            lines += ["", f"{namespace} chunks failed:", "", "```", run["error"], "```"]
    return lines


def headline(runs):
    if any("error" in run for run in runs.values()):
        return ["failed: " + ", ".join(ns for ns, run in runs.items() if "error" in run)]
    times = ", ".join(f"{ns} {run['steps'][STEPS[3]]['seconds']:.1f} s" for ns, run in runs.items())
    return [f"x.T @ x: {times}; all equal the NumPy reference: {'yes' if all_equal(runs) else 'NO'}"]


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", help="folder for cubed_out_of_core_<device-kind>.json and .md")
    parser.add_argument("--quick", action="store_true", help="print the table, write no record")
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--cols", type=int, default=1_000)
    parser.add_argument("--chunk-rows", type=int, default=2_500)
    parser.add_argument("--allowed-mem", default="250MB")
    parser.add_argument("--executor", default="processes", choices=["single-threaded", "threads", "processes"])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--child-json", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if not (args.out or args.quick or args.child_json):
        parser.error("give --out DIR (write the record) or --quick (print only)")
    return args


def main(argv=None):
    args = parse_args(argv)
    if args.child_json:
        pathlib.Path(args.child_json).write_text(json.dumps(measure(args)))
        return
    with tempfile.TemporaryDirectory(prefix="cubed-out-of-core-runs-") as work:
        runs = {namespace: run_namespace(namespace, args, work) for namespace in NAMESPACES}
    body = markdown(args, sys.argv[1:] if argv is None else argv, runs)
    if args.quick:
        print("\n".join(body))
    else:
        device = cw.get_device(None)
        on_gpu = not holds_host_memory(device)  # a device name carries its ordinal: rocm:0
        where = harness.gpu_name() if on_gpu else f"{harness.cpu_name()}, {os.cpu_count()} cores"
        peers = {"numpy": np.__version__, "cubed": metadata.version("cubed"), "zarr": zarr.__version__}
        figures = {"candlewick": cw.__version__, "device": repr(device), "rows": args.rows, "cols": args.cols,
                   "chunk_rows": args.chunk_rows, "allowed_mem": args.allowed_mem, "executor": args.executor,
                   "workers": args.workers, "runs": runs}
        _, md_path = harness.write_record(args.out, NAME, "gpu" if on_gpu else "cpu",
                                          f"{device.name} backend on {where}", peers, figures, body,
                                          headline(runs))
        print(md_path.read_text())
    if not all_equal(runs):
        sys.exit("a namespace failed or a result differs from the NumPy reference")


if __name__ == "__main__":
    main()
