"""Reductions and scans of ``CpuStorage``: ``reduce`` and ``scan`` over the tables of
``ops`` (``reduce_ops``' kernels), and ``var`` over ``moments`` (each takes the storage it
works on first; ``storage.CpuStorage`` binds them as its methods)."""

from candlewick import dtypes as dt

from . import moments
from .error import out_of_memory, reports_out_of_memory, unsupported
from .ops import REDUCE, SCAN
from .storage_slice import flat, view

_new = object.__new__


def reduce(self, op, layout, axes):
    try:
        kernel, out_dtype = REDUCE[op._value_][self.dtype.name]
    except (KeyError, AttributeError):
        raise unsupported(op, self.dtype) from None
    x = self.buf
    full = len(axes) == len(layout.shape)
    # a full reduction of C-contiguous elements runs over them flat (keepdims leaves
    # exactly (1,)): the whole buffer as it lies where the layout covers it (len: the
    # buffer is 1-D, and len() is a C slot where .size is an attribute lookup)
    try:
        if full and layout.dense_size == len(x):
            out = kernel(x, (0,))
        elif full and layout.is_contiguous:
            out = kernel(flat(x, layout), (0,))
        else:
            out = kernel(view(x, layout), tuple(axes)).reshape(-1)
    except MemoryError as exc:
        raise out_of_memory("reduce", exc) from exc
    result = _new(type(self))  # (type(self)(...) without the __init__ call)
    result.buf = out
    result.dtype = out_dtype
    return result


@reports_out_of_memory
def var(self, layout, axes, correction, root):
    buf = self.buf
    if buf.dtype not in moments.REAL_OF:
        raise unsupported("var", self.dtype)
    real = dt.real_dtype_of(self.dtype)
    if layout.is_contiguous and len(axes) == len(layout.shape):  # over the flat buffer
        x, axes = flat(buf, layout), (0,)
    else:
        x, axes = view(buf, layout), tuple(axes)
    return type(self)(moments.var(x, axes, correction, root).reshape(-1), real)


@reports_out_of_memory
def scan(self, op, layout, axis):
    try:
        kernel, out_dtype = SCAN[op._value_][self.dtype.name]
    except (KeyError, AttributeError):
        raise unsupported(op, self.dtype) from None
    return type(self)(kernel(view(self.buf, layout), axis).reshape(-1), out_dtype)
