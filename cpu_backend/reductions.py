"""Reductions and scans of ``CpuStorage``: ``reduce`` and ``scan`` over the tables of
``ops`` (``reduce_ops``' kernels), their optional "reduce_dtype" forms ``reduce_as`` and
``scan_as`` (NumPy's ``dtype=``), and ``var`` over ``moments`` (each takes the storage it
works on first; ``storage.CpuStorage`` binds them as its methods)."""

import numpy as np

from candlewick import dtypes as dt
from candlewick.opdefs import ReduceOp, ScanOp

from . import moments
from .error import QUIET, QuietBlock, out_of_memory, reports_out_of_memory, reset_fp_state, set_fp_state, unsupported
from .op_tables import accumulation_dtype
from .ops import REDUCE, SCAN
from .storage_slice import flat, view

_new = object.__new__
_asarray = np.asarray


def reduce(self, op, layout, axes):
    try:
        kernel, loud, out_dtype = REDUCE[op._value_][self.dtype.name]
    except (KeyError, AttributeError):
        raise unsupported(op, self.dtype) from None
    x = self.buf
    full = len(axes) == len(layout.shape)
    # a full reduction of C-contiguous elements runs over them flat (keepdims leaves
    # exactly (1,)): the whole buffer as it lies where the layout covers it (len: the
    # buffer is 1-D, and len() is a C slot where .size is an attribute lookup)
    token = set_fp_state(QUIET) if loud else None  # (inline: error.quiet's frame, saved)
    try:
        whole = layout.dense_size == len(x)
        if full and whole:
            out = kernel(x, (0,))
        elif full and layout.is_contiguous:
            out = kernel(flat(x, layout), (0,))
        elif whole:  # the whole buffer as it lies, reshaped (view's answer without its frames)
            out = kernel(x.reshape(layout.shape), tuple(axes)).reshape(-1)
        else:
            out = kernel(view(x, layout), tuple(axes)).reshape(-1)
    except MemoryError as exc:
        raise out_of_memory("reduce", exc) from exc
    finally:
        if token is not None:
            reset_fp_state(token)
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


_UFUNC = {ReduceOp.SUM: np.add, ReduceOp.PROD: np.multiply, ScanOp.SUM: np.add, ScanOp.PROD: np.multiply}
#: (op's value, id of a dtype) -> (the ufunc, the NumPy dtype it accumulates in, the
#: dtype's), for every dtype but bool and the half ones (keys that hash in C: DType's and
#: the op enums' __hash__ are Python calls, and scikit-learn sums float32 data in float64
#: several times a StandardScaler fit)
_CONVERTED = {(op._value_, id(d)): (ufunc, accumulation_dtype(d), d.numpy)
              for op, ufunc in _UFUNC.items() for d in dt.ALL_DTYPES
              if not d.is_bool and d.name not in ("float16", "bfloat16")}


def _converted(self, op, dtype):
    """(the ufunc, the NumPy dtype it accumulates in, ``dtype``'s): ``np.add.reduce(x,
    dtype=acc)`` casts x a buffer at a time (no converted copy of x), as ``astype``
    would (NumPy's unsafe cast of each element: float to int truncates, ints wrap)."""
    found = _CONVERTED.get((getattr(op, "_value_", None), id(dtype)))
    if found is None:
        raise unsupported(op, self.dtype)
    return found


def reduce_as(self, op, layout, axes, dtype):
    # flat, as reduce (scikit-learn's float64 sums of float32 data: two a StandardScaler
    # fit, each after NumPy's calls over the data have evicted the Python frames)
    ufunc, acc, out_np = _converted(self, op, dtype)
    buf = self.buf
    if len(axes) == len(layout.shape) and layout.is_contiguous:  # the whole array, flat
        x, axes = flat(buf, layout), (0,)
    elif layout.dense_size == len(buf):  # the whole buffer as it lies, reshaped
        x, axes = buf.reshape(layout.shape), tuple(axes)
    else:
        x, axes = view(buf, layout), tuple(axes)
    token = set_fp_state(QUIET)
    try:
        out = ufunc.reduce(x, axis=axes, dtype=acc)
        out = _asarray(out).astype(out_np, copy=False).reshape(-1)
    except MemoryError as exc:
        raise out_of_memory("reduce_as", exc) from exc
    finally:
        reset_fp_state(token)
    result = _new(type(self))
    result.buf = out
    result.dtype = dtype
    return result


@reports_out_of_memory
def scan_as(self, op, layout, axis, dtype):
    ufunc, acc, out_np = _converted(self, op, dtype)
    with QuietBlock():
        out = ufunc.accumulate(view(self.buf, layout), axis=axis, dtype=acc)
        out = out.astype(out_np, copy=False).reshape(-1)
    return type(self)(out, dtype)
