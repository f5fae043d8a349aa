"""The CPU backend's typed flat buffer: a 1-D, C-contiguous NumPy array of one dtype.

A ``CpuStorage`` owns one such buffer; a ``Layout`` (shape, strides and offset in
elements) says how an array views it. ``view`` is the one function that turns a
(buffer, layout) pair into a NumPy array without copying; ``flat`` is its fast path
for C-contiguous layouts. These run on every primitive, so they avoid Python-level
loops where they can: contiguous layouts become a 1-D slice (plus a reshape when a
shape is needed), anything else a strided ``np.ndarray`` over the same memory
(``as_strided`` does the same but costs several times more).
"""

import threading
from math import prod

import numpy as np


try:  # candlewick's optional compiled module (absent where no C compiler was found)
    from candlewick._native import Lock as _Lock
except ImportError:
    _Lock = threading.Lock

_object_new = object.__new__
#: whether two NumPy arrays may share memory: NumPy's C function, past the dispatcher's
#: Python frame (np.may_share_memory runs a Python function first)
may_share_memory = getattr(np.may_share_memory, "_implementation", np.may_share_memory)
_locks_guard = threading.Lock()


def lock_of(storage):
    """The lock every write into ``storage`` holds (its ``_lock`` slot, made on first use:
    storages made by ``new_storage`` have none until then), so that one primitive call
    is one update against other threads' writes (docs/inplace.md, "Threads"). Where
    candlewick._native was built, its ``Lock``, which the C primitives
    (``_native.UfuncInto``) take without a Python call."""
    try:
        return storage._lock
    except AttributeError:
        with _locks_guard:
            lock = getattr(storage, "_lock", None)
            if lock is None:
                lock = storage._lock = _Lock()
            return lock


def new_storage(cls, buf, dtype):
    """A storage of class ``cls`` holding ``buf`` as ``dtype``, without the class call,
    whose Python ``__init__`` CPython runs on its slow path (the primitives of one NumPy
    call each make their results so)."""
    storage = _object_new(cls)
    storage.buf = buf
    storage.dtype = dtype
    return storage


def alloc(size, np_dtype):
    """A new uninitialized flat buffer of ``size`` elements."""
    return np.empty(size, np_dtype)


def flat(buf, layout):
    """The elements of a C-contiguous ``layout`` as a 1-D view of ``buf`` (C order)."""
    offset = layout.offset
    size = prod(layout.shape)
    if offset == 0 and size == buf.size:
        return buf
    return buf[offset : offset + size]


def view(buf, layout):
    """``buf`` seen through ``layout``: a NumPy array sharing its memory (writable)."""
    shape = layout.shape
    # the whole buffer as it lies, read from one attribute: no property or flat frame (a
    # primitive views each operand)
    if layout.dense_size == buf.size:
        return buf if len(shape) == 1 else buf.reshape(shape)
    if layout.is_contiguous:
        elements = flat(buf, layout)
        return elements if len(shape) == 1 else elements.reshape(shape)
    if 0 in shape:  # empty, and strided: its offset may point anywhere, even past the end
        return buf[:0].reshape(shape)
    if len(shape) == 1 and layout.strides[0]:  # a stepped run, forwards or backwards: a basic slice (cheaper)
        step, start = layout.strides[0], layout.offset
        stop = start + (shape[0] - 1) * step + (1 if step > 0 else -1)
        return buf[start : stop if stop >= 0 else None : step]
    item = buf.itemsize
    return np.ndarray(shape, buf.dtype, buf, layout.offset * item, tuple(map(item.__mul__, layout.strides)))


def as_flat_result(array):
    """A kernel's result as a flat C-order buffer (a view when it already is one)."""
    return array.reshape(-1)
