"""[runtime] RCCL communicators of the devices one process drives in a group, and the queuing of
collective calls on those devices' streams.

A group is ``size`` ranks. This process drives ``members``: (rank, device, RCCL
communicator) for each of its devices in the group: every rank in a one-process group
(``ncclCommInitAll``), one in a group of processes (``ncclCommInitRank`` with the unique
id the caller handed to every process). Each call is queued on every member's own stream
inside one ``ncclGroupStart``/``ncclGroupEnd``, as RCCL requires when one thread drives
several devices (a single call, as a process group makes, goes alone); the host does not
wait for the device. RCCL sets each member's device itself, so the thread's remembered
current device is forgotten after every group.
"""

import threading

from candlewick.errors import ArgumentValueError

from ..bindings import hip, rccl
from ..error import RcclError
from .signature_rounds import SignatureRounds


class Communicator:
    """This process's members of one RCCL group (``size`` ranks in all)."""

    def __init__(self, size, members):
        self.size = size
        self.members = tuple(members)  # (rank, device, RCCL communicator handle)
        self.ranks = tuple(rank for rank, _, _ in self.members)
        self.devices = tuple(device for _, device, _ in self.members)
        # an RCCL communicator is driven by one thread at a time; re-entrant, since closing
        # synchronizes the devices, which reads pending signature rounds, whose check may abort
        self._lock = threading.RLock()
        self.closed = False
        self.aborted = False
        self.rounds = [SignatureRounds(self, i) for i in range(len(self.members))]

    @classmethod
    def for_devices(cls, devices):
        """A group of ``devices`` in this process, rank i on devices[i]."""
        try:
            comms = rccl.comm_init_all([d.ordinal for d in devices])
        finally:
            hip.forget_current_device()
        return cls(len(devices), [(rank, d, c) for rank, (d, c) in enumerate(zip(devices, comms))])

    @classmethod
    def join(cls, device, unique_id, size, rank):
        """This process's ``rank`` on ``device`` of a group of ``size`` processes; returns
        once every rank has joined with the same ``unique_id``."""
        device.make_current()
        try:
            comm = rccl.comm_init_rank(size, unique_id, rank)
        finally:
            hip.forget_current_device()
        return cls(size, [(rank, device, comm)])

    def queue(self, calls):
        """Queue ``calls`` as one RCCL group: each is (member index, binding function,
        arguments before the communicator and stream)."""
        with self._lock:
            if self.closed:
                why = "aborted after the ranks' calls differed" if self.aborted else "closed"
                raise ArgumentValueError(f"collective on a group that was {why}: make a new one")
            if len(calls) == 1:  # one call on one device (a process group): no RCCL group, and
                index, fn, args = calls[0]  # RCCL keeps that device current
                _, device, comm = self.members[index]
                device.make_current()
                fn(*args, comm, device.stream)
                return
            rccl.group_start()
            try:
                for index, fn, args in calls:
                    _, device, comm = self.members[index]
                    device.make_current()
                    fn(*args, comm, device.stream)
            except BaseException:
                try:  # close the group; the call's own error is the one to raise
                    rccl.group_end()
                except RcclError:
                    pass
                raise
            else:
                rccl.group_end()
            finally:
                hip.forget_current_device()

    def close(self):
        """Wait for each member's queued work, then destroy its communicator (once). The
        wait reads the pending signature rounds first: a check that fails there aborts
        the communicator and raises."""
        with self._lock:
            if self.closed:
                return
            try:
                for _, device, _ in self.members:
                    device.synchronize(check_errors=False)
            finally:
                if not self.closed:
                    self.closed = True
                    for rounds in self.rounds:
                        rounds.drop()
                    for _, _, comm in self.members:
                        rccl.comm_destroy(comm)
                    hip.forget_current_device()

    def abort(self):
        """Tear the communicators down at once (``ncclCommAbort``), ending what they had
        queued: a collective whose ranks disagreed, which would never finish. Idempotent."""
        with self._lock:
            if self.closed:
                return
            self.closed = self.aborted = True
            for rounds in self.rounds:
                rounds.drop()
            for _, _, comm in self.members:
                rccl.comm_abort(comm)
            hip.forget_current_device()
