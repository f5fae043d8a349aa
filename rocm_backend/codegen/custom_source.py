"""[codegen] HIP source of the custom kernels users define (``candlewick.ElementwiseKernel``,
``ReductionKernel``) at one call's dtypes, and the source a ``RawKernel`` compiles.

The generated kernels take ``cw_kernel_args`` (shape and strides at run time, so one
compiled kernel serves every shape of a dtype signature). Each per-element operand's
offset comes from the flat index as the element-wise kernels decode it (coalesced
shape and strides, a contiguous fast path); the user's text is pasted in under
``#line`` directives naming its part (``body``, ``preamble``, ``map_expr``...), so a
compiler error points at the user's line. Parameters are bound as CuPy binds them: an in
parameter a ``const`` value of its compute type, an out parameter a reference to its
element (a local stored back for float16/bfloat16/bool outputs, whose storage type
differs), a raw one a pointer to its first element, a type placeholder a ``typedef``.

``DEFAULT_OPTIONS`` turn off the contraction of a multiply and an add into one FMA, so
that a body computes what its C-subset graph computes on cpu, operation by operation.
"""

import hashlib
from collections import namedtuple

from candlewick import dtypes as dt

from .. import ops
from ..abi.structs import EW_BLOCK, KERNEL_OPERANDS, KERNEL_SCALARS
from .sources import hip_files

__all__ = ["CustomSource", "DEFAULT_OPTIONS", "PARTS", "elementwise", "prelude", "raw", "reduction"]

DEFAULT_OPTIONS = ("-ffp-contract=off",)
#: the ``#line`` file names of the user's text
PARTS = ("source", "preamble", "body", "map_expr", "reduce_expr", "post_map_expr", "identity")
_PRELUDE_FILES = ("abi.h", "common.h", "complex.h", "complex_inv.h", "math_ops.h", "reduce_ops.h", "custom.h")
REDUCE_BLOCK = 256

#: module: the code-object cache's module name; names: the kernels' symbols;
#: slots: per parameter ("ptr", k), ("scalar", k) or None; elements: the ptr slots read
#: or written per element (their strides are passed)
CustomSource = namedtuple("CustomSource", "module source names slots elements")

_COMPUTE_C = {d: ("float" if d in (dt.float16, dt.bfloat16) else "bool" if d is dt.bool_ else ops.C_TYPE[d])
              for d in dt.ALL_DTYPES}

def prelude():
    """The library part of every custom kernel module (types, functors, block reductions)."""
    return hip_files(_PRELUDE_FILES)


class _Lines:
    """Source lines, with ``#line`` directives that give the user's text its own numbers
    and the generated lines theirs (counted from the module's first line)."""

    def __init__(self, module, first_line):
        self.module, self.lines, self.first = module, [], first_line

    def add(self, *lines):
        self.lines.extend(lines)

    def user(self, part, text):
        self.lines.append(f'#line 1 "{part}"')
        self.lines.extend(text.split("\n"))
        self.lines.append(f'#line {self.first + len(self.lines) + 1} "{self.module}.hip"')

    def text(self):
        return "\n".join(self.lines) + "\n"


def _slots(params):
    slots, ptr, scalar = [], 0, 0
    for p in params:
        if p.role == "scalar":
            slots.append(("scalar", scalar))
            scalar += 1
        else:
            slots.append(("ptr", ptr))
            ptr += 1
    if ptr > KERNEL_OPERANDS or scalar > KERNEL_SCALARS:
        raise ValueError(f"more than {KERNEL_OPERANDS} array or {KERNEL_SCALARS} scalar parameters")
    return slots


def _typedefs(kernel):
    return [f"typedef {_COMPUTE_C[d]} {name};" for name, d in kernel.types]


def _decode(lines, elements, index, ndim, shape, strides, indent, prefix, contiguous=False):
    """Offsets ``{prefix}{k}`` of the operands ``elements`` for the item ``index`` over
    (``ndim``, ``shape``, ``strides``); with ``contiguous``, the item itself where
    CW_CONTIGUOUS is set (every operand at unit stride in flat order)."""
    pad = " " * indent
    if not elements:
        return
    names = [f"{prefix}{k}" for k in elements]
    start = index if contiguous else "0"
    lines.add(f"{pad}cw_i64 {', '.join(f'{n} = {start}' for n in names)};")
    lines.add(f"{pad}if (!(cw_a.flags & CW_CONTIGUOUS)) {{" if contiguous else f"{pad}{{")
    if contiguous:
        lines.add(f"{pad}    {' = '.join(names)} = 0;")
    lines.add(f"{pad}    cw_i64 cw_r = {index};")
    lines.add(f"{pad}    for (int cw_d = {ndim} - 1; cw_d >= 0; --cw_d) {{")
    lines.add(f"{pad}        const cw_i64 cw_m = {shape}[cw_d];")
    lines.add(f"{pad}        const cw_i64 cw_q = (cw_a.flags & CW_INDEX32) ? (cw_i64)((cw_u32)cw_r / (cw_u32)cw_m) "
              f": cw_r / cw_m;")
    lines.add(f"{pad}        const cw_i64 cw_x = cw_r - cw_q * cw_m;")
    lines.add(f"{pad}        cw_r = cw_q;")
    for k, n in zip(elements, names):
        lines.add(f"{pad}        {n} += cw_x * {strides}[{k} * CW_MAX_DIMS + cw_d];")
    lines.add(f"{pad}    }}")
    lines.add(f"{pad}}}")


def _bind(lines, kernel, slots, offsets, indent, roles):
    """Declare the parameters of ``roles``; the lines storing locals back after the body."""
    pad, after = " " * indent, []
    for p, slot in zip(kernel.params, slots):
        if p.role not in roles:
            continue
        storage, compute = ops.C_TYPE[p.dtype], _COMPUTE_C[p.dtype]
        kind, k = slot
        if p.role == "scalar":
            lines.add(f"{pad}const {compute} {p.name} = cw_kernel_scalar<{storage} >(cw_a, {k});")
        elif p.role == "raw_in":
            lines.add(f"{pad}const {storage}* __restrict__ {p.name} = (const {storage}*)cw_a.ptr[{k}];")
        elif p.role == "raw_out":
            lines.add(f"{pad}{storage}* __restrict__ {p.name} = ({storage}*)cw_a.ptr[{k}];")
        elif p.role == "in":
            lines.add(f"{pad}const {compute} {p.name} = cw_traits<{storage} >::load((({storage}*)cw_a.ptr[{k}])"
                      f"[{offsets}{k}]);")
        elif storage == compute:
            lines.add(f"{pad}{compute}& {p.name} = (({storage}*)cw_a.ptr[{k}])[{offsets}{k}];")
        else:
            lines.add(f"{pad}{storage}* const cw_out{k} = ({storage}*)cw_a.ptr[{k}] + {offsets}{k};")
            lines.add(f"{pad}{compute} {p.name} = cw_traits<{storage} >::load(*cw_out{k});")
            after.append(f"{pad}*cw_out{k} = cw_traits<{storage} >::store({p.name});")
    return after


def _module(kernel, generated):
    digest = hashlib.sha256(generated.encode()).hexdigest()[:16]
    return f"custom_{digest}", f"{kernel.name}_{digest[:8]}"


def _assemble(kernel, build):
    """Build the text twice: once with a placeholder name to take its digest, then with
    the names from it (a kernel's name is its text's digest: one name, one kernel)."""
    first = prelude().count("\n") + 2
    draft = build("CW_KERNEL_NAME", "cw_kernel_module", first)
    module, name = _module(kernel, draft)
    text = build(name, module, first)
    return module, name, prelude() + "\n" + text


def elementwise(kernel):
    """The ``CustomSource`` of an element-wise ``KernelDefinition``."""
    slots = _slots(kernel.params)
    elements = [k for p, (kind, k) in zip(kernel.params, slots) if p.role in ("in", "out")]

    def build(name, module, first):
        lines = _Lines(module, first)
        lines.add(f"// ---- ElementwiseKernel {kernel.name!r} (rocm_backend/codegen/custom_source.py)",
                  *_typedefs(kernel))
        if kernel.preamble:
            lines.user("preamble", kernel.preamble)
        lines.add(f'extern "C" __global__ void __launch_bounds__({EW_BLOCK}) {name}(cw_kernel_args cw_a) {{',
                  "    for (cw_i64 cw_t = (cw_i64)blockIdx.x * blockDim.x + threadIdx.x; cw_t < cw_a.n; "
                  "cw_t += (cw_i64)blockDim.x * gridDim.x) {",
                  "        const cw_i64 i = cw_a.base + cw_t;")
        _decode(lines, elements, "cw_t", "cw_a.ndim", "cw_a.shape", "cw_a.strides", 8, "cw_o", contiguous=True)
        after = _bind(lines, kernel, slots, "cw_o", 8, ("in", "scalar", "raw_in", "raw_out", "out"))
        lines.add("        {")
        lines.user("body", kernel.body)
        lines.add("        }", *after, "    }", "}")
        return lines.text()

    module, name, source = _assemble(kernel, build)
    return CustomSource(module, source, (name,), tuple(slots), tuple(elements))


def reduction(kernel):
    """The ``CustomSource`` of a reduction ``KernelDefinition``: two kernels, ``names[0]``
    a block per output (a block reduction), ``names[1]`` a thread per output."""
    slots = _slots(kernel.params)
    ins = [k for p, (kind, k) in zip(kernel.params, slots) if p.role == "in"]
    elements = [k for p, (kind, k) in zip(kernel.params, slots) if p.role in ("in", "out")]
    reduce_c = _COMPUTE_C[kernel.reduce_type]

    def body(lines, block):
        """One output item ``cw_j``: its kept offsets, the reduction, the post-map."""
        _decode(lines, elements, "cw_j", "cw_a.ndim", "cw_a.shape", "cw_a.strides", 8, "cw_o")
        lines.add("        _type_reduce cw_acc = (_type_reduce)(")
        lines.user("identity", kernel.identity)
        lines.add("        );",
                  f"        for (cw_i64 cw_i = {'threadIdx.x' if block else '0'}; cw_i < cw_a.n_red; "
                  f"cw_i += {'blockDim.x' if block else '1'}) {{")
        _decode(lines, ins, "cw_i", "cw_a.red_ndim", "cw_a.red_shape", "cw_a.red_strides", 12, "cw_e")
        for k in ins:
            lines.add(f"            const cw_i64 cw_f{k} = cw_o{k} + cw_e{k};")
        _bind(lines, kernel, slots, "cw_f", 12, ("in", "scalar", "raw_in", "raw_out"))
        lines.add("            cw_acc = cw_op.combine(cw_acc, (_type_reduce)(")
        lines.user("map_expr", kernel.map_expr)
        lines.add("            ));", "        }")
        if block:
            lines.add("        cw_acc = cw_group_reduce(cw_op, cw_acc, cw_smem, (int)blockDim.x);",
                      "        if (threadIdx.x == 0) {")
        else:
            lines.add("        {")
        after = _bind(lines, kernel, slots, "cw_o", 12, ("out", "scalar", "raw_in", "raw_out"))
        lines.add("            {", "                const _type_reduce a = cw_acc;")
        lines.user("post_map_expr", kernel.post_map_expr)
        lines.add("            }", *after, "        }")
        if block:
            lines.add("        __syncthreads();")

    def build(name, module, first):
        lines = _Lines(module, first)
        lines.add(f"// ---- ReductionKernel {kernel.name!r} (rocm_backend/codegen/custom_source.py)",
                  *_typedefs(kernel), f"typedef {reduce_c} _type_reduce;")
        if kernel.preamble:
            lines.user("preamble", kernel.preamble)
        lines.add(f"struct {name}_op {{", "    typedef _type_reduce acc;",
                  "    __device__ inline _type_reduce combine(_type_reduce a, _type_reduce b) const {",
                  "        return (_type_reduce)(")
        lines.user("reduce_expr", kernel.reduce_expr)
        lines.add("        );", "    }", "};")
        lines.add(f'extern "C" __global__ void __launch_bounds__({REDUCE_BLOCK}) {name}_block(cw_kernel_args cw_a) {{',
                  f"    const {name}_op cw_op = {name}_op();",
                  "    __shared__ _type_reduce cw_smem[CW_MAX_WARPS];",
                  "    for (cw_i64 cw_j = blockIdx.x; cw_j < cw_a.n; cw_j += gridDim.x) {")
        body(lines, True)
        lines.add("    }", "}")
        lines.add(f'extern "C" __global__ void __launch_bounds__({REDUCE_BLOCK}) {name}_serial(cw_kernel_args cw_a) {{',
                  f"    const {name}_op cw_op = {name}_op();",
                  "    for (cw_i64 cw_j = (cw_i64)blockIdx.x * blockDim.x + threadIdx.x; cw_j < cw_a.n; "
                  "cw_j += (cw_i64)blockDim.x * gridDim.x) {")
        body(lines, False)
        lines.add("    }", "}")
        return lines.text()

    module, name, source = _assemble(kernel, build)
    return CustomSource(module, source, (f"{name}_block", f"{name}_serial"), tuple(slots), tuple(elements))


def raw(source, name):
    """(module, text) a RawKernel compiles: the user's source under ``#line 1 "source"``
    (so compiler messages name its own lines), its module named by the text's digest."""
    text = f'#line 1 "source"\n{source}'
    digest = hashlib.sha256((name + "\0" + text).encode()).hexdigest()[:16]
    return f"raw_{digest}", text
