#!/usr/bin/env bash
# Packaging gate: build the sdist and the wheel (from the sdist, as `python -m build`
# does) with no warnings, install the wheel into a fresh virtual environment, and from a
# directory outside the source tree import candlewick, run the quick-start demo and a
# set of tests against the installed copy. An editable install (what the main test run
# uses) hides a wheel that lacks a subpackage or a data file; this does not.
set -euo pipefail
SRC="$(cd "$(dirname "$0")/.." && pwd)"
PY="${PYTHON:-python}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
t0=$SECONDS
step() { echo "== wheel_gate: $* ($((SECONDS - t0)) s)"; }

# the tests run against the installed package: they hold no copy of the library
GATE_TESTS=(
    tests/frontend/test_array_core.py
    tests/frontend/test_first_day.py
    tests/frontend/test_native_elementwise.py
    tests/frontend/test_native_launch.py
    tests/frontend/test_promotion_rule.py
    tests/namespace/test_data_types.py
    tests/namespace/test_dlpack.py
    tests/array_api/test_manipulation.py
)

step "build sdist and wheel"
"$PY" -m pip install -q --disable-pip-version-check build
# PYTHONDONTWRITEBYTECODE makes distutils warn that it skips byte-compiling: not ours
env -u PYTHONDONTWRITEBYTECODE "$PY" -m build --outdir "$WORK/dist" "$SRC" >"$WORK/build.log" 2>&1 \
    || { cat "$WORK/build.log"; exit 1; }
if grep -inE "warning|deprecat" "$WORK/build.log"; then
    echo "the build printed warnings (above); fix the packaging configuration"; exit 1
fi
WHEEL=$(ls "$WORK"/dist/candlewick-*.whl)
ls "$WORK"/dist/candlewick-*.tar.gz >/dev/null

step "fresh virtual environment with the wheel and its test extra"
"$PY" -m venv "$WORK/venv"
VPY="$WORK/venv/bin/python"
"$VPY" -m pip install -q --disable-pip-version-check "$WHEEL[test]"

OUTSIDE="$WORK/outside"
mkdir -p "$OUTSIDE"
for t in "${GATE_TESTS[@]}" tests/conftest.py tests/namespace/_namespace_helpers.py tests/frontend/_native_paths.py \
         tests/namespace/_oracle.py tests/array_api/conftest.py tests/array_api/array_api_support.py; do
    mkdir -p "$OUTSIDE/$(dirname "$t")"
    cp "$SRC/$t" "$OUTSIDE/$t"
done
cp "$SRC/examples/quickstart.py" "$OUTSIDE/"
# the copy's own pytest configuration: the source tree is nowhere on sys.path
cat >"$OUTSIDE/pytest.ini" <<'EOF'
[pytest]
addopts = --import-mode=importlib -p no:cacheprovider
pythonpath = tests/namespace tests/array_api tests/frontend
EOF

cd "$OUTSIDE"
step "import, quick-start demo and tests against the installed package"
env -u PYTHONPATH CANDLEWICK_HYPOTHESIS_PROFILE=ci "$VPY" - "$WORK/venv" "${GATE_TESTS[@]}" <<'EOF'
import os, runpy, sys
venv, tests = sys.argv[1], sys.argv[2:]
import candlewick

def installed(module):
    path = os.path.realpath(module.__file__)
    if not path.startswith(os.path.realpath(venv) + os.sep):
        sys.exit(f"{module.__name__} imported from {path}, not from the wheel in {venv}")

installed(candlewick)
# PEP 561: the marker that tells type checkers the installed package is typed
assert os.path.isfile(os.path.join(os.path.dirname(candlewick.__file__), "py.typed")), "py.typed missing"
import cpu_backend, rocm_backend, candlewick.fft, candlewick.linalg
for module in (cpu_backend, rocm_backend, candlewick.fft, candlewick.linalg):
    installed(module)
# the optional C part (setup.py): where the build must compile it, the wheel holds it
if os.environ.get("CANDLEWICK_REQUIRE_NATIVE") == "1":
    import candlewick._native
    installed(candlewick._native)
print("candlewick", candlewick.__version__, "from", os.path.dirname(candlewick.__file__))
# the kernels' .hip/.h files are package data: every module's source must assemble
sources = list(rocm_backend.all_kernel_sources())
print(f"rocm_backend: {len(sources)} kernel module sources readable")
runpy.run_path("quickstart.py", run_name="__main__")
import pytest
code = pytest.main(["-q", *tests])
installed(sys.modules["candlewick"])
sys.exit(int(code))
EOF
step "passed"
