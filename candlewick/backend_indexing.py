"""The backend protocol's primitives that move elements by position (``candlewick.backend``
assembles them into ``BackendStorage``): the copy to the host, the writes into a storage
(assign, fill, scatter), the reads by index (concat, compress, nonzero, take) and the
orders and sets (sort, searchsorted, isin, unique). Each method's docstring is its contract.
"""

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:  # (backend imports this module: the storage type only for checkers)
    from .backend import BackendStorage

__all__ = ["TransferStorage", "WriteStorage", "IndexingStorage", "OrderingStorage"]


class TransferStorage(Protocol):
    """The copy to the host."""

    def to_host(self, layout) -> Any:
        """A new NumPy array (owning, C-contiguous) holding the elements ``layout`` views.
        dtype is ``self.dtype.numpy``. Synchronizes with pending device work."""


class WriteStorage(Protocol):
    """*In-place* writes into ``self``."""

    def assign(self, dst_layout, src, src_layout) -> None:
        """*In-place*: write ``src`` viewed by ``src_layout`` into ``self`` viewed by
        ``dst_layout``. Same dtype, same shape (src may be broadcast: stride 0). ``src`` may
        be ``self`` with an overlapping layout: the result is as if src were copied first."""

    def fill(self, layout, value) -> None:
        """*In-place*: set every element ``layout`` views to the scalar ``value``."""

    def scatter(self, dst_layout, indices, idx_layout, src, src_layout, axis) -> None:
        """*In-place* put-along-axis: for every position p of ``idx_layout.shape`` (equal to
        ``src_layout.shape``, same ndim as dst), ``dst[p with p[axis] = idx[p]] = src[p]``.
        ``indices`` is an int64 storage; values in ``[-n, n)`` with n = dst shape[axis],
        negatives counting from the end; others raise IndexError. When several positions
        write one element, which write wins is unspecified."""

    def scatter_add(self, dst_layout, indices, idx_layout, src, src_layout, axis) -> None:
        """*In-place*: as ``scatter`` but adds, and every contribution is accumulated."""

    def index_add(self, dst_layout, indices, idx_layout, src, src_layout, axis) -> None:
        """*In-place*: ``indices`` is 1-D (int64, length k, same rules as scatter);
        src shape is dst shape with ``shape[axis] = k``; for each j,
        ``dst[..., idx[j], ...] += src[..., j, ...]`` along ``axis``; duplicates accumulate."""


class IndexingStorage(Protocol):
    """Reads by index: joins, compaction, takes."""

    def concat(self, layout, rest, axis) -> "BackendStorage":
        """``self[layout]`` followed by each ``(storage, layout)`` of the sequence ``rest``
        along ``axis``: one contiguous result. Every operand has ``self``'s dtype and ndim
        and the same sizes on every other axis."""

    def compress(self, layout, mask, mask_layout) -> "tuple[BackendStorage, int]":
        """The rows (entries of the leading axis) of ``self[layout]`` where the 1-D bool
        ``mask`` (length ``layout.shape[0]``) is True, in order: (a contiguous storage of
        shape ``(count,) + layout.shape[1:]``, ``count``). Reads the count on the host."""

    def nonzero(self, layout) -> "tuple[tuple[BackendStorage, ...], int]":
        """Where ``self[layout]`` (at least 1-D) is non-zero (``!= 0``: NaN counts, and a
        complex element with either part non-zero), in C order: (a tuple of ``ndim`` int64
        storages of ``count`` elements, the k-th holding the coordinates along axis k,
        ``count``). Reads the count on the host."""

    def index_select(self, layout, indices, idx_layout, axis) -> "BackendStorage":
        """Take along one axis: output shape ``shape[:axis] + idx_shape + shape[axis+1:]``.
        ``indices``: int64 storage, values in ``[-n, n)`` (negatives from the end); others
        raise IndexError."""

    def gather(self, layout, indices, idx_layout, axis) -> "BackendStorage":
        """Take-along-axis: idx has the input's ndim and equal sizes on every other axis;
        ``out[p] = x[p with p[axis] = idx[p]]``; output shape is the index shape.
        ``indices``: int64, same rules as ``index_select`` (``[-n, n)``, others raise IndexError)."""


class OrderingStorage(Protocol):
    """Orders and sets: sorts, searches, membership, distinct values."""

    def sort(self, layout, axis, descending, stable) -> "tuple[BackendStorage, BackendStorage]":
        """Sort along ``axis``: (values, int64 indices). NaN orders above +inf (last when
        ascending, first when descending); ``stable`` keeps equal elements in their
        original order in both directions. Bool (False before True), integer and real
        floating dtypes: the front end hands bool over as it is; complex is not asked."""

    def sort_values(self, layout, axis, descending, stable) -> "BackendStorage":
        """The values of ``sort`` alone (same order rules). Without ``stable``, equal
        elements may come out in any order (e.g. -0.0 and 0.0, or NaNs of different
        payloads): a backend may use its fastest unstable sort."""

    def argsort(self, layout, axis, descending, stable) -> "BackendStorage":
        """The int64 indices of ``sort`` alone (same order rules). Without ``stable``, the
        indices of equal elements may come out in any order."""

    def searchsorted(self, layout, values, values_layout, right) -> "BackendStorage":
        """``self`` viewed 1-D and sorted ascending (NaN last); int64 insertion indices for
        each of ``values`` (same dtype, any shape): the first index i such that
        ``x[i] >= v`` (``> v`` when ``right``)."""

    def isin(self, layout, other, other_layout, invert) -> "BackendStorage":
        """A bool storage of ``layout.shape``: True where the element of ``self[layout]``
        equals (``==``) some element of ``other[other_layout]`` (same dtype, any shape; either
        may be empty), negated with ``invert``. NaN is in nothing; -0.0 and 0.0 are equal.
        Bool, integer and real floating dtypes (complex is not asked)."""

    def unique(self, layout, indices, inverse, counts) -> "tuple":
        """The distinct elements of ``self[layout]`` read in C order (n >= 1 of them: the
        front end never asks of an empty array), equal meaning ``==``: every NaN is distinct,
        -0.0 and 0.0 are one. Returns ``(values, count, first, inverse, counts)``:
        ``values`` the ``count`` distinct elements ascending (NaN last; bool False first;
        complex by real part, then imaginary part, NaN last in each), ``count`` read on the
        host; then three int64 storages, each None unless its flag is True: ``first``
        (``count``) the C-order position of each value's first occurrence, ``inverse`` (n)
        each element's index in ``values``, ``counts`` (``count``) each value's number of
        elements. Each value is one of its elements (with ``indices``: the first)."""
