"""The ROCm element-wise math, compiled for the host and compared with the cpu backend.

No GPU here: g++ compiles rocm_backend/hip's math headers (common.h, complex.h,
complex_inv.h, math_ops.h and elementwise.hip's clip functor) as plain C++, with the
stand-ins of ``hip_host_prelude.h``, into a small shared library
(``hip_host_harness.cpp``) that applies one op functor to an array. Its results, on
grids of special values (±0, ±inf, NaN, overflow thresholds) and on random inputs, are
compared with the cpu backend: special values exactly by class and sign, finite values
within a few ulp. The device links CUDA's or ROCm's math library where the host links
glibc's; both are close enough that what this checks is our own formulas, branches and
scaling, which are the same code on every target.
"""

import ctypes
import itertools
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import candlewick as cw

HERE = Path(__file__).resolve().parent
HIP_DIR = HERE.parents[2] / "rocm_backend" / "hip"

UNARY = ["exp", "expm1", "log", "log1p", "sqrt", "sin", "cos", "tan", "sinh", "cosh", "tanh",
         "asin", "acos", "atan", "asinh", "acosh", "atanh", "log2", "log10", "reciprocal", "abs",
         "sign", "square"]
# ulp tolerances; the default 4 is what good libms promise. tan/tanh: our Kahan formula
# and glibc's sinh/cos one are each a few ulp off in the imaginary part near |z| ~ 3
TOLERANCE = {"abs": 1, "square": 1, "reciprocal": 1, "sign": 2, "tan": 8, "tanh": 8}
FLOATS = ["float32", "float64"]
COMPLEX = ["complex64", "complex128"]


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    gxx = shutil.which("g++")
    if gxx is None:
        pytest.skip("g++ not found: this test compiles the HIP math headers for the host with g++")
    out = tmp_path_factory.mktemp("hip_host") / "libcw_hip_host.so"
    cmd = [gxx, "-std=c++14", "-O2", "-shared", "-fPIC", "-ffp-contract=off", "-Wall",
           "-Wno-unknown-pragmas", "-Wno-unused-function", "-I", str(HERE), "-I", str(HIP_DIR),
           str(HERE / "hip_host_harness.cpp"), "-o", str(out), "-lm"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, f"g++ failed:\n{proc.stderr[-20000:]}"
    assert "warning" not in proc.stderr, proc.stderr[-20000:]
    return ctypes.CDLL(str(out))


# ---- running the functors -----------------------------------------------------------

def _ptr(a):
    return ctypes.c_void_p(a.ctypes.data)


def _real_of(dtype):
    return np.dtype(dtype).type(0).real.dtype


def host_unary(lib, op, x):
    out_dtype = _real_of(x.dtype) if op == "abs" else x.dtype
    out = np.empty(x.shape, out_dtype)
    getattr(lib, f"cwh_unary_{op}_{x.dtype.name}")(_ptr(x), _ptr(out), ctypes.c_longlong(x.size))
    return out


def host_binary(lib, op, x, y):
    out = np.empty(x.shape, x.dtype)
    getattr(lib, f"cwh_binary_{op}_{x.dtype.name}")(_ptr(x), _ptr(y), _ptr(out), ctypes.c_longlong(x.size))
    return out


def cpu(fname, *arrays, **kw):
    args = [cw.asarray(a, device="cpu") for a in arrays]
    return cw.to_numpy(getattr(cw, fname)(*args, **kw))


# ---- inputs ---------------------------------------------------------------------------

def _specials(dtype):
    info = np.finfo(_real_of(dtype))
    big = float(info.max)
    # overflow thresholds of exp/cosh in each precision, the extremes, and ordinary values
    return [0.0, -0.0, 1.0, -1.0, 0.5, -2.0, 3.0, 1.5707963267948966, 100.0, 89.0, -89.0,
            711.0, -711.0, 1e-30, float(info.tiny), float(info.smallest_subnormal), big, -big,
            np.inf, -np.inf, np.nan]


def special_grid(dtype):
    """Every pair (re, im) of special parts (complex) or every special value (real)."""
    vals = _specials(dtype)
    if np.dtype(dtype).kind == "c":
        return np.array([complex(a, b) for a, b in itertools.product(vals, vals)], dtype)
    return np.array(vals, dtype)


def random_values(dtype, n, seed):
    rng = np.random.default_rng(seed)
    real = _real_of(dtype)
    max_exp = np.log10(float(np.finfo(real).max))

    def parts(k):
        kind = rng.integers(0, 5, k)
        sign = rng.choice([-1.0, 1.0], k)
        uniform = rng.uniform(-4, 4, k)
        moderate = sign * 10.0 ** rng.uniform(-8, 8, k)
        wide = sign * 10.0 ** rng.uniform(-max_exp, max_exp, k)
        near_one = sign * (1 + rng.uniform(-1e-3, 1e-3, k))
        large = sign * rng.uniform(80, 720, k)  # where exp/cosh overflow in one precision
        return np.choose(kind, [uniform, moderate, wide, near_one, large])

    if np.dtype(dtype).kind == "c":
        return (parts(n) + 1j * parts(n)).astype(dtype)
    return parts(n).astype(dtype)


# ---- comparison -----------------------------------------------------------------------

def _ulp(v, real):
    info = np.finfo(real)
    v = np.abs(np.asarray(v, np.float64))
    with np.errstate(over="ignore", invalid="ignore"):
        _, e = np.frexp(np.where(np.isfinite(v), v, 0.0))
        spacing = np.ldexp(float(info.eps), e - 1)
    return np.maximum(spacing, float(info.smallest_subnormal))


def _part_bad(g, e, scale, tol, real):
    g = np.asarray(g, np.float64)
    e = np.asarray(e, np.float64)
    nan_g, nan_e = np.isnan(g), np.isnan(e)
    bad = nan_g != nan_e
    both = ~nan_g & ~nan_e
    # infinities exactly, and a zero where a zero is expected, sign included; an expected
    # zero may also be a nonzero value within tolerance of ``scale`` (the other part of a
    # complex result: log1p(-2 + 1e-30j) has real part 5e-61, which NumPy rounds to 0)
    special = both & (np.isinf(g) | np.isinf(e) | ((e == 0) & (g == 0)))
    bad |= special & ((g != e) | (np.signbit(g) != np.signbit(e)))
    finite = both & ~special
    with np.errstate(invalid="ignore", over="ignore"):
        bad |= finite & ~(np.abs(g - e) <= tol * _ulp(scale, real))
    return bad


def _annex_g_class(z):
    """0 finite, 1 NaN, 2 infinite (C99 Annex G: a value with an infinite part is infinite)."""
    return np.where(np.isinf(z.real) | np.isinf(z.imag), 2, np.where(np.isnan(z.real) | np.isnan(z.imag), 1, 0))


def mismatches(got, expected, tol, by_class=False):
    """Elements where ``got`` is not ``expected``: NaN where NaN, infinities and zeros
    exactly (with sign), finite parts within ``tol`` ulp of the expected magnitude
    (of the whole complex value when both its parts are finite). ``by_class``: complex
    results that are not finite only have to be in the same Annex G class (for the
    arithmetic operators, whose parts at overflow depend on fused multiply-adds: NumPy's
    SIMD loops use them, and the device compilers contract a*c - b*d too)."""
    real = _real_of(expected.dtype)
    if expected.dtype.kind != "c":
        return _part_bad(got, expected, expected, tol, real)
    e = expected.astype(np.complex128)
    g = got.astype(np.complex128)
    if by_class:
        ce, cg = _annex_g_class(e), _annex_g_class(g)
        nonfinite = (ce != 0) | (cg != 0)
        bad = mismatches(got, expected, tol) & ~nonfinite
        return bad | (nonfinite & (ce != cg))
    with np.errstate(over="ignore", invalid="ignore"):
        both_finite = np.isfinite(e.real) & np.isfinite(e.imag)
        mag = np.where(both_finite, np.abs(e), 0.0)
    bad = np.zeros(e.shape, bool)
    for gp, ep in ((g.real, e.real), (g.imag, e.imag)):
        bad |= _part_bad(gp, ep, np.where(both_finite, mag, ep), tol, real)
    return bad


def assert_matches(what, inputs, got, expected, tol, skip=None, by_class=False):
    bad = mismatches(got, expected, tol, by_class)
    if skip is not None:
        bad &= ~skip
    if bad.any():
        idx = np.flatnonzero(bad)[:25]
        rows = [f"  {tuple(a[i] for a in inputs)!r}: got {got[i]!r}, expected {expected[i]!r}" for i in idx]
        raise AssertionError(f"{what}: {int(bad.sum())} of {bad.size} differ (tolerance {tol} ulp)\n"
                             + "\n".join(rows))


def known_differences(op, x, expected):
    """Inputs where the reference is not the standard's answer and ours differs from it."""
    if x.dtype.kind != "c":
        return None
    if op == "sign":
        # sign of an infinite value: ours the direction (±1, ±i, (±1 ± i)/sqrt 2), the
        # reference's inf/inf = NaN; the standard defines neither (only zeros and NaN)
        return np.isinf(x.real) | np.isinf(x.imag)
    return None


# ---- tests ----------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS + COMPLEX)
@pytest.mark.parametrize("op", UNARY)
def test_unary_special_values(lib, op, dtype):
    x = special_grid(dtype)
    with np.errstate(all="ignore"):
        got = host_unary(lib, op, x)
    expected = cpu(op, x)
    assert_matches(f"{op}({dtype}) special values", (x,), got, expected, TOLERANCE.get(op, 4),
                   known_differences(op, x, expected), by_class=op == "square")


@pytest.mark.parametrize("dtype", FLOATS + COMPLEX)
@pytest.mark.parametrize("op", UNARY)
def test_unary_random(lib, op, dtype):
    x = random_values(dtype, 4000, seed=UNARY.index(op))
    with np.errstate(all="ignore"):
        got = host_unary(lib, op, x)
    expected = cpu(op, x)
    assert_matches(f"{op}({dtype}) random", (x,), got, expected, TOLERANCE.get(op, 4),
                   known_differences(op, x, expected), by_class=op == "square")


def _binary_inputs(dtype):
    real = _real_of(dtype)
    big = float(np.finfo(real).max)
    vals = [0.0, -0.0, 1.0, -2.5, 1e-30, big, -big / 3, np.inf, -np.inf, np.nan]
    if np.dtype(dtype).kind == "c":
        grid = np.array([complex(a, b) for a, b in itertools.product(vals, vals)], dtype)
    else:
        grid = np.array(vals, dtype)
    x, y = (a.ravel() for a in np.meshgrid(grid, grid, indexing="ij"))
    rx, ry = random_values(dtype, 4000, seed=1), random_values(dtype, 4000, seed=2)
    return np.concatenate([x, rx]), np.concatenate([y, ry])


@pytest.mark.parametrize("dtype", FLOATS + COMPLEX)
@pytest.mark.parametrize("op", ["divide", "multiply"])
def test_binary_arithmetic(lib, op, dtype):
    x, y = _binary_inputs(dtype)
    with np.errstate(all="ignore"):
        got = host_binary(lib, op, x, y)
    expected = cpu(op, x, y)
    assert_matches(f"{op}({dtype})", (x, y), got, expected, 2, by_class=True)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("op", ["hypot", "atan2"])
def test_binary_real(lib, op, dtype):
    x, y = _binary_inputs(dtype)
    with np.errstate(all="ignore"):
        got = host_binary(lib, op, x, y)
    expected = cpu(op, x, y)
    assert_matches(f"{op}({dtype})", (x, y), got, expected, 1 if op == "hypot" else 4)


def test_regressions_from_the_gpu_run(lib):
    """The failures of the first H200 run, by value."""
    f64max, f32max = float(np.finfo(np.float64).max), float(np.finfo(np.float32).max)
    assert host_unary(lib, "abs", np.array([1 + 1j * f64max]))[0] == f64max
    assert host_binary(lib, "hypot", np.array([-5.5]), np.array([f64max]))[0] == f64max
    q = host_binary(lib, "divide", np.array([-5.5 + 10.796024j], np.complex64),
                    np.array([f32max - 1.1011547336810053e38j], np.complex64))[0]
    assert q == np.complex64(-2.39245e-38 + 2.398469e-38j) or abs(q - (-2.39245e-38 + 2.398469e-38j)) < 1e-43
    z = host_unary(lib, "sin", np.array([711j], np.complex64))[0]
    assert z.real == 0 and np.isinf(z.imag)
    z = host_unary(lib, "cos", np.array([711j], np.complex64))[0]
    assert np.isinf(z.real) and z.imag == 0 and np.signbit(z.imag)
    z = host_unary(lib, "sinh", np.array([711 + 0j], np.complex64))[0]
    assert np.isinf(z.real) and z.imag == 0 and not np.signbit(z.imag)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_complex_pow_of_zero(lib, dtype):
    """A complex zero base (any signs) gives NumPy's values: 1 for a zero exponent, 0
    where the exponent's real part is positive (whatever its imaginary part: 0 ** (1+1j)
    was NaN here, the thorough profile's find on rocm), NaN + NaN j otherwise; as the cpu
    backend (NumPy's power) gives them."""
    inf, nan = np.inf, np.nan
    exps = [1 + 1j, -1 + 1j, 1j, 0j, 2 + 0j, 0.5 + 0j, -1 + 0j, 1 - 1j, 200 + 0j, complex(inf, 1),
            complex(1, inf), complex(1, nan), complex(nan, 0), complex(-inf, 0), complex(0, nan),
            complex(-0.0, 0.0), 1e-30 + 3j]
    zeros = [complex(0.0, 0.0), complex(-0.0, 0.0), complex(0.0, -0.0), complex(-0.0, -0.0)]
    x = np.array([z for z in zeros for _ in exps], dtype)
    y = np.array(exps * len(zeros), dtype)
    with np.errstate(all="ignore"):
        got = host_binary(lib, "pow", x, y)
    expected = cpu("pow", x, y)
    assert_matches(f"pow({dtype}) of zero", (x, y), got, expected, 0)
    positive = y.real > 0
    assert (got[positive] == 0).all() and np.isnan(got[~positive & (y != 0)].real).all()


_CLIP_DTYPES = {"float32": ctypes.c_float, "float64": ctypes.c_double, "int32": ctypes.c_int,
                "int64": ctypes.c_longlong}


@pytest.mark.parametrize("dtype", list(_CLIP_DTYPES))
def test_clip_scalar_bounds(lib, dtype):
    floating = np.dtype(dtype).kind == "f"
    x = np.array([-3, -1, 0, 1, 2, 5] + ([np.nan, np.inf, -np.inf, -0.0] if floating else []), dtype)
    bounds = [None, -1, 0, 2] + ([np.nan, -np.inf, np.inf, -0.0] if floating else [])
    fn = getattr(lib, f"cwh_clip_{dtype}")
    ctype = _CLIP_DTYPES[dtype]
    for lo, hi in itertools.product(bounds, bounds):
        if lo is not None and hi is not None and not np.isnan(lo) and not np.isnan(hi) and lo > hi:
            continue  # the standard leaves min > max unspecified
        out = np.empty_like(x)
        fn(_ptr(x), _ptr(out), ctypes.c_longlong(x.size), ctype(0 if lo is None else lo),
           ctype(0 if hi is None else hi), int(lo is not None), int(hi is not None))
        expected = cpu("clip", x, min=lo, max=hi)
        same = (out == expected) | (np.isnan(out) & np.isnan(expected)) if floating else out == expected
        assert same.all(), f"clip({x!r}, {lo}, {hi}) = {out!r}, expected {expected!r}"


# ---- the standard's special-case tables, through the kernels' own functors -------------

def _table_cases():
    from special_case_tables import BINARY_REAL, UNARY_COMPLEX, UNARY_REAL

    for tables, dtypes, arity in ((UNARY_REAL, FLOATS, 1), (UNARY_COMPLEX, COMPLEX, 1),
                                  (BINARY_REAL, FLOATS, 2)):
        for fname, rows in sorted(tables.items()):
            for dtype in dtypes:
                yield pytest.param(fname, dtype, rows, arity, id=f"{fname}-{dtype}")


def _column(values, dtype):
    if np.dtype(dtype).kind == "c":
        return np.array([complex(*v) for v in values], dtype)
    return np.array(values, dtype)


@pytest.mark.parametrize("fname, dtype, rows, arity", list(_table_cases()))
def test_special_case_tables_hold_in_the_kernels(lib, fname, dtype, rows, arity):
    """Every row of tests/array_api/special_case_tables.py that a compiled functor covers
    gives the standard's result in the rocm kernels' math (zero signs and all), as
    tests/array_api/test_special_cases.py checks it through the cpu backend."""
    from special_case_tables import matches

    kind = "unary" if arity == 1 else "binary"
    if not hasattr(lib, f"cwh_{kind}_{fname}_{dtype}"):
        pytest.skip(f"the host harness compiles no {kind} {fname} functor")
    args = [_column([r[i] for r in rows], dtype) for i in range(arity)]
    with np.errstate(all="ignore"):
        out = host_unary(lib, fname, *args) if arity == 1 else host_binary(lib, fname, *args)
    bad = [f"  {fname}{row[:-1]!r} -> {got!r}, expected {row[-1]!r}"
           for row, got in zip(rows, out.tolist()) if not matches(got, row[-1])]
    assert not bad, f"{fname} ({dtype}) kernel breaks {len(bad)} special case(s):\n" + "\n".join(bad)
