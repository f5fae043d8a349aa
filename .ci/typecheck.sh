#!/usr/bin/env bash
# Type check of the package: mypy with the configuration in pyproject.toml ([tool.mypy]);
# the public callables are annotated, which makes mypy check their bodies. No errors allowed.
set -euo pipefail
cd "$(dirname "$0")/.."
python -m pip install -q --disable-pip-version-check -e ".[typecheck]"
python -m mypy
# user code as a type checker sees the public API (assert_type on generated functions, operators)
python -m mypy tests/typing/public_types.py
