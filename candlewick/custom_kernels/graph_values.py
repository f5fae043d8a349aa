"""The values of a C-subset body lowered into a fusion graph: ``Val`` (a graph node seen
over the iteration shape, with its C type), ``Var`` (a variable of the body), and
``Builder``, which adds the nodes of one shape to a ``candlewick.fusion.Graph``."""

from __future__ import annotations

from collections import namedtuple

from .. import dtypes as _dt
from ..layout import Layout
from ..opdefs import ReduceOp

__all__ = ["Builder", "Val", "Var"]

#: a value: ``ref`` = (graph node index, layout over the builder's shape); its C type
Val = namedtuple("Val", "ref dtype")
#: a variable: kind "in" / "const" (read-only), "out" / "local"; value a Val, None (not
#: given one yet) or a zero-argument function making it on first read
Var = namedtuple("Var", "kind dtype value")


class Builder:
    """Graph nodes over one shape (``shape``) of ``graph``."""

    def __init__(self, graph, shape):
        self.graph, self.shape = graph, tuple(shape)
        self.layout = Layout.contiguous(self.shape)
        self.spread = Layout(self.shape, (0,) * len(self.shape), 0)  # a 0-d node over the shape
        self._fulls = {}

    def node(self, kind, dtype, op=None, operands=(), attrs=()):
        node = self.graph.add(kind, self.shape, dtype, op, operands, attrs)
        return Val((node.index, self.layout), dtype)

    def full(self, value, dtype):
        key = (repr(value), dtype.name)
        got = self._fulls.get(key)
        if got is None:
            node = self.graph.add("full", (), dtype, attrs=(value,))
            got = self._fulls[key] = Val((node.index, self.spread), dtype)
        return got

    def input(self, position, storage, layout, dtype):
        """An argument's storage (graph input ``position``) seen through ``layout``."""
        node = self.graph.add("input", (storage.size,), storage.dtype, attrs=(position,))
        self.graph.inputs.append(node.index)
        return Val((node.index, layout), dtype)

    def const(self, storage, layout):
        graph = self.graph
        graph.consts.append(storage)
        node = graph.add("const", (storage.size,), storage.dtype, attrs=(len(graph.consts) - 1,))
        return Val((node.index, layout), storage.dtype)

    def unary(self, op, x):
        return self.node("unary", op.result_dtype(x.dtype), op, [x.ref])

    def binary(self, op, x, y):
        return self.node("binary", op.result_dtype(x.dtype), op, [x.ref, y.ref])

    def compare(self, op, x, y):
        return self.node("compare", _dt.bool_, op, [x.ref, y.ref])

    def where(self, c, x, y):
        return self.node("where", x.dtype, None, [c.ref, x.ref, y.ref])

    def astype(self, x, dtype):
        return x if x.dtype is dtype else self.node("astype", dtype, None, [x.ref])

    def copy(self, x):
        return self.node("copy", x.dtype, None, [x.ref])

    def reduce(self, op, x, axes, kept):
        """``op`` of ``x`` over ``axes`` (a node of the kept builder ``kept``'s shape)."""
        dtype = _dt.bool_ if op in (ReduceOp.ANY, ReduceOp.ALL) else x.dtype
        node = self.graph.add("reduce", kept.shape, dtype, op, [x.ref], tuple(axes))
        return Val((node.index, kept.layout), dtype)
