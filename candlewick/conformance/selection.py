"""Which backends a test run covers, and the hypothesis profiles it runs under: one
mechanism for the conformance suite and the project's own tests (tests/conftest.py).

* ``CANDLEWICK_TEST_BACKENDS``: comma list of backends for the ``device`` fixture
  (e.g. ``cpu,rocm``); default: every backend ``candlewick.registry.backends()`` reports
  available. A backend named there that cannot run fails the session: asking for a
  backend and silently testing nothing would hide exactly what the run was for.
* ``CANDLEWICK_HYPOTHESIS_PROFILE``: ``ci`` (default: few examples, derandomized, so the
  whole suite fits CI's time budget), ``fast`` (a first report of a broken backend: ten
  examples, a failure reported as found, without shrinking), ``smoke`` (two examples a
  test), ``dev`` or ``gpu`` (many more examples), ``thorough`` (400 a test, random: the
  recorded deep runs, bench/results/array_api_thorough_*).
"""

import os

import pytest
from hypothesis import HealthCheck, Phase, settings

from candlewick import registry

from . import BACKENDS_ENV, PROFILE_ENV


def load_hypothesis_profile():
    """Register the ci/dev/gpu profiles and load the one ``CANDLEWICK_HYPOTHESIS_PROFILE`` names."""
    # function-scoped fixtures (the device) are constant across examples, so reuse is safe
    slow_ok = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture]
    settings.register_profile(
        "ci", max_examples=15, deadline=None, derandomize=True, suppress_health_check=slow_ok,
        print_blob=True,
    )
    settings.register_profile("dev", max_examples=100, deadline=None, suppress_health_check=slow_ok)
    # every test with a couple of examples: the wheel-install check of .ci/run
    settings.register_profile(
        "smoke", max_examples=2, deadline=None, derandomize=True, suppress_health_check=slow_ok,
        print_blob=True,
    )
    # a first report of a broken backend in minutes: a failing test stops at its first
    # failing example, unshrunk and unexplained (shrinking costs about a second a failure)
    settings.register_profile(
        "fast", max_examples=10, deadline=None, derandomize=True, suppress_health_check=slow_ok,
        phases=[Phase.explicit, Phase.reuse, Phase.generate], report_multiple_bugs=False, print_blob=False,
    )
    # a GPU run compiles each kernel once; after that examples are cheap
    settings.register_profile("gpu", max_examples=40, deadline=None, suppress_health_check=slow_ok)
    # hundreds of examples a test, not derandomized: a recorded deep run, far past CI's budget
    settings.register_profile("thorough", max_examples=400, deadline=None, suppress_health_check=slow_ok,
                              print_blob=True)
    settings.load_profile(os.environ.get(PROFILE_ENV, "ci"))


def selected_backends():
    named = os.environ.get(BACKENDS_ENV, "")
    names = [n.strip() for n in named.split(",") if n.strip()]
    if names:
        return names
    available = [info.name for info in registry.backends() if info.available]
    # the reference backend always has to run: with none available, name it so that
    # the session fails with its reason instead of skipping every device test
    return available or ["cpu"]


def unavailable(names):
    """One line per backend in ``names`` that cannot give a device, with the reason."""
    problems = []
    for name in names:
        try:
            registry.get_device(name)
        except Exception as exc:
            problems.append(f"  {name}: {type(exc).__name__}: {exc}")
    return problems


def check_selected_can_run(items, names):
    """Raise ``pytest.UsageError`` when a test needing a device is collected and a
    selected backend cannot run."""
    if any("device" in getattr(item, "fixturenames", ()) for item in items):
        problems = unavailable(names)
        if problems:
            raise pytest.UsageError(
                f"backends selected for testing ({BACKENDS_ENV}={os.environ.get(BACKENDS_ENV, '')!r}, "
                f"selected {names}) cannot run:\n" + "\n".join(problems)
            )


#: the backends this run covers, chosen once (both conftest.py files import the fixture below)
SELECTED_BACKENDS = selected_backends()


@pytest.fixture(scope="session", params=SELECTED_BACKENDS)
def device(request):
    """A device of each backend under test (see CANDLEWICK_TEST_BACKENDS)."""
    return registry.get_device(request.param)
