"""Copies of an array's elements to another device (``Array.to_device``): direct between two
devices of one backend, without waiting through pinned host memory, or through the host.

What each backend offers is declared by it (``candlewick.backend``): ``storage.to_device``
(``DeviceCopyStorage``: a peer copy), ``device.storage_from_host_async``
(``PinnedMemoryDevice``: an upload that does not wait, from pinned memory) and
``storage.to_host_async`` (``AsyncHostCopyStorage``: a download that does not wait, into
pinned memory the host device imports through DLPack without a copy). Where none
applies the copy goes through the host and waits, as NumPy users expect.
"""

from __future__ import annotations

from typing import Any

from .backend_optional import holds_host_memory
from .backend_runtime import PinnedMemoryDevice
from .layout import Layout


def copy_to_device(storage: Any, layout: Layout, source: Any, target: Any, non_blocking: bool) -> tuple:
    """``(storage, layout)`` on ``target`` holding the elements ``layout`` views of
    ``storage`` (on ``source``)."""
    direct = getattr(storage, "to_device", None)
    copied = direct(layout, target) if direct is not None else None
    if copied is not None:
        return copied, Layout.contiguous(layout.shape)
    if non_blocking:
        found = _without_waiting(storage, layout, source, target)
        if found is not None:
            return found
    return target.storage_from_host(storage.to_host(layout)), Layout.contiguous(layout.shape)


def _without_waiting(storage, layout, source, target):
    """The non-blocking copy between host memory and a device with pinned memory, or None."""
    if holds_host_memory(source) and isinstance(target, PinnedMemoryDevice):
        export = getattr(storage, "dlpack_view", None)
        if export is None:
            return None
        uploaded = target.storage_from_host_async(export(layout))
        return None if uploaded is None else (uploaded, Layout.contiguous(layout.shape))
    download = getattr(type(storage), "to_host_async", None)
    import_host = getattr(target, "storage_from_dlpack", None)  # backend.DLPackDevice, where declared
    if download is not None and import_host is not None and holds_host_memory(target):
        return import_host(download(storage, layout), False)
    return None
