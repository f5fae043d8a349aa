"""The custom kernels the rocm tests run (tests/rocm/host/test_custom_kernels_host.py on the CPU
through the host harness, tests/rocm/gpu/test_custom_kernels.py on a GPU) and
tools/amd_compile_gate.py compiles with AMD's hipRTC: every kernel these tests generate.

``CASES``: ElementwiseKernel / ReductionKernel calls whose results the cpu backend's C
subset gives too (``ulps`` 0: bit for bit); ``ROCM_ONLY``: calls with raw parameters,
checked against ``expected``; ``RAW``: RawKernel sources (``host``: runs in the host
harness, which has no dynamic shared memory).
"""

from collections import namedtuple

import ml_dtypes
import numpy as np

import candlewick as cw
from candlewick.conformance import test_custom_kernels as conformance

Case = namedtuple("Case", "name kernel args kwargs ulps")
RocmOnly = namedtuple("RocmOnly", "name kernel args kwargs expected")
Raw = namedtuple("Raw", "name source host")


def view(array, fn):
    """An argument made on the device, then viewed (a strided operand)."""
    return lambda device: fn(cw.asarray(array, device=device))


def on(device, arg):
    """A case's argument (or keyword value: "on" names the device) on ``device``."""
    if isinstance(arg, str) and arg == "on":
        return device
    if callable(arg):
        return arg(device)
    if isinstance(arg, np.ndarray):
        return cw.asarray(arg, device=device)
    return arg


_rng = np.random.default_rng(11)
f32 = lambda *s: _rng.standard_normal(s).astype(np.float32)  # noqa: E731
f64 = lambda *s: _rng.standard_normal(s)  # noqa: E731
ints = lambda lo, hi, s, t: _rng.integers(lo, hi, s).astype(t)  # noqa: E731

SQ_DIFF = cw.ElementwiseKernel("T x, T y", "T z", "z = (x - y) * (x - y);", "sq_diff")
DIVMOD = cw.ElementwiseKernel("int32 x, int32 y", "int32 q, int32 r", "q = x / y; r = x % y;", "divmod")
C_TYPES = cw.ElementwiseKernel("int8 a, uint16 b, float32 f", "float64 d, int32 k, uint32 u", """
    d = a * 2.5 + b / 3 - f;        // int8 * double, int division, float widened
    k = (a << 2) | (b & 0xff) ^ ~a;  // promotions to int
    u = b - 70000u + (unsigned)a;    // unsigned arithmetic wraps
""", "c_types")
BRANCHES = cw.ElementwiseKernel("T x", "T y, int32 n", """
    T t = x;
    int c = 0;
    if (x > 0) { t = t * 2; c += 1; }
    else if (x < -1) { t = -t; c = 2; }
    else { c--; }
    t += i;
    y = t;
    n = c;
""", "branches")
HALVES = cw.ElementwiseKernel("T x, float32 s", "T y", "y = x * s + (T)1;", "halves")
MATH = cw.ElementwiseKernel("T x", "T e, T l, T r", """
    e = exp(x) * tanh(x);
    l = log1p(fabs(x)) + sqrt(fabs(x));
    r = round(x * 3) + floor(x) + fmin(x, (T)0.25) + atan2(x, (T)2) + pow(fabs(x), (T)1.5);
""", "math_fns")
BOOLS = cw.ElementwiseKernel("T x, T y", "bool b, bool c", "b = x < y && !(x == 0); c = (x > 1) || (y > 1);",
                             "bools")
COMPLEX = cw.ElementwiseKernel("T x, T y", "T z, float32 m", "z = x * y + conj(x); m = (float)abs(z);", "cplx")
# x * y + w with x = y = 1 + 2^-12, w = -(1 + 2^-11): 0 when the product is rounded first
# (C++ without contraction: what the kernels compile to), 2^-24 as one fused multiply-add
NO_FMA = cw.ElementwiseKernel("T x, T y, T w", "T z", "z = x * y + w;", "no_fma")
INDEX = cw.ElementwiseKernel("T a", "T y", "y = a * i;", "index")
PLUS_INDEX = cw.ElementwiseKernel("T x", "T y", "y = x + i;", "plus_index")
GATHER = cw.ElementwiseKernel("raw T table, int32 k", "T y", "y = table[k];", "gather")
SCATTER_HALF = cw.ElementwiseKernel("T x", "raw T dst", "cw_set(dst, 11 - i, x * 2);", "scatter_half")

L2NORM = cw.ReductionKernel("T x", "T y", "x * x", "a + b", "y = sqrt(a);", "0", "l2norm")
SUM = cw.ReductionKernel("T x", "T y", "x", "a + b", "y = a;", "0", "sum_k")
MAX = cw.ReductionKernel("T x", "T y", "x", "max(a, b)", "y = a;", "-1e30f", "max_k")
INT_SUM = cw.ReductionKernel("int32 x", "int32 y", "x", "a + b", "y = a;", "0", "int_sum")
INT_PROD = cw.ReductionKernel("T x", "T y", "x", "a * b", "y = a;", "1", "int_prod")
ALL = cw.ReductionKernel("bool x", "bool y, bool z", "x", "a && b", "y = a; z = !a;", "true", "all_k")
HALF_MEAN = cw.ReductionKernel("float16 x", "float32 m", "x", "a + b", "m = a / 10;", "0", "half_mean",
                               reduce_type="float32")
WEIGHTED = cw.ReductionKernel("T x, T w", "T y", "x * w", "a + b", "y = a;", "0", "weighted")

_nan_rows = f32(5, 40)
_nan_rows[1, 3] = np.nan
_nan_rows[2, :] = np.nan
_strided_out = np.zeros((7, 10), np.float32)

CASES = [
    Case("sq_diff_broadcast", SQ_DIFF, (f32(5, 7), f32(7)), {}, 0),
    Case("sq_diff_scalar", SQ_DIFF, (f32(33), 0.5), {}, 0),
    Case("sq_diff_strided", SQ_DIFF, (view(f32(5, 7), lambda a: a.T), view(f32(3, 5), lambda a: a[2]),
                                      view(_strided_out, lambda a: a[:, ::2])), {}, 0),
    Case("divmod", DIVMOD, (ints(-50, 50, (64,), np.int32), ints(1, 9, (64,), np.int32) * np.int32(-1) ** ints(
        0, 2, (64,), np.int32)), {}, 0),
    Case("c_types", C_TYPES, (ints(-128, 127, (40,), np.int8), ints(0, 65535, (40,), np.uint16), f32(40)), {}, 0),
    Case("branches", BRANCHES, (f32(4, 9) * 2,), {}, 0),
    Case("halves_f16", HALVES, (f32(50).astype(np.float16), 1.5), {}, 0),
    Case("halves_bf16", HALVES, (f32(50).astype(ml_dtypes.bfloat16), 0.75), {}, 0),
    Case("math_f32", MATH, (f32(300) * 3,), {}, 8),
    Case("math_f64", MATH, (f64(300) * 3,), {}, 8),
    Case("bools", BOOLS, (ints(-3, 4, (6, 6), np.int16), ints(-3, 4, (6,), np.int16)), {}, 0),
    Case("complex", COMPLEX, ((f32(20) + 1j * f32(20)).astype(np.complex64),
                              (f32(20) + 1j * f32(20)).astype(np.complex64)), {}, 4),
    Case("no_fma", NO_FMA, (np.full(64, 1 + 2**-12, np.float32), np.full(64, 1 + 2**-12, np.float32),
                            np.full(64, -(1 + 2**-11), np.float32)), {}, 0),
    Case("index", INDEX, (0.5,), {"size": 100, "device": "on"}, 0),
    # ten axes that do not merge: split on the host, each piece's flat index carried
    Case("index_split", PLUS_INDEX, (view(np.arange(1024, dtype=np.float32).reshape((2,) * 10),
                                          lambda a: cw.permute_dims(a, tuple(range(9, -1, -1)))),), {}, 0),
    Case("l2norm", L2NORM, (f32(6, 300),), {"axis": 1}, 8),
    Case("sum_columns_serial", SUM, (f32(8, 1500),), {"axis": 0, "keepdims": True}, 8),
    Case("max_nan", MAX, (_nan_rows,), {"axis": 1}, 0),
    Case("max_all", MAX, (f32(9, 31),), {}, 0),
    Case("int_sum_wraps", INT_SUM, (ints(-2**30, 2**30, (7, 50), np.int32),), {"axis": -1}, 0),
    Case("int_prod", INT_PROD, (ints(-3, 4, (10, 12), np.int64),), {"axis": 0}, 0),
    Case("all", ALL, (ints(0, 2, (4, 70), np.int8).astype(bool) | (np.arange(70) % 3 > 0),), {"axis": 1}, 0),
    Case("half_mean", HALF_MEAN, (f32(3, 10).astype(np.float16),), {"axis": -1}, 4),
    Case("weighted_middle", WEIGHTED, (f32(4, 5, 6), f32(5, 1)), {"axis": 1}, 8),
]

# the conformance suite's kernels (candlewick/conformance/test_custom_kernels.py), at its dtypes
_cx = {d: (ints(-20, 20, (6, 33), d), ints(-20, 20, (33,), d)) for d in (np.int16, np.float16, np.float32, np.float64)}
CASES += [Case(f"conformance_exact_{np.dtype(d).name}", conformance.EXACT, (x, y, ints(-50, 50, (6, 1), np.int32)), {}, 0)
          for d, (x, y) in _cx.items()]
CASES += [Case("conformance_isum", conformance.ISUM, (ints(-2**30, 2**30, (40, 70), np.int32),), {"axis": 0}, 0),
          Case("conformance_l2", conformance.L2, (f32(40, 70),), {"axis": 1}, 64)]

_table = f32(16)
_k = ints(0, 16, (9,), np.int32)
_half = f32(12).astype(np.float16)
ROCM_ONLY = [
    RocmOnly("gather", GATHER, (_table, _k), {}, lambda: _table[_k]),
    RocmOnly("scatter_half", SCATTER_HALF, (_half, np.zeros(12, np.float16)), {},
             lambda: (_half.astype(np.float32) * 2).astype(np.float16)[::-1]),
]

RAW = [
    Raw("cw_test_add", r'''
extern "C" __global__ void cw_test_add(const float* __restrict__ x, const float* __restrict__ y, float* z, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) z[i] = x[i] + y[i];
}''', True),
    # every scalar at its natural alignment: char at 8, double 16, short 24, unsigned long long 32,
    # bool 40, float 44, long long 48
    Raw("cw_test_pack", r'''
extern "C" __global__ void cw_test_pack(double* out, char c, double d, short s, unsigned long long u, bool b,
                                        float f, long long q) {
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        out[0] = c; out[1] = d; out[2] = s; out[3] = (double)u; out[4] = b; out[5] = f; out[6] = (double)q;
    }
}''', True),
    Raw("cw_test_block_sum", r'''
// one block sums 256 elements through shared memory; a 2-D grid of blocks
extern "C" __global__ void cw_test_block_sum(const float* x, float* sums) {
    __shared__ float buf[256];
    const int b = blockIdx.y * gridDim.x + blockIdx.x;
    buf[threadIdx.x] = x[b * 256 + threadIdx.x];
    __syncthreads();
    for (int s = 128; s > 0; s >>= 1) {
        if (threadIdx.x < s) buf[threadIdx.x] += buf[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) sums[b] = buf[0];
}''', True),
    Raw("cw_test_dynamic_shared", r'''
extern "C" __global__ void cw_test_dynamic_shared(const float* x, float* y, int n) {
    extern __shared__ float tile[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.x] = i < n ? x[i] : 0.0f;
    __syncthreads();
    if (i < n) y[i] = tile[blockDim.x - 1 - threadIdx.x];
}''', False),
]
RAW.append(Raw("conformance_add", conformance.ADD.code, True))
RAW_KERNELS = {r.name: cw.RawKernel(r.source, r.name) for r in RAW}


def definitions():
    """Every ``KernelDefinition`` of CASES and ROCM_ONLY (made on cpu arguments: the
    definition depends on the dtypes and roles only)."""
    cpu = cw.get_device("cpu")
    out = []
    for case in CASES + ROCM_ONLY:
        args = [on(cpu, a) for a in case.args]
        out.append(case.kernel.definition_for(*args))
    return out


# --- the C subset's types against the device compiler's ---------------------------------------
TYPE_NAMES = ("bool", "signed char", "unsigned char", "short", "unsigned short", "int", "unsigned int", "long long",
              "unsigned long long", "float", "double")
_ORACLE_HEAD = r"""
template <class T> struct cw_noref { typedef T type; };
template <class T> struct cw_noref<T&> { typedef T type; };
// 1 bool; 100 + size signed, 200 + size unsigned integers; 300 + size floating
template <class T> struct cw_tcode {
    static constexpr int value = ((T)0.5 != (T)0 ? 300 : ((T)(-1) < (T)0 ? 100 : 200)) + (int)sizeof(T);
};
template <> struct cw_tcode<bool> { static constexpr int value = 1; };
#define CW_TYPE_IS(expr, code) static_assert(cw_tcode<cw_noref<decltype(expr)>::type>::value == code, #expr)
"""


def _oracle_expressions():
    n = len(TYPE_NAMES)
    out = [f"v{i} {op} v{j}" for op in ("+", "*", "/", "%", "<<", "&", "<", "&&") for i in range(n) for j in range(n)]
    out += [f"v0 ? v{i} : v{j}" for i in range(n) for j in range(n)]
    out += [f"{op}v{i}" for op in ("-", "~", "!") for i in range(n)]
    out += [f"{fn}(v{i})" for fn in ("exp", "sqrt", "fabs", "abs", "round", "expf", "isnan", "floor") for i in range(n)]
    out += [f"{fn}(v{i}, v{j})" for fn in ("min", "max", "pow", "fmin", "atan2", "powf")
            for i in range(n) for j in range(n)]
    out += ["1", "1u", "0x80000000", "2147483648", "1ll", "5000000000u", "07", "1.5f", "1.5", "true", "'a'"]
    return out


def type_oracle_source():
    """Device code asserting (static_assert) that the device compiler gives every
    expression the C subset accepts of ``_oracle_expressions`` the type the subset gives
    it: tools/amd_compile_gate.py compiles it with AMD's hipRTC."""
    from candlewick.custom_kernels.c_syntax import parse_expression
    from candlewick.custom_kernels.c_types import C_NAME
    from candlewick.custom_kernels.graph_values import Builder, Var
    from candlewick.custom_kernels.lowering import Interpreter
    from candlewick.errors import KernelCompileError
    from candlewick.fusion.graph import Graph

    cpu = cw.get_device("cpu")
    builder = Builder(Graph(cpu), (1,))
    by_name = {C_NAME[d]: d for d in C_NAME}
    scope = {f"v{k}": Var("in", by_name[t], builder.full(0, by_name[t])) for k, t in enumerate(TYPE_NAMES)}
    lines = [_ORACLE_HEAD, "__device__ void cw_type_oracle() {"]
    lines += [f"    {t} v{k} = 0;" for k, t in enumerate(TYPE_NAMES)]
    checked = 0
    for expr in _oracle_expressions():
        interp = Interpreter(builder, [dict(scope)], {}, "oracle", expr, "type oracle")
        try:
            dtype = interp.expr(parse_expression(expr, "oracle", "type oracle")).dtype
        except KernelCompileError:
            continue  # refused by the subset
        code = 1 if dtype.is_bool else (300 if dtype.level == 2 else 200 if dtype.category == "unsigned integer"
                                         else 100) + dtype.itemsize
        lines.append(f"    CW_TYPE_IS({expr}, {code});")
        checked += 1
    lines.append("}")
    return "\n".join(lines) + "\n", checked
