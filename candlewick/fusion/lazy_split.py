"""A pending graph the device compiles no kernels for, split in two (docs/fusion.md, "Lazy
mode"): its reductions and what they read, replayed (the eager calls), and the rest,
compiled with the reductions' results as inputs.

A device's fused code may have no plan for a reduction (the ROCm generator's column
reductions over many rows: the eager kernels spread one output over many blocks), and
one such reduction used to send its whole graph to the replay. PCA's ``mean =
sum(X, axis=0) / n; Xc = asarray(X, copy=True); Xc -= mean`` is one graph in lazy mode
(the mean is still pending when the copy is recorded): split, the sum is the eager
call and the copy, the division and the update run as one kernel, reading X once
instead of three passes over it.

A node that reads a copy reads the copy's source instead (``_past_copies``), where both
views are the plain C-contiguous one (the eager call then reads the very bytes in the
very order), and a copy no one reads any more is left out: Ridge's ``Xc = asarray(X,
copy=True); mean = mean(astype(Xc, float32), axis=0); Xc -= mean`` (scikit-learn's
``_average`` copies again) would otherwise replay both copies with the sum. Split, the
sum reads X and ``X - sum / n`` is one kernel: three passes over X's bytes where eager
mode makes seven.
"""

from __future__ import annotations

import dataclasses

from ..layout import Layout
from ..shapes import shape_size
from .graph import Graph
from .replay import replayer

__all__ = ["COPY_KINDS", "copied_input", "split"]

#: the kinds of node that may copy their operand: a ``copy``, or an ``astype`` to the
#: operand's own dtype (``_copies``)
COPY_KINDS = frozenset({"copy", "astype"})


def split(graph, cut):
    """``(run, replayed)`` for ``graph`` (a pending graph cut to its outputs, whose own
    compile returned None): ``run(storages) -> [storage of each output]`` replaying its
    reductions and what they read (the indices ``replayed``) and running the rest
    compiled; None where the rest would be fewer than two calls (nothing to fuse) or the
    device compiles that part neither. ``cut(graph, wanted)``: lazy_run's cut (the
    sub-graph that computes ``wanted``, its inputs' positions, its nodes' indices here)."""
    graph = _past_copies(graph)
    nodes = graph.nodes
    outputs = [index for index, _ in graph.outputs]
    live = set(outputs)  # (a copy read only through its source now is left out)
    for n in reversed(nodes):
        if n.index in live:
            live.update(src for src, _ in n.operands)
    replayed = set()  # the reductions and every node they read
    for n in reversed(nodes):
        if n.index in live and (n.kind == "reduce" or n.index in replayed):
            replayed.add(n.index)
            replayed.update(src for src, _ in n.operands)
    rest = [n for n in nodes if n.index in live and n.index not in replayed]
    if sum(1 for n in rest if n.kind != "input") < 2 or any(n.kind == "const" for n in nodes):
        return None
    compiled = Graph(graph.device)
    new = {}
    sources = []  # per input of the compiled part: ("input", position) or ("replayed", node index)
    handed = []  # the replayed part's outputs, in order
    for n in rest:
        if n.kind == "input":
            continue
        operands = []
        for src, layout in n.operands:
            if src not in new:
                node = nodes[src]
                if node.kind == "input":
                    sources.append(("input", node.attrs[0]))
                else:
                    sources.append(("replayed", len(handed)))
                    handed.append(src)
                new[src] = compiled.add("input", (shape_size(node.shape),), node.dtype,
                                        attrs=(len(compiled.inputs),)).index
                compiled.inputs.append(new[src])
            operands.append((new[src], layout))
        new[n.index] = compiled.add(n.kind, n.shape, n.dtype, n.op, operands, n.attrs).index
    compiled.outputs = [(new[i], Layout.contiguous(nodes[i].shape)) for i in outputs if i not in replayed]
    fused = graph.device.compile_fused(compiled)
    if fused is None:
        return None
    wanted_replayed = [i for i in outputs if i in replayed and i not in handed]
    first, positions, _ = cut(graph, handed + wanted_replayed)
    replay = replayer(first)
    where = {i: ("replayed", k) for k, i in enumerate(handed + wanted_replayed)}
    where.update((i, ("compiled", k)) for k, i in enumerate(i for i in outputs if i not in replayed))
    picks = [where[i] for i in outputs]

    def run(storages):
        made = replay([storages[p] for p in positions])
        done = fused([storages[k] if kind == "input" else made[k] for kind, k in sources])
        return [made[k] if part == "replayed" else done[k] for part, k in picks]

    return run, frozenset(i for i in replayed if nodes[i].kind != "input")


def _past_copies(graph):
    """``graph`` with each operand read through a copy's plain view reading the copy's own
    operand instead, where that is read through its plain view too (the same elements in
    the same order: the bytes the eager call reads); a copy is a ``copy`` node or an
    ``astype`` to its operand's own dtype. ``graph`` itself where there is none."""
    nodes = graph.nodes
    changed = None
    for n in nodes:
        if not n.operands:
            continue
        operands = list(n.operands)
        for k, (src, layout) in enumerate(operands):
            operands[k] = _through_copies(nodes, src, layout)
        if any(new[0] != old[0] for new, old in zip(operands, n.operands)):
            if changed is None:
                changed = list(nodes)
            changed[n.index] = dataclasses.replace(n, operands=tuple(operands))
    if changed is None:
        return graph
    return Graph(graph.device, changed, graph.inputs, graph.consts, graph.outputs, graph.params)


def copied_input(storage, layout):
    """The real storage that ``storage`` (a pending result read through ``layout``) copies,
    where it is a chain of copies of a graph input each read through its plain view, and
    ``layout`` is the plain view too (the same elements in the same order: the bytes an
    eager call on the copy reads); else None. Ridge's and PCA's column mean of their copy
    of X then reads X, as a split run would (``_past_copies``), but as the call itself.
    A deferred copy (lazy_defer) of a real storage's plain view copies that storage."""
    node, graph = storage.node, storage.graph
    pending = storage.pending
    if node is None:  # deferred (lazy_defer): a copy of a real storage through its plain view
        call = pending.call
        if call is None or call[0] != "copy":
            return None
        # (the copied view is plain: only such a copy is deferred, lazy_policy's decision
        # or lazy_storage's copy of a deferred one read plainly)
        return call[1] if _plain(layout, call[2][0].shape) else None
    if pending.graph is not graph:
        return None
    nodes = graph.nodes
    src, _ = _through_copies(nodes, node.index, layout)
    if src == node.index or nodes[src].kind != "input":  # (no copy read past, or not to an input)
        return None
    return pending.storages[nodes[src].attrs[0]]


def _through_copies(nodes, src, layout):
    """(node, layout) that reading node ``src`` through ``layout`` reads, past each copy
    read through its plain view whose own operand is read through its plain view too."""
    while _copies(nodes[src], nodes) and _plain(layout, nodes[src].shape):
        source, source_layout = nodes[src].operands[0]
        if not _plain(source_layout, nodes[src].shape):
            break
        src, layout = source, source_layout
    return src, layout


def _copies(node, nodes):
    return (node.kind in COPY_KINDS and len(node.operands) == 1
            and (node.kind == "copy" or nodes[node.operands[0][0]].dtype == node.dtype))


def _plain(layout, shape):
    # (dense_size, set where the layout is known offset-0 and C-contiguous, else
    # is_contiguous, kept by the layout once found: a size-1 axis's stride, which steps
    # nowhere, may be anything, as a view's indexing leaves it)
    return layout.shape == tuple(shape) and (layout.dense_size >= 0 or (not layout.offset and layout.is_contiguous))
