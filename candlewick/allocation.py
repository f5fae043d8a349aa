"""The one size check made before any result is allocated, on every backend.

A result whose size cannot be addressed, or that is larger than the memory the device
reports free, is refused up front with ``DeviceMemoryError`` (bytes asked, bytes free, and
what candlewick holds there where the device counts it):
the allocator is never asked for it, so a huge request neither reaches NumPy's or the
driver's own errors nor gets the process killed by the operating system. A device of
host memory reports what the process's limits leave free (``host_memory``), not only the
machine's memory. An allocation that passes the check and still fails is the backend's
to report as ``DeviceMemoryError`` too (the cpu backend's primitives turn NumPy's
MemoryError into one).
"""

from math import prod

from .errors import DeviceMemoryError, ShapeError, short_repr
from .host_memory import available_memory

#: results smaller than this are not checked against the free memory: asking the device
#: costs a system or driver call, and the allocator's own error covers them
QUERY_ABOVE_BYTES = 1 << 28
_ADDRESSABLE_BYTES = 2**63 - 1


def _check_empty(fname, shape, dtype):
    """Raise ShapeError for an empty result (whose byte count checks nothing) whose other
    axes span more than an address holds: NumPy refuses such a shape too ("array is too
    big"), e.g. ``repeat`` of an empty array 2**63 times."""
    if prod(n for n in shape if n) * dtype.itemsize > _ADDRESSABLE_BYTES:
        raise ShapeError(f"{fname}: a result of shape {short_repr(tuple(shape))} and dtype {dtype.name}: its "
                         f"non-empty axes span more than 2**63 bytes, more than any array can (as in NumPy)")


def check_addressable(fname, shape, dtype):
    """Raise ShapeError if a view of ``shape`` and ``dtype`` (a broadcast, which allocates
    nothing) spans more bytes than an address holds: NumPy refuses to make one ("array
    is too big"), and reading it back or copying it could never be allocated."""
    nbytes = prod(shape) * dtype.itemsize
    if not nbytes:
        _check_empty(fname, shape, dtype)
    if nbytes > _ADDRESSABLE_BYTES:
        raise ShapeError(f"{fname}: a view of shape {short_repr(tuple(shape))} and dtype {dtype.name} spans more "
                         f"than 2**63 bytes, more than any array can (as in NumPy)")


def check_allocation(fname, shape, dtype, device, count=1):
    """Raise DeviceMemoryError if ``count`` results of ``shape`` and ``dtype`` (``meshgrid``
    makes one per input) cannot fit on ``device``."""
    nbytes = prod(shape) * dtype.itemsize * count
    if nbytes < QUERY_ABOVE_BYTES:
        if not nbytes:
            _check_empty(fname, shape, dtype)
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
        device.name, nbytes, free, f"{fname}: {'a result' if count == 1 else f'{count} results'} of shape "
        f"{short_repr(tuple(shape))} and dtype {dtype.name}"
        + _held_by(device))


def check_host_allocation(fname, shape, dtype):
    """Raise DeviceMemoryError (device "host") if a host array of ``shape`` and ``dtype``
    (a device backend's copy to host memory) is larger than what this process may still
    take (``host_memory``): NumPy's own MemoryError is never what the user sees."""
    nbytes = prod(shape) * dtype.itemsize
    if nbytes < QUERY_ABOVE_BYTES:
        return
    try:
        free = available_memory()[0]
    except (OSError, ValueError):  # the limits cannot be read: NumPy's allocator decides
        return
    if nbytes > free:
        raise DeviceMemoryError("host", nbytes, free, f"{fname}: a host copy of shape {short_repr(tuple(shape))} "
                                f"and dtype {dtype.name}")


def byte_text(n):
    """``n`` bytes as people read them: "3.2 GiB", "512.0 KiB", "17 bytes"."""
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift:
            return f"{n / (1 << shift):.1f} {unit}"
    return f"{n} bytes"


def held_text(device_name, in_use, cached):
    """What an out-of-memory message says candlewick holds on a device (one wording for the
    front end's check and a backend's allocator)."""
    return (f"candlewick holds {byte_text(in_use)} in arrays and {byte_text(cached)} cached on {device_name} "
            f"(candlewick.memory_stats; candlewick.empty_cache releases the cache)")


def _held_by(device):
    """``held_text`` of a device that counts its memory (``backend.MemoryStatsDevice``), else ""."""
    stats = getattr(device, "memory_stats", None)
    if stats is None:
        return ""
    try:
        counts = stats()
        if counts["in_use_bytes"] is None:
            return ""
        return "; " + held_text(device.name, counts["in_use_bytes"], counts["cached_bytes"] or 0)
    except Exception:  # the message matters more than the figures
        return ""
