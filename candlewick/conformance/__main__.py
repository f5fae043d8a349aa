"""``python -m candlewick.conformance BACKEND [...]``: run the conformance suite of the
installed candlewick against a backend, from any directory, and print the report.

Runs pytest on this package's directory with the backend selected
(``CANDLEWICK_TEST_BACKENDS``), this package's plugin and its own empty configuration, so
the calling project's pytest settings do not leak in. Extra arguments after ``--`` go to
pytest (``-k``, ``-x``, ``-q``...). The exit status is pytest's (2 when pytest or
Hypothesis, the ``conformance`` extra, is missing).
"""

import argparse
import importlib.util
import os
import pathlib
import sys

from . import BACKENDS_ENV, PROFILE_ENV

HERE = pathlib.Path(__file__).parent
#: what the run needs beyond candlewick: the ``conformance`` extra
NEEDS = ("pytest", "hypothesis")
INSTALL_HINT = ("pip install 'candlewick[conformance]' (from a candlewick checkout: pip install '.[conformance]'; "
                "or pip install pytest hypothesis)")


def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog="python -m candlewick.conformance",
        description="Run candlewick's backend conformance suite and print a primitive x dtype report.",
        epilog="Stages: the device and host-transfer tests run first, then creation, then the primitives; "
               "when one of the first two fails, the backend's later tests are reported as blocked by it. "
               "Arguments after -- go to pytest (e.g. -- -k unary -x). Needs pytest and hypothesis: "
               + INSTALL_HINT + ".",
    )
    parser.add_argument("backends", metavar="BACKEND", nargs="+",
                        help="registered backend name(s), e.g. cpu or mybackend")
    parser.add_argument("--markdown", metavar="PATH",
                        help="also write the report as Markdown (rewritten as the run goes, and on Ctrl-C)")
    parser.add_argument("--json", metavar="PATH", help="also write the report as JSON (as --markdown)")
    parser.add_argument("--fast", action="store_true",
                        help="a first report in minutes: ten examples a test, failures reported as found "
                             "without Hypothesis's shrinking (the 'fast' profile)")
    parser.add_argument("--profile", choices=("fast", "smoke", "ci", "dev", "gpu"), default=None,
                        help="hypothesis profile: examples per test (default: ci, or $%s)" % PROFILE_ENV)
    parser.add_argument("--no-stages", action="store_true",
                        help="run every test even when an earlier stage failed")
    ours, pytest_args = (argv[:argv.index("--")], argv[argv.index("--") + 1:]) if "--" in argv else (argv, [])
    args = parser.parse_args(ours)
    if args.fast and args.profile not in (None, "fast"):
        parser.error(f"--fast is the 'fast' profile; it cannot be combined with --profile {args.profile}")
    args.pytest_args = pytest_args
    return args


def missing_requirements():
    """The modules of the ``conformance`` extra that cannot be imported here."""
    missing = []
    for name in NEEDS:
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):  # a broken install, or blocked from importing
            found = False
        if not found:
            missing.append(name)
    return missing


def pytest_arguments(args):
    out = [str(HERE), "-p", "candlewick.conformance.plugin", "-p", "no:cacheprovider",
           # this package's own (empty) configuration: not the caller's pytest.ini/pyproject
           "-c", str(HERE / "suite.ini"), "--rootdir", str(HERE),
           # running this module imported candlewick before pytest could mark it for
           # assertion rewriting; the test modules are still rewritten
           "-W", "ignore:Module already imported so cannot be rewritten; candlewick"]
    if args.markdown:
        out += ["--conformance-markdown", os.path.abspath(args.markdown)]
    if args.json:
        out += ["--conformance-json", os.path.abspath(args.json)]
    if args.no_stages:
        out.append("--conformance-no-stages")
    return out + list(args.pytest_args)


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else list(argv))
    missing = missing_requirements()
    if missing:
        print(f"python -m candlewick.conformance needs {' and '.join(missing)} (the 'conformance' extra), "
              f"which {'are' if len(missing) > 1 else 'is'} not installed: {INSTALL_HINT}", file=sys.stderr)
        return 2
    import pytest  # the conformance extra, checked just above

    os.environ[BACKENDS_ENV] = ",".join(args.backends)
    if args.fast or args.profile:
        os.environ[PROFILE_ENV] = "fast" if args.fast else args.profile
    return pytest.main(pytest_arguments(args))


if __name__ == "__main__":
    sys.exit(main())
