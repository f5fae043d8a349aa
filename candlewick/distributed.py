"""Collectives between devices: all-reduce, all-gather, reduce-scatter, broadcast and
point-to-point, over a group of devices driven by one process or over processes (one
device each), in the style of ``torch.distributed`` (docs/scaling.md).

    import candlewick.distributed as dist

    group = dist.new_group(["rocm:0", "rocm:1"])           # one process, two GPUs
    xs = [cw.ones(4, device="rocm:0"), cw.ones(4, device="rocm:1")]
    ys = dist.all_reduce(xs, group=group)                  # one result per device

    uid = dist.get_unique_id("rocm:0")                     # process 0, sent to the others
    group = dist.init_process_group(uid, world_size=2, rank=r, device=f"rocm:{r}")
    y = dist.all_reduce(x)                                 # one array per process

    cluster = dist.local_gpu_cluster()     # Dask: one worker process per GPU (dask_cluster)

Unlike torch.distributed, results are new arrays: inputs are never written. An operand
is one array where this process drives one device of the group, else a sequence of
arrays, one per device of the group in this process, in rank order. The work is queued
on the devices and the call returns without waiting for it. Bad input raises on every
rank (``distributed_checks``: before anything is queued, or, for a call like one the
ranks agreed on before, at the next synchronization, the group then aborted). What a backend does is its
optional hook ``CollectiveDevice`` (``candlewick.backend``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from . import distributed_checks as _checks
from . import distributed_p2p as _p2p
from .dask_cluster import local_gpu_cluster
from .array import Array, wrap
from .errors import (ArgumentTypeError, ArgumentValueError, DeviceMismatchError, DTypeError, ShapeError,
                     UnsupportedOperation, short_repr)
from .shapes import shape_size
from .registry import get_device

if TYPE_CHECKING:
    from ._types import DeviceLike

__all__ = ["Group", "all_gather", "all_reduce", "broadcast", "get_unique_id", "init_process_group",
           "local_gpu_cluster", "new_group", "recv", "reduce_scatter", "send", "send_recv"]

_default_group: Group | None = None


class Group:
    """Ranks that collectives run over. ``size``: ranks in all; ``devices`` and ``ranks``:
    the ones this process drives (all of them in a group from ``new_group``, one in a
    group from ``init_process_group``). Close it (or use ``with``) to release it."""

    def __init__(self, communicator: Any, spans_processes: bool, check: bool = True) -> None:
        self._comm = communicator
        self.size: int = communicator.size
        self.devices: tuple = tuple(communicator.devices)
        self.ranks: tuple = tuple(communicator.ranks)
        self.spans_processes = spans_processes
        #: whether each call first agrees with the other processes (distributed_checks)
        self.checks_peers = spans_processes and check
        #: calls the ranks agreed on, with their round's words (distributed_checks.agree_by_rounds),
        #: and the checked calls made
        self.agreed: dict = {}
        self.calls = 0

    @property
    def rank(self) -> int:
        """This process's rank (a group of processes) or its first (a group in one process)."""
        return self.ranks[0]

    @property
    def closed(self) -> bool:
        return bool(self._comm.closed)

    def close(self) -> None:
        """Wait for the queued work and release the group (the default group too)."""
        global _default_group
        self._comm.close()
        if _default_group is self:
            _default_group = None

    def __enter__(self) -> Group:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        where = "processes" if self.spans_processes else "one process"
        names = ", ".join(f"rank {r}: {d.name}" for r, d in zip(self.ranks, self.devices))
        return f"Group(size={self.size}, {where}; here {names})"


def _hook(device, name, fname):
    fn = getattr(device, name, None)
    if fn is None:
        raise UnsupportedOperation(fname, None, getattr(device, "backend", None),
                                   f"the {device.name} device has no collectives")
    return fn


def new_group(devices: Sequence[DeviceLike]) -> Group:
    """A group of ``devices`` of one backend driven by this process, rank i on devices[i].

    Raises ArgumentValueError for fewer than one or repeated devices, DeviceMismatchError
    for devices of several backends, UnsupportedOperation where the backend has no
    collectives.
    """
    if isinstance(devices, (str, bytes)) or not isinstance(devices, Sequence) or not devices:
        raise ArgumentTypeError(f"new_group: devices must be a non-empty sequence of devices, got "
                                f"{short_repr(devices)}")
    devs = [get_device(d) for d in devices]
    names = [d.name for d in devs]
    if len(set(names)) != len(names):
        raise ArgumentValueError(f"new_group: each device may appear once, got {names}")
    if len({d.backend for d in devs}) > 1:
        raise DeviceMismatchError(f"new_group: devices must be of one backend, got {names}")
    return Group(_hook(devs[0], "collective_group", "new_group")(devs), spans_processes=False)


def get_unique_id(device: DeviceLike | None = None) -> bytes:
    """A new id for ``init_process_group`` from ``device``'s backend (default: the default
    device): make it in one process and hand it to every other (a file, a socket, the
    launcher's store)."""
    dev = get_device(device)
    return bytes(_hook(dev, "collective_unique_id", "get_unique_id")())


def init_process_group(unique_id: bytes, world_size: int, rank: int, device: DeviceLike | None = None,
                       *, default: bool = True, check: bool = True) -> Group:
    """Join a group of ``world_size`` processes as ``rank`` on ``device`` (default: the
    default device); returns once every rank has joined with the same ``unique_id``. With
    ``default`` (True) the group is the one collectives use when given none. With
    ``check`` (True) input that differs between ranks raises on all of them instead of
    hanging: each call first queues a tiny all-reduce of its signature, waited for on the
    first call of each signature only (``distributed_checks``: the rule, and when a
    mismatch aborts the group); ``check=False`` saves that round, and such input then
    hangs or corrupts, as it does under torch.distributed."""
    global _default_group
    if not isinstance(unique_id, (bytes, bytearray)):
        raise ArgumentTypeError(f"init_process_group: unique_id must be the bytes get_unique_id gave, got "
                                f"{short_repr(unique_id)}")
    for name, value in (("world_size", world_size), ("rank", rank)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ArgumentTypeError(f"init_process_group: {name} must be an int, got {short_repr(value)}")
    if world_size < 1 or not 0 <= rank < world_size:
        raise ArgumentValueError(f"init_process_group: need world_size >= 1 and 0 <= rank < world_size, got "
                                 f"world_size={world_size}, rank={rank}")
    dev = get_device(device)
    group = Group(_hook(dev, "collective_join", "init_process_group")(bytes(unique_id), world_size, rank),
                  spans_processes=True, check=bool(check))
    if default:
        _default_group = group
    return group


# --- operands --------------------------------------------------------------------------

def _group(fname, group):
    if group is None:
        group = _default_group
        if group is None:
            raise ArgumentValueError(f"{fname}: no group given and no default one: pass group= (new_group) "
                                     f"or call init_process_group first")
    if not isinstance(group, Group):
        raise ArgumentTypeError(f"{fname}: group must be a candlewick.distributed.Group, got {short_repr(group)}")
    if group.closed:
        if getattr(group._comm, "aborted", False):
            raise ArgumentValueError(f"{fname}: the group was aborted after the ranks' calls differed: make a new one")
        raise ArgumentValueError(f"{fname}: the group is closed")
    return group


def _arrays(fname, x, group):
    """One array per device this process drives in ``group``, each on its device, all of
    one dtype and shape."""
    n = len(group.devices)
    if isinstance(x, Array):
        xs = [x]
    elif isinstance(x, Sequence) and not isinstance(x, (str, bytes)) and all(isinstance(a, Array) for a in x):
        xs = list(x)
    else:
        raise ArgumentTypeError(f"{fname}: x must be an array or a sequence of arrays, got {short_repr(x)}")
    if len(xs) != n:
        raise ArgumentValueError(f"{fname}: the group has {n} device(s) in this process "
                                 f"({', '.join(d.name for d in group.devices)}): pass one array per device, "
                                 f"in rank order; got {len(xs)}")
    for i, (a, dev) in enumerate(zip(xs, group.devices)):
        if not dev.same_device(a.device):
            raise DeviceMismatchError(f"{fname}: array {i} is on {a.device.name}, but rank {group.ranks[i]} of "
                                      f"the group is {dev.name}")
    for a in xs[1:]:
        if a.dtype != xs[0].dtype:
            raise DTypeError(f"{fname}: the arrays differ in dtype: {[str(b.dtype) for b in xs]}")
        if a.shape != xs[0].shape:
            raise ShapeError(f"{fname}: the arrays differ in shape: {[b.shape for b in xs]}")
    return xs


def _results(x, storages, shape, dtype, group):
    out = [wrap(s, shape, dtype, dev) for s, dev in zip(storages, group.devices)]
    return out[0] if isinstance(x, Array) else out


def _collective(fname, x, group, extra, what, *checks):
    """(group, arrays) once every rank agrees (see distributed_checks). ``checks`` take
    the first array and raise on bad arguments; in a group of processes a failed check
    still joins the agreement round (flagged), so that the other ranks raise too."""
    group = _group(fname, group)
    xs, error = _checks.checked(_arrays, fname, x, group)
    for check in checks:
        if error is None:
            _, error = _checks.checked(check, xs[0])
    if group.checks_peers:
        def mine():
            return _checks.record(True) if error is not None else _checks.record(False, xs[0].dtype, xs[0].shape,
                                                                                    extra)

        if hasattr(group._comm, "signature_round"):
            key = None if error is not None else (fname, xs[0].dtype, xs[0].shape, extra)
            _checks.agree_by_rounds(group, fname, key, mine, error, what)
        else:
            _checks.agree(fname, _checks.exchange_records(group._comm, mine()), error, what)
    elif error is not None:
        raise error
    return group, xs


def _reduction(fname, op):
    """(op's number, a check that raises when op is no reduction)."""
    def check(_):
        if op not in _checks.REDUCTIONS:
            raise ArgumentValueError(f"{fname}: op must be one of {_checks.REDUCTIONS}, got {short_repr(op)}")

    return (_checks.REDUCTIONS.index(op) if op in _checks.REDUCTIONS else -1), check


# --- collectives ------------------------------------------------------------------------

def all_reduce(x: Array | Sequence[Array], op: str = "sum", *, group: Group | None = None):
    """Elementwise ``op`` ("sum", "prod", "max", "min", "avg") of every rank's ``x``, on
    every rank; same shape and dtype as ``x``."""
    code, valid_op = _reduction("all_reduce", op)
    group, xs = _collective("all_reduce", x, group, code, "op", valid_op)
    count = shape_size(xs[0].shape)
    storages = group._comm.all_reduce([_checks.contiguous_storage(a) for a in xs], count, op)
    return _results(x, storages, xs[0].shape, xs[0].dtype, group)


def reduce_scatter(x: Array | Sequence[Array], op: str = "sum", *, group: Group | None = None):
    """Elementwise ``op`` of every rank's ``x`` (first axis a multiple of the group's
    size), split along the first axis: rank r gets block r, of shape
    ``(x.shape[0] // size, *x.shape[1:])``."""
    code, valid_op = _reduction("reduce_scatter", op)
    size = _group("reduce_scatter", group).size

    def divisible(a):
        if a.ndim == 0 or a.shape[0] % size:
            raise ShapeError(f"reduce_scatter: x's first axis must be a multiple of the group's size {size}, "
                             f"got shape {a.shape}")

    group, xs = _collective("reduce_scatter", x, group, code, "op", valid_op, divisible)
    shape = (xs[0].shape[0] // size, *xs[0].shape[1:])
    storages = group._comm.reduce_scatter([_checks.contiguous_storage(a) for a in xs], shape_size(shape), op)
    return _results(x, storages, shape, xs[0].dtype, group)


def all_gather(x: Array | Sequence[Array], *, group: Group | None = None):
    """Every rank's ``x`` stacked along a new first axis in rank order: shape
    ``(size, *x.shape)``, on every rank."""
    group, xs = _collective("all_gather", x, group, 0, "nothing")
    storages = group._comm.all_gather([_checks.contiguous_storage(a) for a in xs], shape_size(xs[0].shape))
    return _results(x, storages, (group.size, *xs[0].shape), xs[0].dtype, group)


def broadcast(x: Array | Sequence[Array], src: int, *, group: Group | None = None):
    """Rank ``src``'s ``x`` on every rank (the other ranks' ``x`` give only shape and
    dtype, as torch.distributed's)."""
    size = _group("broadcast", group).size
    valid = not isinstance(src, bool) and isinstance(src, int) and 0 <= src < size

    def valid_src(_):
        if not valid:
            raise ArgumentValueError(f"broadcast: src must be a rank of the group (0..{size - 1}), got "
                                     f"{short_repr(src)}")

    group, xs = _collective("broadcast", x, group, src if valid else -1, "src", valid_src)
    storages = group._comm.broadcast([_checks.contiguous_storage(a) for a in xs], shape_size(xs[0].shape), src)
    return _results(x, storages, xs[0].shape, xs[0].dtype, group)


# --- point to point -----------------------------------------------------------------------

def send_recv(sends: Sequence[tuple] = (), recvs: Sequence[tuple] = (), *, group: Group | None = None) -> list:
    """Sends and receives queued together (as RCCL needs when one process drives both
    ends). ``sends``: (array, destination rank) pairs, each sent from its array's rank;
    ``recvs``: (shape, dtype, source rank, receiving rank) tuples. The received arrays,
    in the order of ``recvs``. Each send must meet a receive of the same shape and dtype
    on its destination (checked before anything is queued)."""
    return _p2p.send_recv(_group("send_recv", group), sends, recvs)


def send(x: Array, dst: int, *, group: Group | None = None) -> None:
    """Send ``x`` to rank ``dst`` (which calls ``recv`` with x's shape and dtype)."""
    send_recv([(x, dst)], (), group=group)


def recv(shape: Sequence[int], dtype: Any, src: int, *, group: Group | None = None) -> Array:
    """An array of ``shape`` and ``dtype`` received from rank ``src``, on this process's
    device of the group."""
    g = _group("recv", group)
    return send_recv((), [(shape, dtype, src, g.rank)], group=g)[0]
