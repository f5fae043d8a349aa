"""Every backend's devices compare equal to their names (issue 35, item 3): the registry
gives ``NamedDevice``'s equality to a device class that defines none, as a third-party
backend written from docs/writing-a-backend.md (or examples/tracing_backend) may."""

import pytest

from candlewick import registry
from candlewick.named_device import NamedDevice
from tracing_backend import TracingBackend, TracingDevice


class PlainDevice:
    backend, ordinal, name = "plain", 0, "plain:0"
    storage_from_host = None


class SlottedDevice:
    __slots__ = ("backend", "ordinal", "name")

    def __init__(self):
        self.backend, self.ordinal, self.name = "slotted", 1, "slotted:1"


class OwnEquality:
    name = "own:0"

    def __eq__(self, other):
        return other == "anything"

    __hash__ = object.__hash__


@pytest.mark.parametrize("make", [PlainDevice, SlottedDevice, lambda: TracingBackend(wraps="cpu").device(0)],
                         ids=["plain", "slots", "tracing"])
def test_a_device_without_equality_gets_its_names(make):
    device = make()
    cls = type(device)
    named = registry.named(device)
    assert named is device and isinstance(device, cls) and isinstance(device, NamedDevice)
    assert device == device.name and device.name == device and not (device != device.name)
    assert hash(device) == hash(device.name) and {device.name: 1}[device] == 1
    assert device != "other:0" and device == device and device != make()
    assert type(device).__name__ == cls.__name__ and type(registry.named(make())) is type(device)  # one class


def test_the_tracing_example_equals_its_name():
    device = registry.named(TracingBackend(wraps="cpu").device(0))
    assert device == "tracing:0" and isinstance(device, TracingDevice)
    assert device.inner == "cpu"  # (its attribute lookups still forward to the wrapped device)
    assert repr(device) == "TracingDevice(tracing:0 over cpu)"


def test_a_class_with_its_own_equality_keeps_it():
    device = OwnEquality()
    assert registry.named(device) is device and type(device) is OwnEquality
    assert device == "anything" and not (device == "own:0")
