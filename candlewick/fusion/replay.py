"""Running a traced graph on a device without the ``fusion`` capability: the recorded
primitive calls are made again, in order, on real storages, with the recorded layouts and
scalars. These are the very calls the eager path makes, so the results are the eager ones
bit for bit; only the front end's Python work (promotion, broadcasting, checks) is
skipped after the first call."""

from __future__ import annotations

from .graph import SCALAR_ATTRS, Param

__all__ = ["replay"]


def _scalars(attrs, scalars):
    return tuple(a.resolve(scalars) if isinstance(a, Param) else a for a in attrs)


def replay(graph, storages, scalars=()):
    """The output storages of ``graph`` (one per output, in order) for the argument
    storages ``storages`` (in the order of ``graph.inputs``) and the values of its float
    parameters ``scalars`` (``graph.params`` of them)."""
    values = {}
    device = graph.device
    for position, index in enumerate(graph.inputs):
        values[index] = storages[position]
    for node in graph.nodes:
        kind = node.kind
        if kind == "input":
            continue
        if kind == "const":
            values[node.index] = graph.consts[node.attrs[0]]
            continue
        attrs = _scalars(node.attrs, scalars) if kind in SCALAR_ATTRS else node.attrs
        if kind == "full":
            values[node.index] = device.full(node.shape, node.dtype, attrs[0])
            continue
        ops = [(values[src], layout) for src, layout in node.operands]
        (x, xl) = ops[0]
        if kind == "unary":
            out = x.unary(node.op, xl)
        elif kind == "binary":
            out = x.binary(node.op, xl, ops[1][0], ops[1][1])
        elif kind == "binary_scalar":
            out = x.binary_scalar(node.op, xl, attrs[0], attrs[1])
        elif kind == "compare":
            out = x.compare(node.op, xl, ops[1][0], ops[1][1])
        elif kind == "where":
            out = x.where(xl, ops[1][0], ops[1][1], ops[2][0], ops[2][1])
        elif kind == "astype":
            out = x.astype(xl, node.dtype)
        elif kind == "copy":
            out = x.copy(xl)
        elif kind == "affine":
            out = x.affine(xl, *attrs)
        elif kind == "clip":
            out = x.clip(xl, *attrs)
        elif kind == "reduce":
            out = x.reduce(node.op, xl, node.attrs)
        else:  # the tracer records no other kind
            raise AssertionError(f"unknown node kind {kind!r}")
        values[node.index] = out
    return [values[index] for index, _ in graph.outputs]
