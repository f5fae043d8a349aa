"""The front-end tests' shared fixture for an optional protocol group: the backend under
test as it declares itself, and with the group withheld (the documented fallback)."""

import pytest

from tracing_backend import TracingBackend


@pytest.fixture(params=["declared", "withheld"])
def traced(request, device):
    """(tracing backend, device): the backend under test as it declares itself, or with
    the optional group its test module names in ``WITHHELD_GROUP`` withheld."""
    hide = "" if request.param == "declared" else request.module.WITHHELD_GROUP
    backend = TracingBackend(wraps=device.backend, hide=hide)
    return backend, backend.device(device.ordinal)
