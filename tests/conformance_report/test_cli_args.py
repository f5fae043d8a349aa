"""``python -m candlewick.conformance``'s command line (the run itself:
tests/tracing_backend/test_conformance_cli.py and .ci/conformance_wheel.sh)."""

import os

import pytest

from candlewick.conformance import __main__ as cli


def test_backends_options_and_pytest_arguments_after_double_dash():
    args = cli.parse_args(["cpu", "tracing", "--json", "r.json", "--profile", "smoke", "--", "-k", "unary", "-x"])
    assert args.backends == ["cpu", "tracing"] and args.profile == "smoke"
    argv = cli.pytest_arguments(args)
    assert argv[0] == str(cli.HERE) and argv[-3:] == ["-k", "unary", "-x"]
    assert argv[argv.index("--conformance-json") + 1] == os.path.abspath("r.json")
    assert "--conformance-markdown" not in argv


def test_runs_under_its_own_configuration_file():
    argv = cli.pytest_arguments(cli.parse_args(["cpu"]))
    config = argv[argv.index("-c") + 1]
    assert os.path.isfile(config) and open(config).read().strip().endswith("[pytest]")


def test_a_backend_is_required():
    with pytest.raises(SystemExit):
        cli.parse_args(["--json", "r.json"])
