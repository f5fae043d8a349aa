"""Compile candlewick's optional C module (setup.py's ``NATIVE`` extension) in place, as
an install from source would: for runs that use the source tree rather than an install
(tools/gpu_run.sh). It reads the extension's definition from setup.py and builds it
with setuptools' build_ext alone, without reading pyproject.toml's metadata (an older
setuptools refuses its license field). Exit status 1 where it could not be built; the
Python paths then run, with the same results."""

import runpy
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main():
    from setuptools import Distribution  # (imported here: only this tool needs setuptools)

    native = runpy.run_path(str(ROOT / "setup.py"), run_name="setup_definitions")["NATIVE"]
    native.optional = False  # a failure is this tool's answer, not a silent skip
    dist = Distribution({"ext_modules": [native], "script_name": "setup.py"})
    build = dist.get_command_obj("build_ext")
    build.inplace = True
    build.ensure_finalized()
    build.run()
    built = sorted(p.name for p in (ROOT / "candlewick").glob("_native.*") if p.suffix in (".so", ".pyd"))
    print("built:", ", ".join(built))


if __name__ == "__main__":
    try:
        main()
    except Exception as exc:  # any reason it cannot build (no compiler, no headers, no setuptools)
        print(f"candlewick._native not built: {type(exc).__name__}: {exc}", file=sys.stderr)
        sys.exit(1)
