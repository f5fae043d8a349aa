"""DLPack for host memory: the optional ``dlpack_view`` / ``storage_from_dlpack`` hooks
(``candlewick.backend.DLPackStorage`` / ``DLPackDevice``).

Export is a NumPy view of the storage's buffer (NumPy implements ``__dlpack__``), so it
is zero-copy. Import goes through ``np.from_dlpack`` and then re-expresses the array as
this backend's pair (flat 1-D buffer, Layout in elements): the buffer spans the memory
from the array's lowest to its highest element, and negative strides become a Layout
offset into it.

bfloat16 travels as DLPack's own type (kDLBfloat, 16 bits), which NumPy's DLPack does not
know: export hands NumPy a uint16 view of the same memory and retags the capsule it makes
from (kDLUInt, 16) to (kDLBfloat, 16); import retags a (kDLBfloat, 16) capsule to uint16
before NumPy reads it and views the result as bfloat16. Both stay zero-copy.
"""

import ctypes

import ml_dtypes
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
    producer = _Retagging(obj, _BFLOAT16, _UINT16)
    array = np.from_dlpack(producer, copy=copy)
    return array.view(ml_dtypes.bfloat16) if producer.retagged else array


def export_view(array):
    """The DLPack producer of a host array: the array itself, or for bfloat16 (which
    NumPy cannot export) a uint16 view whose capsules say bfloat16."""
    if array.dtype == ml_dtypes.bfloat16:
        return _Retagging(array.view(np.uint16), _UINT16, _BFLOAT16)
    return array


# --- DLPack type codes in capsules ----------------------------------------------------

_UINT16, _BFLOAT16 = (1, 16), (4, 16)  # dlpack.h: (kDLUInt, bits), (kDLBfloat, bits)
# where DLTensor.dtype sits in each capsule's struct (dlpack.h): DLTensor holds void *data,
# DLDevice (2 x int32), int32 ndim, then dtype; DLManagedTensorVersioned puts its version
# (2 x uint32), manager_ctx, deleter and uint64 flags (32 bytes) before its DLTensor
_DTYPE_OFFSET = {b"dltensor": 20, b"dltensor_versioned": 32 + 20}

# our own handle on the C API (ctypes.pythonapi's function objects are shared, and
# another module may set other argtypes on them)
_capi = ctypes.PyDLL(None)
_capsule_is_valid = _capi.PyCapsule_IsValid
_capsule_is_valid.restype, _capsule_is_valid.argtypes = ctypes.c_int, [ctypes.py_object, ctypes.c_char_p]
_capsule_pointer = _capi.PyCapsule_GetPointer
_capsule_pointer.restype, _capsule_pointer.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


def _retag(capsule, old, new):
    """Rewrite an unconsumed capsule's dtype from ``old`` to ``new`` (code, bits) when it
    holds ``old``; True if it did."""
    for name, offset in _DTYPE_OFFSET.items():
        if _capsule_is_valid(capsule, name):
            dtype = _DLDataType.from_address(_capsule_pointer(capsule, name) + offset)
            if (dtype.code, dtype.bits, dtype.lanes) == (*old, 1):
                dtype.code, dtype.bits = new
                return True
            return False
    return False


class _Retagging:
    """A DLPack producer forwarding to ``inner`` whose capsules of dtype ``old`` are
    handed out as ``new``."""

    def __init__(self, inner, old, new):
        self.inner, self.old, self.new, self.retagged = inner, old, new, False

    def __dlpack__(self, **kwargs):
        capsule = self.inner.__dlpack__(**kwargs)
        self.retagged = _retag(capsule, self.old, self.new) or self.retagged
        return capsule

    def __dlpack_device__(self):
        return self.inner.__dlpack_device__()
