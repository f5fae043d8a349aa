"""The traced graph of a fused function: the storage primitives it called, in order.

A node is one primitive call (or an input, or a constant). Each operand of a node is a
pair ``(node index, Layout)``: the layout views the operand node's flat buffer exactly as
the primitive was given it (broadcast strides of 0, transposes, slices), so a backend that
compiles the graph reads each operand the way the eager call would have, and the replay
(``fusion.replay``) makes the very same calls. Computed nodes own a C-contiguous buffer of
their ``shape``; an input node's buffer is the argument's storage (its layout is the
argument's own, strides and offset included).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..opdefs import Param, ReduceOp

__all__ = ["ELEMENTWISE_KINDS", "FUSED_REDUCTIONS", "Graph", "Node", "Param", "REDUCE_OPS", "SCALAR_ATTRS"]

#: node kinds computed element by element (a backend may inline them into a consumer)
ELEMENTWISE_KINDS = frozenset({"unary", "binary", "binary_scalar", "compare", "where", "astype",
                               "copy", "affine", "clip", "full"})
#: ReduceOp values a fused graph may hold (argmin/argmax give indices: not fused)
REDUCE_OPS = frozenset({"sum", "prod", "min", "max", "any", "all"})
#: the ReduceOps of REDUCE_OPS (a tuple: membership by identity, no enum ``.value`` per call)
FUSED_REDUCTIONS = tuple(op for op in ReduceOp if op.value in REDUCE_OPS)
#: node kind -> positions in ``attrs`` that hold a scalar operand (possibly a ``Param``)
SCALAR_ATTRS = {"binary_scalar": (0,), "full": (0,), "affine": (0, 1), "clip": (0, 1)}


_new = object.__new__


@dataclass(frozen=True)
class Node:
    """One step of the graph.

    kind: ``input`` (attrs: argument position), ``const`` (attrs: index into
    ``Graph.consts``), ``full`` (attrs: the value; a creation of the device), or a
    primitive: ``unary``/``binary``/``compare`` (op), ``binary_scalar`` (attrs: scalar,
    reflected), ``where``, ``astype``, ``copy``, ``affine`` (attrs: mul, add), ``clip``
    (attrs: lo, hi), ``reduce`` (op; attrs: the reduced axes of the operand's layout).
    """

    index: int
    kind: str
    shape: tuple
    dtype: object
    op: object = None
    operands: tuple = ()
    attrs: tuple = ()

    @property
    def is_elementwise(self):
        return self.kind in ELEMENTWISE_KINDS


@dataclass
class Graph:
    """Nodes in call order (an operand always comes before its user), the argument
    positions of the input nodes, the constants captured while tracing, and the outputs
    as ``(node index, Layout)`` (a returned array may be a view of a node)."""

    device: object
    nodes: list = field(default_factory=list)
    inputs: list = field(default_factory=list)
    consts: list = field(default_factory=list)
    outputs: list = field(default_factory=list)
    params: int = 0  # how many float arguments the scalar operands may name (``Param``)

    def add(self, kind, shape, dtype, op=None, operands=(), attrs=()):
        # a frozen dataclass's __init__ sets each field through object.__setattr__: filling
        # its __dict__ is the same node at a third of the cost (lazy mode adds a node per
        # recorded call, on every call of a loop)
        node = _new(Node)
        fields = node.__dict__
        fields["index"], fields["kind"], fields["shape"], fields["dtype"] = len(self.nodes), kind, tuple(shape), dtype
        fields["op"], fields["operands"], fields["attrs"] = op, tuple(operands), tuple(attrs)
        self.nodes.append(node)
        return node

    def users(self):
        """node index -> indices of the nodes that read it (outputs not counted)."""
        out = {n.index: [] for n in self.nodes}
        for n in self.nodes:
            for src, _ in n.operands:
                out[src].append(n.index)
        return out

    def describe(self):
        """One line per node: for messages and for debugging a fused function."""
        lines = []
        for n in self.nodes:
            name = getattr(n.op, "value", n.op)
            ops = ", ".join(f"%{src}" for src, _ in n.operands)
            lines.append(f"%{n.index} = {n.kind}{'.' + name if name else ''}({ops}) "
                         f"-> {n.dtype.name}{list(n.shape)}")
        lines.append("return " + ", ".join(f"%{i}" for i, _ in self.outputs))
        return "\n".join(lines)
