"""sort and searchsorted.

NumPy already orders NaN above +inf (last when ascending) in ``argsort`` and
``searchsorted``. Descending order is the ascending sort of the axis reversed, read
backwards: equal elements of the reversed input come out in reverse original order, so
reading backwards restores original order (stability holds in both directions) and NaN
comes first. float16/bfloat16 keys are compared as float32 (exact).
"""

import numpy as np

from .ops import F32, LOW_PRECISION_NP


def _key(x):
    return x.astype(F32) if x.dtype in LOW_PRECISION_NP else x


def argsort(x, axis, descending, stable):
    """int64 indices that sort ``x`` along ``axis`` (see the module docstring)."""
    key = _key(x)
    kind = "stable" if stable else None
    if not descending:
        return np.argsort(key, axis=axis, kind=kind).astype(np.int64, copy=False)
    last = key.shape[axis] - 1
    reversed_order = np.argsort(np.flip(key, axis), axis=axis, kind=kind)
    return (last - np.flip(reversed_order, axis)).astype(np.int64, copy=False)


def sort(x, axis, descending, stable):
    """(values, int64 indices) of ``x`` sorted along ``axis``."""
    idx = argsort(x, axis, descending, stable)
    # values are gathered through the indices, so they agree with them bit for bit
    # (-0.0 and 0.0, NaN payloads); plain fancy indexing is the fast gather for 1-D
    values = x[idx] if x.ndim == 1 else np.take_along_axis(x, idx, axis)
    return values, idx


def sort_values(x, axis, descending, stable):
    """``x`` sorted along ``axis`` by NumPy's sort itself (its default algorithm unless
    ``stable``); float16/bfloat16 through the float32 keys of ``sort``."""
    if x.dtype in LOW_PRECISION_NP:
        return sort(x, axis, descending, stable)[0]
    kind = "stable" if stable else None
    if not descending:
        return np.sort(x, axis=axis, kind=kind)
    # the ascending sort of the reversed axis, read backwards (module docstring)
    return np.flip(np.sort(np.flip(x, axis), axis=axis, kind=kind), axis)


def searchsorted(sorted_1d, values, right):
    """int64 insertion points of ``values`` into ascending ``sorted_1d`` (NaN last)."""
    side = "right" if right else "left"
    if sorted_1d.dtype in LOW_PRECISION_NP:
        sorted_1d, values = sorted_1d.astype(F32), values.astype(F32)
    found = np.searchsorted(sorted_1d, values, side=side)
    return found if type(found) is np.ndarray and found.dtype == np.int64 else np.asarray(found, dtype=np.int64)
