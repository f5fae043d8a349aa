"""Which weight buffers are known to hold only finite values, learnt without waiting for
the device.

A padded MIOpen convolution needs the padding NaN fix-up (``nn.py``) only when its weight
holds an inf or a NaN, which is a fact on the device: reading it back would synchronize.
Instead, the second convolution that meets a buffer unchanged queues one
``finite_flag`` kernel over the whole buffer. Its blocks write ``2 * tag + flag`` (flag
1: an inf or NaN in the block's share; tag: the check's own number) into int32 slots of
pinned, device-mapped host memory, which later calls read with plain loads: a slot
without the check's tag (-1, or a value an older check of a recycled slot wrote late)
means not yet. Once every slot reads flag 0, the calls that meet the buffer at that
version skip the fix-up launch; a 1 keeps the fix-up. A buffer met
only once (a weight rewritten every step) never pays for a check.

Versions: every in-place primitive (assign, fill, scatter, scatter_add, index_add) and
every transfer into a StorageSlice increments the slice's ``version``, which voids what
was learnt. Memory shared through DLPack may be written by other libraries: it is never
trusted (``share``).
"""

import ctypes
import threading

from candlewick.errors import BackendError

from . import nn_kernels

SLOTS = 4096  # int32 flags per device
MAX_BLOCKS = 64  # flags of one check: one per block
_PER_BLOCK = nn_kernels.NN_BLOCK * 16  # elements per block below which fewer blocks run
_TAG_MASK = (1 << 30) - 1  # 2 * tag + 1 fits a non-negative int32
_SEEN, _QUEUED, _NONFINITE = "seen", "queued", "non-finite"
EXTERNAL = "external"  # StorageSlice.probe of memory others may write


class Probe:
    """What is known of one buffer at one version."""

    __slots__ = ("version", "state", "start", "cells", "tag")

    def __init__(self, version):
        self.version, self.state, self.start, self.cells, self.tag = version, _SEEN, 0, None, 0


class FiniteFlags:
    """A device's ring of host-visible int32 slots and the checks queued into them. A
    check takes consecutive slots; the ring starts over at its end, and a check whose
    first slot was taken again since is forgotten (``owner``) and queued anew later."""

    def __init__(self, device):
        self.device = device
        self.lock = threading.Lock()
        self.host = 0  # SLOTS pinned int32, allocated on first use
        self.mapped = 0  # their device address
        self.unavailable = None  # why no pinned memory could be had: nothing is learnt then
        self.next = 0
        self.tag = 0  # the number of the last check queued (its slots' values carry it)
        self.owner = [None] * SLOTS  # slot -> the probe whose check starts there

    def _ensure_buffer(self):
        """True when the slots exist; a failed allocation is remembered, never raised: the
        convolutions then keep their fix-up, as before this module."""
        if not self.host and self.unavailable is None:
            try:
                self.host, self.mapped = self.device.host_mapped(4 * SLOTS)
            except BackendError as exc:
                self.unavailable = str(exc)
        return bool(self.host)

    def queue(self, probe, slice_):
        """Queue the finite_flag kernel over all of ``slice_`` (its own dtype) for ``probe``
        (nothing when there are no slots)."""
        if not self._ensure_buffer():
            return
        n = slice_.nbytes // slice_.dtype.itemsize
        blocks = max(1, min(MAX_BLOCKS, -(-n // _PER_BLOCK)))
        if self.next + blocks > SLOTS:
            self.next = 0
        start, self.next = self.next, self.next + blocks
        ctypes.memset(self.host + 4 * start, 0xFF, 4 * blocks)  # -1: not written yet
        self.owner[start] = probe
        probe.start, probe.cells = start, (ctypes.c_int32 * blocks).from_address(self.host + 4 * start)
        self.tag = probe.tag = (self.tag + 1) & _TAG_MASK
        probe.state = _QUEUED
        launch = nn_kernels.prepare(self.device, ("nn", "finite_flag", slice_.dtype), n, blocks=blocks,
                                    x0=probe.tag)
        launch(self.mapped + 4 * start, slice_.ptr)


def known_finite(storage):
    """True when every element of ``storage``'s buffer is known finite at its current
    version (recorded as ``slice.finite_at``, which hot paths may compare with
    ``slice.version`` themselves before calling); False when unknown or not so, possibly
    queueing a check."""
    slice_ = storage.slice
    if slice_.finite_at == slice_.version:
        return True
    if slice_.probe is EXTERNAL or storage.dtype is not slice_.dtype:
        return False
    device = storage.device
    flags = device.__dict__.get("_finite_flags")
    if flags is None:
        flags = device.__dict__.setdefault("_finite_flags", FiniteFlags(device))
    with flags.lock:
        probe, version = slice_.probe, slice_.version
        if probe is EXTERNAL:
            return False
        if probe is None or probe.version != version:
            slice_.probe = Probe(version)
            return False
        if probe.state == _SEEN:
            flags.queue(probe, slice_)
            return False
        if probe.state != _QUEUED:
            return False
        if flags.owner[probe.start] is not probe:  # the ring came round: ask again
            probe.state = _SEEN
            return False
        base = 2 * probe.tag
        values = probe.cells[:]
        if any(v != base and v != base + 1 for v in values):
            return False  # not all written by this check yet
        if base + 1 in values:
            probe.state = _NONFINITE
            return False
        slice_.finite_at = version
        return True


def share(slice_):
    """Mark memory that other libraries may write (DLPack): never known finite."""
    slice_.probe = EXTERNAL
    slice_.finite_at = -1
