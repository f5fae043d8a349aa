"""The op vocabularies shared by every backend, and each op's dtype domain.

This table is the one place that says which dtypes an op accepts and what dtype it
returns. Backends generate their op tables (and the ROCm backend its kernel names)
from it, and the conformance suite enumerates it.

Domain letters: B bool, I integer (signed and unsigned), F real floating (float16,
bfloat16, float32, float64), C complex. Result rules: ``same`` (the input dtype),
``bool``, ``real`` (complex -> its real dtype, others unchanged), ``index`` (int64).
"""

import enum

from . import dtypes as _dt


def _letters(dtype):
    if dtype.is_bool:
        return "B"
    if dtype.is_integer:
        return "I"
    if dtype.is_complex:
        return "C"
    return "F"


class _Op(enum.Enum):
    """Base: members are (name, domain, result)."""

    domain: str
    result: str

    def __new__(cls, name, domain, result="same"):
        member = object.__new__(cls)
        member._value_ = name
        member.domain = domain
        member.result = result
        return member

    def accepts(self, dtype):
        return _letters(dtype) in self.domain

    def result_dtype(self, dtype):
        if self.result == "same":
            return dtype
        if self.result == "bool":
            return _dt.bool_
        if self.result == "real":
            return _dt.real_dtype_of(dtype)
        return _dt.int64

    def dtypes(self, among=_dt.ALL_DTYPES):
        """Every dtype (of ``among``) the op accepts, in canonical order."""
        return tuple(d for d in among if self.accepts(d))

    def __repr__(self):
        return f"{type(self).__name__}.{self.name}"

    # members are singletons compared by identity: object's hash (in C) instead of
    # Enum's hash of the name (a Python call on every table lookup keyed by an op)
    __hash__ = object.__hash__


class UnaryOp(_Op):
    ABS = ("abs", "IFC", "real")
    ACOS = ("acos", "FC")
    ACOSH = ("acosh", "FC")
    ASIN = ("asin", "FC")
    ASINH = ("asinh", "FC")
    ATAN = ("atan", "FC")
    ATANH = ("atanh", "FC")
    BITWISE_INVERT = ("bitwise_invert", "BI")
    CEIL = ("ceil", "IF")
    CONJ = ("conj", "IFC")
    COS = ("cos", "FC")
    COSH = ("cosh", "FC")
    EXP = ("exp", "FC")
    EXPM1 = ("expm1", "FC")
    FLOOR = ("floor", "IF")
    IMAG = ("imag", "FC", "real")
    ISFINITE = ("isfinite", "IFC", "bool")
    ISINF = ("isinf", "IFC", "bool")
    ISNAN = ("isnan", "IFC", "bool")
    LOG = ("log", "FC")
    LOG1P = ("log1p", "FC")
    LOG2 = ("log2", "FC")
    LOG10 = ("log10", "FC")
    LOGICAL_NOT = ("logical_not", "B")
    NEGATIVE = ("negative", "IFC")
    REAL = ("real", "IFC", "real")
    RECIPROCAL = ("reciprocal", "FC")
    ROUND = ("round", "IFC")
    SIGN = ("sign", "IFC")
    SIGNBIT = ("signbit", "F", "bool")
    SIN = ("sin", "FC")
    SINH = ("sinh", "FC")
    SQRT = ("sqrt", "FC")
    SQUARE = ("square", "IFC")
    TAN = ("tan", "FC")
    TANH = ("tanh", "FC")
    TRUNC = ("trunc", "IF")
    # Candle's neural-network activations
    ERF = ("erf", "F")
    RELU = ("relu", "IF")
    GELU = ("gelu", "F")
    SIGMOID = ("sigmoid", "F")
    SILU = ("silu", "F")


class BinaryOp(_Op):
    ADD = ("add", "IFC")
    SUBTRACT = ("subtract", "IFC")
    MULTIPLY = ("multiply", "IFC")
    DIVIDE = ("divide", "FC")
    FLOOR_DIVIDE = ("floor_divide", "IF")
    REMAINDER = ("remainder", "IF")
    POW = ("pow", "IFC")
    ATAN2 = ("atan2", "F")
    HYPOT = ("hypot", "F")
    COPYSIGN = ("copysign", "F")
    NEXTAFTER = ("nextafter", "F")
    LOGADDEXP = ("logaddexp", "F")
    MAXIMUM = ("maximum", "IF")
    MINIMUM = ("minimum", "IF")
    BITWISE_AND = ("bitwise_and", "BI")
    BITWISE_OR = ("bitwise_or", "BI")
    BITWISE_XOR = ("bitwise_xor", "BI")
    BITWISE_LEFT_SHIFT = ("bitwise_left_shift", "I")
    BITWISE_RIGHT_SHIFT = ("bitwise_right_shift", "I")
    LOGICAL_AND = ("logical_and", "B")
    LOGICAL_OR = ("logical_or", "B")
    LOGICAL_XOR = ("logical_xor", "B")


class CompareOp(_Op):
    EQUAL = ("equal", "BIFC", "bool")
    NOT_EQUAL = ("not_equal", "BIFC", "bool")
    LESS = ("less", "IF", "bool")
    LESS_EQUAL = ("less_equal", "IF", "bool")
    GREATER = ("greater", "IF", "bool")
    GREATER_EQUAL = ("greater_equal", "IF", "bool")


class ReduceOp(_Op):
    SUM = ("sum", "IFC")
    PROD = ("prod", "IFC")
    MIN = ("min", "BIF")
    MAX = ("max", "BIF")
    ARGMIN = ("argmin", "BIF", "index")
    ARGMAX = ("argmax", "BIF", "index")
    ANY = ("any", "BIFC", "bool")
    ALL = ("all", "BIFC", "bool")
    COUNT_NONZERO = ("count_nonzero", "BIFC", "index")  # int64 counts (NaN is non-zero)


class ScanOp(_Op):
    SUM = ("sum", "IFC")
    PROD = ("prod", "IFC")


ALL_OP_ENUMS = (UnaryOp, BinaryOp, CompareOp, ReduceOp, ScanOp)


class Param:
    """A scalar operand that comes with each call: in a graph traced by
    ``candlewick.fuse``, a float argument used directly as a scalar operand
    (``binary_scalar``, ``full``, ``clip``, ``affine``) is ``Param(k)``, the call's float
    argument number ``k``, so that one graph and one compiled kernel serve every value."""

    __slots__ = ("index",)

    def __init__(self, index):
        self.index = index

    def __eq__(self, other):
        return isinstance(other, Param) and other.index == self.index

    def __hash__(self):
        return hash(("Param", self.index))

    def __repr__(self):
        return f"Param({self.index})"

    def resolve(self, scalars):
        """This operand's value among the call's float arguments ``scalars``."""
        return scalars[self.index]
