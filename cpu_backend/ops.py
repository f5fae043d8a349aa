"""The element-wise op tables: every ``UnaryOp``, ``BinaryOp`` and ``CompareOp`` of
``candlewick.opdefs`` mapped to a NumPy kernel per dtype.

The tables are generated from the op enums and their dtype domains
(``op_tables.build_table``), so the set of (op, dtype) pairs this backend serves is
exactly the one ``opdefs`` declares; an op with no implementation here is an error when
this module is imported. The reduce and scan tables live in ``reduce_ops``; this module
re-exports them (``REDUCE``, ``SCAN``), with ``op_tables``' compute dtypes and
``missing_ops``, so that ``cpu_backend.ops`` names every table of the backend.

Table shapes (all keyed ``[op.value][dtype.name]``):

* ``UNARY_RAW``, ``BINARY_RAW``, ``COMPARE_RAW`` -> ``(kernel, loud, result DType)``;
  elementwise kernels take NumPy arrays (or 0-d arrays of the compute type, see
  ``SCALAR_TYPE``) and return a new array. They are not wrapped in ``error.quiet``: the
  caller (``cpu_backend.elementwise``, the storage's hot path) sets the quiet state
  around a kernel that is ``loud`` (one that can set an IEEE flag).
* ``UNARY_INTO``, ``BINARY_INTO``, ``COMPARE_INTO``: the same ops for the in-place
  primitives (``_into_kernel``: the ufunc to call with ``out=`` where there is one).
* ``REDUCE``, ``SCAN``: see ``reduce_ops``.

Numerics beyond raw NumPy:

* float16/bfloat16 are computed in float32 and rounded once on store (``widened``);
  only ``nextafter`` runs natively, since it is defined by the narrow type's spacing.
* complex64 math (all but the exact ops) is computed in double precision and rounded
  once (multiply in C where candlewick's C module was built: ``complex64_ops``). float32 ``logaddexp``, ``floor_divide`` and ``remainder`` give their float64
  evaluation rounded once, where NumPy's single-precision loops lose digits
  (``float32_ops``: a float64 pass only where float32 does not already give that result).
* integer ``pow`` with a negative exponent (NumPy raises) follows the contract.
"""

import inspect

import numpy as np

from candlewick import dtypes as dt
from candlewick.opdefs import BinaryOp, CompareOp, UnaryOp
from candlewick.shapes import broadcast_shapes

from . import complex64_ops, complex_parts, float32_ops, special
from .op_tables import (  # noqa: F401  (some re-exported: the modules above import them from ops)
    C128, F32, F64, I64, LOW_PRECISION, LOW_PRECISION_NAMES, LOW_PRECISION_NP,
    accumulation_dtype, build_table, compute_dtype, missing_ops,
)
from .reduce_ops import REDUCE, SCAN  # noqa: F401  (re-exported: every table is in ops)


def widened(kernel, np_dtype, wide=F32):
    """``kernel`` evaluated in ``wide`` with its floating result rounded once back to
    ``np_dtype`` (or to its real part's type, for abs of complex); bool results pass.

    A ufunc (or a kernel taking ``signature=``) casts its operands to ``wide`` itself, a
    buffer at a time, so no widened copy of a whole operand is made: the same values as
    casting first (widening is exact), without two full-size temporaries. A ufunc also
    rounds its result into a ``np_dtype`` output a buffer at a time (``out=``): the same
    values as rounding the wide result afterwards, without a wide result the size of the
    output or the pass that rounds it."""
    narrow_of = {wide: np_dtype}
    if wide.kind == "c":
        narrow_of[np.empty(0, wide).real.dtype] = np.empty(0, np_dtype).real.dtype

    if isinstance(kernel, np.ufunc) and kernel.nout == 1:
        signature = (wide,) * kernel.nin + (None,)
        narrow = narrow_of.get(kernel.resolve_dtypes((np.dtype(wide),) * kernel.nin + (None,))[-1])
        if narrow is not None:
            def rounded_into(*args):
                # (candlewick's broadcast_shapes: NumPy's stops at 32 dimensions)
                out = np.empty(broadcast_shapes(*[np.shape(a) for a in args]), narrow)
                return kernel(*args, signature=signature, out=out)

            return rounded_into

    if _takes_signature(kernel):
        def in_wide(*args):
            return kernel(*args, signature=(wide,) * len(args) + (None,))
    else:
        def in_wide(*args):
            return kernel(*[a.astype(wide) for a in args])

    def widened_kernel(*args):
        result = in_wide(*args)
        narrow = narrow_of.get(result.dtype)
        return result if narrow is None else result.astype(narrow)

    return widened_kernel


def _takes_signature(kernel):
    if isinstance(kernel, np.ufunc):
        return kernel.nout == 1
    try:
        return "signature" in inspect.signature(kernel).parameters
    except (TypeError, ValueError):
        return False


def _copy(x):
    # identity ops must not alias their input (primitives return new storage)
    return x.copy()


def _zeros(x):
    return np.zeros(x.shape, x.dtype)


def _complex_abs(z):
    # libm hypot is correctly rounded; NumPy's SIMD complex abs loop is not (~1/3 of
    # results are an ulp or more off)
    return np.hypot(z.real, z.imag)


def _complex_reciprocal(z):
    # 1 / z as a division: NumPy's complex reciprocal gives nan + nan j for 1 / 0, where
    # division (like C99) gives a complex infinity
    return np.true_divide(z.dtype.type(1), z)


def _relu(x):
    return np.maximum(x, x.dtype.type(0))


def _int_pow(base, exp):
    """Integer pow: NumPy rejects negative exponents; the contract gives 1 for base 1,
    +-1 for base -1 (by the exponent's parity) and 0 otherwise."""
    negative = exp < 0
    if not np.count_nonzero(negative):  # (count_nonzero: a third of np.any's call cost)
        return np.power(base, exp)
    result = np.power(base, np.where(negative, 0, exp).astype(np.result_type(exp), copy=False))
    unit = (base == 1) | (base == -1)
    # (-1) ** e == (-1) ** (e & 1); e & 1 is the parity for negative e too (two's complement)
    parity = np.bitwise_and(exp, 1)
    at_negative = np.where(unit, np.power(base, parity), 0)
    return np.where(negative, at_negative, result).astype(result.dtype, copy=False)


#: the scalar exponents at which float pow is a one-operand ufunc: 2 is np.square, as
#: NumPy's ``x ** 2`` takes it (x*x, correctly rounded as pow is; power's loop is not
#: vectorized). ``_float_pow`` and the C paths of the scalar forms read it (AT_SCALAR)
POW_AT = {2.0: np.square}


def _float_pow(base, exp):
    """np.power, except that NumPy's fast path for an exponent of 0.5 (taken whenever the
    exponent has stride 0, i.e. is a scalar or broadcast) is sqrt, which gives NaN for
    -inf where pow gives +inf; a scalar exponent in POW_AT is its ufunc."""
    if exp.ndim == 0:
        at = POW_AT.get(float(exp))
        if at is not None:
            return at(base)
    result = np.power(base, exp)
    if exp.ndim == 1 and base.ndim == 1 and exp.strides[0] and exp.size > 1:
        return result  # (a 1-D exponent with a nonzero stride never takes the sqrt path)
    half = exp == 0.5
    if np.count_nonzero(half):
        result = np.where(half & np.isneginf(base), np.inf, result).astype(result.dtype, copy=False)
    return result


def _native_nextafter(np_dtype):
    def nextafter(x, y):
        return np.nextafter(x.astype(np_dtype, copy=False), y.astype(np_dtype, copy=False))

    return nextafter


# --- implementations: op -> NumPy function (dtype-specific variants in *_impl) -------

_UNARY = {
    UnaryOp.ABS: np.absolute, UnaryOp.ACOS: np.arccos, UnaryOp.ACOSH: np.arccosh,
    UnaryOp.ASIN: np.arcsin, UnaryOp.ASINH: np.arcsinh, UnaryOp.ATAN: np.arctan,
    UnaryOp.ATANH: np.arctanh, UnaryOp.BITWISE_INVERT: np.invert, UnaryOp.CEIL: np.ceil,
    UnaryOp.CONJ: np.conjugate, UnaryOp.COS: np.cos, UnaryOp.COSH: np.cosh,
    UnaryOp.EXP: np.exp, UnaryOp.EXPM1: np.expm1, UnaryOp.FLOOR: np.floor,
    UnaryOp.IMAG: complex_parts.imag, UnaryOp.ISFINITE: np.isfinite, UnaryOp.ISINF: np.isinf,
    UnaryOp.ISNAN: np.isnan, UnaryOp.LOG: np.log, UnaryOp.LOG1P: np.log1p,
    UnaryOp.LOG2: np.log2, UnaryOp.LOG10: np.log10, UnaryOp.LOGICAL_NOT: np.logical_not,
    UnaryOp.NEGATIVE: np.negative, UnaryOp.REAL: complex_parts.real, UnaryOp.RECIPROCAL: np.reciprocal,
    UnaryOp.ROUND: np.rint, UnaryOp.SIGN: np.sign, UnaryOp.SIGNBIT: np.signbit,
    UnaryOp.SIN: np.sin, UnaryOp.SINH: np.sinh, UnaryOp.SQRT: np.sqrt,
    UnaryOp.SQUARE: np.square, UnaryOp.TAN: np.tan, UnaryOp.TANH: np.tanh,
    UnaryOp.TRUNC: np.trunc, UnaryOp.ERF: special.erf, UnaryOp.RELU: _relu,
    UnaryOp.GELU: special.gelu, UnaryOp.SIGMOID: special.sigmoid, UnaryOp.SILU: special.silu,
}

_BINARY = {
    BinaryOp.ADD: np.add, BinaryOp.SUBTRACT: np.subtract, BinaryOp.MULTIPLY: np.multiply,
    BinaryOp.DIVIDE: np.true_divide, BinaryOp.FLOOR_DIVIDE: np.floor_divide,
    BinaryOp.REMAINDER: np.remainder, BinaryOp.POW: np.power, BinaryOp.ATAN2: np.arctan2,
    BinaryOp.HYPOT: np.hypot, BinaryOp.COPYSIGN: np.copysign, BinaryOp.NEXTAFTER: np.nextafter,
    BinaryOp.LOGADDEXP: np.logaddexp, BinaryOp.MAXIMUM: np.maximum, BinaryOp.MINIMUM: np.minimum,
    BinaryOp.BITWISE_AND: np.bitwise_and, BinaryOp.BITWISE_OR: np.bitwise_or,
    BinaryOp.BITWISE_XOR: np.bitwise_xor, BinaryOp.BITWISE_LEFT_SHIFT: np.left_shift,
    BinaryOp.BITWISE_RIGHT_SHIFT: np.right_shift, BinaryOp.LOGICAL_AND: np.logical_and,
    BinaryOp.LOGICAL_OR: np.logical_or, BinaryOp.LOGICAL_XOR: np.logical_xor,
}

_COMPARE = {
    CompareOp.EQUAL: np.equal, CompareOp.NOT_EQUAL: np.not_equal, CompareOp.LESS: np.less,
    CompareOp.LESS_EQUAL: np.less_equal, CompareOp.GREATER: np.greater,
    CompareOp.GREATER_EQUAL: np.greater_equal,
}

# NumPy's shifts already give the contract's results for counts < 0 or >= bits (0, or -1
# for a right shift of a negative value) and its integer floor_divide/remainder by 0
# give 0; both are checked in tests/cpu_backend.

_IDENTITY_ON_INTEGERS = (UnaryOp.CEIL, UnaryOp.FLOOR, UnaryOp.TRUNC, UnaryOp.ROUND)
_IDENTITY_ON_REAL = (UnaryOp.CONJ, UnaryOp.REAL)
# complex64 ops run in complex128 and are rounded once, except these exact ones: NumPy's
# complex64 loops form intermediates (x*x + y*y, a*c - b*d, exp(x) before scaling by
# cos y, ...) that overflow, underflow or cancel where the result does not.
_EXACT_IN_COMPLEX64 = frozenset({
    UnaryOp.CONJ, UnaryOp.IMAG, UnaryOp.REAL, UnaryOp.NEGATIVE, UnaryOp.ISFINITE,
    UnaryOp.ISINF, UnaryOp.ISNAN, UnaryOp.ROUND, BinaryOp.ADD, BinaryOp.SUBTRACT,
    *CompareOp,
})
# Real ops evaluated in float64 for float16/bfloat16: logaddexp cancels near a zero of
# its result; floor_divide and remainder correct a rounded quotient or modulus, which
# single precision can push past an integer (floor(a / b) off by one). float32 has the
# same results from float32_ops' kernels (NumPy's own float32 loop for remainder).
_REAL_IN_FLOAT64 = frozenset({BinaryOp.LOGADDEXP, BinaryOp.FLOOR_DIVIDE, BinaryOp.REMAINDER})
_FLOAT32_KERNELS = {BinaryOp.LOGADDEXP: float32_ops.logaddexp,
                    BinaryOp.FLOOR_DIVIDE: float32_ops.floor_divide}
# integer kernels that can raise an IEEE flag in NumPy (division by zero)
_INTEGER_FLAGGING = (BinaryOp.FLOOR_DIVIDE, BinaryOp.REMAINDER)


def _unary_impl(op, dtype):
    if op is UnaryOp.LOG1P and dtype.is_complex:
        return special.complex_log1p
    if op is UnaryOp.ABS and dtype.is_complex:
        return _complex_abs
    if op is UnaryOp.EXPM1 and dtype.is_complex:
        return special.complex_expm1
    if op is UnaryOp.SIGN and dtype.is_complex:
        return special.complex_sign
    if op is UnaryOp.TANH and dtype.is_complex:
        return special.complex_tanh
    if op is UnaryOp.TAN and dtype.is_complex:
        return special.complex_tan
    if op is UnaryOp.RECIPROCAL and dtype.is_complex:
        return _complex_reciprocal
    integral = dtype.is_integer or dtype.is_bool
    if op in _IDENTITY_ON_INTEGERS and integral:
        return _copy  # np.rint would even return a float for integers
    if op in _IDENTITY_ON_REAL and not dtype.is_complex:
        return _copy  # np.real of a real array is the array itself
    if op is UnaryOp.IMAG and not dtype.is_complex:
        return _zeros
    if op is UnaryOp.RELU and dtype.category == "unsigned integer":
        return _copy
    return _UNARY[op]


def _binary_impl(op, dtype):
    if op is BinaryOp.POW and dtype.category == "signed integer":
        return _int_pow
    if op is BinaryOp.POW and dtype.is_floating:
        return _float_pow
    if dtype is dt.float32 and op in _FLOAT32_KERNELS:
        return _FLOAT32_KERNELS[op]
    if op is BinaryOp.FLOOR_DIVIDE and dtype.is_floating:
        return special.floor_divide
    if op is BinaryOp.NEXTAFTER and dtype in LOW_PRECISION:
        return _native_nextafter(dtype.numpy)
    return _BINARY[op]


def _compare_impl(op, dtype):
    return _COMPARE[op]


# ufuncs whose NumPy loop mis-writes a strided output: NumPy 2.4's SIMD isnan, isinf,
# isfinite and signbit on float32 and float64 (from 16 elements, on this AVX-512 host) set
# the wrong elements of a bool output whose step is not 1; chunked instead, whose chunks
# they write contiguously (tests/cpu_backend/test_cpu_inplace_and_indexing.py)
_NO_STRIDED_OUT = frozenset({UnaryOp.ISNAN, UnaryOp.ISINF, UnaryOp.ISFINITE, UnaryOp.SIGNBIT})


def _wide_dtype(op, dtype):
    """The NumPy dtype ``op`` on ``dtype`` is computed in before one rounding on store, or
    None where it runs in the dtype itself."""
    if dtype in LOW_PRECISION and op is not BinaryOp.NEXTAFTER:
        return F64 if op in _REAL_IN_FLOAT64 else F32
    if dtype is dt.complex64 and op not in _EXACT_IN_COMPLEX64:
        return C128
    return None


def _elementwise_kernel(op, dtype, impl):
    """(kernel, loud): ``loud`` when it can set an IEEE flag, so that it must run under
    the quiet state (the storage's hot paths set it inline, without ``quiet``'s wrapper)."""
    wide = _wide_dtype(op, dtype)
    kernel = impl if wide is None else widened(impl, dtype.numpy, wide)
    if op is BinaryOp.MULTIPLY and dtype is dt.complex64:  # the same values in C, at NumPy's speed
        kernel = complex64_ops.multiply(kernel)
    return kernel, bool(dtype.is_floating or dtype.is_complex or op in _INTEGER_FLAGGING)


def _into_kernel(op, dtype, impl):
    """(ufunc, signature, loud, kernel) for the in-place primitives (``inplace``): where
    the op is one NumPy ufunc, that ufunc, called with ``out=`` and, for a widened dtype,
    the ``signature`` that computes in the wide dtype (the output cast rounds once on
    store, as ``widened`` does); else ufunc None and the out-of-place ``kernel``, which
    ``inplace`` runs over bounded chunks."""
    kernel, loud = _elementwise_kernel(op, dtype, impl)
    if not (isinstance(impl, np.ufunc) and impl.nout == 1) or op in _NO_STRIDED_OUT:
        return None, None, loud, kernel
    wide = _wide_dtype(op, dtype)
    signature = None if wide is None else (wide,) * impl.nin + (None,)
    return impl, signature, loud, kernel


# --- table generation -------------------------------------------------------------------

UNARY_RAW = build_table(UnaryOp, _unary_impl, _elementwise_kernel, _UNARY)
BINARY_RAW = build_table(BinaryOp, _binary_impl, _elementwise_kernel, _BINARY)
COMPARE_RAW = build_table(CompareOp, _compare_impl, _elementwise_kernel, _COMPARE)

#: the in-place primitives' tables: ``[op.value][dtype.name] -> (ufunc, signature, loud,
#: kernel, result DType)`` (``_into_kernel``)
UNARY_INTO = build_table(UnaryOp, _unary_impl, _into_kernel, _UNARY)
BINARY_INTO = build_table(BinaryOp, _binary_impl, _into_kernel, _BINARY)
COMPARE_INTO = build_table(CompareOp, _compare_impl, _into_kernel, _COMPARE)

_missing = missing_ops()  # every enum of opdefs: one without any table fails here
if _missing:
    raise ImportError(f"cpu_backend.ops has no implementation for {', '.join(_missing)}")

#: kernels that are a one-operand ufunc at some values of a scalar right operand (not
#: reflected): kernel -> {value: ufunc}, for the scalar forms' C paths (elementwise,
#: inplace), which call that ufunc where the value is one of them and decline otherwise
AT_SCALAR = {_float_pow: POW_AT}

#: scalar operands of ``binary_scalar`` are converted to this NumPy scalar type first, so
#: NumPy never promotes (float32 for float16/bfloat16: the compute type)
SCALAR_TYPE = {d.name: compute_dtype(d).type for d in dt.ALL_DTYPES}
