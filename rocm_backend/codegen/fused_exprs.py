"""[codegen] C expressions of a fused graph's element-wise nodes, evaluated at an element index.

Every node becomes the expression its eager kernel computes for one element: the same
functor (``ops.functor``), the same storage types (``ops.C_TYPE``), the same rounding to
the node's storage type after each op (``cw_fz_round``: a no-op for types that compute as
stored, float16/bfloat16 rounded as the eager kernels' stores round them) and the same
scalar bits (``ew_launch``'s conversion, here written as constants). So a fused result
equals the eager one bit for bit for every op whose eager kernel is exact.

Indices are C expressions of ``cw_i64`` values; shapes and strides are constants of the
source (a fused kernel is compiled per traced signature), so index arithmetic folds.
"""

import numpy as np

from candlewick import dtypes as dt
from candlewick.shapes import contiguous_strides

from candlewick.opdefs import Param

from .. import ops
from ..abi.structs import FUSED_SCALARS

__all__ = ["Emitter", "TooManyScalars", "compute_dtype", "raw_literal", "row_index_layout"]


def compute_dtype(dtype):
    """The dtype kernels compute ``dtype`` in (float16/bfloat16: float32)."""
    return dt.float32 if dtype in (dt.float16, dt.bfloat16) else dtype


def raw_literal(value, dtype):
    """A C expression of storage type ``C_TYPE[dtype]`` holding ``value`` converted as the
    eager kernels' scalar slots hold it (NumPy's conversion to the dtype, raw bits)."""
    with np.errstate(over="ignore", invalid="ignore"):
        bits = np.asarray(value).astype(dtype.numpy).tobytes().ljust(16, b"\0")
    lo, hi = int.from_bytes(bits[:8], "little"), int.from_bytes(bits[8:], "little")
    return f"cw_fz_raw<{ops.C_TYPE[dtype]} >({lo:#x}ull, {hi:#x}ull)"


def _load_expr(dtype, raw):
    return f"cw_traits<{ops.C_TYPE[dtype]} >::load({raw})"


def _compute_literal(value, dtype):
    return _load_expr(dtype, raw_literal(value, dtype))


class TooManyScalars(Exception):
    """A kernel would need more run-time scalar slots than ``cw_fused_args`` holds."""


class Emitter:
    """Straight-line C code computing node values; ``value(node, flat)`` returns the name
    of a variable holding node ``node``'s compute value at flat index ``flat`` (a C
    expression: the element offset in the node's buffer). Values are memoized by
    (node, index), so a node read twice at one index is computed once.

    ``buffers`` maps the nodes that live in memory (inputs, constants, results of earlier
    kernels) to their pointer variables; ``direct`` maps a (node, index) to a variable
    already holding its storage value (loaded as part of a vector, or kept in a register
    by a row kernel); ``row_values`` maps a node to a variable holding its value for the
    whole current row (a reduction computed in the same kernel) with the layout test that
    says when a read is that value (``rows``: full shape, row shape, the row index
    variable and those variables). A scalar operand that is a graph parameter
    (``candlewick.fusion.Param``) is read from the kernel's scalar slots (``params``)."""

    def __init__(self, graph, buffers, direct=None, rows=None, indent="    ", params=None):
        self.graph = graph
        # (float parameter, dtype) -> its 16-byte slot of cw_fused_args.scalar (shared by
        # the emitters of one kernel; the launch packs each value converted to its dtype)
        self.params = params if params is not None else {}
        self.buffers = buffers
        self.direct = direct if direct is not None else {}
        # a row kernel's (full shape, row shape, row index variable, {node: row variable})
        self.rows = rows
        self.lines = []
        self.memo = {}
        self.unravels = {}
        self.loads = []  # (node, flat) of every memory read, for the caller's vector analysis
        # node -> the functor its element-wise op is computed with, in place of the eager
        # kernel's (a row kernel's logsumexp sum: fused_rows._sum_exps)
        self.functors = {}
        self.indent = indent
        self._n = 0

    def _var(self, ctype, expr):
        name = f"v{self._n}"
        self._n += 1
        self.lines.append(f"{self.indent}const {ctype} {name} = {expr};")
        return name

    def unravel(self, flat, shape):
        """Per-axis index expressions of the flat C-order index ``flat`` (below the size of
        ``shape``) over ``shape``."""
        key = (flat, shape)
        got = self.unravels.get(key)
        if got is not None:
            return got
        out = []
        rest = flat
        for axis in range(len(shape) - 1, -1, -1):
            n = shape[axis]
            if n == 1:
                out.append("0")
                continue
            if axis == 0:  # a flat index is below the size: the first axis needs no division
                out.append(f"({rest})")
                continue
            q = self._var("cw_i64", f"({rest}) / {n}ll")
            out.append(self._var("cw_i64", f"({rest}) - {q} * {n}ll"))
            rest = q
        got = self.unravels[key] = list(reversed(out))
        return got

    @staticmethod
    def offset_expr(layout, multi):
        """The element offset ``layout`` gives the multi-index ``multi`` (C expressions)."""
        terms = [f"{layout.offset}ll"] if layout.offset else []
        for n, s, m in zip(layout.shape, layout.strides, multi):
            if n != 1 and s != 0 and m != "0":
                terms.append(m if s == 1 else f"{m} * {s}ll")
        return " + ".join(terms) if terms else "0"

    def operand_index(self, src, layout, flat, shape):
        """The operand's element offset for flat index ``flat`` of a node of ``shape``."""
        rows = self.rows
        if rows is not None and shape == rows[0] and self.graph.nodes[src].shape == rows[1] \
                and src not in self.buffers and row_index_layout(layout, rows[1], rows[0][-1]):
            return rows[2]
        if layout.is_contiguous and layout.shape == shape:
            return flat if not layout.offset else f"{flat} + {layout.offset}ll"
        return self.offset_expr(layout, self.unravel(flat, shape))

    def value(self, index, flat):
        key = (index, flat)
        got = self.memo.get(key)
        if got is None:
            got = self.memo[key] = self._compute(self.graph.nodes[index], flat)
        return got

    def _compute(self, node, flat):
        dtype = node.dtype
        c_type = f"cw_traits<{ops.C_TYPE[dtype]} >::compute"
        if self.rows is not None and flat == self.rows[2] and node.index in self.rows[3]:
            return self.rows[3][node.index]
        held = self.direct.get((node.index, flat))
        if held is not None:
            return self._var(c_type, _load_expr(dtype, held))
        if node.index in self.buffers:
            self.loads.append((node.index, flat))
            return self._var(c_type, _load_expr(dtype, f"{self.buffers[node.index]}[{flat}]"))
        if node.kind == "full":
            return self._var(c_type, self.scalar(node.attrs[0], dtype))
        args = [self.value(src, self.operand_index(src, layout, flat, node.shape)) for src, layout in node.operands]
        return self._var(c_type, self._expr(node, args))

    def scalar(self, value, dtype):
        """A compute-type expression of the scalar operand ``value`` in ``dtype``: a
        constant of the source, or a graph parameter's run-time slot."""
        if not isinstance(value, Param):
            return _compute_literal(value, dtype)
        slot = self.params.get((value.index, dtype))
        if slot is None:
            if len(self.params) >= FUSED_SCALARS:
                raise TooManyScalars(f"more than {FUSED_SCALARS} run-time scalars in one kernel")
            slot = self.params[(value.index, dtype)] = len(self.params)
        raw = f"cw_fz_raw<{ops.C_TYPE[dtype]} >((cw_u64)a.scalar[{2 * slot}], (cw_u64)a.scalar[{2 * slot + 1}])"
        return _load_expr(dtype, raw)

    def _expr(self, node, args):
        kind, dtype = node.kind, node.dtype
        out = ops.C_TYPE[dtype]
        if kind == "copy":
            return args[0]
        src_dtype = self.graph.nodes[node.operands[0][0]].dtype
        if kind in ("unary", "binary", "compare"):
            functor = self.functors.get(node.index) or ops.functor(node.op, src_dtype)
            return f"cw_fz_round<{out} >({functor}()({', '.join(args)}))"
        if kind == "binary_scalar":
            scalar, reflected = node.attrs
            s = self.scalar(scalar, src_dtype)
            pair = f"{s}, {args[0]}" if reflected else f"{args[0]}, {s}"
            return f"cw_fz_round<{out} >({ops.functor(node.op, src_dtype)}()({pair}))"
        if kind == "where":
            return f"({args[0]} ? {args[1]} : {args[2]})"
        if kind == "astype":
            return f"cw_fz_round<{out} >({args[0]})"
        c = compute_dtype(dtype)
        c_name = ops.C_TYPE[c]
        if kind == "affine":
            mul, add = (self.scalar(v, c) for v in node.attrs)
            return f"cw_fz_round<{out} >(cw_affine_fn<{c_name} >{{{mul}, {add}}}({args[0]}))"
        if kind == "clip":
            lo, hi = node.attrs
            lo_c = self.scalar(0 if lo is None else lo, c)
            hi_c = self.scalar(0 if hi is None else hi, c)
            flags = f"{'true' if lo is not None else 'false'}, {'true' if hi is not None else 'false'}"
            return f"cw_fz_round<{out} >(cw_clip_fn<{c_name} >{{{lo_c}, {hi_c}, {flags}}}({args[0]}))"
        raise AssertionError(f"no element-wise expression for node kind {kind!r}")


def row_index_layout(layout, rows_shape, cols):
    """Whether ``layout`` (over a buffer of shape ``rows_shape``, one value per row) reads,
    at element (row, col) of a (rows..., cols) iteration, the row's own value: offset 0,
    C-order strides over the row axes, stride 0 along the columns."""
    if layout.offset or tuple(layout.shape) != tuple(rows_shape) + (cols,):
        return False
    if cols != 1 and layout.strides[-1] != 0:
        return False
    want = contiguous_strides(tuple(rows_shape))
    return all(n == 1 or s == w for n, s, w in zip(layout.shape[:-1], layout.strides[:-1], want))
