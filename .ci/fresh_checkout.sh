#!/usr/bin/env bash
# The README's quick start on a fresh clone without the rocm extra (issue 35, item 4): a
# copy of the checkout's files, a fresh virtual environment where hip-python is absent,
# the README's install and demo commands as written (with an example backend installed
# beside the checkout, as its README says), then the README's test command over every
# module (collected: an import that needs hip-python fails here) and run over the tests
# whose behaviour depends on hip-python being there (shim, no-device, front end, the
# hip-touching rocm host tests, the example backends). The main run (.ci/run) has
# hip-python installed; this one does not. About 2-3 minutes, run beside the other gates.
set -euo pipefail
SRC="$(cd "$(dirname "$0")/.." && pwd)"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
t0=$SECONDS
step() { echo "== fresh_checkout: $* ($((SECONDS - t0)) s)"; }

step "copy of the checkout's files (tracked, and new ones not ignored)"
bash "$SRC/.ci/copy_checkout.sh" "$SRC" "$WORK/src"
cd "$WORK/src"

step "fresh virtual environment: the README's install command, an example backend beside it"
python -m venv "$WORK/venv"
# shellcheck disable=SC1091
source "$WORK/venv/bin/activate"
pip install -q --disable-pip-version-check -e ".[test]"
pip install -q --disable-pip-version-check ./examples/tracing_backend   # beside the installed checkout
if python -c "import hip" 2>/dev/null; then echo "hip-python is installed in the fresh environment"; exit 1; fi
python -c "import candlewick as cw; names = {b.name: b for b in cw.backends()}; \
assert not names['rocm'].available and 'pip install' in names['rocm'].reason and names['tracing'].available, names; \
print(names['rocm'])"

step "the README's demo"
python examples/quickstart.py >/dev/null

step "the README's test command: every module collected, the hip-dependent ones run"
unset CANDLEWICK_REQUIRE_NATIVE  # a user's machine: the C module where a compiler is found
export CANDLEWICK_HYPOTHESIS_PROFILE="${CANDLEWICK_HYPOTHESIS_PROFILE:-ci}"
python -m pytest -q -p no:cacheprovider --collect-only >/dev/null
python -m pytest -q -p no:cacheprovider tests/rocm/shim tests/rocm/nodevice tests/frontend tests/tracing_backend \
    tests/rocm/host/test_hipblas_binding.py tests/rocm/host/test_allocator.py tests/rocm/host/test_tables_and_packing.py \
    tests/rocm/host/test_kernel_cache_faults.py tests/rocm/host/test_linalg_fft_host_path.py tests/bench/test_bench_interface.py
step "passed"
