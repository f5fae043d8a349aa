"""The backend conformance suite: every primitive of candlewick/backend.py, tested at
the storage level against NumPy, for every backend selected in tests/conftest.py."""

import pathlib

import pytest

_HERE = pathlib.Path(__file__).parent


def pytest_collection_modifyitems(config, items):
    for item in items:
        if _HERE in pathlib.Path(str(item.path)).parents:
            item.add_marker(pytest.mark.conformance)

