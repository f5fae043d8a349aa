"""Point-to-point transfers of ``candlewick.distributed`` (``send_recv``; ``send`` and
``recv`` are its one-operation cases): the operations' checks, their agreement with the
peers, and the transfer.

In one process every send's receive is at hand: each (source, destination) pair's sends
and receives are matched in order, as RCCL matches them. Across processes each operation
first swaps a description with its peer (the send's array against the receive's
expectation, ``distributed_checks.record``), then both ends compare the same two records,
so a mismatch raises at both ends instead of leaving one waiting.
"""

from __future__ import annotations

from collections.abc import Sequence

from . import distributed_checks as _checks
from .array import Array, wrap
from .dtypes import as_dtype
from .errors import (ArgumentTypeError, ArgumentValueError, DeviceMismatchError, DTypeError, ShapeError,
                     short_repr)
from .layout import Layout
from .shapes import shape_size

_FNAME = "send_recv"


def _rank(group, value, what):
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < group.size:
        raise ArgumentValueError(f"{_FNAME}: {what} must be a rank of the group (0..{group.size - 1}), got "
                                 f"{short_repr(value)}")
    return value


def _member(group, device, what):
    for i, dev in enumerate(group.devices):
        if dev.same_device(device):
            return i
    raise DeviceMismatchError(f"{_FNAME}: {what} is on {device.name}, which is no device of the group in this "
                              f"process ({', '.join(d.name for d in group.devices)})")


def _shape(value, k):
    if isinstance(value, int) and not isinstance(value, bool):
        value = (value,)
    if not isinstance(value, Sequence) or not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0
                                                  for n in value):
        raise ArgumentTypeError(f"{_FNAME}: the shape of receive {k} must be a sequence of non-negative ints, "
                                f"got {short_repr(value)}")
    return tuple(value)


def _operations(group, sends, recvs):
    """([(member, array, destination)], [(member, shape, dtype, source)], error): the
    operations, checked. Errors that leave the peer known (an array on a device outside
    the group) are returned, not raised, in a group of processes: that rank still swaps
    records with its peers (flagged as failed), so that they raise too."""
    out_sends, out_recvs, error = [], [], None
    for k, item in enumerate(sends):
        if not (isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], Array)):
            raise ArgumentTypeError(f"{_FNAME}: send {k} must be an (array, destination rank) pair, got "
                                    f"{short_repr(item)}")
        x, dst = item
        member, bad = _checks.checked(_member, group, x.device, f"the array of send {k}")
        if bad is not None:
            if not group.spans_processes:
                raise bad
            member, error = 0, error or bad
        if _rank(group, dst, f"the destination of send {k}") == group.ranks[member]:
            raise ArgumentValueError(f"{_FNAME}: send {k} is addressed to its own rank {dst}")
        out_sends.append((member, x, dst))
    for k, item in enumerate(recvs):
        if not (isinstance(item, tuple) and len(item) == 4):
            raise ArgumentTypeError(f"{_FNAME}: receive {k} must be a (shape, dtype, source rank, receiving rank) "
                                    f"tuple, got {short_repr(item)}")
        shape, dtype, src, rank = item
        _rank(group, rank, f"the receiving rank of receive {k}")
        if rank not in group.ranks:
            raise ArgumentValueError(f"{_FNAME}: receive {k}'s rank {rank} is not driven by this process "
                                     f"(ranks {list(group.ranks)})")
        if _rank(group, src, f"the source of receive {k}") == rank:
            raise ArgumentValueError(f"{_FNAME}: receive {k} comes from its own rank {src}")
        out_recvs.append((group.ranks.index(rank), _shape(shape, k), as_dtype(dtype, fname=_FNAME), src))
    return out_sends, out_recvs, error


def _match_locally(group, sends, recvs):
    """One process drives both ends: every send meets, in order, a receive of its shape and dtype."""
    pending = {}
    for member, x, dst in sends:
        pending.setdefault((group.ranks[member], dst), []).append((x.shape, x.dtype))
    for member, shape, dtype, src in recvs:
        queue = pending.get((src, group.ranks[member]))
        if not queue:
            raise ArgumentValueError(f"{_FNAME}: a receive on rank {group.ranks[member]} from rank {src} has no "
                                     f"send from rank {src} to meet it")
        sent_shape, sent_dtype = queue.pop(0)
        if sent_dtype != dtype:
            raise DTypeError(f"{_FNAME}: rank {src} sends {sent_dtype} to rank {group.ranks[member]}, which "
                             f"expects {dtype}")
        if sent_shape != shape:
            raise ShapeError(f"{_FNAME}: rank {src} sends shape {sent_shape} to rank {group.ranks[member]}, "
                             f"which expects {shape}")
    unmet = [pair for pair, queue in pending.items() if queue]
    if unmet:
        raise ArgumentValueError(f"{_FNAME}: sends (source, destination) {unmet} have no receive to meet them")


def _agree_with_peers(group, sends, recvs, error):
    """Swap each operation's record with its peer, then compare them at both ends (this
    rank's own ``error`` is raised after the swap, a peer's flag as a failure here)."""
    mine = [_checks.record(error is not None, x.dtype, x.shape) for _, x, _ in sends]
    mine += [_checks.record(False, dtype, shape) for _, shape, dtype, _ in recvs]
    peers = [dst for _, _, dst in sends] + [src for *_, src in recvs]
    members = [m for m, _, _ in sends] + [m for m, *_ in recvs]
    device_of = group.devices
    records = [device_of[m].storage_from_host(r) for m, r in zip(members, mine)]
    theirs = group._comm.send_recv([(m, rec, _checks.RECORD, p) for m, rec, p in zip(members, records, peers)],
                                   [(m, as_dtype("int64"), _checks.RECORD, p) for m, p in zip(members, peers)])
    contiguous = Layout.contiguous((_checks.RECORD,))
    theirs = [storage.to_host(contiguous) for storage in theirs]
    if error is not None:
        raise error
    failed = sorted({p for p, their in zip(peers, theirs) if their[0]})
    if failed:
        raise ArgumentValueError(f"{_FNAME}: peer rank(s) {failed} gave bad input (each raised its own error "
                                 f"there); nothing was sent")
    for k, (ours, their, peer) in enumerate(zip(mine, theirs, peers)):
        sending = k < len(sends)
        sent, expected = (ours, their) if sending else (their, ours)
        (sent_dtype, sent_shape), (want_dtype, want_shape) = _checks.describe(sent), _checks.describe(expected)
        src, dst = (group.ranks[members[k]], peer) if sending else (peer, group.ranks[members[k]])
        if sent_dtype != want_dtype:
            raise DTypeError(f"{_FNAME}: rank {src} sends {sent_dtype} to rank {dst}, which expects {want_dtype}")
        if sent_shape != want_shape:
            raise ShapeError(f"{_FNAME}: rank {src} sends shape {sent_shape} to rank {dst}, which expects "
                             f"{want_shape}")


def send_recv(group, sends, recvs):
    """The received arrays, in the order of ``recvs`` (see ``distributed.send_recv``)."""
    for name, value in (("sends", sends), ("recvs", recvs)):
        if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
            raise ArgumentTypeError(f"{_FNAME}: {name} must be a sequence, got {short_repr(value)}")
    sends, recvs, error = _operations(group, sends, recvs)
    if group.checks_peers:
        _agree_with_peers(group, sends, recvs, error)
    elif error is not None:
        raise error
    elif not group.spans_processes:
        _match_locally(group, sends, recvs)
    storages = group._comm.send_recv(
        [(m, _checks.contiguous_storage(x), shape_size(x.shape), dst) for m, x, dst in sends],
        [(m, dtype, shape_size(shape), src) for m, shape, dtype, src in recvs])
    return [wrap(s, shape, dtype, group.devices[m]) for s, (m, shape, dtype, _) in zip(storages, recvs)]

