"""Set functions of the Array API: unique_all, unique_counts, unique_inverse, unique_values.

Each is one ``unique`` primitive call over x's elements in C order, asking for the results
it returns: the values ascending (NaNs last, each distinct, as the standard asks), the
first occurrences, the inverse indices (reshaped to x's shape here) and the counts; the
number of unique values comes back read on the host.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from . import dtypes as _dt
from ._core import ArrayBase, require_array
from .array import wrap
from .docstrings import shared_doc

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


def _unique(x, indices, inverse, counts, fname):
    """[values, first indices, inverse indices, counts] of x as arrays (None where not asked)."""
    if not isinstance(x, ArrayBase):
        require_array(x, fname)
    device, layout = x._device, x._layout
    if not layout.size:  # nothing to ask the backend: empty results (inverse of x's shape)
        def empty(shape, dtype=_int64):
            return wrap(device.empty(shape, dtype), shape, dtype, device)
        return [empty((0,), x._dtype), empty((0,)) if indices else None,
                empty(layout.shape) if inverse else None, empty((0,)) if counts else None]
    values, count, first, inv, sizes = x._storage.unique(layout, indices, inverse, counts)
    shape = (count,)
    return [wrap(values, shape, x._dtype, device),
            None if first is None else wrap(first, shape, _int64, device),
            None if inv is None else wrap(inv, layout.shape, _int64, device),
            None if sizes is None else wrap(sizes, shape, _int64, device)]


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
    return _unique(x, False, False, False, "unique_values")[0]


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
    values, _, _, counts = _unique(x, False, False, True, "unique_counts")
    return UniqueCountsResult(values, counts)


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
    values, _, inverse, _ = _unique(x, False, True, False, "unique_inverse")
    return UniqueInverseResult(values, inverse)


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
    return UniqueAllResult(*_unique(x, True, True, True, "unique_all"))


__all__ = ["unique_all", "unique_counts", "unique_inverse", "unique_values"]
