"""Element-wise and reduction kernels on a device that does not compile kernels (cpu):
the body, in the C subset, lowered into a fusion graph (``lowering``) once per
signature, then run as ``candlewick.fuse`` runs a graph: compiled by a device that
declares ``fusion``, else replayed primitive by primitive.

A plan is made per signature (each operand's dtype, role and layout, the iteration
shape, the reduced axes) and kept by the kernel object; the arguments' storages are its
graph inputs (a scalar argument too, as a 0-d storage), so one plan serves every value.
"""

from __future__ import annotations

from collections import namedtuple

from .. import dtypes as _dt
from ..errors import KernelCompileError, UnsupportedOperation
from ..fusion.graph import Graph
from ..fusion.replay import replayer
from ..opdefs import BinaryOp, ReduceOp, UnaryOp
from ..shapes import shape_size
from .c_syntax import parse_expression, parse_statements
from .c_types import compute_dtype
from .c_functions import fminmax
from .graph_values import Builder, Var
from .lowering import Interpreter

__all__ = ["Operand", "Plan", "elementwise_plan", "reduction_plan", "refuse_raw"]

#: one argument: its BoundParam, storage and layout (over the iteration shape for in,
#: scalar and out parameters of element-wise kernels and in parameters of reductions;
#: over the kept shape for a reduction's outputs)
Operand = namedtuple("Operand", "param storage layout")
#: ``run(storages)`` of the graph; ``sources``: the operand index of each graph input;
#: ``results``: per out parameter, its graph output number or None (left untouched)
Plan = namedtuple("Plan", "run sources results")

_COMPUTED = frozenset({"unary", "binary", "compare", "where", "astype", "copy", "reduce"})


def refuse_raw(params, device, label):
    for p in params:
        if p.raw:
            raise UnsupportedOperation(
                label, None, device.backend,
                f"raw parameter {p.name!r}: {device.name} runs kernel bodies in the C subset, which has no "
                f"pointers; raw parameters need a device that compiles kernels (capability 'custom_kernels')")


def _memo(fn):
    cell = []

    def get():
        if not cell:
            cell.append(fn())
        return cell[0]

    return get


class _Inputs:
    """The graph inputs, made on first use of an operand."""

    def __init__(self, builder, operands):
        self.b, self.operands, self.sources = builder, operands, []

    def value(self, k, builder=None):
        op = self.operands[k]
        self.sources.append(k)
        got = (builder or self.b).input(len(self.sources) - 1, op.storage, op.layout, op.param.dtype)
        return (builder or self.b).astype(got, compute_dtype(op.param.dtype))


def _variables(inputs, operands, roles, builder):
    scope = {}
    for k, op in enumerate(operands):
        p = op.param
        if p.role not in roles:
            continue
        dtype = compute_dtype(p.dtype)
        if p.role in ("in", "scalar"):
            scope[p.name] = Var("in", dtype, inputs.value(k, builder))
        else:
            scope[p.name] = Var("out", dtype, _memo(lambda k=k: inputs.value(k, builder)))
    return scope


def _outputs(graph, builder, scope, operands):
    """Each out parameter's final value as a graph output of its own buffer."""
    results, used = [], set()
    for op in operands:
        p = op.param
        if p.role != "out":
            continue
        var = scope[p.name]
        if callable(var.value):  # never assigned: the array keeps what it holds
            results.append(None)
            continue
        v = builder.astype(var.value, p.dtype)
        index, layout = v.ref
        if graph.nodes[index].kind not in _COMPUTED or layout is not builder.layout or index in used:
            v = builder.copy(v)  # a buffer of its own (an input, a constant, another output's)
        used.add(v.ref[0])
        graph.outputs.append(v.ref)
        results.append(len(graph.outputs) - 1)
    return results


def _finish(graph, device, sources, results):
    run = device.compile_fused(graph) if "fusion" in getattr(device, "capabilities", ()) else None
    if run is None:
        run = replayer(graph)
    return Plan(run, tuple(sources), tuple(results))


def elementwise_plan(defn, device, shape, operands, label):
    graph = Graph(device)
    b = Builder(graph, shape)
    inputs = _Inputs(b, operands)
    types = {ph: compute_dtype(d) for ph, d in defn.types}
    scope = _variables(inputs, operands, ("in", "scalar", "out"), b)
    n = shape_size(shape)
    scope["i"] = Var("const", _dt.int64, _memo(lambda: b.const(device.arange(0, 1, n, _dt.int64), b.layout)))
    stmts = parse_statements(defn.body, "body", label, types)
    interp = Interpreter(b, [scope], types, "body", defn.body, label)
    interp.run(stmts)
    results = _outputs(graph, b, interp.scopes[0], operands)
    return _finish(graph, device, inputs.sources, results)


# reduce_expr forms the subset reduces with: (operator or function) -> reduction
_REDUCE_FORMS = {("binary", "+"): "sum", ("binary", "*"): "prod", ("binary", "&&"): "all",
                 ("binary", "||"): "any", ("binary", "&"): "all", ("binary", "|"): "any",
                 ("call", "max"): "max", ("call", "min"): "min", ("call", "fmax"): "max", ("call", "fmin"): "min"}
_COMBINE = {"sum": "+", "prod": "*", "all": "&&", "any": "||"}


def _reduce_form(defn, label, types):
    e = parse_expression(defn.reduce_expr, "reduce_expr", label, types)
    if e.kind == "binary":
        key, operands = ("binary", e.args[0]), e.args[1:]
    elif e.kind == "call":
        key, operands = ("call", e.args[0]), e.args[1]
    else:
        key, operands = None, ()
    names = sorted(o.args[0] for o in operands if o.kind == "name")
    form = _REDUCE_FORMS.get(key)
    if form is None or names != ["a", "b"]:
        raise KernelCompileError(
            f"{label}: reduce_expr {defn.reduce_expr!r} is not one the C subset reduces with: a + b, a * b, "
            f"max(a, b), min(a, b), fmax(a, b), fmin(a, b), a && b, a || b (and & or | on bool)",
            part="reduce_expr", line=1, text=defn.reduce_expr)
    rt = compute_dtype(defn.reduce_type)
    if (form in ("all", "any")) != rt.is_bool or (form in ("max", "min") and rt.level == 3):
        raise KernelCompileError(
            f"{label}: reduce_expr {defn.reduce_expr!r} on the reduce type {rt.name}: the C subset reduces bool "
            f"values with &&, || (& and |) and numbers with +, *, max, min", part="reduce_expr", line=1,
            text=defn.reduce_expr)
    return form


def reduction_plan(defn, device, shape, axes, operands, label):
    graph = Graph(device)
    kept_shape = tuple(n for i, n in enumerate(shape) if i not in axes)
    b, k = Builder(graph, shape), Builder(graph, kept_shape)
    inputs = _Inputs(b, operands)
    types = {ph: compute_dtype(d) for ph, d in defn.types}
    rt = types["_type_reduce"] = compute_dtype(defn.reduce_type)
    form = _reduce_form(defn, label, types)
    scope = _variables(inputs, operands, ("in", "scalar"), b)
    mapper = Interpreter(b, [scope], types, "map_expr", defn.map_expr, label)
    x = mapper.convert(mapper.expr(parse_expression(defn.map_expr, "map_expr", label, types)), rt, 1)
    post = Interpreter(k, [{}], types, "identity", defn.identity, label)
    identity = post.convert(post.expr(parse_expression(defn.identity, "identity", label, types)), rt, 1)
    if shape_size([shape[a] for a in axes]) == 0:  # nothing to reduce: every output is the identity
        acc = identity
    elif form in ("max", "min"):
        acc = _extreme(b, k, form, x, axes, identity)
    else:
        op = {"sum": ReduceOp.SUM, "prod": ReduceOp.PROD, "all": ReduceOp.ALL, "any": ReduceOp.ANY}[form]
        r = b.reduce(op, x, axes, k)
        acc = post.binary(_COMBINE[form], identity, r, 1) if form in ("sum", "prod") else \
            k.binary(BinaryOp.LOGICAL_AND if form == "all" else BinaryOp.LOGICAL_OR, identity, r)
        acc = post.convert(acc, rt, 1)
    post.part, post.text = "post_map_expr", defn.post_map_expr
    out_scope = _variables(inputs, operands, ("out",), k)
    out_scope["a"] = Var("const", rt, acc)
    post.scopes = [out_scope]
    post.run(parse_statements(defn.post_map_expr, "post_map_expr", label, types))
    results = _outputs(graph, k, post.scopes[0], operands)
    return _finish(graph, device, inputs.sources, results)


def _extreme(b, k, form, x, axes, identity):
    """max/min over the axes; for floating values as the device's max/min (fmax/fmin)
    reduce them: NaN elements are skipped, the identity is what an all-NaN slice gives."""
    op = ReduceOp.MAX if form == "max" else ReduceOp.MIN
    if x.dtype.is_bool:
        r = b.reduce(ReduceOp.ANY if form == "max" else ReduceOp.ALL, x, axes, k)
        return k.binary(BinaryOp.LOGICAL_OR if form == "max" else BinaryOp.LOGICAL_AND, identity, r)
    if x.dtype.level == 1:
        r = b.reduce(op, x, axes, k)
        return k.binary(BinaryOp.MAXIMUM if form == "max" else BinaryOp.MINIMUM, identity, r)
    skip = b.full(float("-inf") if form == "max" else float("inf"), x.dtype)
    x = b.where(b.unary(UnaryOp.ISNAN, x), skip, x)
    return fminmax(k, "fmax" if form == "max" else "fmin", identity, b.reduce(op, x, axes, k))
