"""The checks ``candlewick.distributed`` makes before a collective is queued, so that bad
input raises a clear error on every rank instead of hanging one of them.

Inside one process every operand is at hand and is checked directly. Across processes a
rank cannot see the others' arrays. Each rank describes its call by a small int64 record
(whether its own checks failed, the dtype, the shape, the root or reduction) and, with
the collective's name, by a signature: a 62-bit hash of both.

The rule (``agree_by_rounds``, where the backend's communicator offers signature rounds):
every checked call first queues a round, a tiny all-reduce (max) of the words
``(signature, -signature, queued without waiting, own checks failed)``; the ranks agree
when the reduced words give max == min of the signatures and no failure.

* A signature this group has not agreed on yet: the call waits for its round (one host
  round trip). On agreement the signature joins the group's cache. On disagreement,
  where every rank waited (no rank's signature was cached), the ranks gather their
  records (``exchange_records``) and all raise the same detailed error, and the group
  stays usable; where a rank had queued its call without waiting, that call may never
  finish, so this rank aborts the group and raises at once.
* A signature already agreed: the call queues its round and itself without waiting (no
  host round trip). The round is read at the next synchronization of the device; there,
  a disagreement aborts the group and raises, naming the call (the collective and its
  number on the group), on every rank whose call did not wait.

So a mismatch raises on every rank and never hangs, matching calls cost one tiny
collective on the stream, and only the first call of each signature waits. A group of
processes whose backend offers no signature rounds gathers every rank's record on every
call (``exchange_records``, a host read). A point-to-point pair swaps its two records.
"""

from __future__ import annotations

import hashlib

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


#: agreed signatures a group keeps (the oldest go first)
CACHED_SIGNATURES = 1024


def signature(fname, row):
    """A 62-bit hash (>= 1) of a collective's name and its record (0 for a failed one)."""
    if row[0]:
        return 0
    digest = hashlib.blake2b(fname.encode() + row.tobytes(), digest_size=8).digest()
    return (int.from_bytes(digest, "little") >> 2) or 1


def agree_by_rounds(group, fname, call_key, mine, own_error, what):
    """The agreement of one call of a group of processes through signature rounds (the
    rule above). ``call_key``: a hashable of the call's collective, dtype, shape and extra
    (None when its own checks failed); ``mine()`` makes its record. ``group`` keeps
    ``agreed`` (call key -> the words of its rounds, insertion-ordered) and ``calls``."""
    comm = group._comm
    group.calls += 1
    call = group.calls
    words = group.agreed.get(call_key) if own_error is None else None
    if words is not None:
        comm.signature_round(words, check=lambda got: _late_check(comm, fname, call, got))
        return
    row = mine()
    sig = signature(fname, row)
    got = comm.signature_round(np.array([sig, -sig, 0, 1 if own_error is not None else 0], np.int64))
    if int(got[0]) == -int(got[1]) and not got[3]:
        if len(group.agreed) >= CACHED_SIGNATURES:
            group.agreed.pop(next(iter(group.agreed)))
        group.agreed[call_key] = np.array([sig, -sig, 1, 0], np.int64)
        return
    if got[2]:
        comm.abort()
        if own_error is not None:
            raise own_error
        raise ArgumentValueError(f"{fname}: the ranks' calls differ (the collective, shape, dtype, reduction or "
                                 f"root), and a rank had queued its call already: the group is aborted on every rank "
                                 f"(make a new one)")
    agree(fname, exchange_records(comm, row), own_error, what)
    raise ArgumentValueError(f"{fname}: the ranks called different collectives at the same point (call {call} on "
                             f"this group); nothing was sent")


def _late_check(comm, fname, call, got):
    """A round read at the next synchronization: abort and raise where the ranks differed."""
    if int(got[0]) == -int(got[1]) and not got[3]:
        return
    comm.abort()
    raise ArgumentValueError(f"{fname} (call {call} on this group): the ranks' calls differed (the collective, "
                             f"shape, dtype, reduction or root); found at this synchronization, since the call "
                             f"matched one the ranks had agreed on before: the group is aborted on every rank "
                             f"(make a new one)")


def checked(fn, *args):
    """(result, None) of ``fn(*args)``, or (None, the candlewick error it raised)."""
    try:
        return fn(*args), None
    except CandlewickError as exc:
        return None, exc
