#!/usr/bin/env bash
# The API reference (docs/api/, Sphinx autodoc + napoleon over the numpydoc docstrings),
# built with every warning an error. About 10 s; the HTML goes to a temporary folder.
set -euo pipefail
cd "$(dirname "$0")/.."
python -m pip install -q --disable-pip-version-check -e ".[docs]"
OUTDIR="$(mktemp -d)"
trap 'rm -rf "$OUTDIR"' EXIT
python -m sphinx -W --keep-going -q -b html docs/api "$OUTDIR"
