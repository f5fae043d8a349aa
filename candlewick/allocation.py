"""The one size check made before any result is allocated, on every backend.

A result whose size cannot be addressed, or that is larger than the memory the device
reports free, is refused up front with ``DeviceMemoryError`` (bytes asked, bytes free):
the allocator is never asked for it, so a huge request neither reaches NumPy's or the
driver's own errors nor gets the process killed by the operating system.
"""

from math import prod

from .errors import DeviceMemoryError, short_repr

#: results smaller than this are not checked against the free memory: asking the device
#: costs a system or driver call, and the allocator's own error covers them
QUERY_ABOVE_BYTES = 1 << 28
_ADDRESSABLE_BYTES = 2**63 - 1


def check_allocation(fname, shape, dtype, device):
    """Raise DeviceMemoryError if a ``shape`` result of ``dtype`` cannot fit on ``device``."""
    nbytes = prod(shape) * dtype.itemsize
    if nbytes < QUERY_ABOVE_BYTES:
        return
    free = None
    if nbytes <= _ADDRESSABLE_BYTES:
        try:
            free = int(device.memory_info()[0])
        except Exception:  # a backend that cannot report its memory: its allocator decides
            return
        if nbytes <= free:
            return
    raise DeviceMemoryError(
        device.name, nbytes, free, f"{fname}: a result of shape {short_repr(tuple(shape))} and dtype {dtype.name}"
    )
