"""Python (and NumPy) scalars meeting arrays: the dtype an operation runs in, and the
value converted for it (docs/promotion.md).

A scalar whose kind (bool < int < float < complex) is not above the array's takes the
array's dtype (an int must fit an integer dtype). One of a higher kind gives the default
dtype of its own kind: ``int8_array + 1.5`` runs in float64, ``int_array * 1j`` in
complex128, ``float32_array * 1j`` in complex64 (as the standard says). Strict mode
(promotion_mode.py) keeps only the standard's cases and raises ``DTypeError`` for the rest.
NumPy scalars are taken by their kind, as Python scalars are.
"""

import math

import numpy as np

from . import dtypes as _dt
from .errors import ArgumentTypeError, ArgumentValueError, DTypeError, OutOfRangeError
from .promotion_mode import is_strict

INT_RANGES = {d: (int(np.iinfo(d.numpy).min), int(np.iinfo(d.numpy).max)) for d in _dt.INTEGER}
_DEFAULT_OF_LEVEL = {1: _dt.DEFAULT_INT, 2: _dt.DEFAULT_FLOAT, 3: _dt.DEFAULT_COMPLEX}
_PYTHON_TYPES = (bool, int, float, complex)  # by kind level


def _in_range(value, dtype, fname):
    lo, hi = INT_RANGES[dtype]
    if not lo <= value <= hi:
        raise OutOfRangeError(f"{fname}: Python int {value} is out of range for {dtype.name} [{lo}, {hi}]")
    return value


def scalar_for(value, dtype, fname):
    """``(value converted, dtype the operation runs in)`` for a scalar meeting an array
    of ``dtype``. The common cases (a float with a floating array, an int with an integer
    array) are tested first: they are on every scalar operation's path."""
    t = type(value)
    if t is float:
        if dtype.level >= 2:
            return value, dtype
        return _higher_kind(value, 2, "a Python float", dtype, fname)
    if t is int:
        if dtype.level == 1:
            return _in_range(value, dtype, fname), dtype
        if dtype.level > 1:
            return (float(value) if dtype.level == 2 else complex(value)), dtype
        return _higher_kind(value, 1, "a Python int", dtype, fname)
    if t is bool:
        if dtype.level == 0:
            return value, dtype
        return _lower_bool(value, "a Python bool", dtype, fname)
    if t is complex:
        if dtype.level == 3:
            return value, dtype
        if dtype.level == 2:  # the standard's case: float32 -> complex64, float64 -> complex128
            return value, _dt.complex_dtype_of(dtype)
        return _higher_kind(value, 3, "a Python complex", dtype, fname)
    return _other_scalar(value, dtype, fname)


def _other_scalar(value, dtype, fname):
    """NumPy scalars (named as such in messages) and subclasses of the Python scalar
    types (an IntEnum member, ...), by their kind."""
    if isinstance(value, np.generic):
        try:
            level = _dt.from_numpy(value.dtype).level
        except DTypeError:
            raise ArgumentTypeError(f"{fname}: a NumPy {value.dtype} scalar has no candlewick dtype") from None
        item = _PYTHON_TYPES[level](value)
        return _described(item, level, f"a NumPy {value.dtype.name} scalar", dtype, fname)
    for base in _PYTHON_TYPES[1:]:
        if isinstance(value, base):
            return scalar_for(base(value), dtype, fname)
    raise ArgumentTypeError(f"{fname}: expected an array or a Python scalar, got {type(value).__name__}")


def _described(value, level, what, dtype, fname):
    """scalar_for for a NumPy scalar: the same rule, its own name in messages."""
    if level == 0 and dtype.level > 0:
        return _lower_bool(value, what, dtype, fname)
    if level > dtype.level and not (level == 3 and dtype.level == 2):
        return _higher_kind(value, level, what, dtype, fname)
    return scalar_for(value, dtype, fname)


def _lower_bool(value, what, dtype, fname):
    if is_strict():
        raise DTypeError(
            f"{fname}: {what} does not combine with dtype {dtype.name} in strict promotion mode; "
            f"use {int(value)} instead"
        )
    return scalar_for(int(value), dtype, fname)


def _higher_kind(value, level, what, dtype, fname):
    if is_strict():
        raise DTypeError(
            f"{fname}: {what} does not combine with dtype {dtype.name} in strict promotion mode "
            f"(the Array API leaves mixed kinds undefined): use a {dtype.category} value, convert "
            f"explicitly, or use candlewick.set_promotion_mode('default')"
        )
    target = _DEFAULT_OF_LEVEL[level]
    if level == 1:
        return _in_range(value, target, fname), target
    return (float(value) if level == 2 else complex(value)), target


def scalar_into(value, dtype, fname):
    """A scalar converted for storing in an array of ``dtype`` (``x[i] = v``, ``full``,
    ``asarray(v, dtype=...)``): the target dtype is fixed, so a scalar of a higher kind is
    converted as NumPy and PyTorch do (a float truncated toward zero, anything to bool by
    ``!= 0``); NaN or infinity into an integer dtype is a ValueError, an integer out of
    range an OverflowError, a complex into a real dtype a DTypeError."""
    converted, run_dtype = scalar_for(value, dtype, fname)
    if run_dtype is dtype:
        return converted
    if isinstance(converted, complex):
        raise DTypeError(
            f"{fname}: a complex value cannot be stored as {dtype.name}; take its real part "
            f"(or abs) first, or use a complex dtype"
        )
    if dtype.is_bool:
        return bool(converted)
    if isinstance(converted, float) and not math.isfinite(converted):
        raise ArgumentValueError(f"{fname}: {converted} cannot be stored as {dtype.name} (integers have no NaN or infinity)")
    return _in_range(int(converted), dtype, fname)
