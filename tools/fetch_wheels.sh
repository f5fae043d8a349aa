#!/usr/bin/env bash
# Download the wheels a GPU run needs into .whl/ (git-ignored), for the
# device machine's Python 3.12 (x86-64, no network there).  The device image
# already has numpy, ml_dtypes, hypothesis, pytest, tqdm, sortedcontainers,
# attrs, torch and cupy; what it lacks is hip-python (and its rocm-bindings
# wheels) and a few pure-Python test/runtime dependencies.
# Usage: tools/fetch_wheels.sh [DEST]   (default: .whl in the repository root)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="${1:-$root/.whl}"
mkdir -p "$dest"
ROCM_BINDINGS=10.0.0.0.1.2

download() {
    python3 -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
        --python-version 3.12 --implementation cp \
        --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 \
        --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
        --platform manylinux1_x86_64 -d "$dest" "$@"
}

# hip-python 10 is a thin package over the rocm-bindings wheels (see its
# Requires-Dist): hip and core always, libraries for hipblas, systems for RCCL (hip.rccl).
download "hip-python==$ROCM_BINDINGS" "rocm-bindings-hip==$ROCM_BINDINGS" \
    "rocm-bindings-core==$ROCM_BINDINGS" "rocm-bindings-libraries==$ROCM_BINDINGS" \
    "rocm-bindings-systems==$ROCM_BINDINGS"
# Not in the device image: candlewick's runtime and test dependencies.
download "platformdirs==4.14.7" "array-api-strict==2.6.1" "array-api-compat==1.16.0"
# Not in the device image either: the ecosystem stage's engines (Dask, distributed, cubed
# with Zarr) and the notebooks stage's runner (nbclient with an IPython kernel).
download "dask==2026.8.0" "distributed==2026.8.0" "cubed==0.27.0" "zarr==3.1.6" "numcodecs==0.16.6" \
    "donfig==0.8.1.post1" "partd==1.4.2" "locket==1.0.0" "tblib==3.2.2" "zict==3.0.0" "tornado==6.6.1" \
    "tenacity==9.2.1" "google-crc32c==1.9.0" "aiostream==0.8.1" "ndindex==1.10.1"
download "nbclient==0.11.0" "nbformat==5.11.1" "ipykernel==7.4.0" "jupyter_client==8.10.0" \
    "jupyter_core==5.9.1" "traitlets==5.15.0" "pyzmq==27.3.0" "fastjsonschema==2.22.3" "comm==0.2.3" \
    "debugpy==1.8.22" "ipython==8.12.3" "backcall==0.2.0" "decorator==5.2.1" "jedi==0.20.0" \
    "parso==0.8.7" "matplotlib-inline==0.2.2" "pexpect==4.8.0" "ptyprocess==0.7.0" "pickleshare==0.7.5" \
    "prompt_toolkit==3.0.52" "wcwidth==0.7.0" "stack_data==0.6.3" "executing==2.2.1" "asttokens==3.0.1" \
    "pure_eval==0.2.3" "nest-asyncio2==1.7.4" "jsonschema==4.26.0" "jsonschema-specifications==2025.9.1" \
    "referencing==0.37.0" "rpds-py==0.30.0"

# Keep one version of each distribution: two stop `pip install --no-deps`.
python3 - "$dest" <<'PY'
import collections, pathlib, sys
seen = collections.defaultdict(list)
for whl in sorted(pathlib.Path(sys.argv[1]).glob("*.whl")):
    seen[whl.name.split("-")[0].lower().replace("_", "-")].append(whl.name)
dupes = {k: v for k, v in seen.items() if len(v) > 1}
if dupes:
    sys.exit(f"more than one version in {sys.argv[1]}: {dupes}")
print(f"{len(seen)} wheels in {sys.argv[1]}:", ", ".join(sorted(seen)))
PY
