"""[codegen] The general schedule of a fused graph: a kernel per reduction (``fused_reduce``:
the reduction's element-wise operand computed in its loads, a group of threads per output
sized from the shape), then one element-wise kernel per output shape, reading and writing 16-byte vectors where the
buffers read at the element's own index and the outputs are aligned (``CW_CONTIGUOUS``; the
other reads one element at a time)."""

from candlewick.shapes import shape_size

from .. import ops
from .fused_exprs import Emitter
from .fused_kernels import FusedKernel, LazyBuffers, Slots, entry, memory_nodes, needed, spec
from .fused_reduce import reduce_kernel
from ..abi.structs import EW_BLOCK

__all__ = ["general"]


def _reduce_kernel(graph, node, materialized, name, module):
    slots = Slots(graph)
    buffers = LazyBuffers(slots, memory_nodes(graph) | (materialized - {node.index}))
    return reduce_kernel(graph, node, slots, buffers, name, module)


def _ew_kernel(graph, outputs, shape, materialized, name, module):
    slots = Slots(graph)
    memory = memory_nodes(graph) | materialized
    buffers = LazyBuffers(slots, memory)
    params = {}
    scalar = Emitter(graph, buffers, indent="        ", params=params)
    results = [(o, scalar.value(o, "i")) for o in outputs]
    outs = [(o, slots.pointer(o)) for o in outputs]
    # the buffers read at the element's own index move as vectors; the others (a row of
    # means broadcast down a matrix: StandardScaler's X - mean in lazy mode) are read one
    # element at a time inside the vector loop, from the caches
    direct_nodes = sorted({n for n, flat in scalar.loads if flat == "i"})
    sizes = [graph.nodes[n].dtype.itemsize for n in direct_nodes + list(outputs)]
    width = max(1, 16 // max(sizes))
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
