"""[codegen] HIP source of the kernels that run a ``candlewick.fuse`` graph (``plan``).

Two schedules: **rows** (``fused_rows``: one kernel when every reduction is over the last
axis and read back per row, as in softmax and logsumexp, save a lone reduction of short
rows) and **general**
(``fused_general``: a kernel per reduction, then the element-wise outputs). Node
expressions come from ``fused_exprs`` (the eager kernels' functors and rounding). A graph
outside both (more than ``FUSED_BUFFERS`` buffers in one kernel) gets no plan and runs
replayed.
"""

import functools
import hashlib
from collections import namedtuple

from .fused_general import general
from .fused_exprs import TooManyScalars
from .fused_kernels import Unsupported, needed
from .fused_rows import rows_kernel, rows_shapes
from .sources import hip_files

__all__ = ["COMPILE_OPTIONS", "FusedPlan", "HELPERS", "plan", "prelude"]

#: the eager kernels' options: within one op the compiler contracts as it does there (and
#: the device math library is built alike); across ops ``cw_fz_opaque`` stops it
COMPILE_OPTIONS = ()


_NAME = "CW_FZ_NAME"  # kernel name placeholder until the source's digest is known


_PRELUDE_FILES = ("abi.h", "common.h", "complex.h", "complex_inv.h", "math_ops.h", "elementwise.hip",
                  "reduce_ops.h", "reduce.hip")


HELPERS = r"""
// ---- fused kernels (rocm_backend/codegen/fused_source.py)
// a storage value from raw bits (the scalar constants of the graph)
template <class S> __device__ inline S cw_fz_raw(cw_u64 lo, cw_u64 hi) {
    union { cw_u64 w[2]; S s; } u;
    u.w[0] = lo;
    u.w[1] = hi;
    return u.s;
}
// exp(x - max(x)) summed by a row kernel's logsumexp (codegen/fused_rows._sum_exps): the
// hardware's exp for float32 (error bounded there), the accurate one otherwise.
struct op_exp_sum {
    __device__ float operator()(float x) const { return __expf(x); }
    __device__ double operator()(double x) const { return exp(x); }
};
// A float or double the compiler cannot see through: an op's rounded result is never
// contracted with the next op (a multiply feeding an add into one FMA), as the eager
// kernels, which store each op's result, never contract across ops.
template <class T> __device__ inline T cw_fz_opaque(T v) { return v; }
__device__ inline float cw_fz_opaque(float v) {
#if defined(__CUDA_ARCH__)
    asm volatile("" : "+f"(v));
#elif defined(__AMDGCN__)
    asm volatile("" : "+v"(v));
#endif
    return v;
}
__device__ inline double cw_fz_opaque(double v) {
#if defined(__CUDA_ARCH__)
    asm volatile("" : "+d"(v));
#elif defined(__AMDGCN__)
    asm volatile("" : "+v"(v));
#endif
    return v;
}
// a value rounded to storage type S and back, as an eager kernel's store and the next load
template <class S, class V> __device__ inline typename cw_traits<S>::compute cw_fz_round(V v) {
    return cw_fz_opaque(cw_traits<S>::load(cw_to_storage<S>(v)));
}
"""


FusedPlan = namedtuple("FusedPlan", "module source kernels materialized")

#: rows shorter than this, in a graph whose one output is its one reduction, take the
#: general schedule (one kernel there too: a group of threads per row, several rows a
#: block) rather than the rows schedule's block per row. sum(x * x, axis=1) of float32 on
#: the H200 (probes s23fuse_1/2): 200 000 x 256 50 us against 124, x 64 15 against 124,
#: 1 000 000 x 32 38 against 605, 100 000 x 512 50 against 64; 50 000 x 1000 54 against 50.
LONE_ROW_MAX = 1000


def _lone_reduction(graph, outputs):
    reduces = [i for i in needed(graph, outputs) if graph.nodes[i].kind == "reduce"]
    return outputs == reduces and len(reduces) == 1


@functools.cache
def prelude():
    """The kernel-library part of every fused module (types, functors, reduction ops)."""
    return hip_files(_PRELUDE_FILES) + HELPERS


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
        shapes = rows_shapes(graph, outputs)
        if shapes is not None and shapes[0][-1] < LONE_ROW_MAX and _lone_reduction(graph, outputs):
            shapes = None  # the general schedule's groups: several short rows a block
        entries = []
        if shapes is not None:
            try:
                k, e = rows_kernel(graph, outputs, *shapes, f"{_NAME}_rows", "")
                kernels, entries, materialized = [k], [e], set(outputs)
            except (Unsupported, TooManyScalars):
                shapes = None
        if shapes is None:
            kernels, entries, materialized = general(graph, outputs, lambda k: f"{_NAME}_{k}", "")
    except (Unsupported, TooManyScalars):
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
