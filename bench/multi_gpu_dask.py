"""Dask with one worker process per GPU (``candlewick.distributed.local_gpu_cluster``)
beside the same cluster on one GPU, in the same run.

    python bench/multi_gpu_dask.py --out DIR [--blocks-per-gpu 4] [--rows 16384] [--cols 1024] [--reps 3]

The array: ``blocks-per-gpu x (GPUs)`` blocks of ``rows x cols`` float32, each made by a
task on its worker's GPU (candlewick's Philox normal draws) and kept there (persist), so
with several GPUs the array is larger than any one GPU's share. Timed on it, per
cluster: column sums (a reduction, GB/s of the array read) and the Gram matrix ``x.T @ x``
(a matmul through ``da.tensordot``, TFLOP/s), each the best of ``reps`` computes, results
back in the client; cluster start and the persist are timed too. Both results are
compared with NumPy's on the same blocks (copied to the host). With one GPU only the
one-GPU cluster runs; with none, one cpu worker (a functional record).
Writes DIR/multi_gpu_dask_<device-kind>.json and .md (bench/harness.py).
"""

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402

import candlewick as cw  # noqa: E402
import candlewick.dask_dispatch  # noqa: E402,F401  (the client joins chunks too)
import harness  # noqa: E402
from candlewick.dask_cluster import local_gpu_cluster, visible_gpus  # noqa: E402


def _block(i, rows, cols):
    """Block i, made on the default device of the worker that runs the task."""
    return cw.random.default_rng(i).normal(size=(rows, cols), dtype=cw.float32)


def _array(n_blocks, rows, cols):
    import dask
    import dask.array as da  # optional library of this benchmark, loaded with it

    meta = cw.zeros((0, 0), dtype=cw.float32, device="cpu")
    parts = [da.from_delayed(dask.delayed(_block)(i, rows, cols), shape=(rows, cols), dtype=np.float32, meta=meta)
             for i in range(n_blocks)]
    return da.concatenate(parts, axis=0)


def run_cluster(devices, n_blocks, rows, cols, reps):
    """Figures of one cluster (GPU ids ``devices``; [] for one unpinned worker)."""
    import dask.array as da  # optional library of this benchmark, loaded with it
    from distributed import Client, wait

    out = {"gpus": list(devices)}
    t0 = time.perf_counter()
    with local_gpu_cluster(devices, dashboard_address=None) as cluster, Client(cluster) as client:
        out["start_s"] = time.perf_counter() - t0
        out["workers"] = len(client.scheduler_info()["workers"])
        out["worker_devices"] = sorted(client.run(lambda: cw.asarray([0.0]).device.name).values())
        t = time.perf_counter()
        x = client.persist(_array(n_blocks, rows, cols))
        wait(x)
        out["persist_s"] = time.perf_counter() - t
        out["blocks_per_worker"] = sorted(len(keys) for keys in client.has_what().values())
        col_sums = x.sum(axis=0)
        gram = da.tensordot(x, x, axes=([0], [0]))
        for name, graph in (("column_sums", col_sums), ("gram", gram)):
            best, result = float("inf"), None
            for _ in range(reps):
                t = time.perf_counter()
                result = client.compute(graph, sync=True)
                best = min(best, time.perf_counter() - t)
            out[name + "_s"] = best
            out[name] = cw.to_numpy(result)
        host = np.asarray(client.compute(x.map_blocks(cw.to_numpy, dtype=np.float32,
                                                      meta=np.empty((0, 0), np.float32)), sync=True))
    out["column_sums_match"] = bool(np.allclose(out.pop("column_sums"), host.sum(axis=0, dtype=np.float64),
                                                rtol=1e-3, atol=1e-2))
    out["gram_match"] = bool(np.allclose(out.pop("gram"), host.T.astype(np.float64) @ host, rtol=1e-3, atol=1e-1))
    return out


def table(runs, nbytes, flops):
    lines = ["| cluster | workers (devices) | start s | persist s | column sums s (GB/s) | x.T @ x s (TFLOP/s) "
             "| equal to NumPy |", "|---|---|---|---|---|---|---|"]
    for label, r in runs.items():
        if "error" in r:
            lines.append(f"| {label} | {r['error']} | | | | | |")
            continue
        lines.append(f"| {label} | {r['workers']} ({', '.join(r['worker_devices'])}) | {r['start_s']:.1f} | "
                     f"{r['persist_s']:.2f} | {r['column_sums_s']:.3f} ({nbytes / r['column_sums_s'] / 1e9:.1f}) | "
                     f"{r['gram_s']:.3f} ({flops / r['gram_s'] / 1e12:.2f}) | "
                     f"{r['column_sums_match'] and r['gram_match']} |")
    return lines + [""]


def main(argv=None):
    def options(parser):
        parser.add_argument("--blocks-per-gpu", type=int, default=4)
        parser.add_argument("--rows", type=int, default=16384)
        parser.add_argument("--cols", type=int, default=1024)
        parser.add_argument("--reps", type=int, default=3)

    args = harness.parse_args(__doc__, options, argv)
    gpus = visible_gpus()
    n_blocks = args.blocks_per_gpu * max(1, len(gpus))
    nbytes = n_blocks * args.rows * args.cols * 4
    flops = 2.0 * n_blocks * args.rows * args.cols * args.cols
    configs = {"one GPU" if gpus else "one cpu worker": gpus[:1]}
    if len(gpus) > 1:
        configs[f"{len(gpus)} GPUs, one worker each"] = gpus
    runs = {}
    for label, devices in configs.items():
        t0 = time.perf_counter()
        try:
            runs[label] = run_cluster(devices, n_blocks, args.rows, args.cols, args.reps)
        except Exception as exc:  # noqa: BLE001 - recorded, the other cluster still runs
            runs[label] = {"error": harness.error_text(exc, 500)}
        print(f"{label}: {time.perf_counter() - t0:.1f}s", flush=True)
    gpu = harness.gpu_name()
    kind = "gpu" if gpus else "cpu"
    device = (f"{len(gpus)} x {gpu}, rocm backend through tools/hip_on_cuda" if gpu and gpus
              else f"{len(gpus)} GPU(s)" if gpus else f"{harness.cpu_name()} (no GPU: one cpu worker)")
    figures = {"shape": [n_blocks * args.rows, args.cols], "blocks": n_blocks, "array_bytes": nbytes,
               "runs": runs}
    body = [f"Array: {n_blocks} blocks of {args.rows} x {args.cols} float32 ({nbytes / 2**30:.2f} GiB), "
            f"made and kept on the workers' devices; best of {args.reps} computes.", ""] + table(runs, nbytes, flops)
    headline = []
    one, many = runs.get("one GPU"), next((r for k, r in runs.items() if k.endswith("one worker each")), None)
    if one and many and "error" not in one and "error" not in many:
        headline.append(f"x.T @ x over {len(gpus)} GPUs {one['gram_s'] / many['gram_s']:.2f}x one GPU's speed, "
                        f"column sums {one['column_sums_s'] / many['column_sums_s']:.2f}x; equal to NumPy: "
                        f"{many['gram_match'] and many['column_sums_match']}")
    _, md = harness.write_record(args.out, "multi_gpu_dask", kind, device, {}, figures, body, headline)
    print(md.read_text())


if __name__ == "__main__":
    main()
