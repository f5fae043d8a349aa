"""The front-end tests' shared fixture for an optional protocol group: the backend under
test as it declares itself, and with the group withheld (the documented fallback)."""

import pytest

from tracing_backend import TracingBackend


@pytest.fixture(params=["declared", "withheld"])
def traced(request, device):
    """(tracing backend, device): the backend under test as it declares itself, or with
    the optional group its test module names in ``WITHHELD_GROUP`` withheld; skipped where
    the device lacks the optional group the module names in ``NEEDS_GROUP`` (if any)."""
    needs = getattr(request.module, "NEEDS_GROUP", None)
    if needs is not None and needs not in device.capabilities:
        pytest.skip(f"{device.name} does not declare the optional {needs!r} group")
    hide = "" if request.param == "declared" else request.module.WITHHELD_GROUP
    backend = TracingBackend(wraps=device.backend, hide=hide)
    return backend, backend.device(device.ordinal)
