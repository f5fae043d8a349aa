"""[families] The optional ``fusion`` capability: a ``candlewick.fuse`` graph compiled into
the kernels ``codegen/fused_source.py`` generates (hipRTC, the code-object cache of
``kernels.py``: in memory and on disk, keyed by the generated source) and queued
through the one launcher."""

from candlewick.shapes import shape_size

from ..codegen import fused_source
from ..abi.structs import CONTIGUOUS, FUSED_ARGS, FUSED_BUFFERS, FUSED_SCALARS
from .ew_launch import EW_CONTIG_BLOCK, scalar_bytes

__all__ = ["compile_fused"]

_EW_ITEMS_PER_THREAD = 8  # as ew_launch's contiguous path: elements per thread per grid step


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

    def run(storages, scalars=()):
        made = {index: empty(device, nodes[index].dtype, shape_size(nodes[index].shape)) for index in results}
        for plan_kernel, bound in kernels:
            n = plan_kernel.n
            if n == 0:
                continue
            ptrs = []
            for kind, ref in plan_kernel.slots:
                storage = storages[ref] if kind == "input" else consts[ref] if kind == "const" else made[ref]
                ptrs.append(storage.ptr)
            flags = 0
            if plan_kernel.vector_slots and all(ptrs[k] % plan_kernel.vector_bytes == 0
                                                for k in plan_kernel.vector_slots):
                flags = CONTIGUOUS
            ptrs += [0] * (FUSED_BUFFERS - len(ptrs))
            if plan_kernel.kind == "ew":
                block = EW_CONTIG_BLOCK
                grid = min(max(1, -(-n // (block * _EW_ITEMS_PER_THREAD))), cap)
            elif plan_kernel.kind == "reduce_serial":  # a thread per output
                block = plan_kernel.spec.block
                grid = min(-(-n // block), cap)
            else:  # a block per row ("rows") or per reduction output ("reduce")
                block = plan_kernel.spec.block
                grid = min(n, cap)
            packed = no_scalars
            if plan_kernel.scalars:  # each float argument converted as the eager scalar slots convert it
                packed = b"".join(scalar_bytes(scalars[k], dtype) for k, dtype in plan_kernel.scalars)
                packed = packed.ljust(16 * FUSED_SCALARS, b"\0")
            launcher.launch(bound, grid, block, FUSED_ARGS, [n, flags, 0, *ptrs, packed])
        out = []
        for index in outputs:
            node = nodes[index]
            if node.kind == "input":
                out.append(storages[input_position[index]])
            elif node.kind == "const":
                out.append(consts[node.attrs[0]])
            else:
                out.append(made[index])
        return out

    return run
