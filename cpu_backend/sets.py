"""unique and nonzero: the primitives whose result sizes depend on the data.

``unique`` sorts the flattened elements once (NumPy's argsort, stable where the first
occurrences are asked; ``lexsort`` by (real, imag) for complex, NaN last in each part;
float16/bfloat16 by their exact float32 keys), marks where each run of equal elements
starts (``!=``, so every NaN starts its own run and -0.0 joins 0.0) and derives every
result from that mask in a few NumPy passes, with no Python loop over elements.
"""

import numpy as np

from .ops import F32, LOW_PRECISION_NP


def _run_starts(keys):
    """True where a run of equal sorted ``keys`` starts (at 0, and where an element
    differs from its predecessor: NaN differs from everything)."""
    starts = np.empty(keys.size, np.bool_)
    starts[0] = True
    np.not_equal(keys[1:], keys[:-1], out=starts[1:])
    return starts


def unique(x, indices, inverse, counts):
    """(values, first indices, inverse, counts) of the 1-D ``x`` (size >= 1); an entry not
    asked for is None (see ``BackendStorage.unique``)."""
    n = x.size
    low = x.dtype in LOW_PRECISION_NP
    if x.dtype.kind == "c":
        order = np.lexsort((x.imag, x.real))  # stable: real parts, then imaginary parts
    elif indices:
        order = np.argsort(x.astype(F32) if low else x, kind="stable")
    elif inverse or low:  # any order among equal elements gives the same groups
        order = np.argsort(x.astype(F32) if low else x)
    else:
        order = None
    if order is None:
        values = keys = np.sort(x)
    else:
        values = x[order]
        keys = values.astype(F32) if low else values
    starts = _run_starts(keys)
    first = order[starts] if indices else None
    inv = None
    if inverse:
        groups = np.cumsum(starts, dtype=np.int64)
        groups -= 1
        inv = np.empty(n, np.int64)
        inv[order] = groups
    sizes = None
    if counts:
        bounds = np.flatnonzero(starts)
        sizes = np.empty(bounds.size, np.int64)
        np.subtract(bounds[1:], bounds[:-1], out=sizes[:-1])
        sizes[-1] = n - bounds[-1]
    return values[starts], first, inv, sizes


def nonzero(x):
    """The coordinates of ``x``'s non-zero elements in C order, one contiguous int64 array
    per axis (NumPy's nonzero; one pass over a 1-D ``x``)."""
    if x.ndim == 1:
        return (np.flatnonzero(x),)
    return tuple(np.ascontiguousarray(c) for c in np.nonzero(x))
