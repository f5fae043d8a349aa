"""HIP source of the kernels that run a ``candlewick.fuse`` graph (``plan``).

Two schedules:

* **rows** (softmax, logsumexp, normalizations): every reduction reduces the last axis of
  one full shape ``F = rows + (C,)`` and its result is read back one value per row. One
  kernel: a block per row, each thread holding ``K`` elements of the row in registers
  (each input element is read from memory once); the reductions are block reductions in
  order, their results broadcast to the block through shared memory; then every output
  is written. Taken when ``C <= ROW_MAX`` and the graph's shapes fit the pattern.
* **general**: a kernel per reduction (a block per output element, the reduction's
  element-wise operand computed in its loads), then one element-wise kernel per output
  shape computing every output of that shape from the inputs and the reductions' results;
  the element-wise kernel reads and writes 16-byte vectors where every read is at the
  element's own index and the buffers are aligned (``CW_CONTIGUOUS`` in ``flags``).

Node expressions come from ``fused_exprs`` (the eager kernels' functors and rounding).
"""

import hashlib
from collections import namedtuple

from candlewick.layout import shape_size

from . import ops
from .fused_exprs import Emitter, row_index_layout
from .sources import HIP_DIR
from .structs import EW_BLOCK, FUSED_ARGS, FUSED_BUFFERS

__all__ = ["COMPILE_OPTIONS", "FusedKernel", "FusedPlan", "HELPERS", "ROW_MAX", "plan", "prelude"]

#: the longest row the rows schedule keeps in registers (elements per thread <= 16)
ROW_MAX = 16 * 1024
REDUCE_BLOCK = 256
#: no contraction of one op's product into the next op's sum (an FMA): the eager kernels
#: round every op's result, and so must the fused ones to give their bits
COMPILE_OPTIONS = ("-ffp-contract=off",)
_NAME = "CW_FZ_NAME"  # kernel name placeholder until the source's digest is known
_PRELUDE_FILES = ("abi.h", "common.h", "complex.h", "complex_inv.h", "math_ops.h", "elementwise.hip",
                  "reduce.hip")
HELPERS = r"""
// ---- fused kernels (rocm_backend/abi/fused_source.py)
// a storage value from raw bits (the scalar constants of the graph)
template <class S> __device__ inline S cw_fz_raw(cw_u64 lo, cw_u64 hi) {
    union { cw_u64 w[2]; S s; } u;
    u.w[0] = lo;
    u.w[1] = hi;
    return u.s;
}
// a value rounded to storage type S and back, as an eager kernel's store and the next load
template <class S, class V> __device__ inline typename cw_traits<S>::compute cw_fz_round(V v) {
    return cw_traits<S>::load(cw_to_storage<S>(v));
}
"""

#: slots: per pointer slot ("input", position) | ("const", index) | ("node", node index);
#: kind "ew" (n = elements, grid over vectors), "reduce" (n = outputs), "rows" (n = rows)
FusedKernel = namedtuple("FusedKernel", "spec kind n slots vector_slots vector_bytes")
FusedPlan = namedtuple("FusedPlan", "module source kernels materialized")

_prelude = None


def prelude():
    """The kernel-library part of every fused module (types, functors, reduction ops)."""
    global _prelude
    if _prelude is None:
        _prelude = "".join(f"// ---- {name}\n" + (HIP_DIR / name).read_text() for name in _PRELUDE_FILES) + HELPERS
    return _prelude


class _Unsupported(Exception):
    """The graph falls outside what the generator covers: it runs replayed."""


class _Slots:
    """Pointer slots of one kernel: the buffers it reads and writes."""

    def __init__(self, graph):
        self.graph = graph
        self.slots = []
        self.names = {}

    def pointer(self, index):
        name = self.names.get(index)
        if name is None:
            node = self.graph.nodes[index]
            if node.kind == "input":
                slot = ("input", self.graph.inputs.index(index))
            elif node.kind == "const":
                slot = ("const", node.attrs[0])
            else:
                slot = ("node", index)
            if len(self.slots) >= FUSED_BUFFERS:
                raise _Unsupported(f"more than {FUSED_BUFFERS} buffers")
            self.slots.append(slot)
            name = self.names[index] = f"p{len(self.slots) - 1}"
        return name

    def declarations(self, written=()):
        out = []
        for k, slot in enumerate(self.slots):
            index = slot[1] if slot[0] == "node" else None
            if slot[0] == "input":
                index = self.graph.inputs[slot[1]]
            elif slot[0] == "const":
                index = next(n.index for n in self.graph.nodes if n.kind == "const" and n.attrs[0] == slot[1])
            c = ops.C_TYPE[self.graph.nodes[index].dtype]
            qual = "" if index in written else "const "
            out.append(f"    {qual}{c}* __restrict__ p{k} = ({qual}{c}*)a.ptr[{k}];")
        return out


def _memory_nodes(graph):
    return {n.index for n in graph.nodes if n.kind in ("input", "const")}


def _entry(name, block, body):
    return f'extern "C" __global__ void __launch_bounds__({block}) {name}(cw_fused_args a) {{\n{body}}}\n'


def _spec(name, module, block):
    return ops.KernelSpec(("fused", name), name, module, FUSED_ARGS.name, "", block)


# ---- general schedule -----------------------------------------------------------------

def _reduce_kernel(graph, node, materialized, name, module):
    (src, layout), axes = node.operands[0], node.attrs
    slots = _Slots(graph)
    buffers = _LazyBuffers(slots, _memory_nodes(graph) | (materialized - {node.index}))
    out = slots.pointer(node.index)
    src_c = ops.C_TYPE[graph.nodes[src].dtype]
    op = f"red_{node.op.value}<{src_c} >"
    kept = [(n, s) for i, (n, s) in enumerate(zip(layout.shape, layout.strides)) if i not in axes]
    red = [(n, s) for i, (n, s) in enumerate(zip(layout.shape, layout.strides)) if i in axes]
    n_red = shape_size([n for n, _ in red])
    em = Emitter(graph, buffers, indent="            ")
    kept_idx = em.unravel("o", tuple(n for n, _ in kept)) if kept else []
    base_lines, em.lines = em.lines, []
    red_idx = em.unravel("r", tuple(n for n, _ in red)) if red else []
    multi, ki, ri = [], iter(kept_idx), iter(red_idx)
    for i in range(len(layout.shape)):
        multi.append(next(ri) if i in axes else next(ki))
    flat = Emitter.offset_expr(layout, multi)
    x = em.value(src, flat)
    body = [
        f"    typedef {op} Op;",
        "    typedef typename Op::acc Acc;",
        "    __shared__ Acc smem[CW_MAX_WARPS];",
        "    Op op;",
        *slots.declarations({node.index}),
        "    for (cw_i64 o = blockIdx.x; o < a.n; o += gridDim.x) {",
        *[line[4:] for line in base_lines],
        "        Acc acc = op.identity();",
        f"        for (cw_i64 r = threadIdx.x; r < {n_red}ll; r += blockDim.x) {{",
        *em.lines,
        f"            acc = op.combine(acc, op.from({x}, r));",
        "        }",
        "        acc = cw_group_reduce(op, acc, smem, (int)blockDim.x);",
        f"        if (threadIdx.x == 0) cw_store<typename Op::out>((char*){out}, o, op.finalize(acc));",
        "        __syncthreads();",
        "    }",
    ]
    spec = _spec(name, module, REDUCE_BLOCK)
    return FusedKernel(spec, "reduce", shape_size(node.shape), tuple(slots.slots), (), 0), \
        _entry(name, REDUCE_BLOCK, "\n".join(body) + "\n")


class _LazyBuffers(dict):
    """Pointer names of memory nodes, given a slot the first time a kernel reads one."""

    def __init__(self, slots, memory):
        super().__init__()
        self._slots, self._memory = slots, memory

    def __contains__(self, index):
        return index in self._memory

    def __getitem__(self, index):
        return self._slots.pointer(index)


def _ew_kernel(graph, outputs, shape, materialized, name, module):
    slots = _Slots(graph)
    memory = _memory_nodes(graph) | materialized
    buffers = _LazyBuffers(slots, memory)
    scalar = Emitter(graph, buffers, indent="        ")
    results = [(o, scalar.value(o, "i")) for o in outputs]
    outs = [(o, slots.pointer(o)) for o in outputs]
    direct_nodes = sorted({n for n, flat in scalar.loads if flat == "i"})
    vector_ok = all(flat == "i" for _, flat in scalar.loads)
    sizes = [graph.nodes[n].dtype.itemsize for n in direct_nodes + list(outputs)]
    width = max(1, 16 // max(sizes)) if vector_ok else 1
    lines = [*slots.declarations(set(outputs)), "    const cw_i64 n = a.n;", "    cw_i64 done = 0;"]
    if width > 1:
        lines += _vector_loop(graph, buffers, direct_nodes, outputs, width, slots)
    lines += ["    for (cw_i64 i = done + (cw_i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; "
              "i += (cw_i64)blockDim.x * gridDim.x) {", *scalar.lines]
    for (o, var), (_, ptr) in zip(results, outs):
        lines.append(f"        {ptr}[i] = cw_to_storage<{ops.C_TYPE[graph.nodes[o].dtype]} >({var});")
    lines.append("    }")
    vector_slots = tuple(slots.names[n] for n in direct_nodes + list(outputs)) if width > 1 else ()
    spec = _spec(name, module, EW_BLOCK)
    kernel = FusedKernel(spec, "ew", shape_size(shape), tuple(slots.slots),
                         tuple(int(s[1:]) for s in vector_slots), 16 if width > 1 else 0)
    return kernel, _entry(name, EW_BLOCK, "\n".join(lines) + "\n")


def _vector_loop(graph, buffers, direct_nodes, outputs, width, slots):
    """Vectors of ``width`` elements (16 bytes of the widest buffer), two per thread per
    step with their loads issued first, as the eager contiguous kernels move them."""
    lines = ["    if (a.flags & CW_CONTIGUOUS) {",
             f"        const cw_i64 nv = n / {width}, bd = blockDim.x;",
             "        for (cw_i64 j0 = (cw_i64)blockIdx.x * 2 * bd + threadIdx.x; j0 < nv; j0 += 2 * (cw_i64)gridDim.x * bd) {"]
    for half, j in ((0, "j0"), (1, "j0 + bd")):
        em = Emitter(graph, buffers, indent="                ")
        packs = {}
        for n in direct_nodes:
            c = ops.C_TYPE[graph.nodes[n].dtype]
            packs[n] = f"x{half}_{n}"
            lines.append(f"            cw_pack<{c}, {width}> {packs[n]};")
        for o in outputs:
            lines.append(f"            cw_pack<{ops.C_TYPE[graph.nodes[o].dtype]}, {width}> y{half}_{o};")
        lines.append(f"            if ({j} < nv) {{")
        for n in direct_nodes:
            c = ops.C_TYPE[graph.nodes[n].dtype]
            lines.append(f"                {packs[n]} = cw_vload<{c}, {width}>({slots.names[n]}, {j});")
        lines.append("            }")
        lines.append(f"            if ({j} < nv) {{")
        for k in range(width):
            em.direct = {(n, f"i{k}"): f"{packs[n]}.v[{k}]" for n in direct_nodes}
            em.lines.append(f"                const cw_i64 i{k} = ({j}) * {width} + {k};")
            for o in outputs:
                var = em.value(o, f"i{k}")
                em.lines.append(f"                y{half}_{o}.v[{k}] = cw_to_storage<{ops.C_TYPE[graph.nodes[o].dtype]} >({var});")
        lines += em.lines
        for o in outputs:
            lines.append(f"                cw_vstore<{ops.C_TYPE[graph.nodes[o].dtype]}, {width}>({slots.names[o]}, {j}, y{half}_{o});")
        lines.append("            }")
    lines += ["        }", f"        done = nv * {width};", "    }"]
    return lines


def _general(graph, outputs, name_of, module):
    reduces = [i for i in _needed(graph, outputs) if graph.nodes[i].kind == "reduce"]
    materialized = set(reduces)
    kernels, entries = [], []
    for r in reduces:
        k, e = _reduce_kernel(graph, graph.nodes[r], materialized, name_of(len(kernels)), module)
        kernels.append(k)
        entries.append(e)
    groups = {}
    for o in outputs:
        if o not in materialized:
            groups.setdefault(graph.nodes[o].shape, []).append(o)
    for shape, outs in groups.items():
        k, e = _ew_kernel(graph, outs, shape, materialized, name_of(len(kernels)), module)
        kernels.append(k)
        entries.append(e)
    return kernels, entries, materialized | set(outputs)


def _needed(graph, outputs):
    """Indices of the nodes the outputs depend on, in graph order."""
    seen, stack = set(), list(outputs)
    while stack:
        i = stack.pop()
        if i not in seen:
            seen.add(i)
            stack.extend(src for src, _ in graph.nodes[i].operands)
    return sorted(seen)


# ---- rows schedule ----------------------------------------------------------------------

def _identity(layout, shape):
    return layout.offset == 0 and layout.is_contiguous and tuple(layout.shape) == tuple(shape)


def _rows_shapes(graph, outputs):
    """(full shape, row shape) when the graph fits the rows schedule, else None."""
    needed = _needed(graph, outputs)
    reduces = [graph.nodes[i] for i in needed if graph.nodes[i].kind == "reduce"]
    if not reduces:
        return None
    full = tuple(reduces[0].operands[0][1].shape)
    if not full or not 0 < full[-1] <= ROW_MAX:
        return None
    rows = full[:-1]
    memory = _memory_nodes(graph)
    for i in needed:
        node = graph.nodes[i]
        if i in memory:
            continue
        if node.kind == "reduce":
            if tuple(node.operands[0][1].shape) != full or node.attrs != (len(full) - 1,):
                return None
            reader = full
        elif node.shape in (full, rows):
            reader = node.shape
        else:
            return None
        for src, layout in node.operands:
            s = graph.nodes[src]
            if src in memory:
                continue
            if s.shape == rows and reader == full:
                if not row_index_layout(layout, rows, full[-1]):
                    return None
            elif s.shape != reader or not _identity(layout, reader):
                return None
    return full, rows


def _row_block(cols):
    block = 64
    while block < 1024 and block * 8 < cols:
        block *= 2
    return block


def _rows_kernel(graph, outputs, full, rows, name, module):
    cols = full[-1]
    block = _row_block(cols)
    per_thread = -(-cols // block)
    if per_thread > 16:
        raise _Unsupported("row too long")
    slots = _Slots(graph)
    buffers = _LazyBuffers(slots, _memory_nodes(graph))
    row_values = {}
    em = Emitter(graph, buffers, rows=(full, rows, "row", row_values), indent="        ")
    head = []
    lines = ["        const cw_i64 rb = row * %dll;" % cols]
    row_multi = em.unravel("row", rows) if rows else []
    flats = []
    for k in range(per_thread):
        lines.append(f"        const bool ok{k} = threadIdx.x + {k * block} < {cols};")
        lines.append(f"        const cw_i64 c{k} = ok{k} ? (cw_i64)threadIdx.x + {k * block} : {cols - 1}ll;")
        flat = f"(rb + c{k})"
        em.unravels[(flat, full)] = row_multi + [f"c{k}"]
        flats.append(flat)
    reduces = [i for i in _needed(graph, outputs) if graph.nodes[i].kind == "reduce"]
    for r in reduces:
        node = graph.nodes[r]
        src, layout = node.operands[0]
        head += [f"    typedef red_{node.op.value}<{ops.C_TYPE[graph.nodes[src].dtype]} > Op{r};",
                 f"    __shared__ typename Op{r}::acc smem{r}[CW_MAX_WARPS];",
                 f"    __shared__ typename Op{r}::acc all{r};"]
        lines += em.lines
        em.lines = []
        values = [em.value(src, em.operand_index(src, layout, flat, full)) for flat in flats]
        lines += em.lines
        em.lines = []
        lines.append(f"        Op{r} op{r};")
        lines.append(f"        typename Op{r}::acc acc{r} = op{r}.identity();")
        for k, v in enumerate(values):
            lines.append(f"        if (ok{k}) acc{r} = op{r}.combine(acc{r}, op{r}.from({v}, 0));")
        lines += [f"        acc{r} = cw_group_reduce(op{r}, acc{r}, smem{r}, {block});",
                  f"        if (threadIdx.x == 0) all{r} = acc{r};",
                  "        __syncthreads();",
                  f"        const typename cw_traits<{ops.C_TYPE[node.dtype]} >::compute rv{r} = "
                  f"cw_fz_round<{ops.C_TYPE[node.dtype]} >(op{r}.finalize(all{r}));"]
        row_values[r] = f"rv{r}"
    stores = []
    for o in outputs:
        node = graph.nodes[o]
        c = ops.C_TYPE[node.dtype]
        ptr = slots.pointer(o)
        if node.shape == full:
            for k, flat in enumerate(flats):
                v = em.value(o, flat)
                stores.append(f"        if (ok{k}) {ptr}[{flat}] = cw_to_storage<{c} >({v});")
        else:
            v = em.value(o, "row")
            stores.append(f"        if (threadIdx.x == 0) {ptr}[row] = cw_to_storage<{c} >({v});")
    lines += em.lines + stores + ["        __syncthreads();"]
    body = [*head, *slots.declarations(set(outputs)),
            "    for (cw_i64 row = blockIdx.x; row < a.n; row += gridDim.x) {", *lines, "    }"]
    spec = _spec(name, module, block)
    kernel = FusedKernel(spec, "rows", shape_size(rows), tuple(slots.slots), (), 0)
    return kernel, _entry(name, block, "\n".join(body) + "\n")


def plan(graph):
    """The ``FusedPlan`` of ``graph`` (kernels in launch order, the module source, the
    nodes given a buffer), or None when the generator does not cover it (it then runs
    replayed)."""
    outputs = []
    for index, _ in graph.outputs:
        if graph.nodes[index].kind not in ("input", "const") and index not in outputs:
            outputs.append(index)
    if not outputs:
        return FusedPlan(None, "", (), frozenset())
    try:
        shapes = _rows_shapes(graph, outputs)
        entries = []
        if shapes is not None:
            try:
                k, e = _rows_kernel(graph, outputs, *shapes, f"{_NAME}_rows", "")
                kernels, entries, materialized = [k], [e], set(outputs)
            except _Unsupported:
                shapes = None
        if shapes is None:
            kernels, entries, materialized = _general(graph, outputs, lambda k: f"{_NAME}_{k}", "")
    except _Unsupported:
        return None
    # names and module from the generated text: kernels of one name are one kernel
    digest = hashlib.sha256("".join(entries).encode()).hexdigest()[:16]
    name = f"fz{digest}"
    module = f"fused_{digest}"
    source = prelude() + "\n// ---- generated for one fused graph\n" + "".join(entries).replace(_NAME, name)
    kernels = [k._replace(spec=k.spec._replace(module=module, name=k.spec.name.replace(_NAME, name),
                                               key=("fused", k.spec.name.replace(_NAME, name))))
               for k in kernels]
    return FusedPlan(module, source, tuple(kernels), frozenset(materialized))
