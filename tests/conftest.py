"""Shared test configuration: hypothesis profiles and the backends under test, chosen as
for the conformance suite (``candlewick/conformance/selection.py``:
``CANDLEWICK_TEST_BACKENDS``, ``CANDLEWICK_HYPOTHESIS_PROFILE``)."""

from candlewick.conformance.selection import SELECTED_BACKENDS, check_selected_can_run, load_hypothesis_profile
from candlewick.conformance.selection import device  # noqa: F401  (the fixture)

load_hypothesis_profile()


def pytest_collection_modifyitems(config, items):
    check_selected_can_run(items, SELECTED_BACKENDS)
