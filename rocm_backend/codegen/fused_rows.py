"""[codegen] The rows schedule of a fused graph (softmax, logsumexp, normalizations): every
reduction reduces the last axis of one full shape ``F = rows + (C,)`` and is read back
one value per row. One kernel: a block per row, each thread holding ``K`` elements of the
row in registers (each input element is read from memory once); the reductions are
block reductions in order, their results broadcast to the block through shared memory;
then every output is written."""

from candlewick.shapes import shape_size

from .. import ops
from .fused_exprs import Emitter, row_index_layout
from .fused_kernels import FusedKernel, LazyBuffers, Slots, Unsupported, entry, memory_nodes, needed, spec

__all__ = ["ROW_MAX", "rows_kernel", "rows_shapes"]

#: the most elements of a row one thread keeps in registers
MAX_PER_THREAD = 16
#: the longest row the rows schedule keeps in registers (1024 threads of MAX_PER_THREAD)
ROW_MAX = MAX_PER_THREAD * 1024
#: bytes of the vectors the vector path reads and writes a row in
VECTOR_BYTES = 16


def _identity(layout, shape):
    return layout.offset == 0 and layout.is_contiguous and tuple(layout.shape) == tuple(shape)


def rows_shapes(graph, outputs):
    """(full shape, row shape) when the graph fits the rows schedule, else None."""
    used = needed(graph, outputs)
    reduces = [graph.nodes[i] for i in used if graph.nodes[i].kind == "reduce"]
    if not reduces:
        return None
    full = tuple(reduces[0].operands[0][1].shape)
    if not full or not 0 < full[-1] <= ROW_MAX:
        return None
    rows = full[:-1]
    memory = memory_nodes(graph)
    for i in used:
        node = graph.nodes[i]
        if i in memory or node.kind == "full":  # a constant reads the same at any index
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
            if src in memory or s.kind == "full":
                continue
            if s.shape == rows and reader == full:
                if not row_index_layout(layout, rows, full[-1]):
                    return None
            elif s.shape != reader or not _identity(layout, reader):
                return None
    return full, rows


def _row_block(cols):
    """Threads per row: up to 16 elements each, so that a block stays small enough (512
    threads for 8192 columns, at most 64 registers each) for two blocks to share a
    multiprocessor: one row's loads overlap the other's reductions."""
    block = 64
    while block < 1024 and block * MAX_PER_THREAD < cols:
        block *= 2
    return block


def rows_kernel(graph, outputs, full, rows, name, module):
    cols = full[-1]
    block = _row_block(cols)
    per_thread = -(-cols // block)
    if per_thread > MAX_PER_THREAD:
        raise Unsupported("row too long")
    slots = Slots(graph)
    buffers = LazyBuffers(slots, memory_nodes(graph))
    params = {}
    head, scalar_lines, loads = _row_body(graph, outputs, full, rows, block, buffers, params, slots)
    flats = {f"(rb + c{k})" for k in range(per_thread)}
    direct = sorted({n for n, flat in loads if flat in flats})
    full_outputs = [o for o in outputs if graph.nodes[o].shape == full]
    sizes = [graph.nodes[n].dtype.itemsize for n in direct + full_outputs]
    width = VECTOR_BYTES // max(sizes) if sizes else 1
    loop = "    for (cw_i64 row = blockIdx.x; row < a.n; row += gridDim.x) {"
    vector_slots = ()
    if width > 1 and cols % (block * width) == 0:
        # vectors of the row where the buffers are aligned (CW_CONTIGUOUS)
        _, vector_lines, _ = _row_body(graph, outputs, full, rows, block, buffers, params, slots, (width, direct))
        body_lines = ["    if (a.flags & CW_CONTIGUOUS) {", loop, *vector_lines, "    }", "    } else {",
                      loop, *scalar_lines, "    }", "    }"]
        vector_slots = tuple(int(slots.names[n][1:]) for n in direct + full_outputs)
    else:
        body_lines = [loop, *scalar_lines, "    }"]
    body = [*head, *slots.declarations(set(outputs)), *body_lines]
    kernel_spec = spec(name, module, block)
    kernel = FusedKernel(kernel_spec, "rows", shape_size(rows), tuple(slots.slots), vector_slots,
                         VECTOR_BYTES if vector_slots else 0, tuple(params))
    return kernel, entry(name, block, "\n".join(body) + "\n")


def _sum_exps(graph, outputs, reduces, full, rows):
    """The exp nodes of a logsumexp's sum of exp(x - max(x)) over the row, float32, whose
    values nothing else reads: the kernel computes them with the hardware's exp
    (``op_exp_sum``, fused_source.HELPERS). Each such value is at most 1 and the max's
    own element adds exactly 1, so the sum is at least 1: a term's relative error (2 +
    1.2 |x - max| ulps at most) is weighted by the term, and the sum's relative error stays
    within about 2 + 1.2 ln(C) ulps (12 at C = 8192), the rounding a reassociated sum of C
    terms already has; terms the fast exp flushes to zero are below 2^-126 and vanish in a
    sum of at least 1 anyway. torch.compile's Triton kernels compute every float32 exp
    this way; here only these private values do: logsumexp 8192 x 8192 float32 took 70.3
    us against 73.4 with ``expf`` on the H200 (2026-11-30), torch.compile's 72.0."""
    used = needed(graph, outputs)
    readers = {}
    for i in used:
        for src, _ in graph.nodes[i].operands:
            readers[src] = readers.get(src, 0) + 1
    exps = set()
    for s in reduces:
        sn = graph.nodes[s]
        e, e_layout = sn.operands[0]
        en = graph.nodes[e]
        if sn.op.value != "sum" or en.kind != "unary" or en.op.value != "exp" or not _identity(e_layout, full):
            continue
        d, d_layout = en.operands[0]
        dn = graph.nodes[d]
        if dn.kind != "binary" or dn.op.value != "subtract" or not _identity(d_layout, full):
            continue
        (x, x_layout), (m, m_layout) = dn.operands
        mn = graph.nodes[m]
        if mn.kind != "reduce" or mn.op.value != "max" or mn.operands[0] != (x, x_layout):
            continue
        if not _identity(x_layout, full) or not row_index_layout(m_layout, rows, full[-1]):
            continue
        if {graph.nodes[i].dtype.name for i in (x, m, d, e, s)} != {"float32"}:
            continue
        if readers.get(e) == 1 and readers.get(d) == 1 and not {d, e} & set(outputs):
            exps.add(e)
    return exps


def _row_body(graph, outputs, full, rows, block, buffers, params, slots, vector=None):
    """(declarations, the body of the loop over rows, the memory reads) of the rows kernel;
    ``vector`` = (V, nodes): thread t holds vectors t, t + block, ... of V elements, the
    listed memory nodes are read and the full-shaped outputs written as whole vectors."""
    cols = full[-1]
    per_thread = -(-cols // block)
    row_values = {}
    em = Emitter(graph, buffers, rows=(full, rows, "row", row_values), indent="        ", params=params)
    head = []
    lines = ["        const cw_i64 rb = row * %dll;" % cols]
    row_multi = em.unravel("row", rows) if rows else []
    flats = []
    for k in range(per_thread):
        if vector is not None:
            width = vector[0]
            m, lane = divmod(k, width)
            lines.append(f"        const bool ok{k} = true;")
            lines.append(f"        const cw_i64 c{k} = ((cw_i64)threadIdx.x + {m * block}) * {width} + {lane};")
        elif cols % block == 0:  # every thread's elements exist: constant offsets from one base
            lines.append(f"        const bool ok{k} = true;")
            lines.append(f"        const cw_i64 c{k} = (cw_i64)threadIdx.x + {k * block};")
        else:  # a thread past the row's end reads its last element and ignores it
            lines.append(f"        const bool ok{k} = threadIdx.x + {k * block} < {cols};")
            lines.append(f"        const cw_i64 c{k} = ok{k} ? (cw_i64)threadIdx.x + {k * block} : {cols - 1}ll;")
        flat = f"(rb + c{k})"
        em.unravels[(flat, full)] = row_multi + [f"c{k}"]
        flats.append(flat)
    if vector is not None:
        width, direct = vector
        for n in direct:
            c = ops.C_TYPE[graph.nodes[n].dtype]
            for m in range(per_thread // width):
                lines.append(f"        const cw_pack<{c}, {width}> xv{m}_{n} = "
                             f"cw_vload<{c}, {width}>({slots.pointer(n)} + rb, (cw_i64)threadIdx.x + {m * block});")
                for lane in range(width):
                    em.direct[(n, flats[m * width + lane])] = f"xv{m}_{n}.v[{lane}]"
    reduces = [i for i in needed(graph, outputs) if graph.nodes[i].kind == "reduce"]
    em.functors.update(dict.fromkeys(_sum_exps(graph, outputs, reduces, full, rows), "op_exp_sum"))
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
        if node.shape != full:
            v = em.value(o, "row")
            stores.append(f"        if (threadIdx.x == 0) {ptr}[row] = cw_to_storage<{c} >({v});")
        elif vector is not None:
            width = vector[0]
            for m in range(per_thread // width):
                stores.append(f"        cw_pack<{c}, {width}> yv{m}_{o};")
                for lane in range(width):
                    v = em.value(o, flats[m * width + lane])
                    stores.append(f"        yv{m}_{o}.v[{lane}] = cw_to_storage<{c} >({v});")
                stores.append(f"        cw_vstore<{c}, {width}>({ptr} + rb, (cw_i64)threadIdx.x + {m * block}, yv{m}_{o});")
        else:
            for k, flat in enumerate(flats):
                v = em.value(o, flat)
                stores.append(f"        if (ok{k}) {ptr}[{flat}] = cw_to_storage<{c} >({v});")
    # values computed while the stores were written come before them
    body = lines + em.lines + stores + ["        __syncthreads();"]
    return head, body, em.loads
