"""Device memory control: the caching allocator's statistics, its cache, a limit per
device (docs/gpu.md), on devices that declare ``candlewick.backend.MemoryStatsDevice``::

    cw.reset_peak_memory_stats("rocm")
    y = model(x)
    cw.memory_stats("rocm")["peak_in_use_bytes"]   # torch.cuda.max_memory_allocated
    cw.empty_cache("rocm")                          # cached blocks back to the device
    cw.set_memory_limit(fraction=0.5, device="rocm")

Pinned (page-locked) host memory makes copies to and from the device faster and lets them
run without waiting (``pinned_empty``, ``Array.to_device(..., non_blocking=True)``).

The rocm backend keeps freed blocks for reuse (as CuPy's and PyTorch's allocators do), so
the device's own free memory (``nvidia-smi``, ``rocm-smi``) counts the cache as used;
``memory_stats`` tells them apart. The cpu device reports the machine's free and total
memory and None for what an allocator would count (NumPy counts nothing).
"""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING, Any

from . import dtypes as _dt
from ._core import as_shape, check_dtype_on, new_array
from .allocation import check_allocation
from .array import Array
from .backend_optional import DLPackDevice, holds_host_memory
from .backend_runtime import MEMORY_STAT_KEYS, MemoryStatsDevice, PinnedMemoryDevice
from .creation import empty
from .errors import ArgumentTypeError, ArgumentValueError, BackendError, short_repr
from .docstrings import shared_doc
from .registry import FALLBACK_DEVICE, default_device_now, device_implementing, get_device

if TYPE_CHECKING:
    from ._types import DeviceLike, DTypeLike, ShapeLike

__all__ = ["empty_cache", "memory_stats", "pinned_empty", "reset_peak_memory_stats", "set_memory_limit"]


# this module's shared docstring entries (docstrings.shared_doc)
_DOCS = {"raises_no_memory_stats": "Raises\n------\nUnsupportedOperation\n    If the device reports no memory statistics."}


def _memory_device(device: Any, what: str) -> Any:
    return device_implementing(device, MemoryStatsDevice, what, "reports no memory statistics")


@shared_doc(_DOCS)
def memory_stats(device: Any = None) -> dict[str, int | None]:
    """The device allocator's statistics, in bytes and counts.

    {params_device}

    Returns
    -------
    dict
        ``in_use_bytes`` (held by arrays now) and ``peak_in_use_bytes`` (its high-water mark
        since the start or ``reset_peak_memory_stats``: PyTorch's ``max_memory_allocated``),
        ``cached_bytes`` (freed blocks kept for reuse), ``reserved_bytes`` (taken from the
        device) and ``peak_reserved_bytes``, ``active_blocks``, ``allocations``,
        ``device_allocations`` (cache misses), ``cache_flushes`` (cache released to retry a
        failed allocation), ``limit_bytes`` (``set_memory_limit``'s, or None),
        ``free_bytes`` and ``total_bytes`` of the device. A value the device cannot know is
        None (the cpu device's allocator counts).

    {raises_no_memory_stats}

    Examples
    --------
    >>> import candlewick as cw
    >>> stats = cw.memory_stats("cpu")
    >>> stats["total_bytes"] > 0 and stats["cached_bytes"] == 0
    True
    """
    dev = _memory_device(device, "memory_stats")
    raw = dev.memory_stats()
    missing = [key for key in MEMORY_STAT_KEYS if key not in raw]
    if missing:
        raise BackendError(f"memory_stats: device {dev.name} left out {missing} (candlewick.backend.MEMORY_STAT_KEYS)")
    return {key: (None if raw[key] is None else int(raw[key])) for key in MEMORY_STAT_KEYS}


@shared_doc(_DOCS)
def reset_peak_memory_stats(device: Any = None) -> None:
    """Restart the high-water marks (``peak_*`` of ``memory_stats``) from the current use.

    {params_device}

    {returns_none}

    {raises_no_memory_stats}

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.reset_peak_memory_stats("cpu")
    """
    _memory_device(device, "reset_peak_memory_stats").reset_peak_memory_stats()


@shared_doc(_DOCS)
def empty_cache(device: Any = None) -> None:
    """Give the device memory the allocator keeps for reuse back to the device (after the
    device's queued work is done); memory arrays hold stays.

    {params_device}

    {returns_none}

    {raises_no_memory_stats}

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.empty_cache("cpu")
    """
    _memory_device(device, "empty_cache").empty_cache()


@shared_doc(_DOCS)
def set_memory_limit(nbytes: int | None = None, device: Any = None, *, fraction: float | None = None) -> None:
    """Limit the memory candlewick takes from a device (CuPy's ``MemoryPool.set_limit``,
    PyTorch's ``set_per_process_memory_fraction``).

    An allocation that would pass the limit first releases the cache, then raises
    ``DeviceMemoryError``; memory already taken stays.

    Parameters
    ----------
    nbytes : int or None
        The most bytes to take (cached blocks count); None and no ``fraction``: no limit.
    device : str, device or None
        The device (None: the default device).
    fraction : float or None
        The limit as a fraction (0, 1] of the device's total memory, instead of ``nbytes``.

    {returns_none}

    Raises
    ------
    ArgumentTypeError
        If nbytes is not an int or fraction not a number.
    ArgumentValueError
        If nbytes is negative, fraction outside (0, 1], or both are given.
    UnsupportedOperation
        If the device cannot enforce a limit (the cpu device).

    Examples
    --------
    >>> import candlewick as cw
    >>> try:
    ...     cw.set_memory_limit(1 << 30, "cpu")
    ... except cw.errors.UnsupportedOperation:
    ...     pass
    """
    if nbytes is not None and fraction is not None:
        raise ArgumentValueError("set_memory_limit: give nbytes or fraction, not both")
    if nbytes is not None and (isinstance(nbytes, bool) or not isinstance(nbytes, numbers.Integral)):
        raise ArgumentTypeError(f"set_memory_limit: nbytes must be an int or None, got {short_repr(nbytes)}")
    if nbytes is not None and nbytes < 0:
        raise ArgumentValueError(f"set_memory_limit: nbytes must be >= 0, got {nbytes}")
    dev = _memory_device(device, "set_memory_limit")
    if fraction is not None:
        if isinstance(fraction, bool) or not isinstance(fraction, numbers.Real):
            raise ArgumentTypeError(f"set_memory_limit: fraction must be a number, got {short_repr(fraction)}")
        if not 0 < fraction <= 1:
            raise ArgumentValueError(f"set_memory_limit: fraction must be in (0, 1], got {fraction}")
        nbytes = int(fraction * dev.memory_info()[1])
    dev.set_memory_limit(None if nbytes is None else int(nbytes))


def pinned_empty(shape: ShapeLike, *, dtype: DTypeLike | None = None, device: DeviceLike | None = None) -> Array:
    """A host array in page-locked (pinned) memory, for fast copies to and from ``device``
    (PyTorch's ``pin_memory``, CuPy's ``cupyx.empty_pinned``).

    The result is on the host device (the cpu), its elements not initialized. Copies
    between it and ``device`` run at the link's full speed, and ``to_device(device,
    non_blocking=True)`` of it returns before the copy ran. Where ``device`` has no pinned
    memory (the cpu itself, a backend without ``backend.PinnedMemoryDevice``) it is an
    ordinary host array.

    Parameters
    ----------
    shape : int or tuple of ints
        The shape.
    dtype : DType or None
        The dtype (None: the default floating dtype).
    device : str, device or None
        The device the memory serves (None: the default device).

    Returns
    -------
    Array
        A new array on the host device.

    Raises
    ------
    DeviceMemoryError
        If the host has no room for it.

    Examples
    --------
    >>> import candlewick as cw
    >>> h = cw.pinned_empty((2, 3), dtype=cw.float32, device="cpu")
    >>> h[...] = 1
    >>> h.device == "cpu", h.shape
    (True, (2, 3))
    """
    serves: Any = default_device_now() if device is None else get_device(device)
    host: Any = serves if holds_host_memory(serves) else get_device(FALLBACK_DEVICE)
    shape = as_shape(shape, "pinned_empty")
    dtype = _dt.DEFAULT_FLOAT if dtype is None else _dt.as_dtype(dtype)
    pinned = isinstance(serves, PinnedMemoryDevice) and isinstance(host, DLPackDevice)
    if not pinned:
        return empty(shape, dtype=dtype, device=host)
    check_dtype_on(host, dtype, "pinned_empty")
    check_allocation("pinned_empty", shape, dtype, host)
    imported = host.storage_from_dlpack(serves.pinned_empty(shape, dtype), False)
    if imported is None:  # a host device that does not take this memory: ordinary memory then
        return empty(shape, dtype=dtype, device=host)
    return new_array(Array, imported[0], shape, dtype, host)
