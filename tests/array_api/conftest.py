"""Fixtures and Hypothesis settings for the Array API conformance tests.

Every test here runs once per backend under test. The ``device`` fixture normally comes
from ``tests/conftest.py``; when that file does not define one, a local fixture takes its
place (backends from ``CANDLEWICK_TEST_BACKENDS``, a comma list, else every available
backend). While a test runs, its device is the default device, so arrays that
Hypothesis builds through ``candlewick.asarray``/``full`` land on the device under test.

Hypothesis profiles: ``CANDLEWICK_HYPOTHESIS_PROFILE=ci`` (default: few examples,
derandomized, for the 2-core CI budget) or ``thorough`` (many examples, random).
``tests/conftest.py`` loads the profile first and registers its own (``ci``, ``dev``,
``gpu``); a name registered there is reused as it is, and this file only adds the
health-check suppressions these tests need (a derived ``array-api-<name>`` profile).
"""

import ast
import os
import pathlib

import pytest
from hypothesis import HealthCheck, settings
from hypothesis.errors import InvalidArgument

import candlewick as cw

_PROFILE_ENV = "CANDLEWICK_HYPOTHESIS_PROFILE"
_BACKENDS_ENV = "CANDLEWICK_TEST_BACKENDS"

# The device fixture is function scoped (it is parametrized); its value never changes
# between the examples of one test, which is what this health check worries about.
_MIN_EXAMPLES = 15
_SUPPRESSED = [HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large,
               HealthCheck.filter_too_much]


def _register_profiles():
    defaults = {
        "ci": dict(max_examples=25, derandomize=True, deadline=None, print_blob=True),
        "thorough": dict(max_examples=400, deadline=None, print_blob=True),
    }
    for name, kwargs in defaults.items():
        try:
            settings.get_profile(name)
        except InvalidArgument:
            settings.register_profile(name, suppress_health_check=_SUPPRESSED, **kwargs)
    wanted = os.environ.get(_PROFILE_ENV, "ci")
    try:
        parent = settings.get_profile(wanted)
    except InvalidArgument:
        raise pytest.UsageError(f"{_PROFILE_ENV}={wanted!r}: no Hypothesis profile of that name") from None
    # Keep the parent's budget (at least _MIN_EXAMPLES: this folder's ~1300 tests run in
    # about a minute on 2 cores with it) and always suppress the checks above.
    suppressed = list(dict.fromkeys(list(parent.suppress_health_check) + _SUPPRESSED))
    settings.register_profile(f"array-api-{wanted}", parent=parent, suppress_health_check=suppressed,
                              max_examples=max(parent.max_examples, _MIN_EXAMPLES))
    settings.load_profile(f"array-api-{wanted}")


_register_profiles()


def _parent_defines_device_fixture():
    parent = pathlib.Path(__file__).resolve().parent.parent / "conftest.py"
    if not parent.exists():
        return False
    tree = ast.parse(parent.read_text())
    return any(
        isinstance(node, (ast.FunctionDef, ast.Assign)) and (
            getattr(node, "name", None) == "device"
            or any(getattr(t, "id", None) == "device" for t in getattr(node, "targets", ()))
        )
        for node in tree.body
    )


def backends_under_test():
    env = os.environ.get(_BACKENDS_ENV)
    if env:
        return [name.strip() for name in env.split(",") if name.strip()]
    return [b.name for b in cw.backends() if b.available]


if not _parent_defines_device_fixture():

    @pytest.fixture(params=backends_under_test(), scope="session")
    def device(request):
        return request.param


@pytest.fixture(autouse=True)
def _on_device_under_test(device):
    """Make the device under test the default for everything the test creates, in strict
    promotion mode: these tests check the standard's behaviour, array-api-strict's (their
    oracle). The default mode differs only where the standard leaves mixed kinds
    undefined; tests/frontend/test_promotion_rule.py checks it, and that both modes agree
    on every case the standard defines."""
    with cw.default_device(device), cw.promotion_mode("strict"):
        yield


@pytest.fixture
def dev(device):
    """The device object of the device under test."""
    return cw.get_device(device)


@pytest.fixture
def on_cpu(device):
    return cw.get_device(device).backend == "cpu"
