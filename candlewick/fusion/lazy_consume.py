"""Lazy mode's consumers of a pending result (docs/fusion.md, "irfft reads what the graph
writes for it"): a primitive that would only copy a pending result into a buffer of its
own and then destroy that copy (irfft on a device with the hooks
``backend.IrfftScratchDevice``: C2R overwrites its input) gets the copy from the graph
instead (``consume_irfft``, ``KeptResults.consume``): the graph writes the input the
transform wants, and the result itself stays pending, its graph kept by a ``Pending`` of
its own (``KeptResults.kept``), so that a later read, a write or the block's end
computes it as eager mode would have.

``lazy_storage.Pending`` is a ``KeptResults``; this module imports nothing of it (it
imports this one): what it needs of a ``Pending`` are its fields, its class attribute ``live``, its ``_run``
and ``_reset``.
"""

from __future__ import annotations

import threading
import weakref

from ..layout import Layout
from ..opdefs import BinaryOp
from ..shapes import shape_size
from . import lazy_policy
from .lazy_policy import pinned_fused

__all__ = ["KeptResults", "consume_irfft", "may_consume"]

_new = object.__new__
_ref = weakref.ref
_MULTIPLY = BinaryOp.MULTIPLY


def may_consume(result):
    """Whether irfft of the pending ``result`` may take the consumer path: the device takes a
    caller-made input (``IrfftScratchDevice``) and the result holds at least
    ``lazy_policy.CONSUME_BYTES`` (below, the host's work outlasted the pass saved,
    measured on the H200). Asked before the recording graph is looked up, so that an irfft
    below the bound pays nothing more than the primitive's call."""
    return (getattr(type(result.device), "irfft_scratch_factor", None) is not None
            and result.size * result.dtype.itemsize >= lazy_policy.CONSUME_BYTES)


def consume_irfft(result, pending, layout, axis, n, norm):
    """irfft of ``result``, pending in ``pending``, the graph lazy mode records here, where
    ``may_consume(result)``: the graph computes the transform's input (``result`` as
    ``layout`` reads it, times the device's factor: one more node, fused into the same
    kernel) into a buffer the transform then overwrites, and ``result`` stays pending.
    Where the device lays the input out itself (no factor), the graph runs and the
    primitive is called on the result, as for any other primitive."""
    device, dtype = result.device, result.dtype
    shape = layout.shape
    factor = device.irfft_scratch_factor(dtype, shape, axis, n, **norm)
    if factor is not None:
        # the whole result in order (the common case): its layout is the input's
        whole = layout.offset == 0 and layout.is_contiguous and shape_size(shape) == result.size
        # the copy's node recorded as binary_scalar (it scales, as the device's own copy
        # would) or copy (a view or a truncation) records it, not as a call of its own (no
        # user made it: no policy count), the operand this graph's own node
        operand = ((result.node.index, layout),)
        if factor != 1.0:
            made = pending.add("binary_scalar", shape, dtype, _MULTIPLY, operand, (factor, False))
        elif whole:
            made = result  # its value is the input
        else:
            made = pending.add("copy", shape, dtype, None, operand, ())
        if made is result or made.real is None:  # (else recording it reached MAX_NODES: all has run)
            return pending.consume(result, made).irfft_scratch(layout if whole else Layout.contiguous(shape),
                                                               axis, n)
    return result.value().irfft(layout, axis, n, **norm)


def _pin(run, device, calls, made):
    # this run saved the consumer's copy: recording these calls pays, even for one call
    pinned_fused(device, calls)
    run.pinned = lazy_policy.recounts


class KeptResults:
    """The part of a ``Pending`` that consumers use: ``kept``, weak references to results
    consumed and still pending, each in a ``Pending`` of its own (``consume``)."""

    __slots__ = ()

    def consume(self, keep, made):
        """Run the graph as ``flush`` does, but for ``keep``, a result a consumer reads only
        through ``made`` (``keep`` itself, or a node recorded on it just now): ``made``'s
        value is returned, given to no array (the consumer may overwrite it), and ``keep``
        stays pending in a ``Pending`` of its own holding this graph and its inputs (a
        later read computes it; ``kept``, so that a write or the block's end computes it
        first while it is referenced). Its calls are marked as fusing (lazy_policy): this
        run saved the consumer's copy, so recording them pays."""
        with self.lock:
            wanted = [s for s in self.unrun() if s is not keep and s is not made]
            wanted.append(made)
            outs = self._run(wanted, _pin, made)
            self.hold([keep])
            self._reset()
            self.live.add(self)  # (a write must compute what is kept first)
            return outs[-1]

    def unrun(self):
        """The results recorded here that something still holds and no run computed yet."""
        return [s for ref in self.results if (s := ref()) is not None and s.real is None]

    def hold(self, results):
        """Hand this graph and its inputs over to a ``Pending`` of its own for ``results``
        (recorded here, still pending), which a later read computes; ``kept``, so that a
        write or the block's end computes them first while they are referenced. The
        caller resets this one next."""
        held = _new(type(self))  # (this one's state handed over whole: no graph copied)
        held.device, held.lock, held.kept = self.device, threading.RLock(), []
        held.graph, held.inputs, held.storages = self.graph, self.inputs, self.storages
        held.keys, held.calls, held.made = self.keys, self.calls, self.made
        held.results = [_ref(s) for s in results]
        for s in results:
            s.pending = held
            self.kept.append(_ref(s, self._forget))

    def _run_kept(self):
        with self.lock:  # (_forget, a weakref callback, may run in another thread meanwhile)
            kept, self.kept = self.kept, []
        for ref in kept:
            storage = ref()
            if storage is not None and storage.real is None:
                storage.pending.flush()
        if not self.graph.nodes:
            self.live.discard(self)

    def _forget(self, ref):
        """A kept result no one holds any more (``irfft(rfft(x) * h)``: as irfft returns):
        its graph and inputs went with it, and this graph is live no longer if it holds
        nothing else (so a write in a loop asks nothing, as before the consumer ran). A
        weakref callback runs in whichever thread lets the result go, during a collection
        too: it never waits for the lock (two threads each holding their own and collecting
        the other's result would wait forever); where another thread holds it, the dead
        reference stays in ``kept`` and the next ``flush`` drops it."""
        if not self.lock.acquire(False):  # (not blocking; positional: a keyword costs as much as the rest)
            return
        try:
            try:
                self.kept.remove(ref)
            except ValueError:  # (run by _run_kept meanwhile)
                return
            if not self.kept and not self.graph.nodes:
                self.live.discard(self)
        finally:
            self.lock.release()
