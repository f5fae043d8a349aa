"""Data types: the 13 Array API dtypes plus float16 and bfloat16, their groups and
look-ups, and ``isdtype``; type promotion between them is ``type_promotion``.

A ``DType`` is a small immutable object (one per type); ``DType.numpy`` is the
host representation (bfloat16 through ml_dtypes).

NumPy interop (what Dask, cubed, xarray and CuPy-style code expect of a dtype):
``np.dtype(candlewick.float32)`` is ``np.dtype("float32")`` (through the ``dtype``
attribute NumPy reads), a candlewick dtype equals the NumPy dtype (or NumPy scalar type)
of the same type and hashes like it, and every function that takes a dtype accepts a
NumPy dtype or a dtype name too (``as_dtype``).
"""

import warnings
from typing import Any

import ml_dtypes
import numpy as np

from .errors import ArgumentValueError, DTypeError, short_repr

_KINDS = ("bool", "signed integer", "unsigned integer", "real floating", "complex floating")
KIND_LEVEL = {"bool": 0, "signed integer": 1, "unsigned integer": 1, "real floating": 2,
              "complex floating": 3}


class DType:
    """One data type. ``category`` is its Array API kind ("real floating"); ``kind``,
    ``char``, ``itemsize`` and every other attribute of a NumPy dtype (``type``, ``str``,
    ``byteorder``...) read as NumPy's dtype of the same type, and ``isinstance(dtype,
    numpy.dtype)`` holds, so that code written for NumPy's dtypes (xarray's, pandas',
    Dask's) takes a candlewick dtype as one."""

    __slots__ = ("name", "category", "kind", "char", "itemsize", "numpy", "_rank", "level", "_hash")

    def __init__(self, name, category, numpy_dtype, rank):
        self.name = name
        self.category = category
        self.numpy = np.dtype(numpy_dtype)
        self.kind = self.numpy.kind
        self.char = self.numpy.char
        self.itemsize = self.numpy.itemsize
        self._rank = rank
        #: the kind's place in bool < integer < real floating < complex
        self.level = KIND_LEVEL[category]
        self._hash = hash(self.numpy)

    def __repr__(self):
        return f"candlewick.{self.name}"

    __str__ = __repr__

    @property
    def dtype(self):
        """The NumPy dtype; ``np.dtype(obj)`` reads this attribute, so NumPy-based
        libraries (Dask, cubed, xarray) can turn a candlewick dtype into their own."""
        return self.numpy

    # ``dtype`` above makes NumPy's ``iscomplexobj`` take a complex candlewick dtype for
    # complex data, which ``numpy.testing.assert_equal`` then splits with ``np.real`` and
    # ``np.imag``: NumPy 2.5 returns the object itself as its real part, and the split
    # recursed without end. As data, a dtype's real part is the NumPy dtype it equals
    # (which NumPy does not take for complex data) and its imaginary part 0, so those
    # comparisons end as they do for NumPy's own dtypes.
    @property
    def real(self):
        """The NumPy dtype (a dtype's real part when NumPy takes it for complex data)."""
        return self.numpy

    @property
    def imag(self):
        """0 (a dtype's imaginary part when NumPy takes it for complex data)."""
        return 0

    # ``isinstance(x, C)`` also asks ``x.__class__`` (as for unittest.mock's spec objects):
    # a candlewick dtype passes the ``isinstance(dtype, np.dtype)`` checks of NumPy-based
    # code, and behaves as one there through the NumPy attributes below. ``type(x)`` stays
    # DType, so pickling, copying and candlewick's own checks see the real class.
    @property  # type: ignore[misc]
    def __class__(self):
        return type(self.numpy)

    def __getattr__(self, name):
        # the rest of a NumPy dtype's attributes (type, str, byteorder, names, fields, ...)
        if name.startswith("__") or name in DType.__slots__:
            raise AttributeError(name)
        return getattr(self.numpy, name)

    def __eq__(self, other):
        if self is other:
            return True
        if isinstance(other, DType):
            return False
        if isinstance(other, np.dtype):
            return other == self.numpy
        if isinstance(other, type) and issubclass(other, np.generic):
            return np.dtype(other) == self.numpy
        if isinstance(other, str):
            # NumPy's names and codes: "int64", "i8", "<i8", "float"; not a dtype name: unequal
            try:
                return _numpy_dtype(other) == self.numpy
            except TypeError:
                return other == self.name
        return NotImplemented

    def __ne__(self, other):
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    # equal to its NumPy dtype, so it hashes like it (a NumPy-keyed set or dict finds it)
    def __hash__(self):
        return self._hash

    def __reduce__(self):
        return (from_name, (self.name,))

    @property
    def is_floating(self):
        return self.category == "real floating"

    @property
    def is_complex(self):
        return self.category == "complex floating"

    @property
    def is_integer(self):
        return self.category in ("signed integer", "unsigned integer")

    @property
    def is_bool(self):
        return self.category == "bool"

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


def _numpy_dtype(obj):
    """``np.dtype(obj)``, with NumPy's deprecation warnings of old spellings ('a') kept
    inside: the spelling is refused or compared here, not reported as NumPy's."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return np.dtype(obj)


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


def is_dtype_like(obj: Any) -> bool:
    """Is ``obj`` a NumPy-style dtype spelling (a dtype, a scalar type or a name), so that
    a function taking "a dtype or an array" reads it as a dtype?"""
    if isinstance(obj, (DType, np.dtype, str)):
        return True
    return isinstance(obj, type) and issubclass(obj, np.generic)


def as_dtype(obj: Any, argname: str = "dtype", fname: str | None = None) -> DType:
    """The DType of a candlewick dtype, a NumPy dtype, a NumPy scalar type or a dtype name
    (``"float32"``, ``"bfloat16"``, ``"f4"``); DTypeError naming the function and argument
    for anything else, and for a NumPy dtype candlewick has no equal of."""
    if isinstance(obj, DType):
        return obj
    if isinstance(obj, str) and obj in _BY_NAME:
        return _BY_NAME[obj]
    where = f"{fname}: {argname}" if fname else argname
    # only dtype spellings: an array or a scalar is not a dtype, even though np.dtype()
    # would read an array's .dtype attribute
    if not (isinstance(obj, (np.dtype, str)) or isinstance(obj, type)):
        raise DTypeError(f"{where} must be a dtype, got {type(obj).__name__} {short_repr(obj)}")
    try:
        if isinstance(obj, str):
            # a name NumPy has deprecated ('a') warns there: here it is refused as any
            # other name that is no dtype of candlewick's
            with warnings.catch_warnings():
                warnings.simplefilter("error", DeprecationWarning)
                np_dtype = np.dtype(obj)
        else:
            np_dtype = np.dtype(obj)
    except Exception:
        raise DTypeError(
            f"{where} must be a candlewick dtype, a NumPy dtype or a dtype name, got {short_repr(obj)}"
        ) from None
    try:
        return _BY_NUMPY[np_dtype]
    except KeyError:
        raise DTypeError(
            f"{where}: NumPy dtype {np_dtype} has no candlewick equal; candlewick has "
            f"{', '.join(d.name for d in ALL_DTYPES)}"
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


def isdtype(dtype: DType | str | Any, kind: DType | str | tuple[DType | str, ...]) -> bool:
    """The Array API ``isdtype``: is ``dtype`` of ``kind`` (a dtype, kind name, or tuple).

    Parameters
    ----------
    dtype : DType
        The dtype to test.
    kind : DType, str or tuple
        A dtype, a kind name ('bool', 'signed integer', 'unsigned integer', 'integral', 'real
        floating', 'complex floating', 'numeric'), or a tuple of them (any matches).

    Returns
    -------
    bool
        Whether dtype is of kind.

    Raises
    ------
    DTypeError
        If dtype is not a dtype (candlewick, NumPy or a name) or kind is of the wrong type.
    ValueError
        If kind names no kind.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.isdtype(cw.float32, "real floating"), cw.isdtype(cw.int8, ("bool", cw.int16))
    (True, False)
    """
    if type(dtype) is not DType:  # (a DType as it is: the common call in this one frame, as
        # scikit-learn asks six times a StandardScaler fit, after NumPy's calls over the data)
        dtype = as_dtype(dtype, "dtype", "isdtype")
    for k in kind if isinstance(kind, tuple) else (kind,):
        if isinstance(k, tuple):
            hit = isdtype(dtype, k)
        elif isinstance(k, DType):
            hit = dtype is k
        elif isinstance(k, np.dtype) or (isinstance(k, type) and issubclass(k, np.generic)):
            # a NumPy dtype candlewick lacks (datetime64, object) is simply not this dtype
            hit = _BY_NUMPY.get(np.dtype(k)) is dtype
        elif isinstance(k, str):
            try:
                hit = dtype.category in _KIND_ALIASES[k]
            except KeyError:
                raise ArgumentValueError(
                    f"isdtype: kind must be a dtype or one of {sorted(_KIND_ALIASES)}, got {short_repr(k)}"
                ) from None
        else:
            raise DTypeError(f"isdtype: kind must be a dtype, a kind name or a tuple, got {short_repr(k)}")
        if hit:
            return True
    return False


def kind_names():
    return tuple(_KIND_ALIASES)
