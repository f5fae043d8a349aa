"""Running a traced graph on a device without the ``fusion`` capability: the recorded
primitive calls are made again, in order, on real storages, with the recorded layouts and
scalars. These are the very calls the eager path makes, so the results are the eager ones
bit for bit; only the front end's Python work (promotion, broadcasting, checks) is
skipped after the first call."""

from __future__ import annotations

from .graph import SCALAR_ATTRS, Param

__all__ = ["replay", "replayer"]


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
    raise AssertionError(f"unknown node kind {kind!r}")  # the tracer records no other kind


def replayer(graph):
    """``run(storages, scalars=()) -> output storages`` replaying ``graph``: the argument
    storages in the order of ``graph.inputs``, the values of its float parameters. Each
    intermediate is let go after its last use, as the eager path's temporaries are."""
    device = graph.device
    outputs = [index for index, _ in graph.outputs]
    last_use = {}
    for n in graph.nodes:
        for src, _ in n.operands:
            last_use[src] = n.index
    for index in outputs:
        last_use[index] = len(graph.nodes)  # never let go
    steps = [(n.index, _step(n, device, graph.consts), tuple({src for src, _ in n.operands
                                                              if last_use[src] == n.index}))
             for n in graph.nodes if n.kind != "input"]
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
