"""[families] DLPack's structs and capsules in ctypes: making an export capsule, consuming one
(``Imported``), and the lifetimes of both (``dlpack.py`` is the device side).

Lifetimes: an exported capsule keeps our storage alive until its deleter runs (called
by the consumer, or by the capsule's destructor when nobody consumed it). An imported
buffer keeps the producer's DLManagedTensor until our last view dies; then our stream is
drained (queued kernels may still read it) and the producer's deleter is called.
"""

import ctypes as C
import threading

from candlewick import dtypes as dt
from candlewick.errors import DLPackError

KDL_CPU, KDL_CUDA, KDL_ROCM = 1, 2, 10
FLAG_READ_ONLY, FLAG_IS_COPIED = 1, 2
VERSION = (1, 0)

# (DLDataTypeCode, bits) <-> candlewick dtype
_CODES = {
    dt.bool_: (6, 8), dt.int8: (0, 8), dt.int16: (0, 16), dt.int32: (0, 32), dt.int64: (0, 64),
    dt.uint8: (1, 8), dt.uint16: (1, 16), dt.uint32: (1, 32), dt.uint64: (1, 64),
    dt.float16: (2, 16), dt.float32: (2, 32), dt.float64: (2, 64), dt.bfloat16: (4, 16),
    dt.complex64: (5, 64), dt.complex128: (5, 128),
}
_DTYPES = {v: k for k, v in _CODES.items()}


class DLDevice(C.Structure):
    _fields_ = [("device_type", C.c_int32), ("device_id", C.c_int32)]


class DLDataType(C.Structure):
    _fields_ = [("code", C.c_uint8), ("bits", C.c_uint8), ("lanes", C.c_uint16)]


class DLTensor(C.Structure):
    _fields_ = [("data", C.c_void_p), ("device", DLDevice), ("ndim", C.c_int32), ("dtype", DLDataType),
                ("shape", C.POINTER(C.c_int64)), ("strides", C.POINTER(C.c_int64)),
                ("byte_offset", C.c_uint64)]


_DELETER = C.CFUNCTYPE(None, C.c_void_p)


class DLManagedTensor(C.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", C.c_void_p), ("deleter", C.c_void_p)]


class DLPackVersion(C.Structure):
    _fields_ = [("major", C.c_uint32), ("minor", C.c_uint32)]


class DLManagedTensorVersioned(C.Structure):
    _fields_ = [("version", DLPackVersion), ("manager_ctx", C.c_void_p), ("deleter", C.c_void_p),
                ("flags", C.c_uint64), ("dl_tensor", DLTensor)]


_api = C.pythonapi
_api.PyCapsule_New.restype, _api.PyCapsule_New.argtypes = C.py_object, [C.c_void_p, C.c_char_p, C.c_void_p]
_api.PyCapsule_IsValid.restype, _api.PyCapsule_IsValid.argtypes = C.c_int, [C.c_void_p, C.c_char_p]
_api.PyCapsule_GetPointer.restype, _api.PyCapsule_GetPointer.argtypes = C.c_void_p, [C.c_void_p, C.c_char_p]
_api.PyCapsule_SetName.restype, _api.PyCapsule_SetName.argtypes = C.c_int, [C.c_void_p, C.c_char_p]
_api.PyCapsule_GetName.restype, _api.PyCapsule_GetName.argtypes = C.c_char_p, [C.c_void_p]

# capsule names: PyCapsule keeps the pointers, so these bytes objects live as long as the module
_NAME = b"dltensor"
_NAME_VERSIONED = b"dltensor_versioned"
_USED = b"used_dltensor"
_USED_VERSIONED = b"used_dltensor_versioned"

_exports = {}  # address of our DLManagedTensor(Versioned) -> what it keeps alive
_exports_lock = threading.Lock()


@_DELETER
def _export_deleter(address):
    """DLManagedTensor(Versioned).deleter of our exports: drop what the capsule kept."""
    with _exports_lock:
        _exports.pop(address, None)


@C.CFUNCTYPE(None, C.c_void_p)
def _capsule_destructor(capsule):
    """An export capsule collected unconsumed (still named dltensor*): run the deleter."""
    for name in (_NAME, _NAME_VERSIONED):
        if _api.PyCapsule_IsValid(capsule, name):
            _export_deleter(_api.PyCapsule_GetPointer(capsule, name))


_DELETER_ADDRESS = C.cast(_export_deleter, C.c_void_p).value


def make_capsule(owner, data, shape, strides, dtype, device_type, device_id, versioned, read_only=False,
                 copied=False):
    """A DLPack capsule viewing ``data`` (an address) with ``shape``/``strides`` (elements);
    ``owner`` stays referenced until the consumer calls the deleter."""
    if dtype not in _CODES:
        raise DLPackError(f"DLPack has no type code for {dtype.name}")
    ndim = len(shape)
    shape_arr = (C.c_int64 * max(ndim, 1))(*shape)
    strides_arr = (C.c_int64 * max(ndim, 1))(*strides)
    code, bits = _CODES[dtype]
    if versioned:
        managed = DLManagedTensorVersioned()
        managed.version = DLPackVersion(*VERSION)
        # IS_COPIED: the standard asks for it whenever the export made a copy
        managed.flags = (FLAG_READ_ONLY if read_only else 0) | (FLAG_IS_COPIED if copied else 0)
    else:
        managed = DLManagedTensor()
    t = managed.dl_tensor
    t.data = data or None
    t.device = DLDevice(device_type, device_id)
    t.ndim = ndim
    t.dtype = DLDataType(code, bits, 1)
    t.shape = C.cast(shape_arr, C.POINTER(C.c_int64))
    t.strides = C.cast(strides_arr, C.POINTER(C.c_int64))
    t.byte_offset = 0
    address = C.addressof(managed)
    managed.manager_ctx = address
    managed.deleter = _DELETER_ADDRESS
    with _exports_lock:
        _exports[address] = (owner, managed, shape_arr, strides_arr)
    return _api.PyCapsule_New(address, _NAME_VERSIONED if versioned else _NAME,
                              C.cast(_capsule_destructor, C.c_void_p))


class Imported:
    """A consumed DLPack capsule: the tensor's description and its producer's deleter."""

    def __init__(self, capsule):
        cap = C.c_void_p(id(capsule))
        if _api.PyCapsule_IsValid(cap, _NAME_VERSIONED):
            self.address = _api.PyCapsule_GetPointer(cap, _NAME_VERSIONED)
            managed = DLManagedTensorVersioned.from_address(self.address)
            if managed.version.major > VERSION[0]:
                raise DLPackError(f"DLPack version {managed.version.major}.{managed.version.minor} "
                                  f"is newer than the {VERSION[0]}.x this importer reads")
            self.flags, used = int(managed.flags), _USED_VERSIONED
        elif _api.PyCapsule_IsValid(cap, _NAME):
            self.address = _api.PyCapsule_GetPointer(cap, _NAME)
            managed = DLManagedTensor.from_address(self.address)
            self.flags, used = 0, _USED
        else:
            name = _api.PyCapsule_GetName(cap) if type(capsule).__name__ == "PyCapsule" else None
            raise DLPackError(f"not an unconsumed DLPack capsule (name {name!r})")
        t = managed.dl_tensor
        self.data = (t.data or 0) + int(t.byte_offset)
        self.device = (int(t.device.device_type), int(t.device.device_id))
        key = (int(t.dtype.code), int(t.dtype.bits))
        self.dtype = _DTYPES.get(key)
        lanes = int(t.dtype.lanes)
        self.shape = tuple(int(t.shape[i]) for i in range(t.ndim))
        if t.strides:
            self.strides = tuple(int(t.strides[i]) for i in range(t.ndim))
        else:
            self.strides = _contiguous_strides(self.shape)
        self._deleter = managed.deleter
        _api.PyCapsule_SetName(cap, used)  # ours now: the capsule's destructor leaves it alone
        if self.dtype is None or lanes != 1:
            self.release()
            raise DLPackError(f"DLPack dtype (code {key[0]}, bits {key[1]}, lanes {lanes}) has no candlewick dtype")

    @property
    def read_only(self):
        return bool(self.flags & FLAG_READ_ONLY)

    def release(self):
        """Call the producer's deleter (once)."""
        deleter, self._deleter = self._deleter, None
        if deleter:
            _DELETER(deleter)(self.address)


def _contiguous_strides(shape):
    strides, acc = [], 1
    for n in reversed(shape):
        strides.append(acc)
        acc *= n
    return tuple(reversed(strides))


def span(shape, strides):
    """(lowest, highest) element offset reached from the first element; (0, -1) if empty."""
    if any(n == 0 for n in shape):
        return 0, -1
    lo = sum((n - 1) * s for n, s in zip(shape, strides) if s < 0)
    hi = sum((n - 1) * s for n, s in zip(shape, strides) if s > 0)
    return lo, hi
