"""Host transfer, in-place writes and copies of ``CpuStorage``: ``to_host``,
``host_view``, ``unshared``, ``dlpack_view``, ``real_view``, ``assign``, ``fill`` and ``copy`` (each takes the storage
it works on first; ``storage.CpuStorage`` binds them as its methods)."""

import sys
from math import prod

import numpy as np

from candlewick import dtypes as dt
from candlewick.layout import Layout

from . import dlpack
from .error import QuietBlock, out_of_memory, reports_out_of_memory, same_dtype
from .storage_slice import flat, lock_of, view

# NumPy's repeat beats a strided flatten from about this many elements (measured)
_REPEAT_FROM = 256
# fill values that every dtype holds exactly (float16's range): no overflow to quiet
_SMALL_EXACT = frozenset({bool, int})
_F32_MAX = float(np.finfo(np.float32).max)
_WIDE_FLOATS = frozenset({"float32", "float64"})
_F16_MAX = 65504
_getrefcount = sys.getrefcount
_ndarray = np.ndarray
try:  # a 2-D copy between a row-major and a column-major side in cache-sized tiles
    from candlewick._native import copy_crossed as _copy_crossed
except ImportError:  # (not built: NumPy's copy, the same values)
    _copy_crossed = None


def _crossed(target, source):
    """Whether ``target[...] = source`` was done by ``_copy_crossed`` (2-D sides contiguous
    along different axes: a transposed view of 4- or 8-byte items; NumPy reads one element a
    row apart there, 4-8x the time at 1000 x 1000); False: nothing done."""
    return (_copy_crossed is not None and target.ndim == 2 and source.ndim == 2
            and target.strides[1] != source.strides[1] and _copy_crossed(target, source))


def to_host(x, layout):
    try:
        return view(x.buf, layout).copy()
    except MemoryError as exc:
        raise out_of_memory("to_host", exc) from exc


def host_view(x, layout):
    """The optional hook HostViewStorage: NumPy's view of this buffer (no copy)."""
    return view(x.buf, layout)


def unshared(self):
    """The optional hook UnsharedStorage: whether nothing but this storage refers to its
    buffer's memory (no NumPy view of it, no export, no other storage), which is then
    writable, so that the front end's temporary elision may write a result into it. A
    kernel's result reshaped flat (matmul's ``out.reshape(-1)``) is a view of its owner,
    which nothing else holds either."""
    buf = self.buf
    if not buf.flags.writeable:
        return False
    base = buf.base
    if base is None:
        return _getrefcount(buf) == 3  # (the slot, the local, the argument)
    # base's references: buf's, the local, the argument
    return (type(base) is _ndarray and base.base is None and base.flags.owndata and _getrefcount(base) == 3
            and _getrefcount(buf) == 3)


@reports_out_of_memory
def dlpack_view(x, layout):
    """The optional DLPack export hook: a NumPy view sharing this buffer (bfloat16
    through dlpack.export_view, as DLPack's kDLBfloat)."""
    return dlpack.export_view(view(x.buf, layout))


@reports_out_of_memory
def real_view(x):
    """The optional hook ComplexViewStorage: this complex buffer as its real components
    (NumPy's ``view`` of the component dtype: no copy). One storage per complex
    storage, so that ``assign``'s overlap check, which compares buffers, sees every
    ``real``/``imag`` view of one array as one memory."""
    parts = getattr(x, "_parts", None)
    if parts is None:
        dtype = dt.real_dtype_of(x.dtype)
        parts = type(x)(x.buf.view(dtype.numpy), dtype)
        parts._lock = lock_of(x)  # one memory, one lock
        x._parts = parts
    return parts


@reports_out_of_memory
def assign(x, dst_layout, src, src_layout):
    same_dtype(x, src, "src", "assign")
    if not dst_layout.shape:  # one element (x[i, j] = v in a loop): no views, no copyto
        with lock_of(x):
            x.buf[dst_layout.offset] = src.buf[src_layout.offset]
        return
    source = view(src.buf, src_layout)
    target = view(x.buf, dst_layout)
    with lock_of(x):
        if src.buf is x.buf and np.may_share_memory(target, source):
            # NumPy does not detect every overlap (e.g. 1-D views with different steps):
            # read the source out first, as the contract says
            source = source.copy(order="K")  # (its own layout: a plain copy, crossed below)
        if not _crossed(target, source):
            np.copyto(target, source)


@reports_out_of_memory
def fill(x, layout, value):
    kind = type(value)
    if (kind in _SMALL_EXACT and -_F16_MAX <= value <= _F16_MAX) or (
            kind is float and x.dtype.name in _WIDE_FLOATS and -_F32_MAX <= value <= _F32_MAX):
        # no IEEE flag to quiet: exact in every dtype, or a float float32/64 holds
        # without overflow (a rounding raises none)
        with lock_of(x):
            if layout.size == 1:
                x.buf[layout.offset] = value
            else:
                view(x.buf, layout).fill(value)
        return
    with QuietBlock(), lock_of(x):
        view(x.buf, layout).fill(value)


def copy(x, layout):
    cls = type(x)
    try:
        if layout.is_contiguous:
            return cls(flat(x.buf, layout).copy(), x.dtype)
        spread = _spread_axis(layout) if prod(layout.shape) >= _REPEAT_FROM else 0
        if spread:  # each element repeated along one stride-0 axis: NumPy's repeat
            shape, strides = layout.shape, layout.strides
            inner = Layout(shape[:spread] + shape[spread + 1 :], strides[:spread] + strides[spread + 1 :],
                           layout.offset)
            out = np.repeat(view(x.buf, inner), shape[spread], axis=spread - 1)
            return cls(out.reshape(-1), x.dtype)
        source = view(x.buf, layout)
        if source.ndim == 2 and source.strides[0] == source.itemsize:  # (column-major: crossed)
            out = np.empty(source.shape, source.dtype)
            if _crossed(out, source):
                return cls(out.reshape(-1), x.dtype)
        return cls(source.flatten(), x.dtype)
    except MemoryError as exc:
        raise out_of_memory("copy", exc) from exc


def _spread_axis(layout):
    """The axis k > 0 of a layout whose only stride-0 axis of length > 1 is k (a repeat
    of each element along k - 1), else 0."""
    found = 0
    for k, (n, st) in enumerate(zip(layout.shape, layout.strides)):
        if st == 0 and n > 1:
            if found or not k:
                return 0
            found = k
    return found
