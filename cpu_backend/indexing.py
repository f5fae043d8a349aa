"""Take and put along an axis, the indexing primitives of ``CpuStorage``: index_select,
gather, scatter, scatter_add, index_add (each takes the storage it works on first;
``storage.CpuStorage`` binds them as its methods).

Each views its operands through their layouts and hands the views to its kernel (the
functions of the same name with a leading underscore), which returns a new array or
writes into the destination view in place. Indices are int64 and may be
negative (counting from the end). NumPy checks every index before it reads or writes
anything (fancy indexing, ``take`` and ``ufunc.at`` alike), so the common case pays for
no second pass; when it refuses, ``error.check_indices`` finds the bad index and the
error names the primitive: ``IndexOutOfBoundsError``, with nothing written.
"""

import numpy as np

from candlewick.errors import IndexOutOfBoundsError

from .error import QuietBlock, check_indices, out_of_memory, reports_out_of_memory, same_dtype
from .ops import F32, LOW_PRECISION_NP
from .storage_slice import lock_of, may_share_memory, view


def _bounds_checked(op, idx, size, axis, run, *args):
    try:
        return run(*args)
    except IndexError as exc:
        check_indices(op, idx, size, axis)  # raises, naming the first bad index
        raise IndexOutOfBoundsError(f"{op}: {exc}") from exc


def along_axis_index(idx, axis):
    """The fancy index that addresses ``x[p with p[axis] = idx[p]]`` for every position
    ``p`` of ``idx`` (the other coordinates of ``p`` are used as they are)."""
    ndim = idx.ndim
    index = []
    for d in range(ndim):
        if d == axis:
            index.append(idx)
        else:
            shape = [1] * ndim
            shape[d] = idx.shape[d]
            index.append(np.arange(idx.shape[d]).reshape(shape))
    return tuple(index)


def _index_select(x, idx, axis):
    if idx.ndim:
        # the ndarray method skips np.take's Python wrapper; for a 1-D gather at 2^20 it
        # is several times faster than fancy indexing x[idx]
        return _bounds_checked("index_select", idx, x.shape[axis], axis, x.take, idx, axis)
    taken = _bounds_checked("index_select", idx, x.shape[axis], axis, np.take, x, idx, axis)
    return np.asarray(taken)


def _gather(x, idx, axis):
    return _bounds_checked("gather", idx, x.shape[axis], axis, x.__getitem__, along_axis_index(idx, axis))


def _private(src, dst):
    # "as if src were read first": a source sharing memory with dst is copied up front
    return src.copy() if may_share_memory(src, dst) else src


def _accumulate(op, dst, idx, axis, index, src):
    """``dst[index] += src`` with every duplicate index contributing (np.add.at);
    float16/bfloat16 accumulate in float32 and are rounded once."""
    src = _private(src, dst)
    size = dst.shape[axis]
    with QuietBlock():
        if dst.dtype in LOW_PRECISION_NP:
            acc = dst.astype(F32)
            _bounds_checked(op, idx, size, axis, np.add.at, acc, index, src.astype(F32))
            dst[...] = acc.astype(dst.dtype)
        else:
            _bounds_checked(op, idx, size, axis, np.add.at, dst, index, src)


def _scatter_add(dst, idx, src, axis):
    _accumulate("scatter_add", dst, idx, axis, along_axis_index(idx, axis), src)


def _index_add(dst, idx, src, axis):
    _accumulate("index_add", dst, idx, axis, (slice(None),) * axis + (idx,), src)


# --- the primitives ----------------------------------------------------------------------

@reports_out_of_memory
def index_select(self, layout, indices, idx_layout, axis):
    out = _index_select(view(self.buf, layout), view(indices.buf, idx_layout), axis)
    return type(self)(out.reshape(-1), self.dtype)


@reports_out_of_memory
def gather(self, layout, indices, idx_layout, axis):
    out = _gather(view(self.buf, layout), view(indices.buf, idx_layout), axis)
    return type(self)(out.reshape(-1), self.dtype)


def scatter(self, dst_layout, indices, idx_layout, src, src_layout, axis):
    # (in few frames: x[mask] = rows, scikit-learn's once a StandardScaler fit, after
    # NumPy's calls over the data have evicted the caches)
    if src.dtype is not self.dtype:
        same_dtype(self, src, "src", "scatter")  # (raises)
    try:
        dst, idx = view(self.buf, dst_layout), view(indices.buf, idx_layout)
        values = _private(view(src.buf, src_layout), dst)
        with lock_of(self):
            _bounds_checked("scatter", idx, dst.shape[axis], axis, dst.__setitem__, along_axis_index(idx, axis),
                            values)
    except MemoryError as exc:
        raise out_of_memory("scatter", exc) from exc


@reports_out_of_memory
def scatter_add(self, dst_layout, indices, idx_layout, src, src_layout, axis):
    same_dtype(self, src, "src", "scatter_add")
    with lock_of(self):
        _scatter_add(view(self.buf, dst_layout), view(indices.buf, idx_layout), view(src.buf, src_layout), axis)


@reports_out_of_memory
def index_add(self, dst_layout, indices, idx_layout, src, src_layout, axis):
    same_dtype(self, src, "src", "index_add")
    with lock_of(self):
        _index_add(view(self.buf, dst_layout), view(indices.buf, idx_layout), view(src.buf, src_layout), axis)
