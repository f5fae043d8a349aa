"""Oracles for the element-wise primitives (unary, binary, compare), from backend.py.

Floating results are computed in float64/complex128 from the same (already rounded)
inputs and rounded once to the result dtype; integer results are computed in the
dtype itself (NumPy integer arithmetic wraps like the contract's). Where the contract
spells out a rule (integer pow, shifts, complex sign, gelu) it is written out here
rather than trusted to NumPy.
"""

import math

import numpy as np

from candlewick.opdefs import BinaryOp as B
from candlewick.opdefs import CompareOp as C
from candlewick.opdefs import UnaryOp as U

from .checks import EXACT, ROUNDED, TRANSCENDENTAL as TRANSC, Expected, eps_of, round_to
from .strategies import finfo

_math_erf = np.vectorize(math.erf, otypes=[np.float64])


def erf(x):
    return _math_erf(x) if x.size else np.zeros(x.shape)


def gelu(x):
    # halve the factor, not the product: x * (1 + erf) overflows for x near the float64
    # maximum, whose gelu is x itself
    return x * ((1.0 + erf(x / math.sqrt(2.0))) / 2.0)


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def complex_sign(z):
    """z/|z|, and 0 for 0 (the contract's definition), scaled first so that neither
    |z| nor the quotient over- or underflows for extreme finite z."""
    scale = np.maximum(np.abs(z.real), np.abs(z.imag))
    safe = np.where(scale == 0, 1, scale)
    re, im = z.real / safe, z.imag / safe
    mag = np.hypot(re, im)
    out = (re / mag) + 1j * (im / mag)
    return np.where(scale == 0, 0, out)


def log1p(z):
    """log1p; for complex z computed without forming 1 + z (which loses all digits of a
    small z, as NumPy's own complex log1p does): log|1+z| = log1p(2x + x^2 + y^2) / 2.
    Where NumPy's complex log1p, which forms |1 + z|, overflows to inf for a finite z
    (both parts near the maximum), log(1 + z) through NumPy's complex log, which scales:
    log|1 + z| is finite there (about 709.78 in float64)."""
    if z.dtype.kind != "c":
        return np.log1p(z)
    x, y = z.real, z.imag
    careful = 0.5 * np.log1p(2 * x + x * x + y * y) + 1j * np.arctan2(y, 1 + x)
    naive = np.log1p(z)  # right for non-finite z, and for large z unless |1 + z| overflows
    finite = np.isfinite(z)
    naive = np.where(finite & np.isposinf(naive.real), np.log(1 + z), naive)
    small = finite & (np.abs(z) < 0.5)
    return np.where(small, careful, naive)


def expm1(z):
    """expm1; for complex z with an infinite or NaN part, exp(z) - 1, which carries the
    Array API's special values (NumPy's complex expm1 gives NaN+NaNj for inf+NaNj). A
    zero imaginary part stays exact, as the standard's ``+infinity + 0j`` for ``inf + 0j``
    (NumPy computes it as exp(a) * sin(0): NaN once exp(a) overflows)."""
    if z.dtype.kind != "c":
        return np.expm1(z)
    with np.errstate(all="ignore"):
        values = np.array(np.where(np.isfinite(z), np.expm1(z), np.exp(z) - 1))
    np.copyto(values.imag, np.imag(z), where=np.imag(z) == 0)  # (the zero's sign too)
    return values


# op -> (function on float64 / complex128, tolerance); zero_sign lists ops whose
# result's sign of zero is fully determined by IEEE 754
FLOAT_UNARY = {
    U.ABS: (np.abs, EXACT), U.ACOS: (np.arccos, TRANSC), U.ACOSH: (np.arccosh, TRANSC),
    U.ASIN: (np.arcsin, TRANSC), U.ASINH: (np.arcsinh, TRANSC), U.ATAN: (np.arctan, TRANSC),
    U.ATANH: (np.arctanh, TRANSC), U.CEIL: (np.ceil, EXACT), U.CONJ: (np.conj, EXACT),
    U.COS: (np.cos, TRANSC), U.COSH: (np.cosh, TRANSC), U.EXP: (np.exp, TRANSC),
    U.EXPM1: (expm1, TRANSC), U.FLOOR: (np.floor, EXACT), U.IMAG: (np.imag, EXACT),
    U.ISFINITE: (np.isfinite, EXACT), U.ISINF: (np.isinf, EXACT), U.ISNAN: (np.isnan, EXACT),
    U.LOG: (np.log, TRANSC), U.LOG1P: (log1p, TRANSC), U.LOG2: (np.log2, TRANSC),
    U.LOG10: (np.log10, TRANSC), U.NEGATIVE: (np.negative, EXACT), U.REAL: (np.real, EXACT),
    U.RECIPROCAL: (lambda x: 1.0 / x, ROUNDED), U.ROUND: (np.round, EXACT),
    U.SIGN: (np.sign, EXACT), U.SIGNBIT: (np.signbit, EXACT), U.SIN: (np.sin, TRANSC),
    U.SINH: (np.sinh, TRANSC), U.SQRT: (np.sqrt, ROUNDED), U.SQUARE: (np.square, ROUNDED),
    U.TAN: (np.tan, TRANSC), U.TANH: (np.tanh, TRANSC), U.TRUNC: (np.trunc, EXACT),
    U.ERF: (erf, TRANSC), U.RELU: (lambda x: np.maximum(x, 0.0), EXACT),
    U.GELU: (gelu, TRANSC), U.SIGMOID: (sigmoid, TRANSC),
    U.SILU: (lambda x: x * sigmoid(x), TRANSC),
}
ZERO_SIGN_UNARY = {U.ABS, U.CEIL, U.CONJ, U.FLOOR, U.NEGATIVE, U.REAL, U.ROUND, U.TRUNC}
# complex results that are not single correctly rounded operations
COMPLEX_UNARY_TOLERANCE = {U.ABS: TRANSC, U.SQUARE: TRANSC, U.RECIPROCAL: 2 * TRANSC,
                           U.SQRT: TRANSC, U.SIGN: 2 * TRANSC}


def _identity(x):
    return x.copy()


INT_UNARY = {
    U.ABS: np.abs, U.BITWISE_INVERT: np.invert, U.CEIL: _identity, U.CONJ: _identity,
    U.FLOOR: _identity, U.ISFINITE: lambda x: np.ones(x.shape, bool),
    U.ISINF: lambda x: np.zeros(x.shape, bool), U.ISNAN: lambda x: np.zeros(x.shape, bool),
    U.NEGATIVE: np.negative, U.REAL: _identity, U.ROUND: _identity, U.SIGN: np.sign,
    U.SQUARE: lambda x: x * x, U.TRUNC: _identity, U.RELU: lambda x: np.maximum(x, 0),
}
BOOL_UNARY = {U.BITWISE_INVERT: np.invert, U.LOGICAL_NOT: np.logical_not}


def _wide(x):
    return x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)


def unary(op, dtype, x):
    """Expected result of ``unary(op)`` on host values ``x`` of ``dtype``."""
    out_dtype = op.result_dtype(dtype)
    with np.errstate(all="ignore"):
        if dtype.is_bool:
            return Expected(BOOL_UNARY[op](x))
        if dtype.is_integer:
            return Expected(np.asarray(INT_UNARY[op](x)).astype(out_dtype.numpy))
        fn, ulps = FLOAT_UNARY[op]
        xw = _wide(x)
        mask = None
        if dtype.is_complex:
            ulps = COMPLEX_UNARY_TOLERANCE.get(op, ulps if ulps == EXACT else 2 * TRANSC)
            if op is U.SIGN:
                # z/|z| is defined for finite z (NaN in, NaN out); not for infinite z
                mask = ~(np.isinf(xw.real) | np.isinf(xw.imag))
                values = complex_sign(xw)
            else:
                values = fn(xw)
        else:
            values = fn(xw)
        atol = 0.0
        if op is U.GELU:
            # x * (1 + erf(x/sqrt2)) / 2 cancels in the negative tail: the error of a
            # faithful implementation scales with |x|, not with the (tiny) result
            atol = np.where(np.isfinite(xw), ulps * eps_of(dtype) * np.abs(xw), 0.0)
        elif op is U.SILU:
            # x * sigmoid(x): a subnormal sigmoid's absolute error is scaled up by |x|
            sub = float(finfo(dtype).smallest_subnormal)
            atol = np.where(np.isfinite(xw), ulps * sub * np.abs(xw), 0.0)
        return Expected(round_to(values, out_dtype), ulps=max(ulps, ROUNDED) if ulps else EXACT,
                        atol=atol, mask=mask, zero_sign=op in ZERO_SIGN_UNARY)


# --- binary --------------------------------------------------------------------


def int_pow(base, exponent):
    """Wrapping integer power; negative exponents: 1 for base 1, +-1 for base -1, else 0."""
    unsigned = np.dtype(f"u{base.dtype.itemsize}")
    acc = np.ones(base.shape, unsigned)
    square = base.view(unsigned).copy()
    # negative exponents are handled below; their bits here do not matter
    e = exponent.astype(np.int64).view(np.uint64) if base.dtype.kind == "i" else exponent.astype(np.uint64)
    for _ in range(64):
        acc = np.where(e & np.uint64(1), acc * square, acc)
        square = square * square
        e = e >> np.uint64(1)
    result = acc.view(base.dtype)
    if base.dtype.kind == "i":
        odd = (exponent % 2) != 0
        neg = np.where(base == 1, 1, np.where(base == -1, np.where(odd, -1, 1), 0)).astype(base.dtype)
        result = np.where(exponent < 0, neg, result)
    return result


def shift_left(x, count):
    bits = x.dtype.itemsize * 8
    unsigned = np.dtype(f"u{x.dtype.itemsize}")
    valid = (count >= 0) & (count < bits)
    c = np.where(valid, count, 0).astype(unsigned)
    return np.where(valid, x.view(unsigned) << c, 0).astype(unsigned).view(x.dtype)


def shift_right(x, count):
    bits = x.dtype.itemsize * 8
    valid = (count >= 0) & (count < bits)
    c = np.where(valid, count, 0).astype(x.dtype)
    overflow = np.where(x < 0, -1, 0) if x.dtype.kind == "i" else 0
    return np.where(valid, x >> c, overflow).astype(x.dtype)


def _logaddexp_wide(a, b):
    """log(exp(a) + exp(b)) of float64 inputs, from a wider format, rounded to float64.

    NumPy's float64 ``logaddexp`` (max + log1p(exp(-|a - b|)), the formula backends
    use) is off by ~eps * max(|a|, |b|) where the result cancels (a, b near -log 2:
    results ~0.006 carry 16 ulp of error, smaller ones thousands), so as an oracle it
    fails correct float64 implementations. np.longdouble (x87 extended on x86-64 Linux, binary128 on
    aarch64 Linux) has 11+ more bits; where it is plain double, mpmath at 113 bits."""
    if np.finfo(np.longdouble).nmant > np.finfo(np.float64).nmant:
        wide = np.logaddexp(np.asarray(a, np.longdouble), np.asarray(b, np.longdouble))
        return wide.astype(np.float64)
    import mpmath  # only where longdouble is double (Windows, macOS arm64)

    def one(x, y):
        if not (math.isfinite(x) and math.isfinite(y)):
            return float(np.logaddexp(x, y))
        with mpmath.workprec(113):
            return float(mpmath.log(mpmath.exp(x) + mpmath.exp(y)))

    a, b = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(b, np.float64))
    return np.array([one(x, y) for x, y in zip(a.ravel(), b.ravel())], np.float64).reshape(a.shape)


def logaddexp_condition(a, b, values):
    """|a| w_a + |b| w_b with w = exp(. - logaddexp(a, b)) (the weights, summing to 1):
    the result's absolute change per unit relative change of the inputs. The error of
    max + log1p(exp(-|a - b|)) is a few eps times this (the rounding of a - b, and the
    exp and log1p errors, which are at most the size of the log1p term, itself below
    2 * this term wherever the result is small), plus the final rounding; so the check
    scales by it instead of by max(|a|, |b|), which would let through e.g. a result
    of 0 for logaddexp(0, -40) = 4.2e-18."""
    terms = 0.0
    for x in (a, b):
        w = np.exp(x - values)
        terms = terms + np.where(w > 0, np.abs(x) * w, 0.0)
    return np.where(np.isfinite(terms), terms, 0.0)


def floor_divide(a, b):
    """The standard's floor division: NumPy's (Python's) except for an infinite operand,
    where the standard's primary result is floor(a / b) (inf // 2 = inf, 1 // -inf = -0).
    Integers have no infinities: their quotient is NumPy's as it is (a float branch in
    ``np.where`` would turn an int64 past 2**53 into an inexact float)."""
    out = np.floor_divide(a, b)
    if out.dtype.kind not in "fc":
        return out
    return np.where(np.isinf(a) | np.isinf(b), np.floor(np.true_divide(a, b)), out)


FLOAT_BINARY = {
    B.ADD: (np.add, ROUNDED), B.SUBTRACT: (np.subtract, ROUNDED),
    B.MULTIPLY: (np.multiply, ROUNDED), B.DIVIDE: (np.divide, ROUNDED),
    B.FLOOR_DIVIDE: (floor_divide, ROUNDED), B.REMAINDER: (np.remainder, ROUNDED),
    B.POW: (np.power, TRANSC), B.ATAN2: (np.arctan2, TRANSC), B.HYPOT: (np.hypot, TRANSC),
    B.LOGADDEXP: (_logaddexp_wide, TRANSC), B.MAXIMUM: (np.maximum, EXACT),
    B.MINIMUM: (np.minimum, EXACT),
}
# exact bit-level ops computed in the dtype itself (nextafter steps in *that* dtype)
NATIVE_FLOAT_BINARY = {B.COPYSIGN: np.copysign, B.NEXTAFTER: np.nextafter}
COMPLEX_BINARY_TOLERANCE = {B.ADD: ROUNDED, B.SUBTRACT: ROUNDED, B.MULTIPLY: TRANSC,
                            B.DIVIDE: TRANSC, B.POW: TRANSC}

INT_BINARY = {
    B.ADD: np.add, B.SUBTRACT: np.subtract, B.MULTIPLY: np.multiply,
    # NumPy gives 0 for integer division by zero, as the contract asks
    B.FLOOR_DIVIDE: np.floor_divide, B.REMAINDER: np.remainder, B.POW: int_pow,
    B.MAXIMUM: np.maximum, B.MINIMUM: np.minimum, B.BITWISE_AND: np.bitwise_and,
    B.BITWISE_OR: np.bitwise_or, B.BITWISE_XOR: np.bitwise_xor,
    B.BITWISE_LEFT_SHIFT: shift_left, B.BITWISE_RIGHT_SHIFT: shift_right,
}
BOOL_BINARY = {
    B.BITWISE_AND: np.bitwise_and, B.BITWISE_OR: np.bitwise_or, B.BITWISE_XOR: np.bitwise_xor,
    B.LOGICAL_AND: np.logical_and, B.LOGICAL_OR: np.logical_or, B.LOGICAL_XOR: np.logical_xor,
}


def binary(op, dtype, a, b):
    """Expected result of ``binary(op)`` on host values ``a``, ``b`` of ``dtype``."""
    with np.errstate(all="ignore"):
        if dtype.is_bool:
            return Expected(BOOL_BINARY[op](a, b))
        if dtype.is_integer:
            return Expected(np.asarray(INT_BINARY[op](a, b)).astype(dtype.numpy))
        if op in NATIVE_FLOAT_BINARY:
            return Expected(NATIVE_FLOAT_BINARY[op](a, b), zero_sign=True)
        fn, ulps = FLOAT_BINARY[op]
        aw, bw = _wide(a), _wide(b)
        values = fn(aw, bw)
        atol = 0.0
        if op is B.LOGADDEXP:
            # max + log1p(exp(-|a - b|)) cancels when max < 0: the error of a faithful
            # implementation scales with the condition term, not with the result
            atol = ulps * eps_of(dtype) * logaddexp_condition(aw, bw, values)
        if dtype.is_complex:
            ulps = COMPLEX_BINARY_TOLERANCE[op]
            if op is B.POW:
                # exp(b log a): the error grows with |b log a| (conditioning), and
                # 0 ** b is a branch every library resolves differently: not checked
                cond = np.abs(bw * np.log(np.where(aw == 0, 1, aw)))
                atol = ulps * eps_of(dtype) * np.abs(values) * np.where(np.isfinite(cond), cond, 0)
                return Expected(round_to(values, dtype), ulps=ulps, atol=atol,
                                mask=(aw != 0) & np.isfinite(aw) & np.isfinite(bw))
        return Expected(round_to(values, dtype), ulps=ulps, atol=atol)


COMPARE = {C.EQUAL: np.equal, C.NOT_EQUAL: np.not_equal, C.LESS: np.less,
           C.LESS_EQUAL: np.less_equal, C.GREATER: np.greater, C.GREATER_EQUAL: np.greater_equal}


def compare(op, a, b):
    with np.errstate(all="ignore"):
        return Expected(COMPARE[op](a, b))
