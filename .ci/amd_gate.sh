#!/usr/bin/env bash
# Layers 2 and 3 of docs/verification.md, plus the shim build, on a CPU-only Debian
# bookworm CI machine (root or sudo, network to Debian and PyPI):
#   1. AMD's HIP runtime and hipRTC (ROCm 5.2): apt-get install hipcc libamdhip64-dev
#   2. hip-python 10 (with hipBLAS bindings) for this Python
#   3. build tools/hip_on_cuda with gcc alone (no CUDA here) - it must compile
#   4. AMD compile gate: every kernel module rocm_backend can generate, compiled by
#      AMD's hipRTC for gfx90a (tools/amd_compile_gate.py)
#   5. no-device behaviour with AMD's runtime (tests/rocm/nodevice), and the shim's
#      CPU-only tests (struct layouts against hip-python, the fake-driver forwarding test)
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python}"
t0=$SECONDS
step() { echo "== amd_gate: $* ($((SECONDS - t0)) s)"; }

step "AMD HIP runtime (Debian ROCm 5.2)"
if ! compgen -G "/usr/lib/x86_64-linux-gnu/libamdhip64.so.5*" >/dev/null; then
    SUDO=""
    [ "$(id -u)" = 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq hipcc libamdhip64-dev >/dev/null
fi

step "hip-python"
if ! "$PY" -c "from hip import hip, hiprtc, hipblas, rccl" 2>/dev/null; then
    "$PY" -m pip install -q --disable-pip-version-check "hip-python[libraries,systems]==10.0.0.0.1.2"
fi

step "build tools/hip_on_cuda with gcc only"
shim_out="$(mktemp -d)"
bash tools/hip_on_cuda/build.sh "$shim_out"
rm -rf "$shim_out"

step "AMD compile gate (gfx90a)"
"$PY" tools/amd_compile_gate.py --arch gfx90a

step "no-device behaviour with AMD's runtime; shim CPU-only tests"
CANDLEWICK_AMD_RUNTIME_TEST=1 "$PY" -m pytest -q -p no:cacheprovider tests/rocm/nodevice tests/rocm/shim

step "done"
