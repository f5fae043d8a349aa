"""One GPU session for the rocm backend, in a fixed order and within a time budget:

    python3 bench/rocm_gpu_run.py OUTDIR [--budget SECONDS] [--kernel-cache TGZ]

1. carried wheels (.whl/) into /tmp/site, the HIP-on-CUDA shim built into /tmp/hip_on_cuda,
   and the environment tools/gpu_check.sh sets up (ROCM_PATH, the CUDA library dirs);
2. a kernel cache built elsewhere for this GPU (e.g. by precompile on a CPU machine with the shim and NVRTC) unpacked into
   CANDLEWICK_KERNEL_CACHE; whatever it lacks is compiled on all cores (precompile);
3. the --steps asked for (default: conformance, rocm_tests, bench, diag), in the order of
   STEPS below: test folders with CANDLEWICK_TEST_BACKENDS=rocm, bench/run_gpu.py and
   bench/rocm_nn.py (beside torch and CuPy), bench/rocm_diag.py, bench/rocm_probe.py,
   bench/tiny_ab.py (tiny ops of the trees in $CANDLEWICK_AB_TREES, interleaved), and
   ``script``: the Python file named by $CANDLEWICK_GPU_SCRIPT (a one-off diagnosis).
Each step has its share of the budget and its own log under OUTDIR; summary.txt lists
the results. Nothing here decides pass/fail: the logs are the record.
"""

import argparse
import glob
import os
import subprocess
import sys
import tarfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


PYTEST = ["-m", "pytest", "-p", "no:cacheprovider", "-q", "-rf", "--tb=line"]
STEPS = [  # name, command after the interpreter (OUT = the output folder), share of the budget
    ("shim_tests", PYTEST + ["tests/shim"], 0.08),
    ("conformance", PYTEST + ["tests/conformance"], 0.45),
    ("conformance_nn", PYTEST + ["tests/conformance/test_nn.py", "tests/conformance/test_matmul.py"], 0.1),
    ("array_api", PYTEST + ["-v", "--tb=short", "tests/array_api"], 0.6),
    ("rocm_tests", PYTEST + ["tests/rocm"], 0.08),
    ("rocm_gpu_tests", PYTEST + ["tests/rocm_gpu"], 0.3),
    ("bench", ["bench/run_gpu.py", "--out", "OUT"], 0.32),
    ("nn_bench", ["bench/rocm_nn.py", "--out", "OUT"], 0.2),
    ("diag", ["bench/rocm_diag.py"], 0.15),
    ("probe", ["bench/rocm_probe.py"], 0.3),
    ("tiny_ab", ["bench/tiny_ab.py"], 0.2),
    ("script", ["SCRIPT"], 0.3),  # $CANDLEWICK_GPU_SCRIPT: a one-off diagnosis in this environment
]
TEST_STEPS = {"shim_tests", "conformance", "conformance_nn", "array_api", "rocm_tests", "rocm_gpu_tests"}


def run(cmd, log, timeout, env):
    t0 = time.time()
    with open(log, "w") as f:
        try:
            rc = subprocess.run(cmd, cwd=ROOT, env=env, stdout=f, stderr=subprocess.STDOUT, timeout=timeout).returncode
        except subprocess.TimeoutExpired:
            rc = "timeout"
    return rc, time.time() - t0


def last_line(log, words=("passed", "failed", "error")):
    lines = [ln for ln in Path(log).read_text(errors="replace").splitlines() if any(w in ln for w in words)]
    return lines[-1].strip() if lines else "(no summary line)"


def cuda_lib_dirs():
    dirs = ["/usr/local/cuda/lib64"]
    try:
        import nvidia

        for base in nvidia.__path__:
            dirs += sorted(glob.glob(os.path.join(base, "*", "lib")))
    except Exception:
        pass
    return [d for d in dirs if os.path.isdir(d)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--budget", type=float, default=270.0)
    ap.add_argument("--kernel-cache", default=str(ROOT / ".kc" / "kcache_sm90.tgz"))
    ap.add_argument("--steps", default="conformance,rocm_tests,bench,diag",
                    help="comma list of: " + ", ".join(name for name, *_ in STEPS))
    ap.add_argument("--no-precompile", action="store_true", help="compile kernels on first use only")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    start = time.time()
    summary = []

    def note(line):
        summary.append(line)
        print(line, flush=True)
        (out / "summary.txt").write_text("\n".join(summary) + "\n")

    def left():
        return args.budget - (time.time() - start)

    env = dict(os.environ, PYTHONUNBUFFERED="1")
    wheels = sorted(glob.glob(str(ROOT / ".whl" / "*.whl")))
    if wheels:
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-index", "--no-deps", "--no-compile",
                        "--no-cache-dir", "--upgrade", "--target", "/tmp/site"] + wheels, check=False)
    env["PYTHONPATH"] = f"/tmp/site:{ROOT}"
    rc, _ = run(["bash", "tools/hip_on_cuda/build.sh", "/tmp/hip_on_cuda"], out / "env.txt", 120, env)
    note(f"shim build: exit {rc}")
    libdirs = ":".join(cuda_lib_dirs())
    env.update(ROCM_PATH="/tmp/hip_on_cuda", HIP_ON_CUDA_LIB_PATH=libdirs,
               LD_LIBRARY_PATH=libdirs + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else ""),
               CANDLEWICK_KERNEL_CACHE="/tmp/candlewick-kc")
    nvsmi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total", "--format=csv,noheader"],
                           capture_output=True, text=True)
    note(f"gpu: {nvsmi.stdout.strip()}  commit: {os.environ.get('GPU_RUN_COMMIT', '?')}")

    cache = Path(args.kernel_cache)
    Path("/tmp/candlewick-kc").mkdir(mode=0o700, exist_ok=True)
    if cache.exists():
        with tarfile.open(cache) as tar:
            for member in tar.getmembers():
                if member.isfile() and member.name.endswith(".co"):
                    member.name = os.path.basename(member.name)
                    tar.extract(member, "/tmp/candlewick-kc")
    pre = ("import rocm_backend as r, json; s = r.precompile(progress=False, threads=os.cpu_count());"
           "print(json.dumps(s))")
    if not args.no_precompile:
        rc, secs = run([sys.executable, "-c", "import os; " + pre], out / "precompile.log", min(150, left()), env)
        note(f"precompile (exit {rc}, {secs:.0f}s): {Path(out / 'precompile.log').read_text()[-300:].strip()}")

    env_tests = dict(env, CANDLEWICK_TEST_BACKENDS="rocm", CANDLEWICK_HYPOTHESIS_PROFILE="ci")
    wanted = args.steps.split(",")
    unknown = set(wanted) - {name for name, *_ in STEPS}
    if unknown:
        raise SystemExit(f"--steps: unknown {sorted(unknown)}")
    fill = {"OUT": str(out), "SCRIPT": os.environ.get("CANDLEWICK_GPU_SCRIPT", "")}
    steps = [(name, [sys.executable] + [fill.get(a, a) for a in cmd], share)
             for name, cmd, share in STEPS if name in wanted]
    total_share = sum(share for *_, share in steps)
    remaining_share = total_share
    for name, cmd, share in steps:
        budget = max(10.0, left() * share / remaining_share)
        remaining_share -= share
        rc, secs = run(cmd, out / f"{name}.log", budget, env_tests if name in TEST_STEPS else env)
        note(f"{name} (exit {rc}, {secs:.0f}s): {last_line(out / f'{name}.log')}")
    note(f"total {time.time() - start:.0f}s")


if __name__ == "__main__":
    main()
