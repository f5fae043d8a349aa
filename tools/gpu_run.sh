#!/usr/bin/env bash
# The one GPU runner (see docs/verification.md): on a machine with an NVIDIA GPU and no
# network, build the HIP-on-CUDA shim and candlewick's optional C module
# (tools/build_native.py), install the carried wheels, run the chosen stages.
#
#   tools/gpu_run.sh OUT [STAGE,...|all]        (default: all; --list prints the steps)
#
# Stages: shim (tests/rocm/shim), tests (conformance, Array API, namespace, rocm_gpu, frontend, fusion and custom-kernel suites with
# CANDLEWICK_TEST_BACKENDS=cpu,rocm), bench (every benchmark of bench/, in the STEPS table),
# ecosystem (tests/ecosystem: scikit-learn, SciPy, xarray, Dask, cubed on both backends),
# pydata (tools/pydata_suites.py: scikit-learn's, SciPy's and xarray's own Array API tests with
# array-api-strict and with candlewick on rocm; records bench/pydata_suites_*_<gpu>.json/.md, which
# tools/gen_ecosystem_doc.py --suites merges into docs/ecosystem.md),
# tracing (the conformance suite over examples/tracing_backend wrapping rocm, with its report),
# notebooks (examples/*.ipynb executed with CANDLEWICK_DEVICE=rocm, kept in notebooks/),
# reliability (tools/reliability_fuzz.py's deep profile on rocm, then on cpu: records
# bench/reliability_<device>-<device kind>.md; GPU_RUN_FUZZ_CALLS calls each, default 100000),
# thorough (tools/array_api_thorough.py: the element-wise, clip and masking tests of tests/array_api
# under the thorough Hypothesis profile on rocm: bench/array_api_thorough_rocm-<device kind>.md).
# OUT receives two files: summary.txt (pass/fail counts per suite, key figures) and
# results.tar.gz (env.txt, every step's log, junit xml, the benchmarks' json/md records).
# Every step's failure is recorded and the run goes on; only a failed shim build stops it
# (exit 2). A step that needs a GPU is skipped, with a line saying so, where none is found.
# Environment: CANDLEWICK_COMMIT (the commit, for a copy without .git), GPU_RUN_BUDGET
# (seconds for the whole run, default 540: the device tool's limit is 600 per command),
# GPU_RUN_WORKERS (pytest-xdist workers for the suites marked so, default 8), GPU_RUN_STEPS
# (a comma list of step names: only those steps of the chosen stages run), GPU_RUN_AFTER (a
# shell command run after the steps in the same environment, its output in after.log),
# GPU_RUN_CONCURRENT (a comma list of step names started side by side in the background, each
# under its own limit, and waited for before GPU_RUN_AFTER: test suites that time nothing, such
# as pydata and thorough, share one call; never a benchmark, whose figures others would distort;
# STEP:N gives that step N of the cores as its GPU_RUN_WORKERS).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

# One line per step: stages it belongs to, step name, needs (gpu|any), time limit (s),
# command (run from the repository root; $W is the work folder, $XDIST the -n option).
# A new stage or benchmark is one more line here.
# Stage multigpu (a machine with several GPUs): tests/rocm/gpu/test_multi_gpu.py, the RCCL
# shim test, the Dask cluster of one worker per GPU (tests/frontend/test_local_gpu_cluster.py),
# bench/multi_gpu.py and bench/multi_gpu_dask.py; on one GPU their two-GPU parts skip and say so.
STEPS=(
    "shim        shim           gpu 120 run_pytest tests/rocm/shim"
    "tests,bench,reliability,tracing,notebooks,ecosystem,pydata precompile gpu 150 precompile_kernels"
    "tests       conformance    gpu 300 run_pytest \$XDIST candlewick/conformance"
    "tests       array_api      gpu 200 run_pytest \$XDIST tests/array_api"
    "tests       rocm_gpu       gpu 200 run_pytest tests/rocm/gpu"
    "tests       frontend       gpu 150 run_pytest tests/frontend"
    "tests       namespace      gpu 200 run_pytest \$XDIST tests/namespace"
    "tests       fusion_tests   gpu 240 CANDLEWICK_FUSION_EXAMPLES=25 run_pytest tests/fusion"
    "tests       custom_kernels gpu 150 run_pytest tests/custom_kernels"
    "bench       host_overhead  any 400 run_bench host_overhead"
    "bench       rocm_ops       gpu 420 run_bench rocm_ops"
    "bench       rocm_nn        gpu 150 run_bench rocm_nn"
    "bench       rocm_graphs    gpu 120 run_bench rocm_graphs"
    "bench       rocm_host_path gpu 120 run_bench rocm_host_path"
    "bench       rocm_transfers gpu 150 run_bench rocm_transfers"
    "bench       rocm_streams   gpu 150 run_bench rocm_streams"
    "bench       linalg_fft     gpu 300 run_bench linalg_fft"
    "bench       fusion         gpu 300 run_bench fusion"
    "bench       pydata_e2e     gpu 520 CANDLEWICK_DEVICE=rocm run_bench pydata_e2e"
    "bench       inplace        gpu 300 run_bench inplace"
    "bench       cubed_out_of_core any 300 run_bench cubed_out_of_core"
    "bench       conformance_first_report any 400 run_bench conformance_first_report"
    "bench       cubed_rocm     gpu 300 CANDLEWICK_DEVICE=rocm run_bench cubed_out_of_core"
    "multigpu    multi_gpu_tests gpu 200 run_pytest tests/rocm/gpu/test_multi_gpu.py tests/rocm/shim/test_fake_nccl.py tests/frontend/test_local_gpu_cluster.py"
    "bench,multigpu multi_gpu   gpu 420 run_bench multi_gpu"
    "bench,multigpu multi_gpu_dask gpu 300 run_bench multi_gpu_dask"
    "ecosystem   ecosystem      gpu 240 CANDLEWICK_ECOSYSTEM_RESULTS=\$W/ecosystem.jsonl run_pytest tests/ecosystem"
    "pydata      pydata         gpu 420 CANDLEWICK_DEVICE=rocm run_pydata sklearn,xarray"
    "pydata      pydata_scipy   gpu 560 CANDLEWICK_DEVICE=rocm run_pydata scipy"
    "tracing     tracing_rocm   gpu 420 run_tracing_conformance rocm"
    "notebooks   notebooks      gpu 400 CANDLEWICK_DEVICE=rocm CANDLEWICK_NOTEBOOK_OUT=\$W/notebooks run_pytest tests/examples"
    "reliability reliability_rocm gpu 480 run_reliability rocm gpu"
    "reliability reliability_cpu any 150 run_reliability cpu cpu"
    "thorough    array_api_thorough gpu 540 run_thorough rocm tests/array_api/test_elementwise.py tests/array_api/test_indexing.py tests/array_api/test_indexing_functions.py"
)

if [[ "${1:-}" == --list ]]; then
    printf '%s\n' "${STEPS[@]}"
    exit 0
fi
out="${1:?usage: tools/gpu_run.sh OUT [shim,tests,bench,ecosystem,tracing,notebooks,reliability,thorough|all] (or --list)}"
stages="${2:-all}"
known=" $(for s in "${STEPS[@]}"; do read -r st _ <<<"$s"; tr ',' '\n' <<<"$st"; done | sort -u | tr '\n' ' ')"
for s in ${stages//,/ }; do
    [[ "$s" == all || "$known" == *" $s "* ]] || { echo "unknown stage '$s'; stages:$known" >&2; exit 64; }
done
budget="${GPU_RUN_BUDGET:-540}"
export PYTHONUNBUFFERED=1
mkdir -p "$out"
out="$(cd "$out" && pwd)"
W="$(mktemp -d /tmp/gpu_run.XXXXXX)/gpu_run"
mkdir -p "$W/bench"
summary="$out/summary.txt"
: >"$summary"
note() { echo "$*" | tee -a "$summary"; }

pack() {  # the results tarball; logs past 4 MiB keep their first and last MiB
    cp "$summary" "$W/summary.txt"
    find "$W" -name '*.log' -size +4M | while read -r f; do
        { head -c 1M "$f"; printf '\n[... cut by gpu_run.sh ...]\n'; tail -c 1M "$f"; } >"$f.cut" && mv "$f.cut" "$f"
    done
    tar -czf "$out/results.tar.gz" -C "$(dirname "$W")" gpu_run
    rm -rf "$(dirname "$W")"
    note "results: $out/results.tar.gz ($(du -h "$out/results.tar.gz" | cut -f1))"
}
trap pack EXIT
trap 'exit 143' TERM  # a run stopped from outside still packs what it has

want() { [[ "$stages" == all || ",$stages," == *",$1,"* ]]; }
has_gpu() { nvidia-smi -L 2>/dev/null | grep -q '^GPU '; }
commit="$(python3 -c 'import sys; sys.path.insert(0, "bench"); import harness; print(harness.commit())')"
export CANDLEWICK_COMMIT="$commit"

{
    echo "date: $(date -u +%FT%TZ)"
    echo "commit: $commit"
    echo "stages: $stages; budget: ${budget}s"
    echo "python: $(python3 --version 2>&1) at $(command -v python3)"
    echo "gcc: $(gcc --version 2>/dev/null | head -n 1 || echo none)"
    echo "--- nvidia-smi"
    nvidia-smi 2>&1 || echo "nvidia-smi: none"
} >"$W/env.txt"
gpu="$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -n 1)"
note "gpu_run $(date -u +%FT%TZ) commit $commit stages $stages"
note "gpu: ${gpu:-none found (steps that need one are skipped)}"

# --- carried wheels (hip-python and friends, tools/fetch_wheels.sh) ------------------------
if compgen -G ".whl/*.whl" >/dev/null; then
    if python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target /tmp/site .whl/*.whl >>"$W/env.txt" 2>&1; then
        note "wheels: $(ls .whl/*.whl | wc -l) installed into /tmp/site"
    else
        note "wheels: install FAILED (see env.txt)"
    fi
    export PYTHONPATH="/tmp/site:$root${PYTHONPATH:+:$PYTHONPATH}"
else
    note "wheels: none in .whl/ (tools/fetch_wheels.sh fetches them)"
    export PYTHONPATH="$root${PYTHONPATH:+:$PYTHONPATH}"
fi

# --- candlewick's optional C module, compiled in place as an install from source would --------
if python3 tools/build_native.py >"$W/native_build.log" 2>&1; then
    note "native: $(tail -n 1 "$W/native_build.log")"
else
    note "native: not built, the Python paths run ($(tail -n 1 "$W/native_build.log"))"
fi

# --- the shim and the CUDA libraries it opens (the one fatal step) ---------------------------
shim=/tmp/hip_on_cuda
if bash tools/hip_on_cuda/build.sh "$shim" >"$W/shim_build.log" 2>&1; then
    note "shim: built into $shim/lib"
else
    note "shim: build FAILED, stopping (see shim_build.log)"
    exit 2
fi
nvidia_dirs() {  # the CUDA library (lib) or header (include) folders of the pip nvidia-* packages
    python3 -c 'import glob, os, sys
try:
    import nvidia; bases = list(nvidia.__path__)
except Exception: bases = []
print(":".join(d for b in bases for d in sorted(glob.glob(os.path.join(b, "*", sys.argv[1])))))' "$1"
}
libdirs="$(nvidia_dirs lib)"
[[ -d /usr/local/cuda/lib64 ]] && libdirs="/usr/local/cuda/lib64${libdirs:+:$libdirs}"
export ROCM_PATH="$shim" HIP_ON_CUDA_LIB_PATH="$libdirs" HIP_ON_CUDA_INCLUDE_PATH="$(nvidia_dirs include)"
export LD_LIBRARY_PATH="$libdirs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export CANDLEWICK_KERNEL_CACHE=/tmp/candlewick-kernels CANDLEWICK_HYPOTHESIS_PROFILE="${CANDLEWICK_HYPOTHESIS_PROFILE:-ci}"
{
    echo "ROCM_PATH=$ROCM_PATH"
    echo "HIP_ON_CUDA_LIB_PATH=$HIP_ON_CUDA_LIB_PATH"
    echo "HIP_ON_CUDA_INCLUDE_PATH=$HIP_ON_CUDA_INCLUDE_PATH"
    python3 -m pip list 2>/dev/null | grep -iE '^(numpy|ml.dtypes|hip-python|rocm-bindings|cupy|torch|pytest|pytest-xdist|hypothesis|array.api.strict) '
    python3 -c 'import candlewick as cw; [print(b) for b in cw.backends()]' 2>&1
} >>"$W/env.txt" 2>&1

XDIST=""
python3 -c 'import xdist' 2>/dev/null && XDIST="-n ${GPU_RUN_WORKERS:-8}"

# --- the step kinds of the table ---------------------------------------------------------------
counts() {  # the last pytest summary line of a log
    grep -E '[0-9]+ (passed|failed|error|errors|skipped)|no tests ran' "$1" | tail -n 1 | tr -d '='
}
run_pytest() {  # pytest over the given paths with both backends; junit xml beside the log
    CANDLEWICK_TEST_BACKENDS=cpu,rocm timeout -k 10 "$limit" python3 -m pytest -p no:cacheprovider -q -rfE \
        -o faulthandler_timeout=120 --junitxml="$W/$step.xml" "$@" >"$log" 2>&1
    local rc=$?
    echo "$(counts "$log")"
    return $rc
}
run_bench() {  # python bench/NAME.py --out W/bench; its HEADLINE lines go to the summary
    timeout -k 10 "$limit" python3 "bench/$1.py" --out "$W/bench" >"$log" 2>&1
    local rc=$?
    echo "$(cd "$W" && ls bench/"$1"_*.md 2>/dev/null || echo "no record written")"
    sed -n 's/^HEADLINE: /    /p' "$log"
    return $rc
}
run_pydata() {  # the libraries' own Array API tests, strict beside candlewick (tools/pydata_suites.py), on $1
    timeout -k 10 "$limit" python3 tools/pydata_suites.py --libraries "$1" --jobs "${GPU_RUN_WORKERS:-8}" \
        --deadline "$((limit - 60))" --out "$W/bench" --logs "$W/pydata_${1//,/-}" >"$log" 2>&1
    local rc=$?
    echo "$(cd "$W" && ls bench/pydata_suites_*.md 2>/dev/null | tr '\n' ' ' || echo "no record written")"
    sed -n 's/^HEADLINE: /    /p' "$log"
    return $rc
}
run_tracing_conformance() {  # examples/tracing_backend installed, the conformance CLI over it wrapping $1 (xdist workers)
    python3 -m pip install -q --no-index --no-deps --no-build-isolation --target /tmp/site \
        examples/tracing_backend >"$log" 2>&1 || { echo "tracing backend install failed"; return 1; }
    CANDLEWICK_TRACING_WRAPS="$1" timeout -k 10 "$limit" python3 -m candlewick.conformance tracing \
        --profile gpu --markdown "$W/tracing_$1_report.md" --json "$W/tracing_$1_report.json" -- $XDIST >>"$log" 2>&1
    local rc=$?
    echo "$(counts "$log")"
    return $rc
}
run_reliability() {  # the fuzz's deep profile on device $1 (harness kind $2), stopped before the step's limit
    local kind jobs
    kind="$1-$(python3 -c 'import sys; sys.path.insert(0, "bench"); import harness; print(harness.device_kind(sys.argv[1]))' "$2")"
    kind="${kind/#cpu-cpu-/cpu-}"
    jobs="$(nproc)"
    timeout -k 10 "$limit" python3 tools/reliability_fuzz.py --device "$1" --kind "$kind" \
        --device-text "$([[ "$2" == gpu ]] && echo "${gpu:-unknown GPU}" || echo "$(nproc) CPUs")" \
        --calls "${GPU_RUN_FUZZ_CALLS:-100000}" --jobs "$jobs" --batches "$((2 * jobs))" \
        --deadline "$((limit - 30))" --out "$W/bench" >"$log" 2>&1
    local rc=$?
    echo "$(cd "$W" && ls bench/reliability_"$kind".md 2>/dev/null || echo "no record written")"
    sed -n -e 's/^- calls: /    calls: /p' -e 's/^| \(0 [a-zA-Z ]*\) | \([0-9]*\) |$/    \1: \2/p' \
        -e 's/^- not finished by the deadline[^:]*: \([0-9]* callables\).*/    not finished: \1/p' \
        "$W/bench/reliability_$kind.md" 2>/dev/null
    return $rc
}
run_thorough() {  # tools/array_api_thorough.py on backend $1 over the test paths after it: its record in W/bench
    local backend="$1"
    shift
    timeout -k 10 "$limit" python3 tools/array_api_thorough.py --backend "$backend" --workers "${GPU_RUN_WORKERS:-8}" \
        --kind "$backend-$(python3 -c 'import sys; sys.path.insert(0, "bench"); import harness; print(harness.device_kind("gpu"))')" \
        --out "$W/bench" --paths "$@" >"$log" 2>&1
    local rc=$?
    echo "$(cd "$W" && ls bench/array_api_thorough_*.md 2>/dev/null || echo "no record written")"
    sed -n -e 's/^- pytest: /    pytest: /p' -e 's/^- element-wise, clip and masking tests: /    focus: /p' \
        "$W"/bench/array_api_thorough_*.md 2>/dev/null
    return $rc
}
precompile_kernels() {  # every kernel module into the disk cache, on all cores, before the suites
    timeout -k 10 "$limit" python3 -c 'import os, rocm_backend
print(rocm_backend.precompile(progress=False, threads=os.cpu_count()))' >"$log" 2>&1
    local rc=$?
    tail -n 1 "$log" | cut -c1-200
    return $rc
}

# --- the steps ------------------------------------------------------------------------------
run_step() {  # one step of the table: $step, $cmd, $limit and $log set by the loop below
    local t0=$SECONDS result rc status
    result="$(eval "$cmd")"
    rc=$?
    status=ok
    ((rc == 124 || rc == 137)) && status="TIMED OUT after ${limit}s" || { ((rc)) && status="FAILED (exit $rc)"; }
    note "$step: $status, $((SECONDS - t0))s: $(head -n 1 <<<"$result")"
    tail -n +2 <<<"$result" | while IFS= read -r line; do [[ -n "$line" ]] && note "$line"; done
}

for row in "${STEPS[@]}"; do
    read -r step_stages step needs max cmd <<<"$row"
    chosen=0
    for s in ${step_stages//,/ }; do want "$s" && chosen=1; done
    ((chosen)) || continue
    # GPU_RUN_STEPS (a comma list of step names) narrows the chosen stages to those steps
    [[ -z "${GPU_RUN_STEPS:-}" || ",$GPU_RUN_STEPS," == *",$step,"* ]] || continue
    if [[ "$needs" == gpu ]] && ! has_gpu; then
        note "$step: SKIPPED (needs a GPU; nvidia-smi finds none)"
        continue
    fi
    left=$((budget - SECONDS - 15))
    if ((left < 20)); then
        note "$step: SKIPPED (the ${budget}s budget is spent)"
        continue
    fi
    limit=$((max < left ? max : left))
    log="$W/$step.log"
    share="$(tr ',' '\n' <<<"${GPU_RUN_CONCURRENT:-}" | sed -n "s/^$step\(:\|$\)//p" | head -n 1)"
    if [[ ",${GPU_RUN_CONCURRENT:-}," == *",$step,"* || ",${GPU_RUN_CONCURRENT:-}," == *",$step:"* ]]; then
        note "$step: started in the background (limit ${limit}s${share:+, $share workers})"
        (if [[ -n "$share" ]]; then export GPU_RUN_WORKERS="$share"; fi; run_step) &
    else
        run_step
    fi
done
wait  # the background steps
if [[ -n "${GPU_RUN_AFTER:-}" ]]; then  # an ad-hoc command in the prepared environment (a probe)
    left=$((budget - SECONDS - 15))
    if ((left >= 20)); then
        timeout -k 10 "$left" bash -c "$GPU_RUN_AFTER" >"$W/after.log" 2>&1
        note "after: exit $?, output in after.log"
    else
        note "after: SKIPPED (the ${budget}s budget is spent)"
    fi
fi
note "total: ${SECONDS}s"
