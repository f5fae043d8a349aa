"""Set functions of the Array API: unique_all, unique_counts, unique_inverse, unique_values.

Built from primitives, no host compute: the flattened input is sorted (stable, so
each run of equal values keeps its first occurrence first); an element starts a new
group where it differs from its predecessor (NaN != NaN, so every NaN is its own
group, as the standard asks); one ``compress`` over that mask keeps the first element of
each group (the unique values; its count, read on the host, is their number) and, over the
permutation and over the positions, the first indices and the group starts (counts are
their gaps); an inclusive scan of the mask numbers the groups, and a scatter gives each
input element its group (inverse indices).
Results come out in ascending order (NaNs last), which the standard allows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from . import dtypes as _dt
from ._core import contiguous_layout, require_array
from .array import wrap
from .docstrings import shared_doc
from .layout import Layout
from .opdefs import BinaryOp, ScanOp, UnaryOp
from .compaction import arange_int64, flatten, run_starts
from .sorting import sort_storages, sorted_values

if TYPE_CHECKING:
    from .array import Array

_int64 = _dt.int64


class UniqueAllResult(NamedTuple):
    values: Array
    indices: Array
    inverse_indices: Array
    counts: Array


class UniqueCountsResult(NamedTuple):
    values: Array
    counts: Array


class UniqueInverseResult(NamedTuple):
    values: Array
    inverse_indices: Array


def _sorted_flat(x, with_order=True, stable=True):
    """(sorted values storage, int64 permutation storage) of x flattened, stable unless
    ``stable`` is False (``unique_inverse``: any order among equal elements gives the
    same group of each element, as NumPy's own unique sorts with quicksort for it).
    Complex values sort lexicographically by (real, imag): a stable sort by the
    imaginary parts, then a stable sort of the real parts in that order. Without
    ``with_order``, integers and bools (whose equal elements are indistinguishable) take
    the backend's fastest sort and no permutation (None)."""
    flat = flatten(x)
    n = flat._layout.size
    line = contiguous_layout((n,))
    if not with_order and (x._dtype.is_integer or x._dtype.is_bool):
        return sorted_values(flat, 0, False, False, "unique"), None
    if not x._dtype.is_complex:
        return sort_storages(flat, 0, False, stable, "unique")
    real_dtype = _dt.real_dtype_of(x._dtype)
    imag = wrap(flat._storage.unary(UnaryOp.IMAG, flat._layout), (n,), real_dtype, x._device)
    by_imag = imag._storage.argsort(imag._layout, 0, False, True)  # (orders only: no values gathered)
    real = flat._storage.unary(UnaryOp.REAL, flat._layout)
    real_in_imag_order = real.index_select(line, by_imag, line, 0)
    by_real = real_in_imag_order.argsort(line, 0, False, True)
    perm = by_imag.index_select(line, by_real, line, 0)
    values = flat._storage.index_select(flat._layout, perm, line, 0)
    return values, perm


class _Groups:
    """The run structure of x's sorted elements (see the module docstring)."""

    def __init__(self, x, with_order=True, stable=True):
        require_array(x, "unique")
        self.x = x
        self.device = device = x._device
        self.n = n = x._layout.size
        self.line = line = contiguous_layout((n,))
        self.values, self.perm = _sorted_flat(x, with_order, stable) if n else (None, None)
        # n + 1 flags: element i starts a group; the last one (True) closes the last group
        self.starts = starts = run_starts(self.values, n, device, closed=True)
        # the first element of each group: one compress, whose count is the number of groups
        self.unique, self.count = self.values.compress(line, starts, line) if n else (None, 0)

    def unique_values(self):
        dtype = self.x._dtype
        if not self.n:
            return wrap(self.device.empty((0,), dtype), (0,), dtype, self.device)
        return wrap(self.unique, (self.count,), dtype, self.device)

    def first_indices(self):
        if not self.n:
            return wrap(self.device.empty((0,), _int64), (0,), _int64, self.device)
        storage, count = self.perm.compress(self.line, self.starts, self.line)
        return wrap(storage, (count,), _int64, self.device)

    def group_ids(self):
        """Each sorted element's group (0-based): the inclusive scan of starts, minus one."""
        line = self.line
        scan = self.starts.astype(line, _int64).scan(ScanOp.SUM, line, 0)
        return scan.binary_scalar(BinaryOp.SUBTRACT, line, 1, False)

    def inverse(self):
        shape = self.x._layout.shape
        out = self.device.empty((self.n,), _int64)
        if self.n:
            line = self.line
            out.scatter(line, self.perm, line, self.group_ids(), line, 0)
        return wrap(out, shape, _int64, self.device)

    def counts(self):
        """Each group's length: the gap between consecutive group starts (their sorted
        positions), the last one's up to n."""
        count, device = self.count, self.device
        if not self.n:
            return wrap(device.zeros((0,), _int64), (0,), _int64, device)
        line = contiguous_layout((self.n + 1,))  # the group starts, then n
        bounds, _ = arange_int64(device, self.n + 1).compress(line, self.starts, line)
        out = bounds.binary(BinaryOp.SUBTRACT, Layout((count,), (1,), 1, True), bounds,
                            contiguous_layout((count,)))
        return wrap(out, (count,), _int64, device)


#: the Parameters section the unique_* functions share (filled in by ``docstrings.shared_doc``)
_DOCS = {"unique_params": "Parameters\n----------\nx : Array\n    Input array (flattened first)."}


@shared_doc(_DOCS)
def unique_values(x: Array, /) -> Array:
    """The unique elements of x (flattened), ascending; every NaN is distinct.

    {unique_params}

    Returns
    -------
    Array
        The unique values, 1-D, ascending.

    {raises_x}

    Examples
    --------
    >>> import candlewick as cw
    >>> x = cw.asarray([3, 1, 3, 2])
    >>> cw.unique_values(x).tolist()
    [1, 2, 3]
    """
    return _Groups(x, with_order=False).unique_values()


@shared_doc(_DOCS)
def unique_counts(x: Array, /) -> UniqueCountsResult:
    """(values, counts): the unique elements and how often each occurs.

    {unique_params}

    Returns
    -------
    UniqueCountsResult
        ``values`` (1-D, ascending) and ``counts`` (int64).

    {raises_x}

    Examples
    --------
    >>> import candlewick as cw
    >>> x = cw.asarray([3, 1, 3, 2])
    >>> cw.unique_counts(x).counts.tolist()
    [1, 1, 2]
    """
    g = _Groups(x, with_order=False)
    return UniqueCountsResult(g.unique_values(), g.counts())


@shared_doc(_DOCS)
def unique_inverse(x: Array, /) -> UniqueInverseResult:
    """(values, inverse_indices): ``values[inverse_indices]`` rebuilds x (x's shape).

    {unique_params}

    Returns
    -------
    UniqueInverseResult
        ``values`` and ``inverse_indices`` (int64, x's shape).

    {raises_x}

    Examples
    --------
    >>> import candlewick as cw
    >>> x = cw.asarray([3, 1, 3, 2])
    >>> cw.unique_inverse(x).inverse_indices.tolist()
    [2, 0, 2, 1]
    """
    g = _Groups(x, stable=False)  # no first indices asked: any order among equals will do
    return UniqueInverseResult(g.unique_values(), g.inverse())


@shared_doc(_DOCS)
def unique_all(x: Array, /) -> UniqueAllResult:
    """(values, indices of first occurrences, inverse_indices, counts).

    {unique_params}

    Returns
    -------
    UniqueAllResult
        ``values``, ``indices`` (first occurrence in the flattened x), ``inverse_indices``, ``counts``.

    {raises_x}

    Examples
    --------
    >>> import candlewick as cw
    >>> x = cw.asarray([3, 1, 3, 2])
    >>> cw.unique_all(x).indices.tolist()
    [1, 3, 0]
    """
    g = _Groups(x)
    return UniqueAllResult(g.unique_values(), g.first_indices(), g.inverse(), g.counts())


__all__ = ["unique_all", "unique_counts", "unique_inverse", "unique_values"]
