"""[codegen] The general schedule of a fused graph: a kernel per reduction (the reduction's
element-wise operand computed in its loads; a block per output element when the reduced
elements are the closest in memory, else a thread per output element, so that the
threads of a warp read neighbouring elements), then one
element-wise kernel per output shape, reading and writing 16-byte vectors where every
read is at the element's own index and the buffers are aligned (``CW_CONTIGUOUS``)."""

from candlewick.shapes import shape_size

from .. import ops
from .fused_exprs import Emitter
from .fused_kernels import FusedKernel, LazyBuffers, Slots, Unsupported, entry, memory_nodes, needed, spec
from ..abi.structs import EW_BLOCK

__all__ = ["REDUCE_BLOCK", "general"]

REDUCE_BLOCK = 256
SERIAL_MIN_OUTPUTS = 1024  # outputs from which a thread per output fills a device
#: reduced elements per output above which a block per output runs only when there are
#: SERIAL_MIN_OUTPUTS outputs or more; with fewer the graph runs replayed, through the
#: eager reductions that spread one output over many blocks. (scikit-learn's
#: StandardScaler in lazy mode, H200 at 6843373: all(isfinite(X)) of 200000 x 256 fused
#: into one block took 78 ms; the mean over axis 0, 256 blocks of strided reads, alike.)
BLOCK_REDUCE_MAX = 4096
#: outputs from which a thread per output keeps a device's loads in flight when each
#: thread reduces more than BLOCK_REDUCE_MAX elements (fewer: replayed, as above)
SERIAL_FILL = 32768
#: reduced elements per output below which a block per output (REDUCE_BLOCK threads, a
#: block reduction per output) keeps too few loads in flight: past ROW_BOUND_TOTAL
#: elements in all, such a graph runs replayed, through the eager kernels (the bench's
#: KMeans-like loop in lazy mode, H200 2026-11-30: sum(X * X, axis=1) of 200000 x 256
#: fused took 335 us, the eager multiply and row sum about 160 us)
BLOCK_ROW_MIN = 4 * REDUCE_BLOCK
ROW_BOUND_TOTAL = 1 << 22


def _reduce_kernel(graph, node, materialized, name, module):
    (src, layout), axes = node.operands[0], node.attrs
    slots = Slots(graph)
    buffers = LazyBuffers(slots, memory_nodes(graph) | (materialized - {node.index}))
    out = slots.pointer(node.index)
    src_c = ops.C_TYPE[graph.nodes[src].dtype]
    op = f"red_{node.op.value}<{src_c} >"
    kept = [(n, s) for i, (n, s) in enumerate(zip(layout.shape, layout.strides)) if i not in axes]
    red = [(n, s) for i, (n, s) in enumerate(zip(layout.shape, layout.strides)) if i in axes]
    n_red = shape_size([n for n, _ in red])
    em = Emitter(graph, buffers, indent="            ", params={})
    kept_idx = em.unravel("o", tuple(n for n, _ in kept)) if kept else []
    base_lines, em.lines = em.lines, []
    red_idx = em.unravel("r", tuple(n for n, _ in red)) if red else []
    multi, ki, ri = [], iter(kept_idx), iter(red_idx)
    for i in range(len(layout.shape)):
        multi.append(next(ri) if i in axes else next(ki))
    flat = Emitter.offset_expr(layout, multi)
    x = em.value(src, flat)
    n_out = shape_size(node.shape)
    serial = _serial(layout, axes, n_out)
    if n_red > BLOCK_REDUCE_MAX and n_out < (SERIAL_FILL if serial else SERIAL_MIN_OUTPUTS):
        raise Unsupported(f"a reduction of {n_red} elements into {n_out} outputs: too few threads")
    if not serial and n_red < BLOCK_ROW_MIN and n_out * n_red >= ROW_BOUND_TOTAL:
        raise Unsupported(f"a reduction of {n_red} elements into each of {n_out} outputs: a block per output is slower")
    if serial:
        return _serial_reduce(graph, node, slots, em, base_lines, x, op, out, n_red, n_out, name, module)
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
    kernel_spec = spec(name, module, REDUCE_BLOCK)
    return FusedKernel(kernel_spec, "reduce", shape_size(node.shape), tuple(slots.slots), (), 0,
                       tuple(em.params)), \
        entry(name, REDUCE_BLOCK, "\n".join(body) + "\n")


def _serial(layout, axes, n_out):
    """A thread per output: when the operand's innermost axis (smallest stride) is kept and
    there are outputs enough to fill the device."""
    live = [(abs(st), i) for i, (n, st) in enumerate(zip(layout.shape, layout.strides)) if n > 1 and st]
    return n_out >= SERIAL_MIN_OUTPUTS and bool(live) and min(live)[1] not in axes


def _serial_reduce(graph, node, slots, em, base_lines, x, op, out, n_red, n_out, name, module):
    body = [
        f"    typedef {op} Op;",
        "    Op op;",
        *slots.declarations({node.index}),
        "    for (cw_i64 o = (cw_i64)blockIdx.x * blockDim.x + threadIdx.x; o < a.n; "
        "o += (cw_i64)gridDim.x * blockDim.x) {",
        *[line[4:] for line in base_lines],
        "        typename Op::acc acc = op.identity();",
        f"        for (cw_i64 r = 0; r < {n_red}ll; ++r) {{",
        *em.lines,
        f"            acc = op.combine(acc, op.from({x}, r));",
        "        }",
        f"        cw_store<typename Op::out>((char*){out}, o, op.finalize(acc));",
        "    }",
    ]
    kernel_spec = spec(name, module, REDUCE_BLOCK)
    return FusedKernel(kernel_spec, "reduce_serial", n_out, tuple(slots.slots), (), 0, tuple(em.params)), \
        entry(name, REDUCE_BLOCK, "\n".join(body) + "\n")


def _ew_kernel(graph, outputs, shape, materialized, name, module):
    slots = Slots(graph)
    memory = memory_nodes(graph) | materialized
    buffers = LazyBuffers(slots, memory)
    params = {}
    scalar = Emitter(graph, buffers, indent="        ", params=params)
    results = [(o, scalar.value(o, "i")) for o in outputs]
    outs = [(o, slots.pointer(o)) for o in outputs]
    direct_nodes = sorted({n for n, flat in scalar.loads if flat == "i"})
    vector_ok = all(flat == "i" for _, flat in scalar.loads)
    sizes = [graph.nodes[n].dtype.itemsize for n in direct_nodes + list(outputs)]
    width = max(1, 16 // max(sizes)) if vector_ok else 1
    lines = [*slots.declarations(set(outputs)), "    const cw_i64 n = a.n;", "    cw_i64 done = 0;"]
    if width > 1:
        lines += _vector_loop(graph, buffers, direct_nodes, outputs, width, slots, params)
    lines += ["    for (cw_i64 i = done + (cw_i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; "
              "i += (cw_i64)blockDim.x * gridDim.x) {", *scalar.lines]
    for (o, var), (_, ptr) in zip(results, outs):
        lines.append(f"        {ptr}[i] = cw_to_storage<{ops.C_TYPE[graph.nodes[o].dtype]} >({var});")
    lines.append("    }")
    vector_slots = tuple(slots.names[n] for n in direct_nodes + list(outputs)) if width > 1 else ()
    kernel_spec = spec(name, module, EW_BLOCK)
    kernel = FusedKernel(kernel_spec, "ew", shape_size(shape), tuple(slots.slots),
                         tuple(int(s[1:]) for s in vector_slots), 16 if width > 1 else 0, tuple(params))
    return kernel, entry(name, EW_BLOCK, "\n".join(lines) + "\n")


def _vector_loop(graph, buffers, direct_nodes, outputs, width, slots, params):
    """Vectors of ``width`` elements (16 bytes of the widest buffer), two per thread per
    step with their loads issued first, as the eager contiguous kernels move them."""
    lines = ["    if (a.flags & CW_CONTIGUOUS) {",
             f"        const cw_i64 nv = n / {width}, bd = blockDim.x;",
             "        for (cw_i64 j0 = (cw_i64)blockIdx.x * 2 * bd + threadIdx.x; j0 < nv; j0 += 2 * (cw_i64)gridDim.x * bd) {"]
    for half, j in ((0, "j0"), (1, "j0 + bd")):
        em = Emitter(graph, buffers, indent="                ", params=params)
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


def general(graph, outputs, name_of, module):
    reduces = [i for i in needed(graph, outputs) if graph.nodes[i].kind == "reduce"]
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
