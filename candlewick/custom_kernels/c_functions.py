"""The math functions of the C subset (``c_types.FUNCTIONS``) as graph nodes: each call
typed as the device headers type it (a floating argument keeps its type, an integer one
becomes double, ``f`` forms convert to float), and the functions C defines otherwise than
an op of ``candlewick.opdefs``: ``round`` (halves away from zero), ``fmin``/``fmax`` and
the device's floating ``min``/``max`` (a NaN operand gives the other one)."""

from __future__ import annotations

from .. import dtypes as _dt
from ..opdefs import BinaryOp, CompareOp, UnaryOp
from . import c_types

__all__ = ["c_round", "call", "fminmax"]

_BINARY2 = {"pow": BinaryOp.POW, "atan2": BinaryOp.ATAN2, "hypot": BinaryOp.HYPOT,
            "copysign": BinaryOp.COPYSIGN, "nextafter": BinaryOp.NEXTAFTER}


def call(interp, name, args, line):
    """The value of the C subset's function ``name`` of ``args`` (Vals), as the device
    headers define it: a unary or binary op of its (converted) arguments."""
    b = interp.b
    if name in ("real", "imag", "conj"):
        (x,) = _arity(interp, name, args, 1, line)
        if x.dtype.level != 3:
            interp.fail(f"{name}() takes a complex value, got {c_types.C_NAME[x.dtype]}", line)
        return b.unary(UnaryOp[name.upper()], x)
    spec = c_types.FUNCTIONS.get(name)
    if spec is None:
        interp.fail(f"{name}() is not a function of the C subset (its math functions: "
                    f"{', '.join(sorted(n for n in c_types.FUNCTIONS if n[:-1] not in c_types.FUNCTIONS))}, "
                    f"real, imag, conj, and the float forms expf, powf...)", line)
    kind, op, forced = spec
    if kind in ("float1", "class"):
        (x,) = _arity(interp, name, args, 1, line)
        if x.dtype.level == 3:
            unary = c_types.UNARY_OPS.get(op)
            if forced is not None or kind == "class" or unary is None or "C" not in unary.domain:
                interp.fail(f"{name}() does not take a complex value", line)
            return b.unary(unary, x)
        if kind == "class" and x.dtype.level != 2:
            interp.fail(f"{name}() takes a floating value, got {c_types.C_NAME[x.dtype]}", line)
        x = interp.convert(x, forced or (x.dtype if x.dtype.level == 2 else _dt.float64), line)
        if op == "c_round":
            return c_round(b, x)
        return b.unary(c_types.UNARY_OPS[op], x)
    if kind == "abs":
        (x,) = _arity(interp, name, args, 1, line)
        x = interp.convert(x, c_types.promote(x.dtype), line)
        if x.dtype.category == "unsigned integer":
            interp.fail("abs() of an unsigned value (the device headers have no such overload)", line)
        return b.unary(UnaryOp.ABS, x)
    x, y = _arity(interp, name, args, 2, line)
    if kind == "minmax":
        if x.dtype is not y.dtype or x.dtype.level == 3:
            interp.fail(f"{name}() takes two arguments of one real type, got {c_types.C_NAME[x.dtype]} and "
                        f"{c_types.C_NAME[y.dtype]}: cast one (the device headers convert mixed ones differently)",
                        line)
        if x.dtype.is_bool:
            return b.binary(BinaryOp.LOGICAL_AND if name == "min" else BinaryOp.LOGICAL_OR, x, y)
        if x.dtype.level == 1:
            return b.binary(BinaryOp.MINIMUM if name == "min" else BinaryOp.MAXIMUM, x, y)
        return fminmax(b, op, x, y)
    if forced is not None:
        if x.dtype.level == 3 or y.dtype.level == 3:
            interp.fail(f"{name}() does not take a complex value", line)
        dtype = forced
    else:
        if x.dtype.level != 2 or y.dtype.level != 2:
            interp.fail(f"{name}() takes floating arguments, got {c_types.C_NAME[x.dtype]} and "
                        f"{c_types.C_NAME[y.dtype]}: cast the integer ones to float or double (the device "
                        f"headers give pow(float, int) another type than C++)", line)
        dtype = c_types.arithmetic(x.dtype, y.dtype)
    x, y = interp.convert(x, dtype, line), interp.convert(y, dtype, line)
    if op in ("fmin", "fmax"):
        return fminmax(b, op, x, y)
    return b.binary(_BINARY2[op], x, y)


def _arity(interp, name, args, n, line):
    if len(args) != n:
        interp.fail(f"{name}() takes {n} argument{'s' if n > 1 else ''}, got {len(args)}", line)
    return args


def fminmax(b, op, x, y):
    """C's fmin/fmax (and the device's min/max of floating values) on the ``Builder``
    ``b``: a NaN operand gives the other one."""
    both = b.binary(BinaryOp.MINIMUM if op == "fmin" else BinaryOp.MAXIMUM, x, y)
    return b.where(b.unary(UnaryOp.ISNAN, x), y, b.where(b.unary(UnaryOp.ISNAN, y), x, both))


def c_round(b, x):
    """C's round: halves away from zero (``rint`` rounds them to even). x - trunc(x)
    is exact, and so is trunc(x) +- 1 wherever the fraction is a half."""
    t = b.unary(UnaryOp.TRUNC, x)
    frac = b.unary(UnaryOp.ABS, b.binary(BinaryOp.SUBTRACT, x, t))
    half = b.compare(CompareOp.GREATER_EQUAL, frac, b.full(0.5, x.dtype))
    away = b.binary(BinaryOp.ADD, t, b.binary(BinaryOp.COPYSIGN, b.full(1.0, x.dtype), x))
    return b.where(half, away, t)
