"""Shared helpers of the Array API tests: dtype groups, strategies, oracles, comparisons.

The oracles are array-api-strict (the standard's reference semantics: result dtypes,
promotion, scalar rules) and NumPy (values, for the parts array-api-strict does not
model, such as float16 and the linalg/fft numerics). Inputs reach the oracles through
``candlewick.to_numpy``, so both sides see exactly the same elements.
"""

import math
import warnings

import array_api_strict as xs
import numpy as np
from hypothesis import strategies as st
from hypothesis.extra.array_api import make_strategies_namespace

import candlewick as cw
from candlewick.conformance import elementwise_reference

# the oracle follows the revision candlewick was started with (2025.12 unless
# CANDLEWICK_ARRAY_API_VERSION says otherwise)
xs.set_array_api_strict_flags(api_version=cw.__array_api_version__)

with warnings.catch_warnings():
    # make_strategies_namespace probes xp.zeros(1); without a usable default backend that
    # probe only warns, and the strategies still work once a backend is there.
    warnings.simplefilter("ignore")
    xps = make_strategies_namespace(cw)

# --- dtype groups (the standard's names; float16/bfloat16 are candlewick extras) ---------

BOOL = ("bool",)
SIGNED = ("int8", "int16", "int32", "int64")
UNSIGNED = ("uint8", "uint16", "uint32", "uint64")
INTEGER = SIGNED + UNSIGNED
REAL_FLOAT = ("float32", "float64")
COMPLEX = ("complex64", "complex128")
FLOAT = REAL_FLOAT + COMPLEX
REAL = INTEGER + REAL_FLOAT
NUMERIC = INTEGER + FLOAT
ALL = BOOL + NUMERIC

KIND_GROUPS = {"bool": BOOL, "integer": INTEGER, "real floating": REAL_FLOAT,
               "complex floating": COMPLEX}


def dt(name):
    """The candlewick dtype called ``name``."""
    return getattr(cw, name)


def sdt(name):
    """The array-api-strict dtype called ``name``."""
    return getattr(xs, name)


def name_of(dtype):
    """The standard name of a candlewick, NumPy or array-api-strict dtype."""
    if hasattr(dtype, "name") and isinstance(dtype.name, str) and not isinstance(dtype, np.dtype):
        return dtype.name
    if isinstance(dtype, np.dtype):
        return dtype.name
    return str(dtype).rsplit(".", 1)[-1]


def strict_result_name(strict_array):
    return np.asarray(strict_array).dtype.name


def kind_of(name):
    for kind, group in KIND_GROUPS.items():
        if name in group:
            return kind
    raise KeyError(name)


# --- strategies --------------------------------------------------------------------------

def _big_uint64_round_trips():
    """Whether asarray keeps uint64 values above the int64 range exactly.

    test_creation.py checks this directly; while it is broken, the generic strategies
    stay below 2**63 so that one creation bug does not mask every uint64 test."""
    values = [2**63 + 1, 1]
    try:
        return to_np(cw.asarray(values, dtype=cw.uint64)).tolist() == values
    except Exception:
        return False


UINT64_MAX_DRAWN = 2**64 - 1 if _big_uint64_round_trips() else 2**63 - 1


def _int_bounds(name):
    info = np.iinfo(name)
    return int(info.min), (UINT64_MAX_DRAWN if name == "uint64" else int(info.max))


def shapes(min_dims=0, max_dims=3, min_side=0, max_side=4):
    return xps.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side, max_side=max_side)


def elements_for(name, **overrides):
    """Element kwargs for ``xps.arrays``: no subnormals (accelerators may flush them)."""
    if name == "uint64" and "max_value" not in overrides:
        overrides = dict(overrides, max_value=UINT64_MAX_DRAWN)
    if name in FLOAT:
        kwargs = {"allow_subnormal": False}
        kwargs.update(overrides)
        return kwargs
    return overrides or None


def arrays(name, shape, **element_kwargs):
    """Arrays of dtype ``name`` on the default device (the device under test)."""
    return xps.arrays(dt(name), shape, elements=elements_for(name, **element_kwargs))


def finite_arrays(name, shape, *, magnitude=None):
    """Arrays without NaN/inf; floats bounded by ``magnitude`` when given."""
    if name in BOOL or name in INTEGER:
        return arrays(name, shape)
    kwargs = {"allow_nan": False, "allow_infinity": False}
    if magnitude is not None and name in REAL_FLOAT:
        kwargs.update(min_value=-magnitude, max_value=magnitude)
    if magnitude is not None and name in COMPLEX:
        part = "float32" if name == "complex64" else "float64"
        bound = st.floats(-magnitude, magnitude, width=32 if part == "float32" else 64,
                          allow_subnormal=False)
        return xps.arrays(dt(name), shape, elements=st.builds(complex, bound, bound))
    return arrays(name, shape, **kwargs)


def int_arrays(name, shape, lo, hi):
    low, high = _int_bounds(name)
    return xps.arrays(dt(name), shape, elements={"min_value": max(lo, low), "max_value": min(hi, high)})


def axis_for(ndim, *, allow_none=True):
    """An axis argument (negative allowed) for an array of ``ndim`` dimensions."""
    options = [st.integers(-ndim, ndim - 1)] if ndim else []
    if allow_none or not ndim:
        options.append(st.none())
    return st.one_of(*options)


def axes_for(ndim):
    """None, one int axis, or a tuple of distinct axes."""
    return st.one_of(st.none(), axis_for(ndim, allow_none=False) if ndim else st.none(),
                     xps.valid_tuple_axes(ndim))


# --- conversions to the oracles ----------------------------------------------------------

def to_np(x):
    """Host copy of a candlewick array (works for any device)."""
    return cw.to_numpy(x)


def to_strict(x):
    return xs.asarray(to_np(x))


def strict_to_np(a):
    return np.asarray(a)


def np_dtype(name):
    return np.dtype(name)


# --- comparisons -------------------------------------------------------------------------

_RTOL = {"float16": 2e-3, "bfloat16": 1.6e-2, "float32": 2e-5, "float64": 1e-12,
         "complex64": 2e-5, "complex128": 1e-12}


def default_rtol(name):
    return _RTOL.get(name, 0.0)


def assert_dtype(actual, expected_name, what=""):
    got = name_of(actual.dtype)
    assert got == expected_name, f"{what}dtype {got}, expected {expected_name}"


def assert_values(actual, expected, *, rtol=None, atol=None, what="", check_zero_sign=False):
    """``actual`` (candlewick array) equals ``expected`` (NumPy array or strict array).

    NaN positions must match; infinities must match exactly; finite values within
    ``rtol``/``atol`` (exact for integer and bool results).
    """
    exp = np.asarray(expected)
    got = to_np(actual)
    assert tuple(actual.shape) == exp.shape, f"{what}shape {tuple(actual.shape)}, expected {exp.shape}"
    assert got.shape == exp.shape
    name = name_of(actual.dtype)
    if exp.dtype.kind in "biu" or got.dtype.kind in "biu":
        mismatch = got != exp.astype(got.dtype) if exp.dtype.kind in "biu" else got != exp
        if np.any(mismatch):
            raise AssertionError(_describe(what, got, exp, mismatch))
        return
    if rtol is None:
        rtol = default_rtol(name)
    if atol is None:
        atol = rtol
    if got.dtype.kind == "c" or exp.dtype.kind == "c":
        got_c, exp_c = got.astype(np.complex128), exp.astype(np.complex128)
        # a component's error is relative to the complex magnitude: the real part of
        # (a+bj)**2 is a*a - b*b, which cancels
        with np.errstate(all="ignore"):
            magnitude = np.where(np.isfinite(exp_c), np.abs(exp_c), 0.0)
        atol = atol + rtol * magnitude
        _compare_real(got_c.real, exp_c.real, rtol, atol, what + "real part: ", check_zero_sign)
        _compare_real(got_c.imag, exp_c.imag, rtol, atol, what + "imag part: ", check_zero_sign)
        return
    _compare_real(got.astype(np.float64), exp.astype(np.float64), rtol, atol, what, check_zero_sign)


def _compare_real(got, exp, rtol, atol, what, check_zero_sign):
    with np.errstate(all="ignore"):
        nan_g, nan_e = np.isnan(got), np.isnan(exp)
        inf_mismatch = (np.isinf(got) | np.isinf(exp)) & (got != exp)
        finite = ~(nan_g | nan_e) & np.isfinite(got) & np.isfinite(exp)
        close = np.abs(got - exp) <= atol + rtol * np.abs(exp)
    mismatch = (nan_g != nan_e) | inf_mismatch | (finite & ~close)
    if check_zero_sign:
        zero = (got == 0) & (exp == 0)
        mismatch |= zero & (np.signbit(got) != np.signbit(exp))
    if np.any(mismatch):
        raise AssertionError(_describe(what, got, exp, mismatch))


def _describe(what, got, exp, mismatch):
    idx = np.argwhere(np.atleast_1d(mismatch))[:5]
    got1, exp1 = np.atleast_1d(got), np.atleast_1d(exp)
    lines = [f"{what}{int(np.sum(mismatch))} of {mismatch.size} elements differ"]
    for i in idx:
        i = tuple(i)
        lines.append(f"  at {i}: got {got1[i]!r}, expected {exp1[i]!r}")
    return "\n".join(lines)


def assert_matches_strict(actual, strict_result, *, rtol=None, atol=None, what="", check_zero_sign=False):
    """Same dtype and values as array-api-strict's result."""
    assert_dtype(actual, strict_result_name(strict_result), what)
    assert_values(actual, strict_to_np(strict_result), rtol=rtol, atol=atol, what=what,
                  check_zero_sign=check_zero_sign)


def quiet(fn, *args, **kwargs):
    """Call an oracle with NumPy's floating-point warnings silenced."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def same_memory(a, b):
    """Whether writing through ``a`` is visible through ``b`` (checked by mutation)."""
    if a.size == 0:
        return False
    flat_index = (0,) * a.ndim
    before = to_np(b).copy()
    old = to_np(a)[flat_index].item()  # a Python scalar: a[index] would be a view
    new_value = _different_value(a)
    a[flat_index] = new_value
    changed = not np.array_equal(to_np(b), before, equal_nan=before.dtype.kind in "fc")
    a[flat_index] = old
    return changed


def _different_value(a):
    value = a[(0,) * a.ndim]
    if a.dtype == cw.bool:
        return not bool(value)
    if cw.isdtype(a.dtype, "integral"):
        return 1 if int(value) != 1 else 2
    if cw.isdtype(a.dtype, "complex floating"):
        return 2.5 + 0j if complex(value) == 1.5 else 1.5 + 0j
    v = float(value)
    return 1.5 if math.isnan(v) or v != 1.5 else 2.5


# --- element strategies for element-wise operands ------------------------------------------

DIVISIONS = ("floor_divide", "remainder")
SHIFTS = ("bitwise_left_shift", "bitwise_right_shift")


def bits_of(name):
    return np.dtype(name).itemsize * 8


def operand_elements(fname, name, role, partner_bits=64):
    """Elements of dtype ``name`` for operand ``role`` ("x", "x1", "x2") of ``fname``,
    leaving out the inputs the standard calls unspecified (integer division by zero,
    negative integer powers, shifts by >= the bit width, |iinfo.min|)."""
    if name == "bool":
        return st.booleans()
    if name in INTEGER:
        lo, hi = _int_bounds(name)
        nonzero = False
        signed = name in SIGNED
        if fname in DIVISIONS:
            if role == "x2":
                nonzero = True
            elif signed:
                lo += 1  # iinfo.min // -1 overflows
        if fname == "pow" and role == "x2":
            lo, hi = 0, 5
        if fname in SHIFTS and role == "x2":
            lo, hi = 0, partner_bits - 1
        if fname in ("abs", "negative", "sign") and signed:
            lo += 1
        ints = st.integers(lo, hi)
        return ints.filter(lambda v: v != 0) if nonzero else ints
    if fname == "pow" and name in COMPLEX:
        # complex pow near overflow is implementation-dependent (a backend may work in
        # double precision where NumPy's complex64 overflows in an intermediate). Zeros
        # are drawn often: a zero base's result hangs on the exponent's real part alone
        # (0 ** (1+1j) is 0, 0 ** 1j NaN), and a zero exponent gives 1
        part = st.floats(-8, 8, width=32 if name == "complex64" else 64)
        zero = st.sampled_from([0.0, -0.0])
        return st.one_of(st.builds(complex, part, part), st.builds(complex, zero, zero),
                         st.builds(complex, zero, part))
    if name in COMPLEX:
        # With an infinite or NaN component, complex results are partly implementation-
        # dependent (products/quotients: C99 one-infinity model or textbook formula; the
        # functions: unspecified signs, "NaN + NaN j" permitted): test_special_cases
        # checks the cases the standard fixes; here both parts are finite.
        finite = xps.from_dtype(dt(name), allow_subnormal=False, allow_infinity=False, allow_nan=False)
        if fname == "reciprocal" or (fname == "divide" and role == "x2"):
            # complex division by zero: NaN by the textbook formula, infinity in C99
            return finite.filter(lambda z: z != 0)
        if fname in NEAR_OVERFLOW:
            return finite | _near_overflow_complex(name)
        return finite
    return xps.from_dtype(dt(name), allow_subnormal=False)


#: complex functions whose value for finite z with both parts near the maximum is finite
#: (or, abs, just past it) while |z| overflows: NumPy's sign and log1p overflow there
NEAR_OVERFLOW = ("abs", "log", "log1p", "sign", "sqrt")


def _near_overflow_complex(name):
    """Finite complex values with both parts near the dtype's maximum (|z| at or past it)."""
    real = np.float32 if name == "complex64" else np.float64
    big = float(np.finfo(real).max)
    edges = [float(real(v)) for v in (big, big / math.sqrt(2), big / 3)]  # held exactly
    part = st.sampled_from(edges) | st.floats(big / 4, big, width=bits_of(name) // 2)
    sign = st.sampled_from([1.0, -1.0])
    return st.builds(lambda a, b, s, t: complex(s * a, t * b), part, part, sign, sign)


def view_pair(x, kind):
    """A strided view of the 2-D array ``x`` and the same view of its host copy."""
    host = to_np(x)
    if kind == "flip":
        return cw.flip(x, axis=0), np.flip(host, 0)
    if kind == "transpose":
        return x.mT, host.T
    if kind == "step":
        return x[::2, ::-2], host[::2, ::-2]
    if kind == "broadcast":
        shape = (3,) + tuple(x.shape[1:])
        return cw.broadcast_to(x[:1], shape), np.broadcast_to(host[:1], shape)
    if kind == "offset":
        return x[1:, 1:], host[1:, 1:]
    raise ValueError(kind)


VIEW_KINDS = ("flip", "transpose", "step", "broadcast", "offset")


def any_arrays(shape, names=ALL):
    """Arrays of any of the dtypes ``names`` (default: every standard dtype)."""
    return st.sampled_from(names).flatmap(lambda name: arrays(name, shape))


def small_arrays(name, shape, lo=-3, hi=3, *, allow_nan=False):
    """Arrays of few distinct values (ties are common), clamped to the dtype's range."""
    if name == "bool":
        return arrays(name, shape)
    if name in INTEGER:
        return int_arrays(name, shape, lo, hi)
    values = st.integers(lo, hi).map(float)
    if allow_nan:
        values = values | st.just(float("nan"))
    if name in COMPLEX:
        values = st.builds(complex, values, st.integers(lo, hi).map(float))
    return xps.arrays(dt(name), shape, elements=values)


# Functions whose single-precision result must be computed in single precision (their
# value depends on the rounding of intermediate results in that precision).
FLOOR_DIVISIONS = {"floor_divide", "__floordiv__", "__rfloordiv__", "__ifloordiv__"}
SINGLE_PRECISION_ONLY = {"nextafter", "floor_divide", "remainder", "__floordiv__", "__mod__",
                         "__rfloordiv__", "__rmod__"}
_WIDER = {"float32": "float64", "complex64": "complex128"}
#: unary functions whose complex values come from the conformance reference, not NumPy's:
#: NumPy's complex expm1 of a + 0j is NaN in its imaginary part once exp(a) overflows; its
#: complex sign (z / |z|) and log1p (log |1 + z|) overflow |z| for finite z whose parts are
#: both near the maximum (sign(1e308 + 1e308j) is 1j there, log1p's real part inf), where
#: the reference scales
REFERENCES = {"expm1": elementwise_reference.expm1, "log1p": elementwise_reference.log1p,
              "sign": elementwise_reference.complex_sign}


def strict_oracle(fname, fn, *args):
    """``(result for the dtype, values)``: array-api-strict's result on the arguments as
    given (its dtype is the standard's), and its values computed from float32/complex64
    inputs widened to double precision, so that an implementation that is more accurate
    than NumPy's single-precision loops is not marked wrong."""
    result = quiet(fn, *args)
    if fname in FLOOR_DIVISIONS and len(args) == 2:
        # NumPy (so array-api-strict) gives an alternative result for an infinite operand;
        # candlewick gives the standard's primary one (1 // -inf is -0, inf // 2 is inf)
        a, b = (np.asarray(v) if isinstance(v, type(xs.asarray(0))) else v for v in args)
        if fname == "__rfloordiv__":
            a, b = b, a
        values = quiet(lambda: elementwise_reference.floor_divide(a, b))
        return result, np.asarray(values).astype(np.asarray(result).dtype)
    if fname in SINGLE_PRECISION_ONLY:
        return result, np.asarray(result)
    if fname in REFERENCES and "complex" in name_of(args[0].dtype):
        wide = np.asarray(args[0]).astype(np.complex128)
        return result, quiet(lambda: np.asarray(REFERENCES[fname](wide)).astype(np.asarray(result).dtype))
    narrow = [name_of(a.dtype) for a in args if isinstance(a, type(xs.asarray(0))) and name_of(a.dtype) in _WIDER]
    if not narrow:
        return result, np.asarray(result)
    # a Python scalar takes the array's dtype first (the standard's rule; one past the
    # dtype's range rounds to infinity), then widens
    with np.errstate(over="ignore"):
        widened = [xs.astype(a, getattr(xs, _WIDER[name_of(a.dtype)])) if isinstance(a, type(xs.asarray(0)))
                   and name_of(a.dtype) in _WIDER else np.asarray(a, dtype=narrow[0]).item()
                   if isinstance(a, (int, float, complex)) and not isinstance(a, bool) else a
                   for a in args]
    values = quiet(lambda: np.asarray(fn(*widened)).astype(np.asarray(result).dtype))
    return result, values


def assert_matches_oracle(actual, oracle, *, rtol=None, atol=None, what="", check_zero_sign=False):
    result, values = oracle
    assert_dtype(actual, strict_result_name(result), what)
    assert_values(actual, values, rtol=rtol, atol=atol, what=what, check_zero_sign=check_zero_sign)
