"""Data type functions of the Array API: astype, can_cast, finfo, iinfo, result_type.

``isdtype`` lives in ``candlewick.dtypes`` next to the dtype objects. The machine
constants of ``finfo``/``iinfo`` are facts about the host representation of a dtype
(NumPy / ml_dtypes), not computations on array data.
"""

from dataclasses import dataclass

import ml_dtypes
import numpy as np

from . import dtypes as _dt
from ._core import array_type, scalar_for
from .errors import ArgumentTypeError, ArgumentValueError, DTypeError, short_repr


def _dtype_of(obj, fname, argname):
    """A DType from a DType or an array; anything else is a TypeError."""
    if isinstance(obj, _dt.DType):
        return obj
    if isinstance(obj, array_type()):
        return obj._dtype
    raise DTypeError(f"{fname}: {argname} must be a candlewick dtype or array, got {short_repr(obj)}")


def astype(x, dtype, /, *, copy=True, device=None):
    """Cast ``x`` to ``dtype`` (optionally on ``device``).

    ``copy=False`` returns ``x`` itself when nothing has to change. Casting a complex
    array to a real or integer dtype is refused (take ``real``/``abs`` first); casting
    to bool is ``x != 0``.
    """
    if not isinstance(x, array_type()):
        raise ArgumentTypeError(f"astype: x must be a candlewick array, got {type(x).__name__}")
    if not isinstance(dtype, _dt.DType):
        raise DTypeError(f"astype: dtype must be a candlewick dtype, got {short_repr(dtype)}")
    if device is not None:
        moved = x.to_device(device)
        if moved is not x:
            # the transfer already made a new buffer: no second copy is needed
            return moved.astype(dtype, copy=False)
    return x.astype(dtype, copy=copy)


def can_cast(from_, to, /):
    """True when ``from_`` (a dtype or array) promotes to ``to`` without leaving it,
    i.e. the cast is one the promotion lattice allows (no cross-kind casts)."""
    from_ = _dtype_of(from_, "can_cast", "from_")
    if not isinstance(to, _dt.DType):
        raise DTypeError(f"can_cast: to must be a candlewick dtype, got {short_repr(to)}")
    try:
        return _dt.promote_types(from_, to) is to
    except DTypeError:
        return False


@dataclass(frozen=True)
class finfo_object:
    """Machine limits of a floating-point dtype (Array API ``finfo`` result)."""

    bits: int
    eps: float
    max: float
    min: float
    smallest_normal: float
    dtype: _dt.DType


@dataclass(frozen=True)
class iinfo_object:
    """Machine limits of an integer dtype (Array API ``iinfo`` result)."""

    bits: int
    max: int
    min: int
    dtype: _dt.DType


_FINFO = {}


def finfo(type, /):
    """Limits of a real or complex floating dtype; for complex, of its real component
    (``dtype`` is then the real floating dtype, as the standard says)."""
    dtype = _dtype_of(type, "finfo", "type")
    found = _FINFO.get(dtype)
    if found is not None:
        return found
    if not (dtype.is_floating or dtype.is_complex):
        raise DTypeError(f"finfo: expected a floating-point dtype, got {dtype.name}")
    real = _dt.real_dtype_of(dtype)
    info = ml_dtypes.finfo(real.numpy) if real is _dt.bfloat16 else np.finfo(real.numpy)
    found = _FINFO[dtype] = finfo_object(
        bits=real.bits,
        eps=float(info.eps),
        max=float(info.max),
        min=float(info.min),
        smallest_normal=float(info.smallest_normal),
        dtype=real,
    )
    return found


def iinfo(type, /):
    """Limits of an integer dtype."""
    dtype = _dtype_of(type, "iinfo", "type")
    if not dtype.is_integer:
        raise DTypeError(f"iinfo: expected an integer dtype, got {dtype.name}")
    info = np.iinfo(dtype.numpy)
    return iinfo_object(bits=dtype.bits, max=int(info.max), min=int(info.min), dtype=dtype)


def result_type(*arrays_and_dtypes):
    """The dtype an operation on these operands returns (2024.12 rules).

    Arrays and dtypes promote through the standard's table first (at least one is
    required); Python scalars then join that dtype by the scalar rules: a bool only
    with bool, an int with integer/floating/complex, a float with floating/complex, a
    complex with floating (giving the matching complex dtype) or complex. Any mixing
    the standard leaves open raises TypeError; an int out of an integer dtype's range
    raises OverflowError, as the operation itself would.
    """
    Array = array_type()
    result = None
    scalars = []
    for obj in arrays_and_dtypes:
        if isinstance(obj, _dt.DType):
            dtype = obj
        elif isinstance(obj, Array):
            dtype = obj._dtype
        elif isinstance(obj, (bool, int, float, complex)):
            scalars.append(obj)
            continue
        else:
            raise DTypeError(
                f"result_type: arguments must be candlewick arrays, dtypes or Python scalars, "
                f"got {type(obj).__name__}"
            )
        result = dtype if result is None else _dt.promote_types(result, dtype)
    if result is None:
        raise ArgumentValueError("result_type: at least one argument must be an array or a dtype")
    for value in scalars:
        # as in an operation: an int outside the integer dtype's range is an OverflowError
        _, result = scalar_for(value, result, "result_type")
    return result
