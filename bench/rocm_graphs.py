"""A captured loop of 100 tiny ops replayed, beside a PyTorch CUDA graph of the same ops,
and both eager, in one process (issue 22, item 4).

    python bench/rocm_graphs.py --out DIR [--ops 100] [--size 16]

Writes DIR/rocm_graphs_<device-kind>.json and .md (bench/harness.py). The loop alternates
``a = a + y`` and ``a = a * y`` on ``--size`` float32 elements (``--ops`` ops in all).
Figures: µs per op, host clock, for the eager loop and for a replay of the captured loop
(candlewick: ``candlewick.graphs.capture``; torch: ``torch.cuda.graph``), each the median
of timed batches ended by a device synchronize; the replays are checked against the eager
result first. The peak device memory of each library's whole run (peak_memory.PeakTable).
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import candlewick as cw  # noqa: E402
import harness  # noqa: E402
import peak_memory  # noqa: E402
import timing  # noqa: E402


def loop(ops):
    def run(a, y):
        for k in range(ops):
            a = a + y if k % 2 == 0 else a * y
        return a
    return run


def bench_candlewick(ops, size, reps):
    dev = cw.get_device("rocm")
    rng = np.random.default_rng(0)
    a = cw.asarray(rng.standard_normal(size).astype(np.float32), device=dev)
    y = cw.asarray(np.full(size, 0.5, np.float32), device=dev)
    fn = loop(ops)
    eager = timing.timed(lambda: fn(a, y), dev.synchronize, reps=reps, batches=5) / ops
    g = cw.graphs.capture(fn, a, y)
    expected = cw.to_numpy(fn(a, y))
    got = cw.to_numpy(g.replay())
    row = {"eager_us": eager * 1e6, "replay_equals_eager": bool(np.array_equal(got, expected))}
    row["replay_us"] = timing.timed(g.replay, dev.synchronize, reps=reps, batches=5) / ops * 1e6
    g.reset()
    return row


def bench_torch(torch, ops, size, reps):
    rng = np.random.default_rng(0)
    a = torch.from_numpy(rng.standard_normal(size).astype(np.float32)).cuda()
    y = torch.full((size,), 0.5, device="cuda")
    fn = loop(ops)
    sync = torch.cuda.synchronize
    eager = timing.timed(lambda: fn(a, y), sync, reps=reps, batches=5) / ops
    side = torch.cuda.Stream()  # torch's recipe: warm up on a side stream before capturing
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        fn(a, y)
    torch.cuda.current_stream().wait_stream(side)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        out = fn(a, y)
    g.replay()
    sync()
    row = {"eager_us": eager * 1e6,
           "replay_equals_eager": bool(torch.equal(out, fn(a, y)))}
    row["replay_us"] = timing.timed(g.replay, sync, reps=reps, batches=5) / ops * 1e6
    return row


def markdown(figures, ops, size):
    lines = [f"## {ops} tiny ops ({size} float32 elements each): µs per op, host clock", "",
             "| library | eager | graph replay | replay = eager |", "|---|---|---|---|"]
    for lib, row in figures.items():
        if "error" in row:
            lines.append(f"| {lib} | {row['error'][:120]} | | |")
        else:
            lines.append(f"| {lib} | {row['eager_us']:.2f} | {row['replay_us']:.3f} | {row['replay_equals_eager']} |")
    return lines


def headline(figures):
    return [f"{lib}: eager {row['eager_us']:.2f} µs/op, replayed {row['replay_us']:.3f} µs/op"
            if "error" not in row else f"{lib}: {row['error'][:100]}" for lib, row in figures.items()]


def main(argv=None):
    def options(parser):
        parser.add_argument("--ops", type=int, default=100)
        parser.add_argument("--size", type=int, default=16)
        parser.add_argument("--reps", type=int, default=20, help="loops per timed batch")

    args = harness.parse_args(__doc__, options, argv)
    found = harness.gpu_peers()
    peaks = peak_memory.PeakTable(device=cw.get_device("rocm"), torch=found.get("torch"))
    runs = {"candlewick": lambda: bench_candlewick(args.ops, args.size, args.reps)}
    if "torch" in found:
        runs["torch"] = lambda: bench_torch(found["torch"], args.ops, args.size, args.reps)
    figures = peaks.run_all("the whole run (eager loops, capture, replays)", runs)
    peers = {"torch": found["torch"].__version__} if "torch" in found else {}
    gpu = harness.gpu_name()
    device = (f"{gpu}, rocm backend through tools/hip_on_cuda" if gpu and gpu.startswith("NVIDIA")
              else gpu or "rocm:0")
    body = markdown(figures, args.ops, args.size) + [""] + peak_memory.peak_lines(peaks.rows)
    _, md_path = harness.write_record(args.out, "rocm_graphs", "gpu", device, peers,
                                      {"ops": args.ops, "size": args.size, "libraries": figures,
                                       "peak_bytes": peaks.rows}, body, headline(figures))
    print(md_path.read_text())


if __name__ == "__main__":
    main()
