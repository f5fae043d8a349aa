"""Lazy mode's deferred calls (docs/fusion.md, "irfft reads what the graph writes for it"):
an element-wise ``binary`` call on computed arrays whose result an inverse real FFT read
before (``spectrum * response`` of ``irfft(rfft(x) * response)``), kept as the call
itself instead of a graph. Its result is a ``LazyStorage`` whose ``pending`` is a
``Deferral`` (no node, no graph: its ``graph`` is the deferral, so that every reader
that is not the graph's own computes it first, as it computes a result of another
graph). Read by irfft on a device with the hooks ``backend.IrfftScratchDevice``, the
call and the transform's scale run as one fused kernel into the transform's private
input (the copy eager irfft makes, saved with the product's own pass), and the result
stays deferred; any other reader (a primitive, a host read, a write anywhere, the
block's end: the thread's ``Pending`` keeps it in ``kept``) computes it by the eager
call itself, so its value is eager mode's bit for bit.

A ``copy`` of a plain view (offset 0, C-contiguous) whose count says it runs at once is
deferred too (lazy_policy): the calls that read it through its plain view are made on
its source (lazy_mode._operand, lazy_copy.on_source, lazy_write.rebinds), so PCA's and
Ridge's copy of X, updated in place at once, is never made; anything else computes it
as above. ``Deferral.irfft`` is the product's alone.

Recording the call in a graph cost ~29 us of host time a call more than eager mode at
bench/pydata_e2e's 12.8 MB spectra on the H200 (the graph built, run and kept as a
``Pending`` of its own); deferring it costs the objects below, less than eager mode's own
multiply (H200, probe s21lazyfft_2: scipy.fft's case lazy / eager 0.978). This module imports nothing of
``lazy_storage`` (which imports it): a ``Pending`` gives its result type and class.
"""

from __future__ import annotations

import threading
import weakref

from ..layout import Layout
from ..opdefs import BinaryOp
from ..shapes import shape_size
from .lazy_run import compiled

__all__ = ["Deferral", "defer"]

_new = object.__new__
_ref = weakref.ref
_MULTIPLY = BinaryOp.MULTIPLY

#: (the call's and the transform's key) -> (the run writing its input, the input
#: layout it reads): the fused kernel of each deferred call and scale, built once
_runs: dict = {}
#: the most kept (all dropped past it: keys hold Python scalars and layouts only)
MAX_RUNS = 256
_runs_lock = threading.Lock()


class Deferral:
    """The ``pending`` of one deferred result: the call (``name`` on ``receiver`` with
    ``args``, operands computed) that computes it, and the result, weakly (the thread's
    ``Pending`` keeps it in ``kept`` the same way)."""

    __slots__ = ("call", "result", "owner", "lock")

    def flush(self):
        """Compute the result by its eager call, where it is still referenced and not
        computed yet (what ``LazyStorage.value`` and ``Pending.flush`` ask)."""
        with self.lock:
            call, result = self.call, self.result()
            if call is not None and result is not None and result.real is None:
                name, receiver, args = call
                result.real = getattr(receiver, name)(*args)  # (an error leaves it deferred, as a graph's run does)
                result.graph = None
            self.call = None  # (its operands let go)

    def irfft(self, result, layout, axis, n, norm):
        """irfft of ``result`` (pending here) as ``layout`` reads it: where the device
        takes a caller-made input (``irfft_scratch_factor``) and the transform reads the
        whole result in order, the call and the scale run as one kernel into that input
        (a factor of 1: the call itself) and ``result`` stays deferred; else it is
        computed first."""
        call = self.call
        size = result.size
        if (call is not None and call[0] != "copy"
                and (layout.dense_size == size  # (known whole and in order: the common case, one test)
                     or (layout.offset == 0 and layout.is_contiguous and shape_size(layout.shape) == size))):
            name, receiver, args = call
            op, layout1, other, layout2 = args
            # what decides the transform's input: the call's key (the device and op by id, dtypes
            # by name: their hashes run Python code; an op is an enum member, never freed; two
            # operands each whole and in order by their shapes alone, which say their strides
            # but for lengths of 1, which nothing reads) and the transform's arguments (the
            # device's factor is theirs: asked once a key)
            if layout1.dense_size == size and layout2.dense_size == size:
                operands = (layout1.shape, layout2.shape)
            else:
                operands = (layout1.shape, layout1.strides, layout1.offset, layout2.shape, layout2.strides,
                            layout2.offset)
            key = (id(result.device), result.dtype.name, receiver.dtype.name, id(op), other.dtype.name, operands,
                   layout.shape, axis, n, tuple(norm.items()) if norm else ())
            run = _runs.get(key)
            if run is None:
                run = _built(type(self.owner), key, call, result, layout, axis, n, norm)
            if run is _CALL:  # (a factor of 1: the input is the product itself, the eager call's)
                return getattr(receiver, name)(*args).irfft_scratch(layout, axis, n)
            if run is not _NONE:
                return run([receiver, other])[0].irfft_scratch(layout, axis, n)
        return result.value().irfft(layout, axis, n, **norm)


#: what ``_runs`` keeps where the device's factor is 1 (the eager call writes the input) or
#: None (the device lays the input out itself: the result is computed, then the primitive)
_CALL, _NONE = object(), object()


def _built(graph_type, key, call, result, layout, axis, n, norm):
    """What ``Deferral.irfft`` runs for ``key``: the run of the graph (the call's node,
    then its scale by the device's factor) on the call's operands, compiled by the device
    as lazy mode compiles any graph (or ``_CALL``, ``_NONE``), kept under ``key``."""
    factor = result.device.irfft_scratch_factor(result.dtype, layout.shape, axis, n, **norm)
    name, receiver, (op, layout1, other, layout2) = call
    dtype = result.dtype
    if factor is None or factor == 1.0:
        return _kept(key, _NONE if factor is None else _CALL)
    pending = graph_type(receiver.device)  # (a graph of its own: the thread's is not touched)
    lhs, rhs = pending.tracer(receiver), pending.tracer(other)
    product = pending.add(name, layout1.shape, dtype, op, ((lhs.node.index, layout1), (rhs.node.index, layout2)), ())
    contiguous = Layout.contiguous(layout1.shape)
    made = pending.add("binary_scalar", layout1.shape, dtype, _MULTIPLY, ((product.node.index, contiguous),),
                       (factor, False))
    run = compiled(pending.graph, [made.node.index], pending.keys)
    if run.direct is not None and len(pending.graph.inputs) == 2:  # (x * x: one input, the general run)
        run = run.direct
    pending._reset()  # (out of the live graphs: it holds nothing to run)
    return _kept(key, run)


def _kept(key, run):
    with _runs_lock:
        if len(_runs) >= MAX_RUNS:
            _runs.clear()
        _runs[key] = run
    return run


def defer(pending, name, receiver, *args):
    """The result of ``name(receiver, *args)`` deferred (lazy_policy's decision for a
    ``binary`` call marked ``_DEFERS``, or a plain view's ``copy`` its count would run at once): a
    result of ``pending.lazy_type`` whose ``pending`` is a ``Deferral``, kept by
    ``pending`` (its writes, flushes and block end compute it).
    ``Pending.defer`` is this function (one frame: the decision calls it each time)."""
    if name == "copy":
        layout1, dtype = args[0], receiver.dtype
    else:
        op, layout1 = args[0], args[1]
        dtype = receiver.dtype if op.result == "same" else op.result_dtype(receiver.dtype)  # (a frame less)
    deferral = _new(Deferral)
    deferral.call, deferral.owner, deferral.lock = (name, receiver, args), pending, pending.lock
    result = _new(pending.lazy_type)
    result.graph, result.node, result.dtype, result.device = deferral, None, dtype, pending.device
    size = layout1.dense_size  # (known whole: its size, no frame)
    result.size, result.pending, result.real = size if size >= 0 else shape_size(layout1.shape), deferral, None
    # (one weak reference serves both: the deferral's to its result, and the Pending's, whose
    # callback forgets it)
    deferral.result = kept = _ref(result, pending._forget)
    lock = pending.lock
    lock.acquire()  # (acquire/release, not `with`: half the cost, on every deferred call)
    try:
        pending.kept.append(kept)
        pending.live.add(pending)
    finally:
        lock.release()
    return result
