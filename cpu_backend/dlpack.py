"""DLPack for host memory: the optional ``dlpack_view`` / ``storage_from_dlpack`` hooks
(``candlewick.backend.DLPackStorage`` / ``DLPackDevice``).

Export is a NumPy view of the storage's buffer (NumPy implements ``__dlpack__``), so it
is zero-copy. Import goes through ``np.from_dlpack`` and then re-expresses the array as
this backend's pair (flat 1-D buffer, Layout in elements): the buffer spans the memory
from the array's lowest to its highest element, and negative strides become a Layout
offset into it.
"""

import numpy as np
from numpy.lib.stride_tricks import as_strided

from candlewick.layout import Layout
from candlewick.errors import DLPackError

#: DLPack device types whose memory the host reads directly (dlpack.h): CPU, CUDA host
#: (pinned), ROCm host (pinned), CUDA managed; NumPy's from_dlpack accepts exactly these
HOST_DEVICE_TYPES = frozenset({1, 3, 11, 13})


def flat_buffer_and_layout(array):
    """(1-D buffer sharing ``array``'s memory, Layout of ``array`` within it)."""
    item = array.itemsize
    if any(s % item for s in array.strides):
        raise DLPackError(
            f"from_dlpack: strides {array.strides} (bytes) are not multiples of the "
            f"element size {item}; this backend addresses memory in elements"
        )
    strides = tuple(s // item for s in array.strides)
    if array.size == 0:
        return np.empty(0, array.dtype), Layout(array.shape, strides, 0)
    if array.ndim == 0:
        return array.reshape(1), Layout((), (), 0)
    # flip the reversed axes: the data pointer then sits at the lowest element
    lowest = array[tuple(slice(None, None, -1) if s < 0 else slice(None) for s in strides)]
    span = 1 + sum((n - 1) * abs(s) for n, s in zip(array.shape, strides))
    buf = as_strided(lowest, shape=(span,), strides=(item,))
    offset = sum((n - 1) * -s for n, s in zip(array.shape, strides) if s < 0)
    return buf, Layout(array.shape, strides, offset)


def import_host_array(obj, copy):
    """The NumPy array for DLPack producer ``obj`` in host memory, or None when ``obj``
    lives elsewhere. Shares memory unless ``copy`` is True; ``copy=False`` raises
    BufferError (from NumPy) when sharing is impossible."""
    device_type, _ = obj.__dlpack_device__()
    if int(device_type) not in HOST_DEVICE_TYPES:
        return None
    return np.from_dlpack(obj, copy=copy)
