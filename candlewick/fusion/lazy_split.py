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
"""

from __future__ import annotations

from ..layout import Layout
from ..shapes import shape_size
from .graph import Graph
from .replay import replayer

__all__ = ["split"]


def split(graph, cut):
    """``(run, replayed)`` for ``graph`` (a pending graph cut to its outputs, whose own
    compile returned None): ``run(storages) -> [storage of each output]`` replaying its
    reductions and what they read (the indices ``replayed``) and running the rest
    compiled; None where the rest would be fewer than two calls (nothing to fuse) or the
    device compiles that part neither. ``cut(graph, wanted)``: lazy_run's cut (the
    sub-graph that computes ``wanted``, its inputs' positions, its nodes' indices here)."""
    nodes = graph.nodes
    outputs = [index for index, _ in graph.outputs]
    replayed = set()  # the reductions and every node they read
    for n in reversed(nodes):
        if n.kind == "reduce" or n.index in replayed:
            replayed.add(n.index)
            replayed.update(src for src, _ in n.operands)
    rest = [n for n in nodes if n.index not in replayed]
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
