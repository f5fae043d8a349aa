"""Data types: the 13 Array API dtypes plus float16 and bfloat16, and type promotion.

A ``DType`` is a small immutable object compared by identity; ``DType.numpy`` is the
host representation (bfloat16 through ml_dtypes). Promotion follows the Array API
table; mixing kinds the standard leaves open (integer with floating, bool with
numeric, signed with uint64) raises ``DTypeError``.
"""

import ml_dtypes
import numpy as np

from .errors import ArgumentValueError, DTypeError, short_repr

_KINDS = ("bool", "signed integer", "unsigned integer", "real floating", "complex floating")


class DType:
    __slots__ = ("name", "kind", "itemsize", "numpy", "_rank")

    def __init__(self, name, kind, numpy_dtype, rank):
        self.name = name
        self.kind = kind
        self.numpy = np.dtype(numpy_dtype)
        self.itemsize = self.numpy.itemsize
        self._rank = rank

    def __repr__(self):
        return f"candlewick.{self.name}"

    __str__ = __repr__

    def __eq__(self, other):
        return self is other

    # identity, as __eq__; object's own slot keeps the hash in C (dtypes key the
    # promotion and kernel tables every op looks up)
    __hash__ = object.__hash__

    def __reduce__(self):
        return (from_name, (self.name,))

    @property
    def is_floating(self):
        return self.kind == "real floating"

    @property
    def is_complex(self):
        return self.kind == "complex floating"

    @property
    def is_integer(self):
        return self.kind in ("signed integer", "unsigned integer")

    @property
    def is_bool(self):
        return self.kind == "bool"

    @property
    def bits(self):
        return self.itemsize * 8


bool_ = DType("bool", "bool", np.bool_, 0)
int8 = DType("int8", "signed integer", np.int8, 1)
int16 = DType("int16", "signed integer", np.int16, 2)
int32 = DType("int32", "signed integer", np.int32, 3)
int64 = DType("int64", "signed integer", np.int64, 4)
uint8 = DType("uint8", "unsigned integer", np.uint8, 1)
uint16 = DType("uint16", "unsigned integer", np.uint16, 2)
uint32 = DType("uint32", "unsigned integer", np.uint32, 3)
uint64 = DType("uint64", "unsigned integer", np.uint64, 4)
float16 = DType("float16", "real floating", np.float16, 1)
bfloat16 = DType("bfloat16", "real floating", ml_dtypes.bfloat16, 1)
float32 = DType("float32", "real floating", np.float32, 2)
float64 = DType("float64", "real floating", np.float64, 3)
complex64 = DType("complex64", "complex floating", np.complex64, 2)
complex128 = DType("complex128", "complex floating", np.complex128, 3)

ALL_DTYPES = (
    bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
    float16, bfloat16, float32, float64, complex64, complex128,
)
#: the dtypes the Array API standard names (float16/bfloat16 are candlewick extras)
ARRAY_API_DTYPES = tuple(d for d in ALL_DTYPES if d not in (float16, bfloat16))
SIGNED = (int8, int16, int32, int64)
UNSIGNED = (uint8, uint16, uint32, uint64)
INTEGER = SIGNED + UNSIGNED
REAL_FLOATING = (float16, bfloat16, float32, float64)
COMPLEX = (complex64, complex128)
NUMERIC = INTEGER + REAL_FLOATING + COMPLEX

_BY_NAME = {d.name: d for d in ALL_DTYPES}
_BY_NUMPY = {d.numpy: d for d in ALL_DTYPES}

DEFAULT_FLOAT = float64
DEFAULT_COMPLEX = complex128
DEFAULT_INT = int64
DEFAULT_INDEX = int64


def from_name(name):
    try:
        return _BY_NAME[name]
    except KeyError:
        raise DTypeError(f"unknown dtype name {short_repr(name)}; expected one of {sorted(_BY_NAME)}") from None


def from_numpy(np_dtype):
    """The candlewick dtype of a NumPy dtype; DTypeError for one candlewick lacks."""
    try:
        return _BY_NUMPY[np.dtype(np_dtype)]
    except (KeyError, TypeError):
        raise DTypeError(f"NumPy dtype {short_repr(np_dtype)} has no candlewick equivalent") from None


def as_dtype(obj, argname="dtype"):
    """Accept a DType (or a NumPy dtype / name for convenience) and return the DType."""
    if isinstance(obj, DType):
        return obj
    if isinstance(obj, str) and obj in _BY_NAME:
        return _BY_NAME[obj]
    try:
        return _BY_NUMPY[np.dtype(obj)]
    except Exception:
        raise DTypeError(f"{argname} must be a candlewick dtype, got {short_repr(obj)}") from None


def _same_kind_table():
    """Pairs that promote within the standard's lattice (plus f16/bf16 extras)."""
    table = {}
    for group in (SIGNED, UNSIGNED, COMPLEX):
        for a in group:
            for b in group:
                table[a, b] = a if a._rank >= b._rank else b
    floats = (float16, float32, float64)
    for a in floats:
        for b in floats:
            table[a, b] = a if a._rank >= b._rank else b
    for f in (float32, float64):
        table[bfloat16, f] = table[f, bfloat16] = f
    table[bfloat16, bfloat16] = bfloat16
    table[bfloat16, float16] = table[float16, bfloat16] = float32
    for u, s in ((uint8, int16), (uint16, int32), (uint32, int64)):
        for i in SIGNED:
            r = s if s._rank >= i._rank else i
            table[u, i] = table[i, u] = r
    real_of = {complex64: float32, complex128: float64}
    for c in COMPLEX:
        for f in REAL_FLOATING:
            wide = table.get((real_of[c], f), float32)
            table[c, f] = table[f, c] = complex128 if wide is float64 else c
    table[bool_, bool_] = bool_
    return table


_PROMOTE = _same_kind_table()


def promote_types(a, b):
    """The Array API result dtype of two dtypes; DTypeError where the standard has none."""
    if a is b:
        return a
    try:
        return _PROMOTE[a, b]
    except KeyError:
        raise DTypeError(
            f"no promotion between {a.name} and {b.name}: mixed-kind promotion is not "
            f"defined by the Array API; cast one operand explicitly with astype"
        ) from None


def real_dtype_of(dtype):
    """complex64 -> float32, complex128 -> float64, others unchanged."""
    return {complex64: float32, complex128: float64}.get(dtype, dtype)


def complex_dtype_of(dtype):
    """float32 -> complex64, float64 -> complex128 (float16/bfloat16 -> complex64)."""
    if dtype.is_complex:
        return dtype
    return complex128 if dtype is float64 else complex64


_KIND_ALIASES = {
    "bool": ("bool",),
    "signed integer": ("signed integer",),
    "unsigned integer": ("unsigned integer",),
    "integral": ("signed integer", "unsigned integer"),
    "real floating": ("real floating",),
    "complex floating": ("complex floating",),
    "numeric": ("signed integer", "unsigned integer", "real floating", "complex floating"),
}


def isdtype(dtype, kind):
    """The Array API ``isdtype``: is ``dtype`` of ``kind`` (a dtype, kind name, or tuple)."""
    if not isinstance(dtype, DType):
        raise DTypeError(f"isdtype: dtype must be a candlewick dtype, got {short_repr(dtype)}")
    if isinstance(kind, tuple):
        return any(isdtype(dtype, k) for k in kind)
    if isinstance(kind, DType):
        return dtype is kind
    if isinstance(kind, str):
        try:
            return dtype.kind in _KIND_ALIASES[kind]
        except KeyError:
            raise ArgumentValueError(
                f"isdtype: kind must be a dtype or one of {sorted(_KIND_ALIASES)}, got {short_repr(kind)}"
            ) from None
    raise DTypeError(f"isdtype: kind must be a dtype, a kind name or a tuple, got {short_repr(kind)}")


def kind_names():
    return tuple(_KIND_ALIASES)
