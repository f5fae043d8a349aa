"""[codegen] The reduction kernel of the general schedule (``fused_general``): each output
reduced by a **group** of G consecutive threads of a block (G a power of two, from 1 to
the block), ``REDUCE_BLOCK // G`` outputs per block, the reduction's element-wise operand
computed in its loads. G = 1 is a thread per output (a kept axis innermost: the threads
of a warp read neighbouring outputs' elements), G = REDUCE_BLOCK a block per output (few
outputs with many elements each); between them short rows (the KMeans-like loop's
``sum(X * X, axis=1)`` of 200 000 x 256) keep every thread busy with a few elements
instead of a block-wide reduction per 256 elements. Each thread of a wider group keeps
``TUNING["unroll"]`` accumulators, so that many loads are in flight before any is combined."""

import os
import warnings

from candlewick.shapes import shape_size

from .. import ops
from .fused_exprs import Emitter
from .fused_kernels import FusedKernel, Unsupported, entry, spec

__all__ = ["ENV", "REDUCE_BLOCK", "TUNING", "group_size", "parse_tuning", "reduce_kernel"]

REDUCE_BLOCK = 256
SERIAL_MIN_OUTPUTS = 1024  # outputs from which a thread per output fills a device
#: reduced elements per output above which a reduction runs fused only with
#: SERIAL_MIN_OUTPUTS outputs or more (a thread per output: SERIAL_FILL); with fewer the
#: graph runs replayed, through the eager reductions that spread one output over many
#: blocks. (scikit-learn's StandardScaler in lazy mode, H200 at 6843373: all(isfinite(X))
#: of 200000 x 256 fused into one block took 78 ms; the mean over axis 0, 256 blocks of
#: strided reads, alike.)
BLOCK_REDUCE_MAX = 4096
SERIAL_FILL = 32768
#: threads that fill a device (an H200 holds 132 x 2048 resident): the outputs get groups
#: as wide as this allows, so few outputs still spread over the device (the source is
#: generated once for every device, so this is a constant)
FILL_THREADS = 1 << 18
#: the narrowest group of a row reduction: 8 threads read 32 contiguous bytes of float32
#: (a memory sector) per load
MIN_GROUP = 8
#: the fewest reduced elements per thread the group is sized for
MIN_PER_THREAD = 4
VECTOR_BYTES = 16

ENV = "CANDLEWICK_ROCM_FUSED_REDUCE"
#: "group": 0 = from the shape, else a power of two forced on every reduction (256 = a
#: block per output); "unroll": accumulators (loads in flight) per thread; "vector": 1 =
#: 16-byte loads where a row's elements are read at their own index (_vector_plan)
DEFAULT_TUNING = {"group": 0, "unroll": 4, "vector": 1}


def parse_tuning(text):
    """``DEFAULT_TUNING`` updated from "key=value,key=value" (unknown keys or bad values warn)."""
    tuning = dict(DEFAULT_TUNING)
    for part in filter(None, (p.strip() for p in (text or "").split(","))):
        key, _, value = part.partition("=")
        try:
            if key.strip() not in DEFAULT_TUNING or int(value) < 0:
                raise ValueError(part)
            tuning[key.strip()] = int(value)
        except ValueError:
            warnings.warn(f"{ENV}: ignoring {part!r} (keys: {', '.join(DEFAULT_TUNING)})", stacklevel=2)
    return tuning


TUNING = parse_tuning(os.environ.get(ENV))


def _pow2_floor(n):
    return 1 << (max(int(n), 1).bit_length() - 1)


def _innermost_kept(layout, axes):
    live = [(abs(st), i) for i, (n, st) in enumerate(zip(layout.shape, layout.strides)) if n > 1 and st]
    return bool(live) and min(live)[1] not in axes


def group_size(layout, axes, n_out, n_red, tuning=None):
    """Threads per output. A thread each where a kept axis is innermost and the outputs
    fill a device; else as wide as the outputs leave threads to fill one, at most
    ``n_red // MIN_PER_THREAD`` (and the block), at least ``MIN_GROUP`` where the rows
    are that long."""
    t = tuning or TUNING
    if t["group"]:
        return min(_pow2_floor(t["group"]), REDUCE_BLOCK)
    if n_out >= SERIAL_MIN_OUTPUTS and _innermost_kept(layout, axes):
        return 1
    most = min(_pow2_floor(max(n_red // MIN_PER_THREAD, 1)), REDUCE_BLOCK)
    fill = _pow2_floor(max(FILL_THREADS // max(n_out, 1), 1))
    return max(min(fill, most), min(most, MIN_GROUP))


def reduce_kernel(graph, node, slots, buffers, name, module):
    """(FusedKernel, entry source) of reduction ``node``; its operand's nodes computed in
    the loads from ``buffers``."""
    (src, layout), axes = node.operands[0], node.attrs
    out = slots.pointer(node.index)
    op = f"red_{node.op.value}<{ops.C_TYPE[graph.nodes[src].dtype]} >"
    kept = [n for i, n in enumerate(layout.shape) if i not in axes]
    red = tuple(n for i, n in enumerate(layout.shape) if i in axes)
    n_red, n_out = shape_size(red), shape_size(node.shape)
    group = group_size(layout, axes, n_out, n_red)
    if n_red > BLOCK_REDUCE_MAX and n_out < (SERIAL_FILL if group == 1 else SERIAL_MIN_OUTPUTS):
        raise Unsupported(f"a reduction of {n_red} elements into {n_out} outputs: too few threads")
    # a thread per output walks its column alone: one accumulator (4 took 148.5 us against
    # 144.5 for sum(x * x, axis=0) of 4096 x 8192 on the H200, probe s23fuse_1)
    unroll = max(1, TUNING["unroll"]) if group > 1 else 1
    em = Emitter(graph, buffers, indent="                ", params={})
    kept_idx = em.unravel("o", tuple(kept)) if kept else []
    base_lines, em.lines = em.lines, []

    def flat_of(r):
        """The operand's element offset at reduced index ``r`` (a C expression)."""
        red_idx, ki = iter(em.unravel(r, red) if red else []), iter(kept_idx)
        return Emitter.offset_expr(layout, [next(red_idx) if i in axes else next(ki) for i in range(len(layout.shape))])

    def element(r):
        """The name of the operand's value at reduced index ``r`` (lines into em.lines)."""
        return em.value(src, flat_of(r))

    def fresh_scope():  # values computed in another loop's scope are not visible here
        em.memo, em.unravels = {}, {("o", tuple(kept)): kept_idx} if kept else {}

    def combine(k, r):
        x = element(r)
        em.lines.append(f"{em.indent}acc{k} = op.combine(acc{k}, op.from({x}, {r}));")

    def scalar_loops():
        """Element r = lane, lane + group, ...: ``unroll`` of them a step, then the rest."""
        fresh_scope()
        for k in range(unroll):
            em.lines.append(f"                const cw_i64 r{k} = r + {k * group}ll;")
            combine(k, f"r{k}")
        main, em.lines = em.lines, []
        fresh_scope()
        combine(0, "r")
        tail, em.lines = em.lines, []
        return ["            cw_i64 r = lane;",
                f"            for (; r + {(unroll - 1) * group}ll < {n_red}ll; r += {unroll * group}ll) {{",
                *main, "            }", f"            for (; r < {n_red}ll; r += {group}ll) {{", *tail, "            }"]

    vector = _vector_plan(graph, node, buffers) if TUNING["vector"] else None
    if vector is None:
        loops, vector_slots = scalar_loops(), ()
    else:
        loops = _vector_loops(em, flat_of, fresh_scope, combine, n_red, group, unroll, *vector, buffers, graph)
        loops = ["            if (a.flags & CW_CONTIGUOUS) {", *["    " + line for line in loops],
                 "            } else {", *["    " + line for line in scalar_loops()], "            }"]
        vector_slots = tuple(int(buffers[n][1:]) for n in vector[1])
    accs = [f"acc{k}" for k in range(unroll)]
    while len(accs) > 1:  # a fixed tree over the accumulators
        accs = [f"op.combine({a}, {b})" for a, b in zip(accs[::2], accs[1::2])] + accs[len(accs) - len(accs) % 2:]
    body = [
        f"    typedef {op} Op;",
        "    typedef typename Op::acc Acc;",
        "    __shared__ Acc smem[CW_MAX_WARPS];",
        "    Op op;",
        *slots.declarations({node.index}),
        f"    const int lane = threadIdx.x % {group};",
        f"    for (cw_i64 first = (cw_i64)blockIdx.x * {REDUCE_BLOCK // group}; first < a.n; "
        f"first += (cw_i64)gridDim.x * {REDUCE_BLOCK // group}) {{",
        f"        const cw_i64 o = first + threadIdx.x / {group};",
        "        Acc acc = op.identity();",
        "        if (o < a.n) {",
        *[line[4:] for line in base_lines],
        *[f"            Acc acc{k} = op.identity();" for k in range(unroll)],
        *loops,
        f"            acc = {accs[0]};",
        "        }",
        # every thread of the block reaches this (the loop's bounds are the block's)
        f"        acc = cw_group_reduce(op, acc, smem, {group});",
        f"        if (lane == 0 && o < a.n) cw_store<typename Op::out>((char*){out}, o, op.finalize(acc));",
        "    }",
    ]
    kernel = FusedKernel(spec(name, module, REDUCE_BLOCK), "reduce", n_out, tuple(slots.slots), vector_slots,
                         VECTOR_BYTES if vector_slots else 0, tuple(em.params), REDUCE_BLOCK // group)
    return kernel, entry(name, REDUCE_BLOCK, "\n".join(body) + "\n")


def _identity(layout, shape):
    return layout.offset == 0 and layout.is_contiguous and tuple(layout.shape) == tuple(shape)


def _vector_plan(graph, node, buffers):
    """(elements per vector, memory nodes read) when every element the reduction reads
    is at its operand's own index along a last, unit-stride reduced axis whose rows
    start on whole vectors (a row sum of x * x); else None."""
    (src, layout), axes = node.operands[0], node.attrs
    last = len(layout.shape) - 1
    if axes != (last,) or layout.strides[last] != 1:
        return None
    memory, stack, seen = set(), [src], set()
    while stack:
        i = stack.pop()
        if i in seen:
            continue
        seen.add(i)
        n = graph.nodes[i]
        if i in buffers:
            memory.add(i)
        elif n.kind != "full":
            for s, lay in n.operands:
                if not _identity(lay, n.shape):
                    return None
                stack.append(s)
    dtypes = [graph.nodes[i].dtype for i in memory]
    if not memory or any(d.kind == "c" for d in dtypes):
        return None
    width = VECTOR_BYTES // max(d.itemsize for d in dtypes)
    aligned = layout.offset % width == 0 and all(
        st % width == 0 for i, (n, st) in enumerate(zip(layout.shape, layout.strides)) if i != last and n > 1)
    if width < 2 or layout.shape[last] % width or not aligned:
        return None
    return width, sorted(memory)


def _vector_loops(em, flat_of, fresh_scope, combine, n_red, group, unroll, width, memory, buffers, graph):
    """The loops over the row's vectors (rv = lane, lane + group, ...): every thread's
    ``unroll`` vectors of each memory node loaded before any is combined. The elements'
    values are their scalar expressions with the loads replaced by the vectors' lanes."""
    base = flat_of("0")  # the row's first element: a whole number of vectors
    n_vec = n_red // width

    def step(ks, rv):
        lines = []
        for k in ks:
            lines.append(f"                const cw_i64 rv{k} = {rv} + {k * group}ll;")
            for n in memory:
                c = ops.C_TYPE[graph.nodes[n].dtype]
                lines.append(f"                const cw_pack<{c}, {width}> x{k}_{n} = "
                             f"cw_vload<{c}, {width}>({buffers[n]}, ({base}) / {width}ll + rv{k});")
        em.lines = lines
        for k in ks:
            for w in range(width):
                r = f"r{k}_{w}"
                em.lines.append(f"                const cw_i64 {r} = rv{k} * {width}ll + {w}ll;")
                em.direct = {(n, flat_of(r)): f"x{k}_{n}.v[{w}]" for n in memory}
                combine(k, r)
        em.direct = {}
        out, em.lines = em.lines, []
        return out

    fresh_scope()
    main = step(range(unroll), "rv")
    fresh_scope()
    tail = step([0], "rv")
    return ["            cw_i64 rv = lane;",
            f"            for (; rv + {(unroll - 1) * group}ll < {n_vec}ll; rv += {unroll * group}ll) {{",
            *main, "            }", f"            for (; rv < {n_vec}ll; rv += {group}ll) {{", *tail, "            }"]
