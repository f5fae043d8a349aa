"""Embedding lookup: rows of a table selected by integer ids (the index_select primitive)."""

from __future__ import annotations

from .. import dtypes as _dt
from .._core import require_array
from ..array import Array, wrap
from ..docstrings import shared_doc
from ..errors import DeviceMismatchError, DTypeError, ShapeError
from ..shapes import MAX_NDIM


@shared_doc()
def embedding(ids: Array, table: Array, /) -> Array:
    """Rows of ``table`` (V, D) selected by integer ``ids`` of any shape -> ids.shape + (D,).

    Parameters
    ----------
    ids : Array
        Integer row indices, any shape.
    table : Array
        The rows ``(V, D)``.

    Returns
    -------
    Array
        ``ids.shape + (D,)``.

    Raises
    ------
    {raises_operand_not_array}
    DTypeError
        If ids is not integer.
    ShapeError
        If table is not 2-D.
    IndexOutOfBoundsError
        If an id is outside ``[0, V)``.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.nn.embedding(cw.asarray([1, 0]), cw.asarray([[1.0, 2.0], [3.0, 4.0]])).tolist()
    [[3.0, 4.0], [1.0, 2.0]]
    """
    require_array(ids, "embedding", "ids")
    require_array(table, "embedding", "table")
    if not ids._dtype.is_integer:
        raise DTypeError(f"embedding: ids must be integers, got {ids._dtype.name}")
    if table.ndim != 2:
        raise ShapeError(f"embedding: table must be 2-D (vocabulary, dim), got shape {table.shape}")
    if ids.ndim >= MAX_NDIM:  # the result has one more
        raise ShapeError(f"embedding: ids may have at most {MAX_NDIM - 1} dimensions (the result adds one, and an "
                         f"array has at most {MAX_NDIM}), got {ids.ndim}")
    if ids._device is not table._device:
        raise DeviceMismatchError("embedding: ids and table are on different devices")
    idx = ids if ids._dtype is _dt.int64 else ids.astype(_dt.int64)
    st = table._storage.index_select(table._layout, idx._storage, idx._layout, 0)
    return wrap(st, ids.shape + (table.shape[1],), table._dtype, table._device)
