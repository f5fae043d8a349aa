"""Shared test configuration: hypothesis profiles and the backends under test, chosen as
for the conformance suite (``candlewick/conformance/selection.py``:
``CANDLEWICK_TEST_BACKENDS``, ``CANDLEWICK_HYPOTHESIS_PROFILE``)."""

import pytest

from candlewick import registry
from candlewick.conformance.selection import (
    check_selected_can_run, load_hypothesis_profile, selected_backends,
)

load_hypothesis_profile()
SELECTED_BACKENDS = selected_backends()


def pytest_collection_modifyitems(config, items):
    check_selected_can_run(items, SELECTED_BACKENDS)


@pytest.fixture(scope="session", params=SELECTED_BACKENDS)
def device(request):
    """A device of each backend under test (see CANDLEWICK_TEST_BACKENDS)."""
    return registry.get_device(request.param)
