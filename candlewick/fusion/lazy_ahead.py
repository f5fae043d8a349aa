"""Lazy mode runs a graph ahead of its consumer where its recording reaches the point at
which the same graph ran the last time (docs/fusion.md, "Lazy mode").

A graph recorded in code written eagerly usually runs at its consumer, after host code
that recorded nothing: scikit-learn's PCA recorded the copy of X and ``X -= mean`` (before
the update of a plain copy was made on its source, lazy_storage._two), then draws a
random matrix and checks its arguments before ``X @ Q`` reads X. Eager mode's
device ran the copy and the subtraction meanwhile; a graph held back to that product
queues its kernels just before the product's QR waits for them, so their device time
lands on the call's critical path (H200, bench/pydata_e2e at a4f1288: ~150 us of PCA
randomized's and ~107 us of Ridge's, whose flushes took 26 and 49 us of host time).

So each run of a graph on a fusing device remembers where it ran (``remember``: its node
keys and the nodes it computed), and when a later recording holds the very same nodes
(``due``, asked as each node is recorded) the graph runs at once for those nodes
(``run_ahead``). A result recorded there that the last run did not compute (the copy
that ``X -= mean`` replaces: its array still holds it while the subtraction is recorded)
stays pending in a graph of its own, as lazy_consume keeps a consumed result, and is
computed only if something reads it. Results are eager mode's either way; what running
ahead changes is when the device starts.
"""

from __future__ import annotations

from . import lazy_policy
from .lazy_policy import ENDS, learn

__all__ = ["MAX_ENDS", "due", "remember", "run_ahead"]

#: the graphs' ends kept (lazy_policy.ENDS; all dropped past it)
MAX_ENDS = 256


def _end(pending):
    """The key of where ``pending``'s graph is now: (the device by id, the node count, the
    last node's key; a node's unhashable attribute makes it unhashable: never run ahead)."""
    keys = pending.keys
    return id(pending.device), len(keys), keys[-1]


def remember(pending, wanted):
    """What a run of ``pending``'s graph for the results ``wanted`` teaches: where it ran
    (nothing where ``lazy_policy.RUN_AHEAD`` is off or the device does not fuse: a replayed
    graph run early saves no device time). The ends of shorter graphs whose nodes begin
    this one are forgotten: the recording went on past them this time (Ridge's copy and
    subtraction ran there alone; StandardScaler's division follows the same two)."""
    if not lazy_policy.RUN_AHEAD or "fusion" not in pending.device.capabilities:
        return
    keys = pending.keys
    key = _end(pending)
    end = (list(keys), frozenset(s.node.index for s in wanted))
    try:
        if len(ENDS) >= MAX_ENDS and key not in ENDS:
            ENDS.clear()
        ENDS[key] = end
        for n in range(1, len(keys)):
            at = (key[0], n, keys[n - 1])
            shorter = ENDS.get(at)
            if shorter is not None and shorter[0] == keys[:n]:
                del ENDS[at]
    except TypeError:
        return


def due(pending):
    """The indices of the nodes to run now, where ``pending``'s graph holds the very nodes
    of a graph that ran at this point before; else None."""
    keys = pending.keys
    try:
        # _end(pending), written out: every recorded element-wise call asks once a graph
        # has run (293 against 383 ns a call with the helper's call, the development VM)
        end = ENDS.get((id(pending.device), len(keys), keys[-1]))
    except TypeError:
        return None
    if end is None or end[0] != keys:
        return None
    return end[1]


def run_ahead(pending, indices):
    """Run ``pending``'s graph for its live results among the nodes ``indices``; any other
    live result stays pending, held by a graph of its own (``KeptResults.hold``)."""
    live = pending.unrun()
    wanted = [s for s in live if s.node.index in indices]
    if not wanted:
        return
    others = [s for s in live if s.node.index not in indices]
    pending._run(wanted, learn)
    if others:
        pending.hold(others)
    pending._reset()
    if others:
        pending.live.add(pending)  # (a write must compute what is held first)
