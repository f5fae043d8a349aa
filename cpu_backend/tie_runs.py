"""The tie runs of a stable sort's values put back by NumPy (``ordering``'s form where
candlewick._native is absent, and along an axis that is not the last): each sorted row's
NaN run and its zero run (where it holds two zeros or more) rewritten from the unsorted
row, in its order, by a mask and a compaction per run (ordering.py's docstring says why
only those two runs can differ from a stable sort's)."""

import math

import numpy as np

from .error import QuietBlock

#: the zero of each dtype sort keys have (float16/bfloat16 keys are float32)
_ZERO = {np.dtype(np.float32): np.float32(0), np.dtype(np.float64): np.float64(0)}


def restore_ties(s, x, keys):
    """Rewrite, in place, the NaN and zero runs of each row (last axis) of the ascending
    ``s`` from ``x``, the same rows unsorted, wherever they can differ from a stable
    sort's: a row's NaNs, and its zeros where it holds more than one. (NumPy's sort does
    not even keep the zeros' signs as a multiset: its min/max networks can duplicate one
    of two equal operands, so the input is the only witness.) ``keys`` is s itself, or
    its float32 keys where s's own comparison misplaces NaN (bfloat16)."""
    if s.ndim == 1:  # the common case: under a microsecond when neither run needs it
        if math.isnan(s.item(-1)):
            with QuietBlock():  # (bfloat16's isnan of a signalling NaN sets the invalid flag)
                nans = np.isnan(x)
            s[s.size - np.count_nonzero(nans):] = x[nans]
        zero = _ZERO[keys.dtype]  # of keys' dtype: a Python 0 would have them converted
        lo = keys.searchsorted(zero, "left")
        if lo + 1 < keys.size and keys.item(lo + 1) == 0:  # two zeros or more
            with QuietBlock():  # comparing a signalling NaN sets the invalid flag
                s[lo:keys.searchsorted(zero, "right")] = x[x == 0]
        return
    with QuietBlock():
        _restore_rows(s, x, keys)


def _restore_rows(s, x, keys):
    nan_rows = np.isnan(s[..., -1])
    if nan_rows.any():
        _rewrite_rows(s, x, nan_rows, np.isnan)
    zero_rows = _row_search(keys, True) - _row_search(keys, False) > 1
    if zero_rows.any():
        _rewrite_rows(s, x, zero_rows, lambda a: a == 0)


def _rewrite_rows(s, x, rows, pick):
    """s[rows]'s elements selected by ``pick`` replaced by x[rows]'s, in x's order: each
    row of s holds as many as the same row of x (the same elements, sorted), so the
    row-major order of both selections pairs them up row by row."""
    run, src = s[rows], x[rows]
    run[pick(run)] = src[pick(src)]
    s[rows] = run


def _row_search(s, right):
    """Per row of the ascending ``s`` (NaN last): ``np.searchsorted(row, 0, side)``, by
    one binary search vectorized over the rows (a few small passes, not one per element)."""
    n = s.shape[-1]
    lo = np.zeros(s.shape[:-1], np.intp)
    hi = np.full(s.shape[:-1], n, np.intp)
    for _ in range(n.bit_length()):
        mid = (lo + hi) >> 1
        v = np.take_along_axis(s, np.minimum(mid, n - 1)[..., None], -1)[..., 0]
        active = lo < hi
        below = (v <= 0) if right else (v < 0)  # NaN is not below: it sorts last
        below &= active
        lo = np.where(below, mid + 1, lo)
        hi = np.where(active & ~below, mid, hi)
    return lo
