"""Calls on a pending plain copy, made on what it copies (docs/fusion.md, "An update of a
pending result is recorded" and "A copy counted to run at once is deferred"): a copy
recorded in this thread's graph, or deferred (lazy_defer). lazy_storage's primitives ask
``on_source`` and ``deferred_source``; this module imports nothing of it.
"""

from __future__ import annotations

from .lazy_policy import Start
from .lazy_split import copied_input

__all__ = ["deferred_source", "on_source"]


# A call on a pending plain copy (a ``copy``, or an ``astype`` to its own dtype, of a graph
# input, read through the plain view: ``copied_input``) is the call on what the copy
# reads, made as a call on that computed array is (lazy_policy.Start): recorded on the
# source's input node, or run at once where the policy says so, as eager mode runs it.
# Either way its kernel reads the source instead of the copy, so the copy, which the
# update's array no longer holds, is never computed: one pass over X where eager mode
# makes two (the copy and the update).
# - Ridge's and PCA's column mean of their copy of X: where the device replayed it in a
#   split run before, it runs at once instead of being recorded to be replayed by the
#   run of the graph (its recording and the split run cost Ridge's centering ~100 us
#   more host time than eager mode's calls, H200, 2026-12-04); and its result, computed,
#   leaves the division by the count to run at once too (small, on computed operands).
# - Ridge's and PCA's ``X -= X_offset``: a graph of that call alone runs replayed, so from
#   its REPLAYS-th run on it runs as eager mode runs it (recording the update and running
#   the graph ahead cost Ridge's centering ~110 us more host time than eager mode's C
#   in-place update, H200, 2026-12-04). A chain of calls on the result still fuses
#   (StandardScaler's ``X -= mean; X /= scale``: the subtraction reads X, the division
#   follows it).
# - Where the graph holds a probe (lazy_policy.PROBE; ``Pending.probing``), an element-wise
#   call is recorded on the source whatever its count: the chain a probed copy starts is
#   what the probe tries (StandardScaler's, after Ridge's same subtraction ran at once).
#   A reduction is not (a probe of Ridge's copy would record its mean, whose split run
#   fuses the division and the update: marked fusing, they would be recorded and replayed
#   again for REPLAYS calls, ~50 us of host time each on the fake runtime).
# - A deferred copy (lazy_defer: of a plain view, its count said it runs at once) is read
#   the same way, the call made on its source's ``Start``: so the copy is never made. The
#   operand lazy mode hands an element-wise call, reduction or ``var`` is that Start
#   already (lazy_mode._operand, where no probe is held): these methods see a deferred copy
#   read otherwise (a probe held, a storage passed as is).
# The cheap part of the test (no node, or the node's kind) is written at each caller: an
# element-wise call on a pending result in lazy mode asks it.
def on_source(copy, pending, layout, chain=True):
    """What a call on ``copy`` (a pending result of this graph, of a kind in COPY_KINDS, or
    a deferred copy, read through ``layout``) is made on instead: its source's ``Start``,
    or, for an element-wise call (``chain``) where this graph holds a probe, its source's
    input node; None where it copies no graph input plainly."""
    source = copied_input(copy, layout)
    if source is None:
        return None
    return pending.tracer(source) if chain and pending.probing else Start(pending, source)


# A copy of a deferred plain copy (lazy_defer) is a copy of its source, deferred in turn,
# and so is a cast to the copy's own dtype (scikit-learn's ``_average`` copies Ridge's copy
# of X again before taking its mean, which then reads X: ``_reduce``); another cast is
# the cast of the source.
def deferred_source(storage, recording, layout):
    """(this thread's Pending, the source) where ``storage`` is a deferred plain copy read
    through its plain view ``layout`` in lazy mode (``recording``: device -> the thread's
    Pending there, or None), else None."""
    if storage.node is None and (pending := recording(storage.device)) is not None:
        source = copied_input(storage, layout)
        if source is not None:
            return pending, source
    return None
