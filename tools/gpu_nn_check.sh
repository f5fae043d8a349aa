#!/usr/bin/env bash
# The rocm nn / DLPack / fault checks and the nn benchmark on an NVIDIA GPU machine with
# no network, through tools/hip_on_cuda (see docs/verification.md):
#   tools/gpu_nn_check.sh OUTDIR
# Expects the wheels from tools/fetch_wheels.sh in .whl/ (carried). Each test group runs
# in its own pytest process with its own time limit (a crash or hang costs that group
# only); pytest's faulthandler dumps the stacks of a test that hangs past 45 s.
# Writes at most six files to OUTDIR: env.txt, precompile.log, tests.log, bench.log,
# bench_rocm_nn.json, bench_rocm_nn.md. The last lines printed are the summary.
set -uo pipefail
out="${1:?usage: tools/gpu_nn_check.sh OUTDIR}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
mkdir -p "$out"
export PYTHONUNBUFFERED=1
t0=$SECONDS
summary=()
note() { summary+=("$(printf '%4ds %s' $((SECONDS - t0)) "$*")"); echo "$*"; }

{
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "commit: $(git rev-parse HEAD 2>/dev/null || echo unknown) (dirty files: $(git status --short 2>/dev/null | wc -l))"
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1
    python3 --version
} >"$out/env.txt"
if compgen -G ".whl/*.whl" >/dev/null; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target /tmp/site .whl/*.whl >>"$out/env.txt" 2>&1 || note "wheel install FAILED"
fi
export PYTHONPATH="/tmp/site:$root${PYTHONPATH:+:$PYTHONPATH}"
bash tools/hip_on_cuda/build.sh /tmp/hoc >>"$out/env.txt" 2>&1 || { note "shim build FAILED"; exit 2; }
export ROCM_PATH=/tmp/hoc
libdirs="$(python3 -c 'import glob,os
d=["/usr/local/cuda/lib64"]
try:
    import nvidia; d+=[p for b in nvidia.__path__ for p in sorted(glob.glob(os.path.join(b,"*","lib")))]
except Exception: pass
print(":".join(x for x in d if os.path.isdir(x)))')"
incdirs="$(python3 -c 'import glob,os
try:
    import nvidia; b=list(nvidia.__path__)
except Exception: b=[]
print(":".join(d for p in b for d in sorted(glob.glob(os.path.join(p,"*","include")))))')"
export HIP_ON_CUDA_LIB_PATH="$libdirs" HIP_ON_CUDA_INCLUDE_PATH="$incdirs"
export LD_LIBRARY_PATH="$libdirs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export CANDLEWICK_KERNEL_CACHE=/tmp/cw-kernels CANDLEWICK_TEST_BACKENDS=cpu,rocm
python3 -c 'import candlewick as cw; [print(b) for b in cw.backends()]' >>"$out/env.txt" 2>&1
note "setup done"

timeout 60 python3 -c 'import rocm_backend as r, time; t=time.time(); s=r.precompile(progress=False, threads=16); print(s, f"{time.time()-t:.1f} s")' \
    >"$out/precompile.log" 2>&1
note "precompile (exit $?): $(tail -n 1 "$out/precompile.log")"

run_group() {  # name, time limit, pytest args...
    local name="$1" limit="$2"
    shift 2
    echo "===== $name" >>"$out/tests.log"
    timeout "$limit" python3 -m pytest -p no:cacheprovider -q -rfEs -o faulthandler_timeout=45 \
        --durations=5 "$@" >>"$out/tests.log" 2>&1
    local rc=$?
    note "$name (exit $rc): $(grep -E '(passed|failed|error|skipped)' "$out/tests.log" | tail -n 1)"
}
run_group nn_paths 75 tests/rocm_gpu/test_nn_paths.py
timeout 60 python3 bench/rocm_nn.py --out "$out" --reps 20 >"$out/bench.log" 2>&1
note "bench (exit $?)"
run_group nn_conformance 50 tests/conformance/test_nn.py
run_group dlpack 40 tests/rocm_gpu/test_dlpack_interop.py tests/namespace/test_dlpack.py
run_group faults 60 tests/rocm_gpu/test_faults.py
run_group random 20 tests/rocm_gpu/test_random_cross.py
cat "$out/bench_rocm_nn.md" 2>/dev/null | sed -n '5,14p'
printf '%s\n' "${summary[@]}"
