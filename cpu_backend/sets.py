"""unique and nonzero, the primitives whose result sizes depend on the data, and isin
(each takes the storage it works on first; ``storage.CpuStorage`` binds them as its
methods), over the array kernels of the same names with a leading underscore.

``unique`` sorts the flattened elements once and marks where each run of equal elements
starts (``!=``, so every NaN starts its own run and -0.0 joins 0.0); every result comes
from that mask in a few NumPy passes, with no Python loop over elements. The sort is
NumPy's fastest (``ordering``: its default kind, radix for 1-2 byte integers), and the
results are still bitwise those of a stable sort's: the values alone come from
``ordering.sorted_values``'s stable values; with an order, the NaNs' indices (each NaN its
own group) are put back in input order, each group's first occurrence is the minimum of
its indices, and the zero group's value is its first element (-0.0 or 0.0). Complex
sorts by (real, imag) through ``lexsort`` (stable, NaN last in each part);
float16/bfloat16 by their exact float32 keys.
"""

import numpy as np

from candlewick import dtypes as dt

from .error import quiet, reports_out_of_memory, same_dtype, unsupported
from .ops import LOW_PRECISION_NP
from .ordering import fastest_kind, float32_keys, sorted_values
from .storage_slice import flat, new_storage, view


def _run_starts(keys):
    """True where a run of equal sorted ``keys`` starts (at 0, and where an element
    differs from its predecessor: NaN differs from everything)."""
    starts = np.empty(keys.size, np.bool_)
    starts[0] = True
    np.not_equal(keys[1:], keys[:-1], out=starts[1:])
    return starts


@quiet  # comparing a signalling NaN sets the invalid flag: not an error here
def _unique(x, indices, inverse, counts):
    """(values, first indices, inverse, counts) of the 1-D ``x`` (size >= 1); an entry not
    asked for is None (see ``BackendStorage.unique``)."""
    n = x.size
    first = inv = sizes = None
    if not (indices or inverse or x.dtype.kind == "c"):  # complex: by (real, imag) in _order
        values = sorted_values(x, 0, False, True)
        starts = _run_starts(float32_keys(values))
        distinct = values[starts]
    else:
        order, keys = _order(x)
        starts = _run_starts(keys)
        if indices:
            first = order[starts] if _stable_order(x) else np.minimum.reduceat(order, np.flatnonzero(starts))
            distinct = x[first]
        else:
            distinct = x[order[starts]]
            if keys.dtype.kind == "f":  # the zero group's value: its first element
                zero = keys.dtype.type(0)
                lo, hi = np.searchsorted(keys, zero, "left"), np.searchsorted(keys, zero, "right")
                if hi - lo > 1:
                    distinct[np.count_nonzero(starts[:lo + 1]) - 1] = x[order[lo:hi].min()]
        if inverse:
            groups = np.cumsum(starts, dtype=np.int64)
            groups -= 1
            inv = np.empty(n, np.int64)
            inv[order] = groups
    if counts:
        bounds = np.flatnonzero(starts)
        sizes = np.empty(bounds.size, np.int64)
        np.subtract(bounds[1:], bounds[:-1], out=sizes[:-1])
        sizes[-1] = n - bounds[-1]
    return distinct, first, inv, sizes


def _stable_order(x):
    return x.dtype.kind == "c" or fastest_kind(x.dtype) == "stable"


def _order(x):
    """(order, keys): an ascending order of x and its sort keys in that order, the NaNs'
    indices (each its own group) in input order as a stable sort's."""
    if x.dtype.kind == "c":
        order = np.lexsort((x.imag, x.real))  # stable: real parts, then imaginary parts
        return order, x[order]
    key = float32_keys(x)
    order = np.argsort(key, kind=fastest_kind(x.dtype))
    keys = key[order]
    if keys.dtype.kind == "f" and np.isnan(keys[-1]):
        nan_from = np.searchsorted(keys, keys[-1])  # the first NaN
        order[nan_from:].sort()
    return order, keys


def _nonzero(x):
    """The coordinates of ``x``'s non-zero elements in C order, one contiguous int64 array
    per axis (NumPy's nonzero; one pass over a 1-D ``x``)."""
    if x.ndim == 1:  # (the method: np.flatnonzero is np.nonzero(np.ravel(x)) through six Python frames)
        return (x.nonzero()[0],)
    return tuple(np.ascontiguousarray(c) for c in np.nonzero(x))


def _isin(x, y, invert):
    """Whether each element of the 1-D ``x`` equals one of the 1-D ``y`` (one dtype; NaN is
    in nothing), negated with ``invert``. Integers (bool as uint8) whose ``y`` spans a range
    small beside the inputs look their values up in a table of that range, NumPy's
    ``kind='table'`` rule; other integers search the sorted distinct values of ``y``
    (``searchsorted``: 2.3x NumPy's sort of both at 2^20 int64 elements); floats go through
    NumPy's own sort-based ``isin``."""
    if x.size == 0 or y.size == 0:
        return np.full(x.size, invert)
    if x.dtype == np.bool_:
        x, y = x.view(np.uint8), y.view(np.uint8)
    elif x.dtype in LOW_PRECISION_NP:  # exact in float32
        x, y = float32_keys(x), float32_keys(y)
    if x.dtype.kind not in "iu":
        return np.isin(x, y, invert=invert)
    lo, hi = y.min(), y.max()
    span = int(hi) - int(lo)
    if span <= 6 * (x.size + y.size) and span <= np.iinfo(y.dtype).max:
        return _looked_up(x, y, lo, hi, span, invert)
    keys = np.sort(y)
    if keys.size > 1:
        keys = keys[_run_starts(keys)]
    at = np.searchsorted(keys, x)
    np.minimum(at, keys.size - 1, out=at)
    return (np.not_equal if invert else np.equal)(keys[at], x)


def _looked_up(x, y, lo, hi, span, invert):
    """``isin`` through a bool table of y's range ``[lo, hi]`` (``span`` + 1 entries).
    Offsets are taken in intp with wrapping casts: their differences are exact whatever
    the values (uint64 past int64's range too)."""
    table = np.full(span + 1, invert)
    table[np.subtract(y, lo, dtype=np.intp, casting="unsafe")] = not invert
    inside = np.greater_equal(x, lo)
    inside &= np.less_equal(x, hi)
    if np.count_nonzero(inside) == x.size:  # every x in range: one lookup, no compaction
        return table[np.subtract(x, lo, dtype=np.intp, casting="unsafe")]
    out = np.full(x.size, invert)
    out[inside] = table[np.subtract(x[inside], lo, dtype=np.intp, casting="unsafe")]
    return out


# --- the primitives ----------------------------------------------------------------------

@reports_out_of_memory
def nonzero(self, layout):
    buf = self.buf
    # (a whole 1-D mask read as it lies: x[mask] = rows, StandardScaler's once a fit)
    x = buf if len(layout.shape) == 1 and layout.dense_size == buf.size else view(buf, layout)
    coords = _nonzero(x)
    cls = type(self)
    return tuple([new_storage(cls, c, dt.int64) for c in coords]), coords[0].size


@reports_out_of_memory
def isin(self, layout, other, other_layout, invert):
    if self.dtype.is_complex:
        raise unsupported("isin", self.dtype)
    same_dtype(self, other, "other", "isin")
    x = flat(self.buf, layout) if layout.is_contiguous else view(self.buf, layout).reshape(-1)
    y = flat(other.buf, other_layout) if other_layout.is_contiguous else view(other.buf, other_layout).reshape(-1)
    return type(self)(_isin(x, y, invert), dt.bool_)


@reports_out_of_memory
def unique(self, layout, indices, inverse, counts):
    x = flat(self.buf, layout) if layout.is_contiguous else view(self.buf, layout).reshape(-1)
    values, first, inv, sizes = _unique(x, indices, inverse, counts)
    cls, int64 = type(self), dt.int64
    return (cls(values, self.dtype), values.size, first if first is None else cls(first, int64),
            inv if inv is None else cls(inv, int64), sizes if sizes is None else cls(sizes, int64))
