#!/usr/bin/env bash
# candlewick._native under Python 3.12, the GPU machine's Python (CI and the development
# machine run 3.11). From 3.12 on CPython keeps some internals elsewhere (a static builtin
# type's tp_dict is NULL): session 16's C lazy path crashed there only, and only a GPU run
# saw it. A copy of the checkout's files (a build in place would leave a 3.12 module in the
# tree the wheel gate packs), a throwaway virtual environment of a Python 3.12 found here
# (its own site-packages seen: numpy where it has it, else pip installs it), the C module
# built for it, then the tests of the C module (binding, member reads, lazy mode's C paths:
# what reaches CPython's internals) on one core. About a minute, run beside the long gates.
# No Python 3.12 here: it says so loudly and passes; CANDLEWICK_REQUIRE_PY312=1 makes that
# a failure. PYTHON312 names the interpreter where none of the usual places has it.
set -euo pipefail
SRC="$(cd "$(dirname "$0")/.." && pwd)"
t0=$SECONDS
step() { echo "== py312_gate: $* ($((SECONDS - t0)) s)"; }

TESTS=(tests/frontend/test_native_*.py)

find_python312() {  # the first interpreter that runs and is 3.12 (a pyenv shim may name one it will not run)
    local c
    for c in "${PYTHON312:-}" python3.12 "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.12*/bin/python3.12 \
        /usr/local/bin/python3.12 /usr/bin/python3.12; do
        if [ -n "$c" ] && "$c" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 12))' >/dev/null 2>&1; then
            "$c" -c 'import sys; print(sys.executable)'
            return 0
        fi
    done
    return 1
}

if ! PY312="$(find_python312)"; then
    echo "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!"
    echo "!! py312_gate: NO PYTHON 3.12 on this machine (PYTHON312, python3.12, pyenv, /usr): the C"
    echo "!! module was NOT tried under the GPU machine's Python; its 3.12-only faults go unseen here."
    echo "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!"
    [ "${CANDLEWICK_REQUIRE_PY312:-0}" = 1 ] && exit 1
    exit 0
fi
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

step "copy of the checkout's files (tracked, and new ones not ignored)"
bash "$SRC/.ci/copy_checkout.sh" "$SRC" "$WORK/src"
cd "$WORK/src"

step "virtual environment of $PY312 ($("$PY312" --version 2>&1)), its site-packages seen"
"$PY312" -m venv --system-site-packages "$WORK/venv"
VPY="$WORK/venv/bin/python"
# candlewick's dependencies, the tests' and setuptools (the build): kept where the
# interpreter has them, installed where not (pip's log shown where it fails)
"$VPY" -m pip install -q --disable-pip-version-check "numpy>=2" "ml_dtypes>=0.4" "platformdirs>=3" \
    "pytest>=8" "hypothesis>=6.100" "setuptools>=77" >"$WORK/pip.log" 2>&1 || { cat "$WORK/pip.log"; exit 1; }

step "candlewick._native built for it"
"$VPY" tools/build_native.py

step "the C module's tests under $("$VPY" -c 'import platform; print(platform.python_version())')"
export CANDLEWICK_REQUIRE_NATIVE=1 PYTHONPATH="$WORK/src"
"$VPY" -c 'import sys, candlewick._native as n; assert "cpython-312" in n.__file__, n.__file__'
"$VPY" -X faulthandler -m pytest -q -p no:cacheprovider "${TESTS[@]}"
step "passed"
