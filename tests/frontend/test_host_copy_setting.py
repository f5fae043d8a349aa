"""CANDLEWICK_IMPLICIT_HOST_COPY at import: on, off, and a value that is neither (a warning,
the default kept: importing candlewick never fails over a setting)."""

import os
import subprocess
import sys

import pytest

PROBE = "import warnings; warnings.simplefilter('always'); import candlewick as cw; print(cw.get_implicit_host_copy())"


@pytest.mark.parametrize("value, expected, warns", [
    ("1", "True", False), ("yes", "True", False), ("0", "False", False), ("", "False", False),
    ("maybe", "False", True),
])
def test_environment_setting(value, expected, warns):
    env = dict(os.environ, CANDLEWICK_IMPLICIT_HOST_COPY=value)
    done = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == expected
    assert ("CANDLEWICK_IMPLICIT_HOST_COPY='maybe'" in done.stderr) == warns, done.stderr
