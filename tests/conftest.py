"""Shared test configuration: hypothesis profiles and the backends under test, chosen as
for the conformance suite (``candlewick/conformance/selection.py``:
``CANDLEWICK_TEST_BACKENDS``, ``CANDLEWICK_HYPOTHESIS_PROFILE``)."""

import pytest

from candlewick.conformance.selection import SELECTED_BACKENDS, check_selected_can_run, load_hypothesis_profile
from candlewick.conformance.selection import device  # noqa: F401  (the fixture)
from candlewick.fusion import lazy_policy

load_hypothesis_profile()


def pytest_collection_modifyitems(config, items):
    check_selected_can_run(items, SELECTED_BACKENDS)


@pytest.fixture(autouse=True)
def lazy_records_small_arrays(monkeypatch):
    """The tests' arrays are a few elements: lazy mode records calls on them as it records
    calls on large arrays (``lazy_policy.RECORD_BYTES`` 0; tests/fusion/test_lazy.py's
    test of the bound sets its own)."""
    monkeypatch.setattr(lazy_policy, "RECORD_BYTES", 0)
    # and they pin what stays pending when a recording repeats: a graph that ran is not
    # run ahead of its consumer the next time (tests/fusion/test_lazy_ahead.py turns it on)
    monkeypatch.setattr(lazy_policy, "RUN_AHEAD", False)
    # nor record a call again at its PROBE-th run at once (its tally may carry over from an
    # earlier test's runs: tests/fusion/test_lazy_split.py and test_native_lazy_start.py
    # turn the probes on)
    monkeypatch.setattr(lazy_policy, "PROBE", 0)
    # nor time a lazy() statement that fuses nothing and run it eagerly: a test body
    # parametrized over backends and dtypes enters one statement many times, and expects
    # it to record (tests/fusion/test_lazy_sites.py turns it on)
    monkeypatch.setattr(lazy_policy, "SITE_RUNS", 0)
