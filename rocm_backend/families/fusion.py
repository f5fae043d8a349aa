"""[families] The optional ``fusion`` capability: a ``candlewick.fuse`` graph compiled into
the kernels ``codegen/fused_source.py`` generates (hipRTC, the code-object cache of
``kernels.py``: in memory and on disk, keyed by the generated source) and queued
through the one launcher."""

from operator import attrgetter

from candlewick.shapes import shape_size

from ..codegen import fused_source
from ..abi.structs import CONTIGUOUS, FUSED_ARGS, FUSED_BUFFERS, FUSED_SCALARS
from .ew_launch import EW_CONTIG_BLOCK, scalar_bytes

__all__ = ["compile_fused"]


def compile_fused(device, graph):
    """The run function of ``graph`` on ``device`` (``candlewick.backend.FusionDevice``),
    or None when the generator does not cover the graph (the front end then replays it)."""
    plan = fused_source.plan(graph)
    if plan is None:
        return None
    kernels = [(k, device.kernels.kernel(k.spec, plan.source, fused_source.COMPILE_OPTIONS)) for k in plan.kernels]
    nodes = graph.nodes
    outputs = [index for index, _ in graph.outputs]
    consts = graph.consts
    results = [index for index in plan.materialized]
    input_position = {index: p for p, index in enumerate(graph.inputs)}
    launcher = device.launcher
    empty = device.storage_type.empty
    cap = device.ew_grid_cap

    no_scalars = bytes(16 * FUSED_SCALARS)
    struct = FUSED_ARGS.struct
    # a kernel with no run-time scalar has only its buffers' addresses to fill: where the
    # launcher writes 8-byte fields in C (candlewick._native's StreamLaunch), its struct is
    # packed once per alignment flag and each run fills and queues it without a Python
    # frame, as the eager element-wise launches do (lazy mode runs a graph per call)
    stream_launch = getattr(launcher, "stream_launch", None)
    ptr_at = FUSED_ARGS.offsets["ptr"]
    # what each launch needs that the graph fixes (geometry, slots, padding), made once:
    # a loop runs the same compiled graph on every call
    prepared = []
    for plan_kernel, bound in kernels:
        n = plan_kernel.n
        if n == 0:
            continue
        if plan_kernel.kind == "ew":
            block = EW_CONTIG_BLOCK
            grid = min(max(1, -(-n // (block * plan_kernel.spec.items))), cap)
        else:  # per_block rows ("rows": 1) or reduction outputs ("reduce": a group each) a block
            block = plan_kernel.spec.block
            grid = min(-(-n // plan_kernel.per_block), cap)
        slots = tuple((0 if kind == "input" else 1 if kind == "const" else 2, ref) for kind, ref in plan_kernel.slots)
        # (the struct packed per alignment flag and the pointers' offsets in it, or None)
        pointer_struct = None
        if stream_launch is not None and not plan_kernel.scalars and getattr(bound, "fn_int", None) is not None:
            nulls = [0] * FUSED_BUFFERS
            pointer_struct = (struct.pack(n, 0, 0, *nulls, no_scalars),
                              struct.pack(n, CONTIGUOUS, 0, *nulls, no_scalars),
                              tuple(ptr_at + 8 * k for k in range(len(slots))))
        prepared.append((bound, grid, block, n, slots, tuple(plan_kernel.vector_slots), plan_kernel.vector_bytes,
                         [0] * (FUSED_BUFFERS - len(slots)), plan_kernel.scalars, pointer_struct))
    made_nodes = [(index, nodes[index].dtype, shape_size(nodes[index].shape)) for index in results]
    returned = [(0, input_position[index]) if nodes[index].kind == "input"
                else (1, nodes[index].attrs[0]) if nodes[index].kind == "const" else (2, index) for index in outputs]
    one = _one_launch(device, prepared, made_nodes, returned, len(graph.inputs), stream_launch)
    if one is not None:
        return one

    def run(storages, scalars=()):
        made = {index: empty(device, dtype, size) for index, dtype, size in made_nodes}
        sources = (storages, consts, made)
        for bound, grid, block, n, slots, vector_slots, vector_bytes, pad, kernel_scalars, pointer_struct in prepared:
            ptrs = [sources[kind][ref].ptr for kind, ref in slots]
            flags = 0
            if vector_slots and all(ptrs[k] % vector_bytes == 0 for k in vector_slots):
                flags = CONTIGUOUS
            if pointer_struct is not None:
                stream_launch(bound, grid, 1, 1, block, 1, 1, pointer_struct[1] if flags else pointer_struct[0],
                              pointer_struct[2], *ptrs)
                continue
            packed = no_scalars
            if kernel_scalars:  # each float argument converted as the eager scalar slots convert it
                packed = b"".join(scalar_bytes(scalars[k], dtype) for k, dtype in kernel_scalars)
                packed = packed.ljust(16 * FUSED_SCALARS, b"\0")
            launcher.launch_fields(bound, grid, 1, 1, block, 1, 1, FUSED_ARGS, struct, [n, flags, 0, *ptrs, *pad, packed])
        return [sources[kind][ref] for kind, ref in returned]

    return run


_PTR = attrgetter("ptr")


def _one_launch(device, prepared, made_nodes, returned, inputs, stream_launch):
    """The run of a graph compiled into one kernel queued by ``stream_launch`` (no
    run-time scalar) that writes one result, the graph's one output, and reads inputs
    only: its buffers' addresses are the inputs' and the result's, listed without a
    comprehension's frame, their alignment tested in the run's own frame (lazy mode's
    deferred ``irfft(rfft(x) * h)`` runs one such graph a call); else None."""
    if len(prepared) != 1 or prepared[0][9] is None or len(made_nodes) != 1 or returned != [(2, made_nodes[0][0])]:
        return None
    bound, grid, block, _, slots, vector_slots, vector_bytes, _, _, (plain, aligned, offsets) = prepared[0]
    made, dtype, size = made_nodes[0]
    # each slot's place in (*inputs, result), which the kernel's slots list in that order
    if [ref if kind == 0 else inputs if (kind, ref) == (2, made) else -1 for kind, ref in slots] != list(range(inputs + 1)):
        return None
    empty = device.storage_type.empty
    unvectorized = plain if not vector_slots else None

    def run(storages, scalars=()):
        out = empty(device, dtype, size)
        ptrs = [*map(_PTR, storages), out.ptr]
        struct = unvectorized
        if struct is None:
            struct = aligned
            for k in vector_slots:
                if ptrs[k] % vector_bytes:
                    struct = plain
                    break
        stream_launch(bound, grid, 1, 1, block, 1, 1, struct, offsets, *ptrs)
        return [out]

    return run
