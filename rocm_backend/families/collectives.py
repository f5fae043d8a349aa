"""[families] Collectives over RCCL on rocm storages: the backend's side of
``candlewick.distributed`` (the optional hook ``candlewick.backend.CollectiveDevice``).

The front end hands over contiguous storages that agree (one dtype, one element count on
every rank: it checks, across processes through ``signature_round``, whose rounds
``runtime/signature_rounds.py`` queues and reads, and ``abort`` where they differed); this
module maps dtypes and reductions onto RCCL's, makes the results on each member's device
and queues the calls (``runtime/communicator.py``). Moves (broadcast, all_gather,
send/recv) carry bytes, so every dtype moves; reductions take RCCL's numeric types,
complex numbers as pairs of reals for sum and avg, and bool for max and min (any, all).
"""

from candlewick import dtypes as dt
from candlewick.errors import BackendUnavailableError, UnsupportedOperation

from ..bindings import rccl
from ..runtime.communicator import Communicator

_COMPLEX_PARTS = {dt.complex64: "float32", dt.complex128: "float64"}


def _require_rccl():
    ok, reason = rccl.probe()
    if not ok:
        raise BackendUnavailableError(f"collectives on rocm need RCCL: {reason}")


def unique_id():
    """A new RCCL unique id (bytes) for ``join``."""
    _require_rccl()
    return rccl.unique_id()


def group(devices):
    """A ``Collectives`` over ``devices`` of this process (rank i on devices[i])."""
    _require_rccl()
    return Collectives(Communicator.for_devices(list(devices)))


def join(device, uid, size, rank):
    """This process's ``rank`` on ``device`` of a group of ``size`` processes."""
    _require_rccl()
    return Collectives(Communicator.join(device, bytes(uid), size, rank))


def reduction_type(fname, dtype, op, count):
    """(RCCL type name, element count) reducing ``count`` elements of ``dtype`` by ``op``."""
    if dtype.name in rccl.DATATYPES:
        return dtype.name, count
    if dtype in _COMPLEX_PARTS and op in ("sum", "avg"):
        return _COMPLEX_PARTS[dtype], 2 * count
    if dtype == dt.bool_ and op in ("max", "min"):
        return "uint8", count
    raise UnsupportedOperation(fname, dtype, "rocm", f"RCCL has no {op!r} reduction for {dtype}")


class Collectives:
    """The rocm backend's communicator object (``candlewick.backend.Communicator``)."""

    def __init__(self, communicator):
        self._comm = communicator
        self.size = communicator.size
        self.ranks = communicator.ranks
        self.devices = communicator.devices

    def _empty(self, index, dtype, count):
        device = self.devices[index]
        return device.storage_type.empty(device, dtype, count)

    def _each(self, storages, out_count, call):
        """Results of ``out_count`` elements, one per member, and ``call(input, result)``'s
        (binding function, arguments) queued for each member as one group (none for empty
        arrays: every rank has the same count, so every rank skips)."""
        outs = [self._empty(i, s.dtype, out_count) for i, s in enumerate(storages)]
        if out_count:
            self._comm.queue([(i, *call(s, o)) for i, (s, o) in enumerate(zip(storages, outs))])
        return outs

    def all_reduce(self, storages, count, op):
        rtype, n = reduction_type("all_reduce", storages[0].dtype, op, count)
        return self._each(storages, count,
                          lambda s, o: (rccl.all_reduce, (s.ptr, o.ptr, n, rtype, op)))

    def reduce_scatter(self, storages, count, op):
        """Each input holds ``size * count`` elements; rank r gets block r reduced."""
        rtype, n = reduction_type("reduce_scatter", storages[0].dtype, op, count)
        return self._each(storages, count,
                          lambda s, o: (rccl.reduce_scatter, (s.ptr, o.ptr, n, rtype, op)))

    def broadcast(self, storages, count, root):
        nbytes = count * storages[0].dtype.itemsize
        return self._each(storages, count,
                          lambda s, o: (rccl.broadcast, (s.ptr, o.ptr, nbytes, "uint8", root)))

    def all_gather(self, storages, count):
        """Each result holds the ranks' ``count`` elements in rank order."""
        nbytes = count * storages[0].dtype.itemsize
        return self._each(storages, self.size * count,
                          lambda s, o: (rccl.all_gather, (s.ptr, o.ptr, nbytes, "uint8")))

    def send_recv(self, sends, recvs):
        """``sends``: (member index, storage, count, peer rank); ``recvs``: (member index,
        dtype, count, peer rank); all queued as one group. The received storages."""
        outs = [self._empty(i, dtype, count) for i, dtype, count, _ in recvs]
        calls = [(i, rccl.send, (s.ptr, count * s.dtype.itemsize, "uint8", peer))
                 for i, s, count, peer in sends if count]
        calls += [(i, rccl.recv, (o.ptr, count * dtype.itemsize, "uint8", peer))
                  for (i, dtype, count, peer), o in zip(recvs, outs) if count]
        if calls:  # an empty array is sent by no call on either end
            self._comm.queue(calls)
        return outs

    # --- the cross-rank check of a process group (candlewick.distributed_checks) ---------
    def signature_round(self, words, check=None):
        """An all-reduce (max) of the int64 ``words`` over the ranks, queued before the next
        collective (``runtime/signature_rounds.py``). Without ``check``: waits for it alone
        and returns the reduced words. With ``check``: returns None at once, and
        ``check(reduced words)`` runs before anything next waits for the device."""
        (rounds,) = self._comm.rounds  # a process group: one member in this process
        if check is None:
            return rounds.now(words)
        rounds.later(words, check)
        return None

    def abort(self):
        self._comm.abort()

    @property
    def closed(self):
        return self._comm.closed

    @property
    def aborted(self):
        return self._comm.aborted

    def close(self):
        self._comm.close()
