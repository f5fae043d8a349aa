"""Lazy mode's storage (docs/fusion.md, "Lazy mode"): ``LazyStorage``, the result of a
primitive recorded in lazy mode, and ``Pending``, the graph of one thread's recorded
calls on one device, not yet run.

A ``LazyStorage`` is a ``TracedStorage`` (``fusion.trace``: the same recording of the
element-wise primitives, ``reduce`` and ``var``, with the eager calls' layouts and
scalars) of a ``Pending``'s graph, whose operands may also be real storages (they become
the graph's inputs). It computes nothing until something needs its value: any other
primitive called on it or reading it as an argument (a backend reads an argument
storage's attributes: ``__getattr__`` runs the graph and answers for the real storage),
a host read, a write (``lazy_gate.before_write``), the end of a ``lazy()`` block or the
graph reaching ``MAX_NODES``. Then ``Pending.flush`` runs the whole graph once, its
outputs being every recorded storage still referenced (the ones no array holds any more
are intermediates a fused kernel keeps in registers), and each of those storages holds
its real result from then on. Outside lazy mode a ``LazyStorage`` forwards every call to
that result.

A consumer that would only copy a pending result into a buffer of its own and then
destroy that copy (irfft) may get that copy from the graph instead: ``lazy_consume``.
"""

from __future__ import annotations

import threading
import weakref

from ..dtypes import bool_
from ..shapes import shape_size
from . import lazy_policy as _policy
from .graph import FUSED_REDUCTIONS, Graph
from .lazy_ahead import due, run_ahead
from .lazy_ahead import remember as _remember
from .lazy_consume import KeptResults, consume_irfft, may_consume
from .lazy_defer import defer
from .lazy_keys import plain
from .lazy_policy import ENDS, Start, defers, learn
from .lazy_run import compiled, node_key
from .lazy_copy import deferred_source, on_source
from .lazy_split import COPY_KINDS
from .trace import TracedStorage

__all__ = ["LIVE", "LazyStorage", "MAX_NODES", "Pending", "RECORDED"]

#: the size bound: a graph reaching this many nodes runs at once (a fused kernel's
#: source and compile time grow with it; long chains are rare in code written eagerly)
MAX_NODES = 128

#: (device -> its thread's pending graph, or None where lazy mode does not record): set by ``fusion.lazy_mode``
RECORDING = [lambda device: None]

#: the ``Pending`` graphs holding nodes or kept results (deferred calls, consumed or held
#: results), of every thread: while it is empty a write has nothing to run first (a store
#: in a loop, scikit-learn's fill_diagonal, asks each time)
LIVE: set = set()
#: the ``Pending`` graphs holding nodes, of every thread: while it is empty no operand can
#: join a graph, so a call on small computed operands runs at once (lazy_mode's operand);
#: a kept result alone (Ridge's deferred copy of X, held until ``Xc -= mean``) leaves it so
RECORDED: set = set()

_new = object.__new__
_ref = weakref.ref


class LazyStorage(TracedStorage):
    """A recorded primitive's result (or an input of the graph: ``real`` set at once)."""

    __slots__ = ("pending", "real", "__weakref__")

    def __init__(self, pending, node, real=None):
        # TracedStorage's fields, set here: one call less for each recorded call
        self.graph, self.node, self.dtype, self.device = pending.graph, node, node.dtype, pending.device
        self.size = shape_size(node.shape)
        self.pending = pending
        self.real = real

    def value(self):
        """The real storage: the graph run first if it has not run yet."""
        if self.real is None:
            self.pending.flush()
        return self.real

    def __getattr__(self, name):
        # every other primitive, and the attributes a backend reads of an argument storage
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.value(), name)

    def __repr__(self):
        state = "pending" if self.real is None else f"run: {self.real!r}"
        return f"LazyStorage({self.dtype.name}, size={self.size}, {state})"

    def to_host(self, layout):
        return self.value().to_host(layout)

    def irfft(self, layout, axis, n, **norm):
        """irfft of this result: where it is pending here, the graph may write the
        transform's private input (``lazy_consume.consume_irfft``); else the graph runs first."""
        if self.real is None:
            pending = self.pending
            if self.node is None:  # a deferred call (lazy_defer): its own consumer path
                return pending.irfft(self, layout, axis, n, norm)
            calls = pending.calls
            alone = calls[0] if len(calls) == 1 and calls[0][0] == "binary" else None  # (the graph is that call)
            if may_consume(self) and RECORDING[0](self.device) is pending:  # (below the bound no graph is looked up)
                out = consume_irfft(self, pending, layout, axis, n, norm)
            else:
                out = self.value().irfft(layout, axis, n, **norm)
            if alone is not None:  # deferred from its next call on (after what this run taught: it pays more)
                defers(self.device, alone)
            return out
        return self.value().irfft(layout, axis, n, **norm)

    # --- how a recording primitive of TracedStorage builds its node --------------------
    def _add(self, kind, shape, dtype, op=None, operands=(), attrs=()):
        return self.pending.add(kind, shape, dtype, op, operands, attrs)

    def _operand(self, storage, layout):
        if type(storage) is LazyStorage and storage.graph is self.graph:  # the common case, inline
            return (storage.node.index, layout)
        return (self.pending.index_of(storage), layout)


def _recorded(name):
    record = getattr(TracedStorage, name)

    def method(self, *args):
        pending = RECORDING[0](self.device)
        if pending is None:  # lazy mode is off here: the result's own primitive
            return getattr(self.value(), name)(*args)
        pending.calls.append((name, self.dtype, plain(name, args)))
        return record(self if self.graph is pending.graph else pending.tracer(self), *args)

    method.__name__ = method.__qualname__ = name
    return method


for _name in ("unary", "binary", "binary_as", "binary_scalar", "compare", "compare_scalar", "where", "astype",
              "copy", "affine", "clip", "var"):
    setattr(LazyStorage, _name, _recorded(_name))
del _name


def _reduce(self, op, layout, axes):
    pending = RECORDING[0](self.device)
    if pending is None or op not in FUSED_REDUCTIONS:  # argmin/argmax and the like run now
        return self.value().reduce(op, layout, axes)
    if ((self.node is None or (self.graph is pending.graph and self.node.kind in COPY_KINDS))
            and (on := on_source(self, pending, layout, False)) is not None):
        return on.reduce(op, layout, axes)
    pending.calls.append(("reduce", self.dtype, (op, layout, axes)))
    return TracedStorage.reduce(self if self.graph is pending.graph else pending.tracer(self), op, layout, axes)


def _reduce_as(self, op, layout, axes, dtype):
    pending = RECORDING[0](self.device)
    if pending is None or op not in FUSED_REDUCTIONS:
        return self.value().reduce_as(op, layout, axes, dtype)
    if ((self.node is None or (self.graph is pending.graph and self.node.kind in COPY_KINDS))
            and (on := on_source(self, pending, layout, False)) is not None):
        return on.reduce_as(op, layout, axes, dtype)
    pending.calls.append(("reduce_as", self.dtype, (op, layout, axes, dtype)))
    return TracedStorage.reduce_as(self if self.graph is pending.graph else pending.tracer(self), op, layout, axes,
                                   dtype)


LazyStorage.reduce = _reduce  # type: ignore[method-assign]
LazyStorage.reduce_as = _reduce_as  # type: ignore[method-assign]
# a copy, or a cast, of a deferred plain copy: of its source (lazy_copy), the copy deferred in turn
_recorded_astype, _recorded_copy = LazyStorage.astype, LazyStorage.copy


def _copy(self, layout):
    found = deferred_source(self, RECORDING[0], layout)
    if found is None:
        return _recorded_copy(self, layout)
    pending, source = found
    return pending.defer("copy", source, layout)


def _astype(self, layout, dtype):
    found = deferred_source(self, RECORDING[0], layout)
    if found is None:
        return _recorded_astype(self, layout, dtype)
    pending, source = found
    if dtype == self.dtype:
        return pending.defer("copy", source, layout)
    return Start(pending, source).astype(layout, dtype)


LazyStorage.copy = _copy  # type: ignore[method-assign]
LazyStorage.astype = _astype  # type: ignore[method-assign]


# The most frequent calls recorded, written out: TracedStorage's recording with the
# operands' nodes found inline (a call less per operand, ~1 us of the ~7 a recorded call
# costs; a loop written eagerly records one per element-wise call on every iteration)
def _two(kind):
    def method(self, op, lhs_layout, rhs, rhs_layout):
        pending = RECORDING[0](self.device)
        if pending is None:
            return getattr(self.value(), kind)(op, lhs_layout, rhs, rhs_layout)
        graph = pending.graph
        if ((self.node is None or (self.graph is graph and self.node.kind in COPY_KINDS))
                and (on := on_source(self, pending, lhs_layout)) is not None):
            return getattr(on, kind)(op, lhs_layout, rhs, rhs_layout)
        pending.calls.append((kind, self.dtype, (op, lhs_layout, rhs.dtype, rhs_layout)))
        lhs = self if self.graph is graph else pending.tracer(self)
        if type(rhs) is not LazyStorage or rhs.graph is not graph:
            rhs = pending.tracer(rhs)
        dtype = op.result_dtype(lhs.dtype) if kind == "binary" else bool_
        return pending.add(kind, lhs_layout.shape, dtype, op, ((lhs.node.index, lhs_layout), (rhs.node.index, rhs_layout)),
                           (), True)

    method.__name__ = method.__qualname__ = kind
    return method


def _unary(self, op, layout):
    pending = RECORDING[0](self.device)
    if pending is None:
        return self.value().unary(op, layout)
    pending.calls.append(("unary", self.dtype, (op, layout)))
    x = self if self.graph is pending.graph else pending.tracer(self)
    return pending.add("unary", layout.shape, op.result_dtype(x.dtype), op, ((x.node.index, layout),), (), True)


def _binary_scalar(self, op, layout, scalar, reflected):
    pending = RECORDING[0](self.device)
    if pending is None:
        return self.value().binary_scalar(op, layout, scalar, reflected)
    if ((self.node is None or (self.graph is pending.graph and self.node.kind in COPY_KINDS))
            and (on := on_source(self, pending, layout)) is not None):
        return on.binary_scalar(op, layout, scalar, reflected)
    pending.calls.append(("binary_scalar", self.dtype, (op, layout, scalar, reflected)))
    x = self if self.graph is pending.graph else pending.tracer(self)
    return pending.add("binary_scalar", layout.shape, op.result_dtype(x.dtype), op, ((x.node.index, layout),),
                       (scalar, bool(reflected)), True)


LazyStorage.binary = _two("binary")  # type: ignore[method-assign]
LazyStorage.compare = _two("compare")  # type: ignore[method-assign]
LazyStorage.unary = _unary  # type: ignore[method-assign]
LazyStorage.binary_scalar = _binary_scalar  # type: ignore[method-assign]


class Pending(KeptResults):
    """One thread's recorded calls on ``device``: a graph, the real storages of its
    inputs, and each recorded result's storage (weakly: a result nothing holds any more
    is not computed into memory)."""

    lazy_type = LazyStorage  # (for lazy_policy.Start, which this module imports)
    live = LIVE  # (for KeptResults, which this module imports)

    def __init__(self, device):
        self.device = device
        self.lock = threading.RLock()  # another thread may need one of these values
        self.kept = []  # weak references to results consumed (``consume``), still pending
        self._reset()

    def _reset(self):
        LIVE.discard(self)
        RECORDED.discard(self)
        self.graph = Graph(self.device)
        self.results = []  # a weak reference to each recorded result's LazyStorage
        self.inputs = {}  # id(real storage) -> its input node's LazyStorage
        self.storages = []  # the inputs' real storages, in graph.inputs order (kept alive)
        self.keys = []  # lazy_run.node_key of each node, made as it is recorded
        self.calls = []  # (primitive, dtype, lazy_keys.plain arguments) of each recorded call
        self.made = {}  # node index -> the index in ``calls`` of the call that recorded it
        self.probing = False  # a call was recorded as a probe (lazy_policy.PROBE; ``lazy_copy.on_source``)

    def add(self, kind, shape, dtype, op, operands, attrs, ahead=False):
        """Record a node; its LazyStorage. ``ahead``: the node is the whole of its call
        (no caller holds this graph's node indices past it), so the graph may run ahead
        of its consumer here (``lazy_ahead``)."""
        with self.lock:
            graph = self.graph
            if not graph.nodes:
                LIVE.add(self)
                RECORDED.add(self)
            node = graph.add(kind, shape, dtype, op, operands, attrs)
            self.keys.append(node_key(node))
            self.made[node.index] = len(self.calls) - 1  # (its call was listed just before)
            result = _new(LazyStorage)  # (LazyStorage.__init__'s fields, set here: a call less per recorded call)
            result.graph, result.node, result.dtype, result.device = graph, node, dtype, self.device
            result.size, result.pending, result.real = shape_size(node.shape), self, None
            self.results.append(_ref(result))
            if len(graph.nodes) >= MAX_NODES:
                self.flush(remember=False)
            elif ahead and ENDS and not self.probing and (nodes := due(self)) is not None:
                # where this graph ran last time; not a probe's, which asks what follows
                # (lazy_policy.PROBE: Ridge's copy and subtraction ran ahead, alone, where
                # StandardScaler's division follows them)
                run_ahead(self, nodes)
            return result

    def tracer(self, storage):
        """The LazyStorage standing for ``storage`` (recorded here, or a real storage, or
        one recorded in a graph that has run) in this graph."""
        if type(storage) is LazyStorage:
            if storage.graph is self.graph:
                return storage
            storage = storage.value()
        found = self.inputs.get(id(storage))
        if found is not None and found.graph is self.graph:  # read twice in one graph (x * x)
            return found
        with self.lock:
            found = self.inputs.get(id(storage))
            if found is None:
                graph = self.graph
                position = len(graph.inputs)
                size, dtype = storage.size, storage.dtype
                if not graph.nodes:
                    LIVE.add(self)
                    RECORDED.add(self)
                node = graph.add("input", (size,), dtype, attrs=(position,))
                graph.inputs.append(node.index)
                # node_key(node), written out: every real operand of a recorded call is one
                self.keys.append(("input", (size,), dtype.name, None, (), ((int, position),)))
                self.storages.append(storage)
                found = _new(LazyStorage)
                found.graph, found.node, found.dtype, found.device = graph, node, dtype, self.device
                found.size, found.pending, found.real = size, self, storage
                self.inputs[id(storage)] = found
            return found

    #: ``name(receiver, *args)`` deferred (lazy_policy's decision: ``lazy_defer``)
    defer = defer

    def index_of(self, storage):
        return self.tracer(storage).node.index

    def flush(self, remember=True):
        """Run the graph: every recorded result still referenced gets its real storage (the
        consumed ones' too, ``kept``); ``remember``: on a fusing device, a later recording
        that reaches the same nodes runs them at once (``lazy_ahead``; not remembered for
        a graph cut at ``MAX_NODES``)."""
        if self.kept:
            self._run_kept()
        if not self.graph.nodes:  # nothing recorded: every write in lazy mode asks (x[i] = v in a loop)
            return
        with self.lock:
            wanted = self.unrun()
            if wanted:
                if remember:
                    _remember(self, wanted)
                self._run(wanted, learn)
            self._reset()

    def _run(self, wanted, lesson, made=None):
        """Run the graph for the results ``wanted`` (each but ``made`` gets its real
        storage); ``lesson(run, device, calls, made)``: what lazy_policy learns of a fusing run.
        Returns the outputs, in ``wanted``'s order."""
        run = compiled(self.graph, [s.node.index for s in wanted], self.keys)
        outs = run(self.storages)
        if run.fused:
            _policy.fused()  # (the lazy() statement running it records: _native_lazy_sites.c)
        if run.fusing and run.pinned != _policy.recounts:  # (unmarked, or marked before a recount)
            lesson(run, self.device, self.calls, self.made)
        for storage, out in zip(wanted, outs):
            if storage is not made:
                storage.real = out
                storage.graph = None  # (the graph holds every input: let it go)
        return outs
