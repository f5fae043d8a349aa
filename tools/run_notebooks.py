"""Execute the example notebooks of examples/ (one kernel each, this tree's candlewick).

    python tools/run_notebooks.py [--device DEV] [--write | --out DIR] [NOTEBOOK ...]

Every notebook (default: all of examples/*.ipynb) runs top to bottom in a fresh Python
kernel whose working folder is examples/ and whose CANDLEWICK_DEVICE is DEV (default: the
caller's CANDLEWICK_DEVICE, else cpu); a failing cell stops that notebook and fails the run.
``--write`` stores each executed notebook in place (how the stored outputs are made: on
cpu), ``--out DIR`` writes executed copies to DIR (tools/gpu_run.sh records the rocm run
so). tests/examples/test_notebooks.py runs them through :func:`execute` in CI.
"""

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
# the notebooks' device, as the tool set it, is kept in their metadata under this key
META_KEY = "candlewick"
CELL_TIMEOUT_S = 300  # a hang guard: on a GPU, first use compiles kernels


def notebooks():
    """Every example notebook, in name order."""
    return sorted(EXAMPLES.glob("*.ipynb"))


def run_device(device=None):
    """The device a run gives the kernel: ``device``, else $CANDLEWICK_DEVICE, else cpu."""
    return device or os.environ.get("CANDLEWICK_DEVICE") or "cpu"


def execute(path, device=None):
    """Run the notebook at ``path`` in a fresh kernel; return the executed notebook.

    Raises nbclient's CellExecutionError (naming the cell and its traceback) when a cell
    fails. The kernel imports this tree's packages first (PYTHONPATH) and runs on
    ``run_device(device)``, recorded in the notebook's metadata."""
    # nbformat and nbclient come with the examples extra: loaded only when executing
    import nbformat
    from nbclient import NotebookClient

    device = run_device(device)
    nb = nbformat.read(path, as_version=4)
    env = dict(os.environ, CANDLEWICK_DEVICE=device, MPLBACKEND="module://matplotlib_inline.backend_inline")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    # one BLAS thread unless the caller says otherwise: BLAS splits sums by thread count, so
    # results would depend on the machine's cores, and spinning threads crawl on busy ones
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        env.setdefault(var, "1")
    # no per-cell timestamps in the stored notebooks: every re-run would change them all
    client = NotebookClient(nb, timeout=CELL_TIMEOUT_S, kernel_name="python3", record_timing=False,
                            resources={"metadata": {"path": str(Path(path).parent)}})
    client.execute(env=env)
    nb.metadata[META_KEY] = {"device": device}
    return nb


def main(argv=None):
    import nbformat  # the examples extra, as in execute

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="*", type=Path, help="default: examples/*.ipynb")
    parser.add_argument("--device", help="CANDLEWICK_DEVICE for the kernels (default: the caller's, else cpu)")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--write", action="store_true", help="store the executed notebooks in place")
    where.add_argument("--out", type=Path, help="folder for executed copies")
    args = parser.parse_args(argv)
    failed = 0
    for path in args.notebooks or notebooks():
        t0 = time.perf_counter()
        try:
            nb = execute(path, args.device)
        except Exception as exc:  # noqa: BLE001 - reported per notebook; the others still run
            failed += 1
            print(f"{path.name}: FAILED after {time.perf_counter() - t0:.1f}s\n{exc}", flush=True)
            continue
        print(f"{path.name}: ok on {run_device(args.device)}, {time.perf_counter() - t0:.1f}s", flush=True)
        if args.write:
            nbformat.write(nb, path)
        elif args.out:
            args.out.mkdir(parents=True, exist_ok=True)
            nbformat.write(nb, args.out / path.name)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
