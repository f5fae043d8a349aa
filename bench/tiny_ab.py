"""Host time per tiny op (bench/run_gpu.py's cases) of two or more source trees on one
machine, the trees interleaved round by round: host speed differs several-fold between
the lent machines, so a before/after comparison is only fair within one of them.

    python3 bench/tiny_ab.py [TREE ...] [--rounds N]
    (no TREE: the trees in $CANDLEWICK_AB_TREES, separated by ':'; else this checkout)

Each round runs each tree in a fresh interpreter with only that tree's candlewick,
cpu_backend and rocm_backend on the path (plus PYTHONPATH's other entries, e.g. hip-python; a module
imported from elsewhere is an error), runs bench/run_gpu.py's bench_tiny (add / sum /
x[1:3] / where on 16 float32 elements) and prints one JSON line; the summary is the
best and the median over rounds per tree (process-to-process spread on the lent hosts is
large: 9-15 µs for one op in one run). The timing thread is pinned to one core. torch,
when it has a GPU, is timed the same way in a process of its own in each round, so no
timed process holds another library's CUDA context. Odd rounds run in reverse order.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent

CHILD = r"""
import json, os, sys
library = {library!r}
if library == "torch":
    import torch
    mod = torch
    torch.zeros(1, device="cuda")
else:
    # the tree's packages, imported (and the device made) before run_gpu, which puts
    # this checkout first on sys.path
    import candlewick, cpu_backend, rocm_backend
    candlewick.get_device("rocm")
    mod = None
sys.path.insert(0, {bench!r})
from run_gpu import Lib, bench_tiny
lib = Lib(library, mod)
lib.sync()
cpus = sorted(os.sched_getaffinity(0))
# the timing thread alone on one core (the runtime's own threads, started above, keep theirs)
os.sched_setaffinity(0, {{cpus[-1]}})
results = {{}}
bench_tiny([lib], results)
row = results[library]
if library != "torch":
    row["imported"] = [m.__file__ for m in (candlewick, cpu_backend, rocm_backend)]
print(json.dumps(row))
"""


def run_tree(tree, library="candlewick"):
    """One process's bench_tiny row for ``tree``'s candlewick (or for torch)."""
    root = Path(tree).resolve()
    others = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    others = [p for p in others if Path(p).resolve() != root and not (Path(p) / "candlewick").is_dir()]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(root)] + others))
    code = CHILD.format(bench=str(BENCH), library=library)
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300,
                          cwd=str(root))
    if proc.returncode:
        return {"error": proc.stderr[-1500:]}
    row = json.loads(proc.stdout.strip().splitlines()[-1])
    stray = [f for f in row.pop("imported", []) if not Path(f).resolve().is_relative_to(root)]
    if stray:
        row["error"] = f"imported from outside {root}: {stray}"
    return row


def torch_available():
    try:
        import torch

        return torch.cuda.is_available()
    except Exception:  # noqa: BLE001
        return False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trees", nargs="*")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    args.trees = args.trees or os.environ.get("CANDLEWICK_AB_TREES", str(BENCH.parent)).split(":")
    runs = [(tree, "candlewick") for tree in args.trees]
    if torch_available():
        runs.append((args.trees[0], "torch"))
    results = {}
    for r in range(args.rounds):
        for tree, library in (runs if r % 2 == 0 else runs[::-1]):
            row = run_tree(tree, library)
            name = tree if library == "candlewick" else library
            print(json.dumps({"round": r, "tree": name, **row}), flush=True)
            if "error" in row:
                raise SystemExit(f"{name}: {row['error']}")
            results.setdefault(name, []).append(row)
    labels = ["add", "sum", "slice x[1:3]", "where"]
    print(f"\n{args.rounds} interleaved rounds, µs per op (16 float32 elements, async, sync amortized): "
          f"best / median of the rounds")
    print("| tree | " + " | ".join(labels) + " |")
    print("|---|" + "---|" * len(labels))
    for tree, rows in results.items():
        print(f"| {tree} | " + " | ".join(
            f"{min(r[k] for r in rows):.2f} / {statistics.median(r[k] for r in rows):.2f}" for k in labels) + " |")


if __name__ == "__main__":
    main()
