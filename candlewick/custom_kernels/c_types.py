"""The C++ types of the C subset and their rules, as the device compilers apply them:
type names, literals, integer promotion and the usual arithmetic conversions, and the
math functions with the types they take and give.

Values of float16 and bfloat16 parameters are seen as ``float`` (their compute type, as
the generated kernels load them); a placeholder bound to float16 names ``float``.
Where the device compilers' own headers disagree with C++ (ROCm's ``pow(float, int)``
gives float, its ``min(int, float)`` double), the subset refuses the call and asks for
arguments of one floating type, so every accepted call means one thing everywhere.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from .. import dtypes as _dt
from ..opdefs import UnaryOp

__all__ = ["C_NAME", "FUNCTIONS", "arithmetic", "compute_dtype", "literal", "promote", "type_from_words"]

#: the C spelling of each compute dtype (messages and the generated kernels' typedefs)
C_NAME = {
    _dt.bool_: "bool", _dt.int8: "signed char", _dt.int16: "short", _dt.int32: "int", _dt.int64: "long long",
    _dt.uint8: "unsigned char", _dt.uint16: "unsigned short", _dt.uint32: "unsigned int",
    _dt.uint64: "unsigned long long", _dt.float32: "float", _dt.float64: "double",
    _dt.complex64: "cw_c64", _dt.complex128: "cw_c128",
}

_SMALL = frozenset({_dt.bool_, _dt.int8, _dt.uint8, _dt.int16, _dt.uint16})


def compute_dtype(dtype):
    """The dtype a value of ``dtype`` has in a kernel body (float16/bfloat16: float32)."""
    return _dt.float32 if dtype in (_dt.float16, _dt.bfloat16) else dtype


def type_from_words(words):
    """The dtype of a C type name (its words: ``("unsigned", "int")``), or None."""
    words = list(words)
    signed, unsigned, longs = words.count("signed"), words.count("unsigned"), words.count("long")
    base = [w for w in words if w not in ("signed", "unsigned", "long")]
    if "short" in base and "int" in base:
        base.remove("int")
    if signed + unsigned > 1 or len(base) > 1:
        return None
    if not base or base == ["int"]:
        if longs > 2:
            return None
        if longs:
            return _dt.uint64 if unsigned else _dt.int64
        return _dt.uint32 if unsigned else _dt.int32
    if longs:
        return None  # long double, long char: no device type
    if base == ["short"]:
        return _dt.uint16 if unsigned else _dt.int16
    if base == ["char"]:
        return _dt.uint8 if unsigned else _dt.int8
    if signed or unsigned:
        return None
    return {"bool": _dt.bool_, "float": _dt.float32, "double": _dt.float64}.get(base[0])


def promote(dtype):
    """C's integer promotion: bool and the integers narrower than int become int."""
    return _dt.int32 if dtype in _SMALL else dtype


def arithmetic(a, b):
    """The type C's usual arithmetic conversions give operands of types ``a`` and ``b``
    (None for complex operands of two different types, which the kernels' complex type
    does not combine)."""
    if a.level == 3 or b.level == 3:
        return a if a is b else None
    if _dt.float64 in (a, b):
        return _dt.float64
    if _dt.float32 in (a, b):
        return _dt.float32
    a, b = promote(a), promote(b)
    if a is b:
        return a
    a_unsigned, b_unsigned = a.category == "unsigned integer", b.category == "unsigned integer"
    if a_unsigned == b_unsigned:
        return a if a.itemsize >= b.itemsize else b
    u, s = (a, b) if a_unsigned else (b, a)
    return u if u.itemsize >= s.itemsize else s


def literal(text):
    """(value, dtype) of a C++ numeric literal's text; a ``str`` saying why for one the
    subset does not take (long double, a value no integer type holds)."""
    low = text.lower()
    if low.startswith("0x"):
        return _integer(low)
    if "." not in low and "e" not in low:
        if "f" in low:
            return f"{text}: not a C literal (write {text[:-1]}.0f)"
        return _integer(low)
    if low.endswith("l"):
        return f"{text}: long double literals have no device type (write {text[:-1]} or {text[:-1]}f)"
    if low.endswith("f"):
        return _nearest_float32(Fraction(low[:-1])), _dt.float32
    return float(low), _dt.float64


def _integer(low):
    digits = low.rstrip("ul")
    suffix = low[len(digits):]
    unsigned = "u" in suffix
    longs = suffix.count("l")
    if digits.startswith("0x"):
        value, decimal = int(digits, 16), False
    elif len(digits) > 1 and digits.startswith("0"):
        value, decimal = int(digits, 8), False
    else:
        value, decimal = int(digits), True
    if unsigned:
        candidates = (_dt.uint32, _dt.uint64) if not longs else (_dt.uint64,)
    elif decimal:
        candidates = (_dt.int32, _dt.int64) if not longs else (_dt.int64,)
    else:
        candidates = (_dt.int32, _dt.uint32, _dt.int64, _dt.uint64) if not longs else (_dt.int64, _dt.uint64)
    for dtype in candidates:
        info = np.iinfo(dtype.numpy)
        if value <= info.max:
            return value, dtype
    return f"{low}: no integer type holds this literal"


def _nearest_float32(exact):
    """The float32 nearest to the rational ``exact`` (ties to even), as a Python float:
    C rounds a decimal literal once, where float() then float32 would round twice."""
    guess = np.float32(float(exact))
    if not np.isfinite(guess):
        return float(guess)
    best = None
    for cand in (np.nextafter(guess, np.float32(-np.inf)), guess, np.nextafter(guess, np.float32(np.inf))):
        if not np.isfinite(cand):
            continue
        err = abs(Fraction(float(cand)) - exact)
        even = int(np.float32(cand).view(np.uint32)) % 2 == 0
        key = (err, not even)
        if best is None or key < best[0]:
            best = (key, cand)
    return float(best[1])


# --- the math functions -----------------------------------------------------------------
# kind: "float1" one floating argument (an integer one is converted to double), "float2"
# two floating arguments (float with double gives double), "abs", "minmax", "class" (a
# floating argument, a bool result); the op is a UnaryOp/BinaryOp value or a name the
# lowering composes; a trailing "f" variant converts its arguments to float first
_FLOAT1 = {
    "exp": "exp", "expm1": "expm1", "log": "log", "log1p": "log1p", "log2": "log2", "log10": "log10",
    "sqrt": "sqrt", "sin": "sin", "cos": "cos", "tan": "tan", "sinh": "sinh", "cosh": "cosh", "tanh": "tanh",
    "asin": "asin", "acos": "acos", "atan": "atan", "asinh": "asinh", "acosh": "acosh", "atanh": "atanh",
    "erf": "erf", "floor": "floor", "ceil": "ceil", "trunc": "trunc", "rint": "round", "fabs": "abs",
    "round": "c_round",
}
_FLOAT2 = {"pow": "pow", "atan2": "atan2", "hypot": "hypot", "copysign": "copysign", "nextafter": "nextafter",
           "fmin": "fmin", "fmax": "fmax"}
_CLASS = {"isnan": "isnan", "isinf": "isinf", "isfinite": "isfinite", "signbit": "signbit"}

FUNCTIONS: dict[str, tuple[str, str, _dt.DType | None]] = {}
for _name, _op in _FLOAT1.items():
    FUNCTIONS[_name] = ("float1", _op, None)
    FUNCTIONS[_name + "f"] = ("float1", _op, _dt.float32)
for _name, _op in _FLOAT2.items():
    FUNCTIONS[_name] = ("float2", _op, None)
    FUNCTIONS[_name + "f"] = ("float2", _op, _dt.float32)
for _name, _op in _CLASS.items():
    FUNCTIONS[_name] = ("class", _op, None)
FUNCTIONS["abs"] = ("abs", "abs", None)
FUNCTIONS["min"] = ("minmax", "fmin", None)
FUNCTIONS["max"] = ("minmax", "fmax", None)
del _name, _op

#: the unary ops the subset's functions map to (checked against opdefs at import)
UNARY_OPS = {op.value: op for op in UnaryOp}
assert all(op in UNARY_OPS for op in _FLOAT1.values() if op != "c_round")
