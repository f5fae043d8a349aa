"""Take and put along an axis: index_select, gather, scatter, scatter_add, index_add.

Functions take NumPy views (of storages through their layouts) and either return a new
array or write into the destination view in place. Indices are int64, may be negative
(counting from the end) and are bounds-checked first, so a bad index raises
``IndexOutOfBoundsError`` naming the primitive instead of writing anything.
"""

import numpy as np

from .error import QuietBlock, check_indices
from .ops import F32, LOW_PRECISION_NP


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


def index_select(x, idx, axis):
    check_indices("index_select", idx, x.shape[axis], axis)
    return np.asarray(np.take(x, idx, axis=axis))


def gather(x, idx, axis):
    check_indices("gather", idx, x.shape[axis], axis)
    return x[along_axis_index(idx, axis)]


def _private(src, dst):
    # "as if src were read first": a source sharing memory with dst is copied up front
    return src.copy() if np.may_share_memory(src, dst) else src


def scatter(dst, idx, src, axis):
    check_indices("scatter", idx, dst.shape[axis], axis)
    dst[along_axis_index(idx, axis)] = _private(src, dst)


def _accumulate(dst, index, src):
    """``dst[index] += src`` with every duplicate index contributing (np.add.at);
    float16/bfloat16 accumulate in float32 and are rounded once."""
    src = _private(src, dst)
    with QuietBlock():
        if dst.dtype in LOW_PRECISION_NP:
            acc = dst.astype(F32)
            np.add.at(acc, index, src.astype(F32))
            dst[...] = acc.astype(dst.dtype)
        else:
            np.add.at(dst, index, src)


def scatter_add(dst, idx, src, axis):
    check_indices("scatter_add", idx, dst.shape[axis], axis)
    _accumulate(dst, along_axis_index(idx, axis), src)


def index_add(dst, idx, src, axis):
    check_indices("index_add", idx, dst.shape[axis], axis)
    _accumulate(dst, (slice(None),) * axis + (idx,), src)
