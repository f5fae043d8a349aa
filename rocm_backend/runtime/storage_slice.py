"""A typed view of a device buffer: the buffer, the dtype and the element count.

Every op family takes and returns these; ``storage.RocmStorage`` is this class with the
protocol's methods. An op family makes its results with ``device.storage_type.empty``
so that they are the protocol's storage class (declared by the device layer).
"""

from .buffer import DeviceBuffer


class StorageSlice:
    """``size`` elements of ``dtype`` from the start of ``buffer``."""

    __slots__ = ("buffer", "dtype", "device", "size", "ptr")

    def __init__(self, buffer, dtype, size):
        self.buffer = buffer
        self.dtype = dtype
        self.device = buffer.device
        self.size = size
        self.ptr = buffer.ptr  # read on every launch: a plain slot, not a property

    @classmethod
    def empty(cls, device, dtype, size):
        nbytes = size * dtype.itemsize
        ptr, capacity = device.allocator.allocate(nbytes)
        return cls(DeviceBuffer(device, ptr, nbytes, capacity), dtype, size)

    def __repr__(self):
        return f"{type(self).__name__}({self.device.name}, {self.dtype}, size={self.size})"
