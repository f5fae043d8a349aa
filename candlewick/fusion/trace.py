"""Tracing a function written with the namespace into a ``Graph``.

The function runs once per input signature on tracer arrays: ordinary ``Array`` objects
whose storage is a ``TracedStorage`` and whose device is a ``TracingDevice``. Everything
the front end does on the eager path (dtype promotion, Python scalars, broadcasting,
domain coercions, views) runs unchanged; only the storage primitives it ends in are
recorded instead of computed. So a fused graph holds exactly the primitive calls the eager
path would make, with the same layouts and the same converted scalars.

What cannot be recorded raises ``FusionTraceError`` naming ``candlewick.fuse``: reading a
traced value on the host (``bool(x)``, ``float(x)``, ``if x > 0``: data-dependent control
flow), and any primitive other than the element-wise ones, ``reduce``, ``var`` (recorded as
the element-wise steps and sums it is made of) and ``copy``.
"""

from __future__ import annotations

from ..composed_primitives import var_in_steps
from ..dtypes import bool_
from ..errors import FusionTraceError
from ..layout import Layout
from ..shapes import reduced_shape, shape_size
from ..opdefs import BinaryOp, ReduceOp, UnaryOp
from .graph import FUSED_REDUCTIONS, Graph

__all__ = ["TracedStorage", "TracingDevice", "is_traced", "record_output"]

_FUSE = "candlewick.fuse"


def _refuse(what):
    raise FusionTraceError(
        f"{_FUSE}: {what} cannot be traced. A fused function may use element-wise functions, "
        f"reductions (sum, prod, min, max, mean, var, std, any, all), views (reshape, broadcast, "
        f"indexing with slices, transposes) and Python scalars; it may not read array values "
        f"on the host (bool(x), float(x), if/while on an array: data-dependent control flow) "
        f"or call other operations (sorting, matmul, indexing with arrays, random numbers, ...)"
    )


class TracingDevice:
    """Stands for the real device while tracing: its declarations (dtypes, capabilities,
    memory) are the real device's; the creations the front end asks of it (``full`` for a
    scalar operand, ``zeros``/``ones``) become graph nodes."""

    def __init__(self, real, graph):
        self._real = real
        self._graph = graph
        self.name = f"{real.name} (traced by {_FUSE})"

    def __getattr__(self, name):
        value = getattr(self._real, name)
        if callable(value):
            def refused(*args, **kwargs):
                _refuse(f"the device call {name!r}")
            return refused
        return value

    def memory_info(self):
        return self._real.memory_info()

    def same_device(self, other):
        return other is self

    def _full(self, shape, dtype, value):
        return TracedStorage(self._graph, self._graph.add("full", shape, dtype, attrs=(value,)), self)

    def full(self, shape, dtype, value):
        return self._full(shape, dtype, value)

    def zeros(self, shape, dtype):
        return self._full(shape, dtype, False if dtype.is_bool else 0)

    def ones(self, shape, dtype):
        return self._full(shape, dtype, True if dtype.is_bool else 1)

    def storage_from_host(self, array):
        """A host constant made inside the function (``asarray([1.0, 2.0])``): copied to
        the real device once, at trace time, and kept with the compiled graph."""
        real = self._real.storage_from_host(array)
        graph = self._graph
        graph.consts.append(real)
        node = graph.add("const", (real.size,), real.dtype, attrs=(len(graph.consts) - 1,))
        return TracedStorage(graph, node, self)


class TracedStorage:
    """A storage that records primitive calls into its graph instead of computing."""

    __slots__ = ("graph", "node", "dtype", "device", "size")

    def __init__(self, graph, node, device):
        self.graph = graph
        self.node = node
        self.dtype = node.dtype
        self.device = device
        self.size = shape_size(node.shape)

    def __getattr__(self, name):
        # the protocol's other primitives (and any backend attribute a real storage given
        # a traced operand would read: an array closed over by the function)
        if name.startswith("__"):
            raise AttributeError(name)
        _refuse(f"the primitive {name!r} (or an array the function closes over, "
                f"combined with a traced one: pass it as an argument)")

    def _operand(self, storage, layout):
        if not isinstance(storage, TracedStorage) or storage.graph is not self.graph:
            _refuse("an array from outside the fused function (pass it as an argument)")
        return (storage.node.index, layout)

    def _add(self, kind, shape, dtype, op=None, operands=(), attrs=()):
        node = self.graph.add(kind, shape, dtype, op, operands, attrs)
        return TracedStorage(self.graph, node, self.device)

    def to_host(self, layout):
        _refuse("reading a traced array's values on the host")

    def unary(self, op, layout):
        return self._add("unary", layout.shape, op.result_dtype(self.dtype), op, [(self.node.index, layout)])

    def binary(self, op, lhs_layout, rhs, rhs_layout):
        operands = [(self.node.index, lhs_layout), self._operand(rhs, rhs_layout)]
        return self._add("binary", lhs_layout.shape, op.result_dtype(self.dtype), op, operands)

    def binary_as(self, op, lhs_layout, rhs, rhs_layout, dtype):
        """Recorded as its steps: each operand not of ``dtype`` converted (``astype``), then
        ``binary`` (a fused kernel converts as it reads: no converted copy either way)."""
        lhs, rhs = _converted(self, lhs_layout, dtype), _converted(rhs, rhs_layout, dtype)
        return lhs[0].binary(op, lhs[1], rhs[0], rhs[1])

    def binary_scalar(self, op, layout, scalar, reflected):
        return self._add("binary_scalar", layout.shape, op.result_dtype(self.dtype), op,
                         [(self.node.index, layout)], (scalar, bool(reflected)))

    def compare(self, op, lhs_layout, rhs, rhs_layout):
        operands = [(self.node.index, lhs_layout), self._operand(rhs, rhs_layout)]
        return self._add("compare", lhs_layout.shape, bool_, op, operands)

    def compare_scalar(self, op, layout, scalar, reflected):
        # recorded as a compare with a 0-d constant spread over x's shape: replay and the
        # compilers already know both nodes, so the graph needs no kind of its own for it
        const = self._add("full", (), self.dtype, None, (), (scalar,))
        operands = [(self.node.index, layout), (const.node.index, Layout(layout.shape, (0,) * len(layout.shape), 0))]
        if reflected:
            operands.reverse()
        return self._add("compare", layout.shape, bool_, op, operands)

    def where(self, cond_layout, x, x_layout, y, y_layout):
        operands = [(self.node.index, cond_layout), self._operand(x, x_layout), self._operand(y, y_layout)]
        return self._add("where", cond_layout.shape, x.dtype, None, operands)

    def astype(self, layout, dtype):
        return self._add("astype", layout.shape, dtype, None, [(self.node.index, layout)])

    def copy(self, layout):
        return self._add("copy", layout.shape, self.dtype, None, [(self.node.index, layout)])

    def affine(self, layout, mul, add):
        return self._add("affine", layout.shape, self.dtype, None, [(self.node.index, layout)], (mul, add))

    def clip(self, layout, lo, hi):
        return self._add("clip", layout.shape, self.dtype, None, [(self.node.index, layout)], (lo, hi))

    def reduce(self, op, layout, axes):
        if op not in FUSED_REDUCTIONS:
            _refuse(f"the reduction {op.value!r}")
        dtype = bool_ if op is ReduceOp.ANY or op is ReduceOp.ALL else self.dtype
        shape = tuple([n for i, n in enumerate(layout.shape) if i not in axes])
        return self._add("reduce", shape, dtype, op, [(self.node.index, layout)], tuple(axes))

    def reduce_as(self, op, layout, axes, dtype):
        """Recorded as its steps, ``astype`` then ``reduce`` (a fused kernel converts each
        element as it reads it: no converted copy either way)."""
        return self.astype(layout, dtype).reduce(op, Layout.contiguous(layout.shape), axes)

    def var(self, layout, axes, correction, root):
        """Recorded as the steps it is made of (each a node the fused kernels know)."""
        return var_in_steps(self, layout, axes, correction, root)


def _converted(storage, layout, dtype):
    """(storage, layout) of ``storage[layout]`` in ``dtype``: itself, or its astype node."""
    if storage.dtype is dtype:
        return storage, layout
    return storage.astype(layout, dtype), Layout.contiguous(layout.shape)


def new_graph(device):
    return Graph(device)


def input_storage(graph, device, position, storage, tracing_device):
    """The traced storage standing for argument ``position`` (a real ``storage``)."""
    node = graph.add("input", (storage.size,), storage.dtype, attrs=(position,))
    graph.inputs.append(node.index)
    return TracedStorage(graph, node, tracing_device)


def is_traced(storage, graph):
    return isinstance(storage, TracedStorage) and storage.graph is graph


def record_output(graph, array):
    """Add a returned tracer array to the graph's outputs."""
    if not is_traced(array._storage, graph):
        _refuse("returning an array that was not computed from the arguments")
    graph.outputs.append((array._storage.node.index, array._layout))
