"""``HostStorage``: one flat NumPy buffer in the host's memory, viewed through layouts.

What makes a backend a host-memory one is written out here (docs/writing-a-backend.md,
section 7): the buffer and its strided views, host transfer, DLPack export, the complex
parts' view and the in-place copies. The arithmetic primitives run the reference
backend's NumPy kernels on the same buffers (``_reference_primitive``): the one shortcut
of this example, where a backend of real hardware calls its own library.
"""

import numpy as np
from numpy.lib.stride_tricks import as_strided

from candlewick import dtypes as dt
from candlewick.backend import BackendStorage, protocol_methods

from cpu_backend import CpuStorage


class HostStorage:
    """A flat C-contiguous NumPy buffer of one dtype, owned by a ``HostDevice``."""

    __slots__ = ("buf", "dtype", "device")

    def __init__(self, buf, dtype, device):
        self.buf = buf  # 1-D, C-contiguous, dtype.numpy
        self.dtype = dtype
        self.device = device

    @property
    def size(self):
        return self.buf.size

    @property
    def read_only(self):
        """Memory imported read-only through DLPack is never written (the front end asks)."""
        return not self.buf.flags.writeable

    def __repr__(self):
        return f"{type(self).__name__}({self.dtype.name}, size={self.size})"

    def view(self, layout):
        """The elements ``layout`` views, as a NumPy view of the buffer (no copy): strides
        and offset are in elements, NumPy's strides in bytes."""
        item = self.buf.itemsize
        start = self.buf[layout.offset:] if layout.size else self.buf[:0]
        return as_strided(start, shape=layout.shape, strides=[s * item for s in layout.strides],
                          writeable=self.buf.flags.writeable)

    # --- host transfer: a new, owning, C-contiguous array ------------------------------

    def to_host(self, layout):
        return np.array(self.view(layout), order="C")

    # --- the optional hooks of a host-memory storage -------------------------------------

    def dlpack_view(self, layout):
        """DLPack export (``candlewick.backend.DLPackStorage``): NumPy's view exports itself,
        sharing the buffer (NumPy raises BufferError for bfloat16, which it cannot export)."""
        return self.view(layout)

    def real_view(self):
        """``real``/``imag`` as views (``candlewick.backend.ComplexViewStorage``): the complex
        buffer seen as its float components."""
        part = dt.real_dtype_of(self.dtype)
        return type(self)(self.buf.view(part.numpy), part, self.device)

    # --- primitives written with NumPy here ------------------------------------------------

    def copy(self, layout):
        return type(self)(self.to_host(layout).reshape(-1), self.dtype, self.device)

    def assign(self, dst_layout, src, src_layout):
        source = src.view(src_layout)
        if np.may_share_memory(source, self.buf):  # overlapping: as if the source were read first
            source = source.copy()
        np.copyto(self.view(dst_layout), source)

    def fill(self, layout, value):
        with np.errstate(all="ignore"):  # a float past float16's range is inf, silently (IEEE)
            self.view(layout).fill(value)


def _reference_argument(value):
    """A storage of ours as the reference backend's storage over the same buffer."""
    if isinstance(value, (list, tuple)):
        return type(value)(_reference_argument(v) for v in value)
    return CpuStorage(value.buf, value.dtype) if isinstance(value, HostStorage) else value


def ours(result, device):
    """The reference's result storages (alone or in tuples) as storages of ``device``."""
    if isinstance(result, tuple):
        return tuple(ours(r, device) for r in result)
    if isinstance(result, CpuStorage):  # (a reference buffer may be a reversed 1-D view)
        return device.storage_type(np.ascontiguousarray(result.buf), result.dtype, device)
    return result


def _reference_primitive(name):
    def primitive(self, *args):
        reference = CpuStorage(self.buf, self.dtype)  # shares the buffer: in-place ones write ours
        return ours(getattr(reference, name)(*map(_reference_argument, args)), self.device)

    primitive.__name__ = name
    primitive.__doc__ = getattr(BackendStorage, name).__doc__
    return primitive


#: every other primitive of the protocol (optional groups included: the device declares them)
REFERENCE_PRIMITIVES = [name for name in protocol_methods(BackendStorage) if not hasattr(HostStorage, name)]
for _name in REFERENCE_PRIMITIVES:
    setattr(HostStorage, _name, _reference_primitive(_name))
