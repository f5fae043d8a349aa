"""[codegen] Pieces shared by the schedules of fused kernels (``fused_general``,
``fused_rows``): the kernel record, pointer slots, and the graph walks."""

from collections import namedtuple

from .. import ops
from ..abi.structs import FUSED_ARGS, FUSED_BUFFERS

__all__ = ["FusedKernel", "LazyBuffers", "Slots", "Unsupported", "entry", "memory_nodes", "needed", "spec"]


#: slots: per pointer slot ("input", position) | ("const", index) | ("node", node index);
#: kind "ew" (n = elements, grid over vectors), "reduce" (n = outputs, ``per_block`` of
#: them a block: fused_reduce's groups), "rows" (n = rows, a block each);
#: scalars: per run-time scalar slot (float argument number, dtype it is converted to)
FusedKernel = namedtuple("FusedKernel", "spec kind n slots vector_slots vector_bytes scalars per_block",
                         defaults=(1,))


class Unsupported(Exception):
    """The graph falls outside what the generator covers: it runs replayed."""


class Slots:
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
                raise Unsupported(f"more than {FUSED_BUFFERS} buffers")
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


class LazyBuffers(dict):
    """Pointer names of memory nodes, given a slot the first time a kernel reads one."""

    def __init__(self, slots, memory):
        super().__init__()
        self._slots, self._memory = slots, memory

    def __contains__(self, index):
        return index in self._memory

    def __getitem__(self, index):
        return self._slots.pointer(index)


def memory_nodes(graph):
    return {n.index for n in graph.nodes if n.kind in ("input", "const")}


def needed(graph, outputs):
    """Indices of the nodes the outputs depend on, in graph order."""
    seen, stack = set(), list(outputs)
    while stack:
        i = stack.pop()
        if i not in seen:
            seen.add(i)
            stack.extend(src for src, _ in graph.nodes[i].operands)
    return sorted(seen)


def entry(name, block, body):
    return f'extern "C" __global__ void __launch_bounds__({block}) {name}(cw_fused_args a) {{\n{body}}}\n'


def spec(name, module, block):
    return ops.KernelSpec(("fused", name), name, module, FUSED_ARGS.name, "", block)
