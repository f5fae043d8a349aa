"""[families] The padding fix-up's cache: which weight buffers are known to hold only finite
values, learnt without waiting for the device.

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
every transfer into a DeviceBuffer increments the buffer's ``version``, which voids what
was learnt; so does every graph replay (``device.replay_epoch``: a replay rewrites memory
without touching versions), and nothing is learnt during a capture. Memory shared through DLPack may be written by other libraries: it is never
trusted (``share``). What is known of each buffer is kept here, by buffer (weakly), not
on the buffer.
"""

import ctypes
import threading
import weakref

from candlewick.errors import BackendError

from ..ops import NN_BLOCK
from . import nn_launch

SLOTS = 4096  # int32 flags per device
MAX_BLOCKS = 64  # flags of one check: one per block
_PER_BLOCK = NN_BLOCK * 16  # elements per block below which fewer blocks run
_TAG_MASK = (1 << 30) - 1  # 2 * tag + 1 fits a non-negative int32
_SEEN, _QUEUED, _NONFINITE = "seen", "queued", "non-finite"
EXTERNAL = "external"  # the probe of memory others may write

#: DeviceBuffer -> its Probe, or EXTERNAL
_probes = weakref.WeakKeyDictionary()


class Probe:
    """What is known of one buffer at one version and replay epoch, viewed as one dtype;
    ``finite_at``: the version at which every element was found finite (-1: none)."""

    __slots__ = ("version", "epoch", "dtype", "state", "start", "cells", "tag", "finite_at")

    def __init__(self, version, epoch, dtype):
        self.version, self.dtype, self.state, self.start, self.cells, self.tag = version, dtype, _SEEN, 0, None, 0
        self.epoch = epoch
        self.finite_at = -1


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

    def queue(self, probe, buffer):
        """Queue the finite_flag kernel over all of ``buffer`` (as ``probe.dtype``) for
        ``probe`` (nothing when there are no slots)."""
        if not self._ensure_buffer():
            return
        n = buffer.nbytes // probe.dtype.itemsize
        blocks = max(1, min(MAX_BLOCKS, -(-n // _PER_BLOCK)))
        if self.next + blocks > SLOTS:
            self.next = 0
        start, self.next = self.next, self.next + blocks
        ctypes.memset(self.host + 4 * start, 0xFF, 4 * blocks)  # -1: not written yet
        self.owner[start] = probe
        probe.start, probe.cells = start, (ctypes.c_int32 * blocks).from_address(self.host + 4 * start)
        self.tag = probe.tag = (self.tag + 1) & _TAG_MASK
        probe.state = _QUEUED
        launch = nn_launch.prepare(self.device, ("nn", "finite_flag", probe.dtype.name), n, blocks=blocks,
                                   x0=probe.tag)
        launch.run(self.mapped + 4 * start, buffer.ptr)


def probe_of(buffer):
    """What is known of ``buffer``: its Probe, EXTERNAL, or None."""
    return _probes.get(buffer)


def known_finite(storage):
    """True when every element of ``storage``'s buffer is known finite at its current
    version, viewed as the storage's dtype; False when unknown or not so, possibly
    queueing a check."""
    buffer, device = storage.buffer, storage.device
    if device.capture is not None:
        return False  # in a graph: its replays rewrite memory, so the fix-up is always recorded
    probe = _probes.get(buffer)
    if probe is EXTERNAL:
        return False
    # a graph replay writes memory without bumping versions: what was learnt before one is void
    epoch = device.replay_epoch
    if probe is not None and probe.finite_at == buffer.version and probe.epoch == epoch \
            and probe.dtype is storage.dtype:
        return True
    if storage.size * storage.dtype.itemsize != buffer.nbytes:
        return False  # a view of part of a buffer, or of another dtype's buffer: not checked
    flags = device.family_state("finite_flags", FiniteFlags)
    with flags.lock:
        probe, version = _probes.get(buffer), buffer.version
        if probe is EXTERNAL:
            return False
        if probe is None or probe.version != version or probe.epoch != epoch or probe.dtype is not storage.dtype:
            _probes[buffer] = Probe(version, epoch, storage.dtype)
            return False
        if probe.state == _SEEN:
            flags.queue(probe, buffer)
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
        probe.finite_at = version
        return True


def share(buffer):
    """Mark memory that other libraries may write (DLPack): never known finite."""
    _probes[buffer] = EXTERNAL
