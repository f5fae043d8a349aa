"""Running a traced graph on a device without the ``fusion`` capability: the recorded
primitive calls are made again, in order, on real storages, with the recorded layouts and
scalars. These are the very calls the eager path makes, so the results are the eager ones
bit for bit; only the front end's Python work (promotion, broadcasting, checks) is
skipped after the first call."""

from __future__ import annotations

import dataclasses

from ..dtypes import bfloat16, float16
from ..opdefs import ReduceOp
from .graph import SCALAR_ATTRS, Param

__all__ = ["replay", "replayer"]

#: the optional group whose ``reduce_as`` sums or multiplies into a dtype as it reads
#: (``statistical.REDUCE_DTYPE``; not imported: fusion sits below the namespace's modules)
_REDUCE_DTYPE = "reduce_dtype"
_AS_READ = (ReduceOp.SUM, ReduceOp.PROD)


def _scalars(attrs, scalars):
    return tuple(a.resolve(scalars) if isinstance(a, Param) else a for a in attrs)


def _step(node, device, consts):
    """``fn(values, scalars) -> storage`` making node ``node``'s primitive call."""
    kind, op, ops = node.kind, node.op, node.operands
    attrs = node.attrs
    params = kind in SCALAR_ATTRS and any(isinstance(a, Param) for a in attrs)
    if kind == "const":
        storage = consts[attrs[0]]
        return lambda v, s: storage
    if kind == "full":
        shape, dtype = node.shape, node.dtype
        if params:
            return lambda v, s: device.full(shape, dtype, attrs[0].resolve(s))
        return lambda v, s: device.full(shape, dtype, attrs[0])
    (x, xl) = ops[0]
    if kind == "unary":
        return lambda v, s: v[x].unary(op, xl)
    if kind in ("binary", "compare"):
        (y, yl) = ops[1]
        if kind == "binary":
            return lambda v, s: v[x].binary(op, xl, v[y], yl)
        return lambda v, s: v[x].compare(op, xl, v[y], yl)
    if kind == "binary_scalar":
        scalar, reflected = attrs
        if params:
            return lambda v, s: v[x].binary_scalar(op, xl, scalar.resolve(s), reflected)
        return lambda v, s: v[x].binary_scalar(op, xl, scalar, reflected)
    if kind == "where":
        (y, yl), (z, zl) = ops[1], ops[2]
        return lambda v, s: v[x].where(xl, v[y], yl, v[z], zl)
    if kind == "astype":
        dtype = node.dtype
        return lambda v, s: v[x].astype(xl, dtype)
    if kind == "copy":
        return lambda v, s: v[x].copy(xl)
    if kind in ("affine", "clip"):
        method = "affine" if kind == "affine" else "clip"
        return lambda v, s: getattr(v[x], method)(xl, *_scalars(attrs, s))
    if kind == "reduce":
        return lambda v, s: v[x].reduce(op, xl, attrs)
    if kind == "reduce_as":  # an astype read by its reduction only (see ``_read_converted``)
        dtype = node.dtype
        return lambda v, s: v[x].reduce_as(op, xl, attrs, dtype)
    raise AssertionError(f"unknown node kind {kind!r}")  # the tracer records no other kind


def _read_converted(graph, outputs):
    """``graph``'s nodes, each sum or product of an ``astype`` that nothing else reads
    made one ``reduce_as`` node of the astype's operand, where the device sums into a dtype
    as it reads (the optional group "reduce_dtype"): the tracer records the eager
    ``reduce_as`` as those two steps (a fused kernel converts as it reads either way), and
    replayed as two calls they would be a converted copy and a pass over it more than the
    eager call. Folded astype nodes are left out (None)."""
    if _REDUCE_DTYPE not in graph.device.capabilities:
        return list(graph.nodes)
    nodes = list(graph.nodes)
    readers = {}
    for n in nodes:
        for src, _ in n.operands:
            readers[src] = readers.get(src, 0) + 1
    kept = set(outputs)
    for n in graph.nodes:
        if n.kind != "reduce" or n.op not in _AS_READ or n.dtype in (float16, bfloat16):
            continue
        (src, layout), = n.operands
        cast = nodes[src]
        if (cast is None or cast.kind != "astype" or readers[src] != 1 or src in kept or layout.offset
                or cast.dtype is not n.dtype or not layout.is_contiguous or layout.shape != cast.shape):
            continue
        (origin, origin_layout), = cast.operands
        if graph.nodes[origin].dtype is cast.dtype or (graph.nodes[origin].dtype.is_complex
                                                      and not cast.dtype.is_complex):
            continue
        nodes[n.index] = dataclasses.replace(n, kind="reduce_as", operands=((origin, origin_layout),))
        nodes[src] = None
    return nodes


def replayer(graph):
    """``run(storages, scalars=()) -> output storages`` replaying ``graph``: the argument
    storages in the order of ``graph.inputs``, the values of its float parameters. Each
    intermediate is let go after its last use, as the eager path's temporaries are."""
    device = graph.device
    outputs = [index for index, _ in graph.outputs]
    nodes = [n for n in _read_converted(graph, outputs) if n is not None]
    last_use = {}
    for n in nodes:
        for src, _ in n.operands:
            last_use[src] = n.index
    for index in outputs:
        last_use[index] = len(graph.nodes)  # never let go
    steps = [(n.index, _step(n, device, graph.consts), tuple({src for src, _ in n.operands
                                                              if last_use[src] == n.index}))
             for n in nodes if n.kind != "input"]
    inputs = list(graph.inputs)

    def run(storages, scalars=()):
        values = dict(zip(inputs, storages))
        for index, fn, done in steps:
            values[index] = fn(values, scalars)
            for src in done:
                del values[src]
        return [values[index] for index in outputs]

    return run


def replay(graph, storages, scalars=()):
    """The output storages of ``graph`` (one per output, in order) for the argument
    storages ``storages`` and the values of its float parameters ``scalars``."""
    return replayer(graph)(storages, scalars)
