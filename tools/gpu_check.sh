#!/usr/bin/env bash
# One command for a GPU machine with no network (NVIDIA; see docs/verification.md):
#   tools/gpu_check.sh OUTDIR [STAGES]
# STAGES (or $GPU_CHECK_STAGES): comma list of shim, suite, bench; default: all.
#   shim  - build tools/hip_on_cuda and run tests/shim (hip-python -> shim -> CUDA)
#   suite - the project's tests with CANDLEWICK_TEST_BACKENDS=cpu,rocm (recorded, never fatal)
#   bench - bench/run_gpu.py --out OUTDIR, if that file exists (recorded, never fatal)
# Expects the wheels from tools/fetch_wheels.sh in .whl/ (carried to the machine).
# Writes at most five files of its own to OUTDIR: summary.txt, env.txt, shim.log,
# tests.log, bench.log.  Exit status: that of the shim stage (0 when not run).
set -uo pipefail
out="${1:?usage: tools/gpu_check.sh OUTDIR [shim,suite,bench]}"
stages="${2:-${GPU_CHECK_STAGES:-all}}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
mkdir -p "$out"
summary="$out/summary.txt"
: >"$summary"
note() { echo "$*" | tee -a "$summary"; }
want() { [[ "$stages" == all || ",$stages," == *",$1,"* ]]; }
export PYTHONUNBUFFERED=1

# --- record the machine ----------------------------------------------------------
{
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "commit: ${GPU_CHECK_COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}"
    echo "stages: $stages"
    echo "python: $(python3 --version 2>&1) at $(command -v python3)"
    echo "gcc: $(gcc --version 2>/dev/null | head -1 || echo none)"
    echo "--- nvidia-smi"
    nvidia-smi 2>&1 || echo "nvidia-smi failed"
} >"$out/env.txt"
note "gpu_check $(date -u +%FT%TZ) commit ${GPU_CHECK_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}"
note "gpu: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -1)"

# --- carried wheels (hip-python and friends) --------------------------------------
if compgen -G ".whl/*.whl" >/dev/null; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target /tmp/site .whl/*.whl >>"$out/env.txt" 2>&1 || note "wheel install FAILED"
fi
export PYTHONPATH="/tmp/site:$root${PYTHONPATH:+:$PYTHONPATH}"

# --- the shim and the CUDA libraries it opens ---------------------------------------
shim=/tmp/hip_on_cuda
if command -v gcc >/dev/null && bash tools/hip_on_cuda/build.sh "$shim" >>"$out/env.txt" 2>&1; then
    note "shim: built with $(gcc -dumpversion 2>/dev/null) into $shim/lib"
elif [[ -f tools/hip_on_cuda/build/lib/libamdhip64.so ]]; then
    shim="$root/tools/hip_on_cuda/build"
    note "shim: no build here; using the carried tools/hip_on_cuda/build"
else
    note "shim: build FAILED and none carried"; exit 2
fi
export ROCM_PATH="$shim"
libdirs="$(python3 - <<'PY'
import glob, os
dirs = ["/usr/local/cuda/lib64"]
try:
    import nvidia
    for base in nvidia.__path__:
        dirs += sorted(glob.glob(os.path.join(base, "*", "lib")))
except Exception:
    pass
print(":".join(d for d in dirs if os.path.isdir(d)))
PY
)"
incdirs="$(python3 -c 'import glob,os
try:
    import nvidia; b=list(nvidia.__path__)
except Exception: b=[]
print(":".join(d for p in b for d in sorted(glob.glob(os.path.join(p,"*","include")))))')"
export HIP_ON_CUDA_LIB_PATH="$libdirs"
export HIP_ON_CUDA_INCLUDE_PATH="$incdirs"
export LD_LIBRARY_PATH="$libdirs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
{
    echo "ROCM_PATH=$ROCM_PATH"
    echo "HIP_ON_CUDA_LIB_PATH=$HIP_ON_CUDA_LIB_PATH"
    echo "HIP_ON_CUDA_INCLUDE_PATH=$HIP_ON_CUDA_INCLUDE_PATH"
    for d in ${libdirs//:/ }; do ls "$d" 2>/dev/null | grep -E '^lib(cublas|nvrtc|cudnn|cudart)\.so' | sed "s|^|$d/|"; done
    python3 -m pip list 2>/dev/null | grep -iE '^(numpy|ml.dtypes|hip-python|rocm-bindings|cupy|torch|pytest|hypothesis) '
} >>"$out/env.txt" 2>&1

count() { # pass/fail/skip counts from a pytest log's last line
    tail -n 5 "$1" | grep -E '(passed|failed|error|skipped)' | tail -n 1
}

shim_status=0
if want shim; then
    python3 -m pytest -p no:cacheprovider tests/shim -q -rs >"$out/shim.log" 2>&1
    shim_status=$?
    note "shim tests (exit $shim_status): $(count "$out/shim.log")"
fi

if want suite; then
    CANDLEWICK_TEST_BACKENDS=cpu,rocm CANDLEWICK_HYPOTHESIS_PROFILE="${CANDLEWICK_HYPOTHESIS_PROFILE:-ci}" \
        timeout "${GPU_CHECK_SUITE_TIMEOUT:-420}" \
        python3 -m pytest -p no:cacheprovider tests -x -q --ignore=tests/shim >"$out/tests.log" 2>&1
    note "suite cpu,rocm (exit $?, recorded only): $(count "$out/tests.log")"
fi

if want bench; then
    if [[ -f bench/run_gpu.py ]]; then
        timeout "${GPU_CHECK_BENCH_TIMEOUT:-300}" python3 bench/run_gpu.py --out "$out" >"$out/bench.log" 2>&1
        note "bench (exit $?, recorded only): see bench.log"
    else
        note "bench: bench/run_gpu.py does not exist yet"
    fi
fi
exit "$shim_status"
