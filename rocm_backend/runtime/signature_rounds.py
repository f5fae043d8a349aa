"""[runtime] Signature rounds of a process group: the small all-reduce (max) of a few int64
words that a checked collective queues before itself, so that every rank learns whether
the ranks' calls agree (``candlewick.distributed_checks`` chooses the words and reads them).

A round is read either at once (``now``: the call waits for that round alone, a host
round trip) or later (``later``: the call returns at once; the round's result is read at
the next wait for the device: ``settle``). ``later`` is for calls whose signature the
ranks agreed on before, so that a matching call costs one tiny RCCL call on the stream
and an event record, no host round trip. Its words are the same on every such call, so
they are kept on the device (no upload per call); its result goes to a slot of a ring of
device memory, with an event recorded behind it.

``settle`` must run before anything waits for the member's stream (every synchronization
of the device calls it): a round read later may have been followed by a collective that
its ranks disagreed on, which never finishes. So it waits for each pending round's own
event, in order, and reads the slots on a side stream (not queued behind that
collective), then hands each result to the round's check; a check that raises has
aborted the communicator (``Communicator.abort``), which ends the unfinished collective.
"""

import threading

import numpy as np

from ..bindings import hip, rccl
from ..storage_slice import DeviceBuffer

#: slots of the ring of results read later (a round's slot is free again once read)
SLOTS = 1024
#: agreed signatures whose words stay on the device (the oldest go first)
KEPT_WORDS = 256


class SignatureRounds:
    """The rounds of one communicator member (a process group drives one device)."""

    def __init__(self, communicator, member):
        self._comm = communicator
        self._member = member
        self.device = communicator.members[member][1]
        self._width = 0  # int64 words per round (fixed by the first round)
        self._lock = threading.RLock()
        self._ring = None  # DeviceBuffer of SLOTS rounds
        self._next = 0
        self._pending = []  # (slot, event, check), in queue order
        self._events = []  # free events
        self._side = None  # the stream settle reads on
        self._words = {}  # words' bytes -> DeviceBuffer holding them (rounds read later)

    # --- queuing --------------------------------------------------------------------
    def _all_reduce(self, send_ptr, recv_ptr, width):
        self._comm.queue([(self._member, rccl.all_reduce, (send_ptr, recv_ptr, width, "int64", "max"))])

    def now(self, words):
        """Queue a round of ``words`` and wait for it alone; the reduced words."""
        words = np.ascontiguousarray(words, np.int64)
        device = self.device
        self.settle()
        send = DeviceBuffer.allocate(device, words.nbytes)
        send.copy_from_host(words)  # words stays alive until the wait below
        recv = DeviceBuffer.allocate(device, words.nbytes)
        self._all_reduce(send.ptr, recv.ptr, words.size)
        return device.host_reads.queue_read(recv.ptr, words.size, np.int64).values()

    def later(self, words, check):
        """Queue a round of ``words`` (the same words as earlier rounds of an agreed
        signature) without waiting; ``check(reduced words)`` runs at the next settle."""
        words = np.ascontiguousarray(words, np.int64)
        with self._lock:
            if len(self._pending) >= SLOTS:  # every slot is pending: read them now
                self.settle()
            device = self.device
            if self._ring is None:
                self._width = words.size
                device.make_current()
                self._ring = DeviceBuffer.allocate(device, SLOTS * words.nbytes)
                self._side = hip.create_stream()
                device.family_state("signature_rounds", _Registry).add(self)
            kept = self._words.get(words.tobytes())
            if kept is None:
                if len(self._words) >= KEPT_WORDS:
                    self._words.pop(next(iter(self._words)))  # freed after the work queued on it
                kept = self._words[words.tobytes()] = DeviceBuffer.allocate(device, words.nbytes)
                kept.copy_from_host(words)
                device.keep_alive(words)
            slot = self._next
            self._next = (slot + 1) % SLOTS
            self._all_reduce(kept.ptr, self._ring.ptr + slot * words.nbytes, words.size)
            device.make_current()
            event = self._events.pop() if self._events else hip.event_create()
            hip.event_record(event, device.stream)
            self._pending.append((slot, event, check))

    # --- reading --------------------------------------------------------------------
    @property
    def pending(self):
        return len(self._pending)

    def settle(self):
        """Read every pending round and run its check, in queue order, without waiting
        for anything queued after the rounds; a check's error propagates (the rounds
        after it are dropped: the check aborted the communicator)."""
        with self._lock:
            while self._pending:
                slot, event, _ = self._pending[0]
                hip.event_synchronize(event)
                done = 1  # the rounds whose events have completed too, read with this one
                while done < len(self._pending) and hip.event_query(self._pending[done][1]):
                    done += 1
                values = self._read([s for s, _, _ in self._pending[:done]])
                for k in range(done):
                    _, event, check = self._pending.pop(0)
                    self._events.append(event)
                    try:
                        check(values[k])
                    except BaseException:
                        self._events.extend(e for _, e, _ in self._pending)
                        self._pending.clear()
                        raise

    def _read(self, slots):
        """The words of ``slots`` (rounds already run), read on the side stream."""
        width = self._width
        lo, hi = min(slots), max(slots)
        host = np.empty((hi - lo + 1, width), np.int64)
        self.device.make_current()
        hip.memcpy_dtoh_async(host.ctypes.data, self._ring.ptr + lo * width * 8, host.nbytes, self._side)
        hip.stream_synchronize(self._side)
        return [host[s - lo] for s in slots]

    def drop(self):
        """Forget the pending rounds and stop being settled (the communicator was aborted
        or destroyed)."""
        with self._lock:
            self._events.extend(e for _, e, _ in self._pending)
            self._pending.clear()
        registry = self.device.family_state("signature_rounds")
        if registry is not None:
            registry.remove(self)


class _Registry:
    """A device's members with rounds still to read (``family_state("signature_rounds")``)."""

    def __init__(self, device):
        self._members = []
        self._lock = threading.Lock()

    def add(self, rounds):
        with self._lock:
            self._members.append(rounds)

    def remove(self, rounds):
        with self._lock:
            if rounds in self._members:
                self._members.remove(rounds)

    def settle(self):
        for rounds in list(self._members):
            if rounds.pending:
                rounds.settle()
