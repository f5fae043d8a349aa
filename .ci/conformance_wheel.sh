#!/usr/bin/env bash
# The conformance suite as a backend author runs it: build candlewick's wheel and the
# example backend's (examples/tracing_backend), install both into a fresh virtual
# environment, and run `python -m candlewick.conformance` from an unrelated directory
# against `cpu` and `tracing` (over cpu, with all dtypes and with some withheld). Every
# test of the suite runs, with the `smoke` hypothesis profile (two examples a test) to
# keep this step to a few minutes; the project's own test run covers the suite with the
# `ci` profile.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== conformance suite from built wheels (.ci/conformance_wheel.sh)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# build from a copy of the checkout's files (tracked, and new ones not ignored): a stale
# build/ folder of a working checkout must not leak into the wheels
mkdir "$work/src"
git ls-files -z --cached --others --exclude-standard |
    while IFS= read -r -d '' f; do if [ -e "$f" ]; then printf '%s\0' "$f"; fi; done |
    xargs -0 cp --parents -t "$work/src"
python -m pip wheel -q --disable-pip-version-check --no-deps -w "$work/dist" "$work/src" "$work/src/examples/tracing_backend"
# (without pip of its own: Debian's python lacks ensurepip; this pip installs into it)
python -m venv --without-pip "$work/venv"
py="$work/venv/bin/python"
python -m pip --python "$py" install -q --disable-pip-version-check \
    "$(ls "$work"/dist/candlewick-[0-9]*.whl)[conformance]" "$work"/dist/candlewick_tracing_backend-*.whl

mkdir "$work/elsewhere"
cd "$work/elsewhere"
"$py" - <<'PY'
import candlewick
assert "site-packages" in candlewick.__file__, f"candlewick imported from {candlewick.__file__}, not the wheel"
rows = {b.name: b for b in candlewick.backends()}
assert "tracing" in rows and rows["tracing"].available, f"tracing backend not listed/available: {rows}"
print("installed:", candlewick.__file__, "|", rows["tracing"])
PY
# a device that withholds float64, complex128 and the fft group (as many GPUs): every
# such cell is "not declared", none fails, and no test uses a dtype it was not given
CANDLEWICK_TRACING_HIDE=float64,complex128,fft "$py" -m candlewick.conformance tracing --profile smoke \
    --json hidden.json -- -q -p no:warnings --no-conformance-report
"$py" -m candlewick.conformance cpu tracing --profile smoke --markdown report.md --json report.json -- -q -rs -p no:warnings
"$py" - <<'PY'
import json
report = json.load(open("report.json"))
for backend in report["backends"]:
    assert backend["counts"]["fail"] == 0, backend["counts"]
    assert backend["counts"]["pass"] > 400, backend["counts"]
print("conformance report:", {b["backend"]: b["counts"] for b in report["backends"]})
(hidden,) = json.load(open("hidden.json"))["backends"]
assert hidden["counts"]["fail"] == 0 and hidden["counts"]["not declared"] > 50, hidden["counts"]
assert hidden["rows"]["unary"]["cells"]["float64"] == {"status": "not declared"}
print("tracing without float64/complex128/fft:", hidden["counts"])
PY
