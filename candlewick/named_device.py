"""A base for backends' device objects: a device equals its own name string, and makes
streams and events (``device.Stream()``, ``device.Event()``); ``named`` gives it to a
device class that defines no equality of its own.

``x.device == "cpu"`` and ``x.device == "rocm:1"`` are what people write (PyTorch and
CuPy users compare devices with strings). A device equals exactly the string of its
``name`` and hashes as that string, so devices and their names can key one dict or set
(``"rocm"`` is not ``"rocm:0"``'s name: compare ``x.device.backend == "rocm"`` for any
device of a backend). Two device objects are equal only when they are the same object.
"""

import sys

_NAMED_CLASSES: dict[type, type] = {}  # a device class -> its subclass mixing in NamedDevice


class NamedDevice:
    """Mixin giving a device class with a ``name`` attribute string equality and hash, and
    the ``Stream``/``Event`` constructors of ``candlewick.streams`` bound to the device."""

    __slots__ = ()

    # The device is a backend's object, below the namespace that holds the stream classes:
    # they are looked up in sys.modules (candlewick imports candlewick.streams before any
    # device exists), as Array.__array_namespace__ finds the namespace.
    def Stream(self):
        """A new stream of this device: ``candlewick.Stream(device)``."""
        return sys.modules["candlewick.streams"].Stream(self)

    def Event(self, enable_timing=True):
        """A new event of this device: ``candlewick.Event(device, enable_timing=...)``."""
        return sys.modules["candlewick.streams"].Event(self, enable_timing=enable_timing)

    def __eq__(self, other):
        if isinstance(other, str):
            return other == self.name
        return self is other or NotImplemented

    def __ne__(self, other):
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __hash__(self):
        return hash(self.name)


def named(device):
    """``device``, comparing equal to its name (``x.device == "tracing:0"``) on every
    backend: a device class that defines no equality of its own is given
    ``NamedDevice``'s (the instance moves to a subclass of its class that mixes it in,
    made once per class; its identity, attributes and ``isinstance`` stay). A class
    defining ``__eq__`` or ``__hash__`` keeps them; one whose instances cannot change class (a C type,
    ``__slots__`` that differ) keeps identity equality, which the conformance suite reports."""
    cls = type(device)
    if cls.__eq__ is not object.__eq__ or cls.__hash__ is not object.__hash__ \
            or not isinstance(getattr(device, "name", None), str):
        return device
    mixed = _NAMED_CLASSES.get(cls)
    try:
        if mixed is None:
            # (cls first: its layout is the instance's; nothing in its MRO defines __eq__)
            mixed = _NAMED_CLASSES[cls] = type(cls.__name__, (cls, NamedDevice), {
                "__slots__": (), "__module__": cls.__module__, "__qualname__": cls.__qualname__,
                "__doc__": cls.__doc__})
        device.__class__ = mixed
    except TypeError:
        pass
    return device
