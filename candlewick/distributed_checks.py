"""The checks ``candlewick.distributed`` makes before a collective is queued, so that bad
input raises a clear error on every rank instead of hanging one of them.

Inside one process every operand is at hand and is checked directly. Across processes a
rank cannot see the others' arrays, so each rank first gathers every rank's description
of its call (a small int64 record: whether its own checks failed, the dtype, the shape,
the root or reduction) through the group itself, and every rank compares the same table:
all raise, or none does. A point-to-point pair does the same between its two ranks.
"""

from __future__ import annotations

import numpy as np

from . import dtypes as _dt
from .errors import ArgumentValueError, CandlewickError, DTypeError, ShapeError
from .layout import Layout

#: the longest shape a record holds
MAX_NDIM = 32
# record: [own checks failed, dtype code, extra (root, reduction), ndim, shape...]
RECORD = 4 + MAX_NDIM
_DTYPE_NAMES = sorted(d.name for d in _dt.ALL_DTYPES)
REDUCTIONS = ("sum", "prod", "max", "min", "avg")


def record(failed, dtype=None, shape=(), extra=0):
    """The int64 record describing one rank's side of a call."""
    out = np.zeros(RECORD, np.int64)
    out[0] = 1 if failed else 0
    if not failed:
        out[1] = _DTYPE_NAMES.index(dtype.name)
        out[2] = extra
        out[3] = len(shape)
        out[4:4 + len(shape)] = shape
    return out


def describe(row):
    """(dtype name, shape) of a record."""
    ndim = int(row[3])
    return _DTYPE_NAMES[int(row[1])], tuple(int(n) for n in row[4:4 + ndim])


def contiguous_storage(x):
    """x's storage if it holds x's elements contiguously from its start, else a contiguous copy."""
    layout = x._layout
    if layout.is_contiguous and layout.offset == 0:
        return x._storage
    return x._storage.copy(layout)


def exchange_records(comm, mine):
    """Every rank's record (rows in rank order), gathered through the group ``comm``."""
    device = comm.devices[0]
    (gathered,) = comm.all_gather([device.storage_from_host(mine)], RECORD)
    return gathered.to_host(Layout.contiguous((comm.size * RECORD,))).reshape(comm.size, RECORD)


def agree(fname, table, own_error, what):
    """Raise on every rank alike when the ranks' records in ``table`` disagree; this rank's
    own error first. ``what`` names the extra field (e.g. "root")."""
    if own_error is not None:
        raise own_error
    failed = [r for r in range(len(table)) if table[r, 0]]
    if failed:
        raise ArgumentValueError(f"{fname}: rank(s) {failed} of the group gave bad input (each raised its own "
                                 f"error there); nothing was sent")
    described = [describe(row) for row in table]
    dtypes = {d for d, _ in described}
    if len(dtypes) > 1:
        raise DTypeError(f"{fname}: the ranks' arrays differ in dtype: "
                         + ", ".join(f"rank {r} {d}" for r, (d, _) in enumerate(described)))
    shapes = {s for _, s in described}
    if len(shapes) > 1:
        raise ShapeError(f"{fname}: the ranks' arrays differ in shape: "
                         + ", ".join(f"rank {r} {s}" for r, (_, s) in enumerate(described)))
    extras = {int(row[2]) for row in table}
    if len(extras) > 1:
        raise ArgumentValueError(f"{fname}: the ranks disagree on {what}: "
                                 + ", ".join(f"rank {r} {int(row[2])}" for r, row in enumerate(table)))


def checked(fn, *args):
    """(result, None) of ``fn(*args)``, or (None, the candlewick error it raised)."""
    try:
        return fn(*args), None
    except CandlewickError as exc:
        return None, exc
