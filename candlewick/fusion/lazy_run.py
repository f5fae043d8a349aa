"""How lazy mode runs a pending graph: cut to the results wanted, compiled by the device
when it declares the ``fusion`` capability (else replayed; a graph of one primitive call
is replayed too: nothing fuses; a graph the device has no kernels for is split,
``lazy_split``), and kept by the graph's structure, so that a loop
running the same code runs the same compiled graph.

The key is the graph's every node (kind, shape, dtype, op, the operands' nodes and
layouts, the attributes with their scalars' exact values) and the results wanted: two
graphs with one key are the same computation on other input storages.
"""

from __future__ import annotations

import dataclasses
import threading
from collections import OrderedDict

from ..layout import Layout
from .graph import Graph
from .lazy_split import split
from .replay import replayer

__all__ = ["attr_key", "compiled", "node_key"]

#: compiled graphs kept (least recently used dropped first)
MAX_GRAPHS = 256

_cache: OrderedDict = OrderedDict()
#: how many graphs looked up with their node keys are kept for a comparison before the
#: hashed lookup: a loop runs a few graphs in turn (the KMeans-like loop of
#: bench/pydata_e2e.py, three an iteration; StandardScaler's fit_transform twelve), and
#: two lists of node keys of other lengths differ at once
RECENT = 16
#: ((device, wanted, node keys, run), ...) of the graphs last looked up with their node keys
#: (copies of the caller's lists), the latest first; one tuple, replaced whole, so a
#: thread reads a consistent one
_last: list = [()]
_lock = threading.Lock()


_SCALARS = (bool, int, float, complex)


def attr_key(value):
    # the type keeps 1, 1.0 and True apart; a float's value is its key but for zeros and
    # NaN, whose repr keeps 0.0 and -0.0 apart and makes NaN equal to itself (repr is
    # slow: a loop records these keys on every call)
    kind = type(value)
    if kind is float:
        return (kind, value) if value == value and value != 0.0 else (kind, repr(value))
    if kind is int or kind is bool:
        return (kind, value)
    return (kind.__name__, repr(value)) if isinstance(value, _SCALARS) else value


def node_key(node):
    """The part of a graph's key that ``node`` makes (``Pending`` builds it as each node
    is recorded, so that running a graph does not walk it again to find its key)."""
    operands, attrs = node.operands, node.attrs
    return (node.kind, node.shape, node.dtype.name, node.op,
            tuple([(src, lay.shape, lay.strides, lay.offset) for src, lay in operands]) if operands else (),
            tuple([attr_key(a) for a in attrs]) if attrs else ())


def _key(graph, wanted, node_keys=None):
    nodes = tuple(node_keys) if node_keys is not None else tuple([node_key(n) for n in graph.nodes])
    return graph.device, nodes, tuple(wanted)


def _cut(graph, wanted):
    """(the graph of the nodes ``wanted`` depends on, renumbered, with those as outputs;
    each of its inputs' position among ``graph``'s inputs; each of its nodes' index in
    ``graph``)."""
    needed = set(wanted)
    for n in reversed(graph.nodes):
        if n.index in needed:
            needed.update(src for src, _ in n.operands)
    cut = Graph(graph.device)
    new = {}
    positions = []
    for n in graph.nodes:
        if n.index not in needed:
            continue
        new[n.index] = len(cut.nodes)
        operands = tuple((new[src], lay) for src, lay in n.operands)
        attrs = n.attrs
        if n.kind == "input":
            positions.append(n.attrs[0])
            attrs = (len(cut.inputs),)
            cut.inputs.append(len(cut.nodes))
        cut.nodes.append(dataclasses.replace(n, index=len(cut.nodes), operands=operands, attrs=attrs))
    cut.outputs = [(new[i], Layout.contiguous(graph.nodes[i].shape)) for i in wanted]
    return cut, positions, sorted(new)


def compiled(graph, wanted, node_keys=None):
    """``run(input storages) -> [storage of each node of wanted]`` for ``graph``;
    ``node_keys``: ``node_key`` of each of its nodes, where the caller has them."""
    if node_keys is not None:
        device = graph.device
        for last in _last[0]:  # a loop running its graphs again: compared, not hashed and looked up
            if last[2] == node_keys and last[1] == wanted and last[0] is device:
                return last[3]
    key = _key(graph, wanted, node_keys)
    with _lock:
        run = _cache.get(key)
        if run is not None:
            _cache.move_to_end(key)
            if node_keys is not None:
                _remember(graph.device, wanted, node_keys, run)
            return run
    cut, positions, origin = _cut(graph, wanted)
    device = graph.device
    # one primitive call (x * y consumed at once): nothing to fuse, and the eager call
    # (replayed) is what eager mode runs, with no kernel of its own to compile
    single = sum(1 for n in cut.nodes if n.kind != "input") <= 1
    fused = device.compile_fused(cut) if "fusion" in device.capabilities and not single else None
    replayed = frozenset()  # (the nodes a split run replays)
    if fused is None and "fusion" in device.capabilities and not single:
        parts = split(cut, _cut)  # its reductions replayed, the rest compiled (a column mean, then X - mean)
        if parts is not None:
            fused, replayed = parts[0], frozenset(origin[i] for i in parts[1])
    inner = fused if fused is not None else replayer(cut)

    def run(storages):
        return inner([storages[p] for p in positions])

    # the compiled run itself where the cut reads every input of the graph in its order: a
    # caller passing exactly those saves the list above (lazy_defer's run, once a call)
    run.direct = inner if positions == list(range(len(graph.inputs))) else None

    # what lazy_policy learns from a run: whether the device fuses and compiled it, and
    # which of the graph's nodes a split run replays
    run.fusing = "fusion" in device.capabilities
    run.fused = fused is not None
    run.replayed = replayed
    run.pinned = False

    with _lock:
        _cache[key] = run
        while len(_cache) > MAX_GRAPHS:
            _cache.popitem(last=False)
    if node_keys is not None:
        _remember(graph.device, wanted, node_keys, run)
    return run


def _remember(device, wanted, node_keys, run):
    _last[0] = ((device, list(wanted), list(node_keys), run),) + _last[0][:RECENT - 1]
