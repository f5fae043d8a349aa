"""Shared test configuration: hypothesis profiles and the backends under test.

* ``CANDLEWICK_HYPOTHESIS_PROFILE``: ``ci`` (default: few examples, derandomized, so the
  whole suite fits CI's time budget), ``dev`` or ``gpu`` (many more examples).
* ``CANDLEWICK_TEST_BACKENDS``: comma list of backends for the ``device`` fixture
  (e.g. ``cpu,rocm``); default: every backend ``candlewick.registry.backends()`` reports
  available. A backend named there that cannot run fails the session: asking for a
  backend and silently testing nothing would hide exactly what the run was for.
"""

import os

import pytest
from hypothesis import HealthCheck, settings

from candlewick import registry

# function-scoped fixtures (the device) are constant across examples, so reuse is safe
_SLOW_OK = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture]
settings.register_profile(
    "ci", max_examples=15, deadline=None, derandomize=True, suppress_health_check=_SLOW_OK,
    print_blob=True,
)
settings.register_profile("dev", max_examples=100, deadline=None, suppress_health_check=_SLOW_OK)
# a GPU run compiles each kernel once; after that examples are cheap
settings.register_profile("gpu", max_examples=40, deadline=None, suppress_health_check=_SLOW_OK)
settings.load_profile(os.environ.get("CANDLEWICK_HYPOTHESIS_PROFILE", "ci"))

BACKENDS_ENV = "CANDLEWICK_TEST_BACKENDS"


def _selected_backends():
    named = os.environ.get(BACKENDS_ENV, "")
    names = [n.strip() for n in named.split(",") if n.strip()]
    if names:
        return names
    available = [info.name for info in registry.backends() if info.available]
    # the reference backend always has to run: with none available, name it so that
    # the session fails with its reason instead of skipping every device test
    return available or ["cpu"]


SELECTED_BACKENDS = _selected_backends()


def _unavailable(names):
    problems = []
    for name in names:
        try:
            registry.get_device(name)
        except Exception as exc:
            problems.append(f"  {name}: {type(exc).__name__}: {exc}")
    return problems


def pytest_configure(config):
    config.addinivalue_line("markers", "conformance: backend conformance suite (tests/conformance)")


def pytest_collection_modifyitems(config, items):
    if any("device" in getattr(item, "fixturenames", ()) for item in items):
        problems = _unavailable(SELECTED_BACKENDS)
        if problems:
            raise pytest.UsageError(
                f"backends selected for testing ({BACKENDS_ENV}={os.environ.get(BACKENDS_ENV, '')!r}, "
                f"selected {SELECTED_BACKENDS}) cannot run:\n" + "\n".join(problems)
            )


@pytest.fixture(scope="session", params=SELECTED_BACKENDS)
def device(request):
    """A device of each backend under test (see CANDLEWICK_TEST_BACKENDS)."""
    return registry.get_device(request.param)
