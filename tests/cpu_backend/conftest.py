"""Fixtures for the CPU backend's own unit tests (the shared conformance suite is in
candlewick/conformance; these reach into cpu_backend's modules directly)."""

import pytest

from cpu_backend import CPU_DEVICE


@pytest.fixture
def cpu():
    return CPU_DEVICE
