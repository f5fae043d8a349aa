"""Float arguments of a fused function as run-time parameters of its graph.

A Python float argument used directly as a scalar operand (``x * scale``,
``where(m, x, fill)``, ``clip(x, lo, hi)``) should not need a new trace and a new kernel
for each value. A signature with float arguments is traced twice: with the call's
values and with probe values. Where the two graphs are the same but for scalar operands,
and each operand that differs equals one argument in both traces, those operands become
``Param``s: the graph serves every value of those arguments. Anything else (the graphs
differ, a float went through Python arithmetic first, a probe trace raised) keeps the
floats as part of the signature by value.
"""

from __future__ import annotations

import dataclasses
import math

from .graph import SCALAR_ATTRS, Param

__all__ = ["TracedFloat", "parametrize", "probe_values"]

_NUMBERS = (int, float, complex)


class TracedFloat(float):
    """A float argument while tracing: it behaves as its value, and notes any use by the
    function's own Python (arithmetic or comparison with a number, ``bool``, ``int``,
    rounding, hashing) in ``uses``: such a float shapes the trace through more than a
    scalar operand, so it stays part of the signature by value. Operations with a
    candlewick array are not noted (the array's operator converts the float)."""

    def __new__(cls, value, uses):
        self = super().__new__(cls, value)
        self.uses = uses
        return self

    def _note(self):
        self.uses.append(float(self))


def _noting(name):
    base = getattr(float, name)

    def method(self, *args):
        if not args or isinstance(args[0], _NUMBERS):
            self._note()
        return base(self, *args)

    method.__name__ = name
    return method


for _name in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__",
              "__rtruediv__", "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__", "__pow__", "__rpow__",
              "__divmod__", "__rdivmod__", "__neg__", "__pos__", "__abs__", "__eq__", "__ne__", "__lt__",
              "__le__", "__gt__", "__ge__", "__bool__", "__int__", "__round__", "__trunc__", "__floor__",
              "__ceil__", "__hash__"):
    setattr(TracedFloat, _name, _noting(_name))
del _name


def probe_values(values):
    """Values of the same type, each differing from its argument and from each other."""
    return [v + 1.0 + 0.5 * k if math.isfinite(v) else 0.5 + k for k, v in enumerate(values)]


def _same_structure(a, b):
    if len(a.nodes) != len(b.nodes) or a.inputs != b.inputs or len(a.consts) != len(b.consts):
        return False
    if [(i, lay.shape, lay.strides, lay.offset) for i, lay in a.outputs] != \
            [(i, lay.shape, lay.strides, lay.offset) for i, lay in b.outputs]:
        return False
    for n, m in zip(a.nodes, b.nodes):
        if (n.kind, n.shape, n.dtype, n.op) != (m.kind, m.shape, m.dtype, m.op):
            return False
        if [(s, lay.shape, lay.strides, lay.offset) for s, lay in n.operands] != \
                [(s, lay.shape, lay.strides, lay.offset) for s, lay in m.operands]:
            return False
        scalar = SCALAR_ATTRS.get(n.kind, ())
        if any(x != y for j, (x, y) in enumerate(zip(n.attrs, m.attrs)) if j not in scalar):
            return False
    return True


def _argument_of(x, y, values, probes):
    """The argument whose value is ``x`` in the first trace and ``y`` in the probe trace."""
    for k, (v, p) in enumerate(zip(values, probes)):
        if type(x) is float and type(y) is float and x == v and y == p:
            return k
    return None


def parametrize(graph, probe_graph, values, probes):
    """``graph`` with the scalar operands that are float arguments made ``Param``s, or
    None when the float arguments must stay part of the signature."""
    if probe_graph is None or not _same_structure(graph, probe_graph):
        return None
    nodes = []
    for n, m in zip(graph.nodes, probe_graph.nodes):
        attrs = list(n.attrs)
        for j in SCALAR_ATTRS.get(n.kind, ()):
            x, y = n.attrs[j], m.attrs[j]
            if x == y and type(x) is type(y) and not (type(x) is float and math.isnan(x)):
                continue  # a constant of the function
            k = _argument_of(x, y, values, probes)
            if k is None:
                return None  # derived from an argument: its value has to be traced
            attrs[j] = Param(k)
        nodes.append(dataclasses.replace(n, attrs=tuple(attrs)) if attrs != list(n.attrs) else n)
    return dataclasses.replace(graph, nodes=nodes, params=len(values))
