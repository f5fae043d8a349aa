"""[families] unique and nonzero, composed of this backend's own primitives (called as the
storage's methods, each a kernel launch or two): no kernel of their own.

``unique``: the flattened elements sorted (stable: each run of equal elements keeps its
first occurrence first; complex by a stable sort of the imaginary parts, then of the real
parts in that order; bool as it is, the sort's keys putting False first), a mask of where
runs start (``!=``: every NaN starts its own run: the n - 1 comparisons, the two ends
added by ``joins.kept_positions``), then the run starts' positions
(``joins.kept_positions``: two launches over the mask, one host read of their count, and
with inverse each sorted element's run), the sorted values there and, as asked, the sort
order there (first occurrences) gathered, the counts the gaps between the positions, a
scatter handing each element its run (inverse). The indices are
computed here, in range: no index check (no flag for the next host read to fetch).
``nonzero``: the mask's kept positions (``joins.kept_positions``), then each axis's
coordinate by a floor division and a remainder. ``isin``: x2
sorted (cut to its distinct values when long: a million elements of six values search
six), each x1 element's insertion point among them by ``searchsorted``, and the element
there compared with it (``==``: NaN is in nothing, -0.0 is 0.0); bool as it is (the sort's
and searchsorted's keys order False before True).
"""

from candlewick import dtypes as dt
from candlewick.layout import Layout
from candlewick.opdefs import BinaryOp, CompareOp, UnaryOp

from . import creation, indexing, joins
from . import sort as ordering

#: from this many elements of x2, isin searches its distinct values only
DISTINCT_MIN = 4096


def _flat(x, layout):
    """(storage, 1-D layout) of ``x[layout]``'s elements in C order (a copy if need be)."""
    n = layout.size
    line = layout.reshape((n,))
    if line is None:
        return x.copy(layout), Layout.contiguous((n,))
    return x, line


def _sorted(x, line, n, stable, with_order):
    """(sorted values, their int64 order or None when not ``with_order``) of the 1-D view."""
    c = Layout.contiguous((n,))
    if x.dtype.is_complex:
        by_imag = x.unary(UnaryOp.IMAG, line).argsort(c, 0, False, True)
        real = indexing.select_in_range(x.unary(UnaryOp.REAL, line), c, by_imag, c, 0)
        order = indexing.select_in_range(by_imag, c, real.argsort(c, 0, False, True), c, 0)
        return indexing.select_in_range(x, line, order, c, 0), order
    # label data (a few small integers) sorts in the passes of the digits that differ: a read
    # of the digit totals before the passes, where unique reads a count right after anyway
    return ordering.sort(x, line, 0, False, stable, indices_wanted=with_order, skip_constant=True)


def _run_starts(values, n):
    """n bools over the n sorted ``values``: True where element i starts a run of equal
    elements (``!=`` its predecessor: every NaN starts its own)."""
    starts = creation.full(values.device, (n,), dt.bool_, True)
    if n > 1:
        later, earlier = Layout((n - 1,), (1,), 1, True), Layout.contiguous((n - 1,))
        starts.assign(later, values.compare(CompareOp.NOT_EQUAL, later, values, earlier), earlier)
    return starts


def unique(x, layout, indices, inverse, counts):
    """``BackendStorage.unique`` (see the module docstring)."""
    device = x.device
    n = layout.size
    if n == 0:
        empty = device.storage_type.empty
        return (empty(device, x.dtype, 0), 0, empty(device, dt.int64, 0) if indices else None,
                empty(device, dt.int64, 0) if inverse else None, empty(device, dt.int64, 0) if counts else None)
    x, line = _flat(x, layout)
    values, order = _sorted(x, line, n, indices, indices or inverse)
    # where runs start: element 0, each element != its predecessor (every NaN starts its
    # own run), and n, which closes the last run; kept_positions adds the two ends to
    # the n - 1 comparisons (one launch: no full mask filled and copied into)
    neighbours = Layout.contiguous((n - 1,))
    later = Layout((n - 1,), (1,), 1, True)
    differ = values.compare(CompareOp.NOT_EQUAL, later, values, neighbours) if n > 1 else None
    kept = joins.kept_positions(differ, neighbours, inverse, ends=True, device=device)
    return _unique_at_starts(values, order, n, kept, indices, counts)


def _unique_at_starts(values, order, n, kept, indices, counts):
    """unique's results from ``joins.kept_positions`` over the n + 1 flags (the run
    starts' positions, the last one n, which closes the last run; their count; each
    sorted element's run, for the inverse)."""
    device = values.device
    bounds, count, runs = kept[0], kept[1] - 1, kept[2]  # (n > 0: at least one run)
    starts, c = Layout.contiguous((count,)), Layout.contiguous((n,))
    unique_values = indexing.select_in_range(values, c, bounds, starts, 0)
    first = indexing.select_in_range(order, c, bounds, starts, 0) if indices else None
    inv = None
    if runs is not None:  # each element's run, sent to its place in x
        inv = device.storage_type.empty(device, dt.int64, n)
        indexing.scatter_in_range(inv, c, order, c, runs, c, 0)
    sizes = None
    if counts:  # each count is the gap to the next start
        sizes = bounds.binary(BinaryOp.SUBTRACT, Layout((count,), (1,), 1, True), bounds, starts)
    return unique_values, count, first, inv, sizes


def nonzero(x, layout):
    """``BackendStorage.nonzero`` (see the module docstring)."""
    device = x.device
    shape = tuple(layout.shape)
    n = layout.size
    if n == 0:
        return tuple(device.storage_type.empty(device, dt.int64, 0) for _ in shape), 0
    if x.dtype.is_bool:
        mask, mask_layout = x, layout
    else:  # astype's bool is exactly != 0 (NaN, and complex with either part non-zero, count)
        mask, mask_layout = x.astype(layout, dt.bool_), Layout.contiguous(shape)
    mask, line = _flat(mask, mask_layout)
    flat, count, _ = joins.kept_positions(mask, line)
    coords, stride, out = Layout.contiguous((count,)), n, []
    for i, size in enumerate(shape):
        stride = stride // size if size else 0
        coord = flat
        if stride != 1:
            coord = coord.binary_scalar(BinaryOp.FLOOR_DIVIDE, coords, stride, False)
        if i:
            coord = coord.binary_scalar(BinaryOp.REMAINDER, coords, size, False)
        if coord is flat and flat.size != count:  # the positions' storage holds the mask's length
            coord = flat.copy(coords)
        out.append(coord)
    return tuple(out), count


def isin(x, layout, other, other_layout, invert):
    """``BackendStorage.isin`` (see the module docstring)."""
    device = x.device
    shape = tuple(layout.shape)
    m, n = layout.size, other_layout.size
    if m == 0 or n == 0:
        return creation.full(device, shape, dt.bool_, invert)
    needles, line_m = _flat(x, layout)
    keys, line_n = _flat(other, other_layout)
    keys, line_n = keys.sort_values(line_n, 0, False, False), Layout.contiguous((n,))
    if n >= DISTINCT_MIN:
        starts = _run_starts(keys, n)
        keys, n = keys.compress(line_n, starts, line_n)
        line_n = Layout.contiguous((n,))
    c = Layout.contiguous((m,))
    at = keys.searchsorted(line_n, needles, line_m, False).binary_scalar(BinaryOp.MINIMUM, c, n - 1, False)
    hit = indexing.select_in_range(keys, line_n, at, c, 0).compare(CompareOp.EQUAL, c, needles, line_m)
    return hit.unary(UnaryOp.LOGICAL_NOT, c) if invert else hit
