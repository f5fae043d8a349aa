"""A base for backends' device objects: a device equals its own name string.

``x.device == "cpu"`` and ``x.device == "rocm:1"`` are what people write (PyTorch and
CuPy users compare devices with strings). A device equals exactly the string of its
``name`` and hashes as that string, so devices and their names can key one dict or set
(``"rocm"`` is not ``"rocm:0"``'s name: compare ``x.device.backend == "rocm"`` for any
device of a backend). Two device objects are equal only when they are the same object.
"""


class NamedDevice:
    """Mixin giving a device class with a ``name`` attribute string equality and hash."""

    __slots__ = ()

    def __eq__(self, other):
        if isinstance(other, str):
            return other == self.name
        return self is other or NotImplemented

    def __ne__(self, other):
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __hash__(self):
        return hash(self.name)
