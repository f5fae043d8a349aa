"""``python -m candlewick.conformance BACKEND [...]``: run the conformance suite of the
installed candlewick against a backend, from any directory, and print the report.

Runs pytest on this package's directory with the backend selected
(``CANDLEWICK_TEST_BACKENDS``), this package's plugin and its own empty configuration, so
the calling project's pytest settings do not leak in. Extra arguments after ``--`` go to
pytest (``-k``, ``-x``, ``-q``...). The exit status is pytest's.
"""

import argparse
import os
import pathlib
import sys

import pytest

from . import BACKENDS_ENV, PROFILE_ENV

HERE = pathlib.Path(__file__).parent


def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog="python -m candlewick.conformance",
        description="Run candlewick's backend conformance suite and print a primitive x dtype report.",
    )
    parser.add_argument("backends", metavar="BACKEND", nargs="+",
                        help="registered backend name(s), e.g. cpu or mybackend")
    parser.add_argument("--markdown", metavar="PATH", help="also write the report as Markdown")
    parser.add_argument("--json", metavar="PATH", help="also write the report as JSON")
    parser.add_argument("--profile", choices=("smoke", "ci", "dev", "gpu"), default=None,
                        help="hypothesis profile: examples per test (default: ci, or $%s)" % PROFILE_ENV)
    parser.epilog = "Arguments after -- go to pytest (e.g. -- -k unary -x)."
    ours, pytest_args = (argv[:argv.index("--")], argv[argv.index("--") + 1:]) if "--" in argv else (argv, [])
    args = parser.parse_args(ours)
    args.pytest_args = pytest_args
    return args


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
    return out + list(args.pytest_args)


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else list(argv))
    os.environ[BACKENDS_ENV] = ",".join(args.backends)
    if args.profile:
        os.environ[PROFILE_ENV] = args.profile
    return pytest.main(pytest_arguments(args))


if __name__ == "__main__":
    sys.exit(main())
