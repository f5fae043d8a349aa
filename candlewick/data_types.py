"""Data type functions of the Array API: astype, can_cast, finfo, iinfo, result_type.

``isdtype`` lives in ``candlewick.dtypes`` next to the dtype objects. The machine
constants of ``finfo``/``iinfo`` are facts about the host representation of a dtype
(NumPy / ml_dtypes), not computations on array data.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dataclasses import dataclass

import ml_dtypes
import numpy as np

from . import dtypes as _dt
from ._core import require_array, scalar_for
from .array import Array
from .docstrings import shared_doc
from .errors import ArgumentValueError, DTypeError, short_repr
from .type_promotion import promote_types, standard_promotion

if TYPE_CHECKING:
    from ._types import DTypeLike, DeviceLike, Scalar


def _dtype_of(obj, fname, argname):
    """A DType from a dtype (candlewick, NumPy, or a name) or an array; else DTypeError."""
    if isinstance(obj, _dt.DType):
        return obj
    if isinstance(obj, Array):
        return obj._dtype
    if _dt.is_dtype_like(obj):
        return _dt.as_dtype(obj, argname, fname)
    raise DTypeError(f"{fname}: {argname} must be a candlewick dtype or array, got {short_repr(obj)}")


@shared_doc()
def astype(x: Array, dtype: DTypeLike, /, *, copy: bool = True, device: DeviceLike | None = None) -> Array:
    """Cast ``x`` to ``dtype`` (optionally on ``device``).

    ``copy=False`` returns ``x`` itself when nothing has to change. Casting a complex
    array to a real or integer dtype is refused (take ``real``/``abs`` first); casting
    to bool is ``x != 0``.

    Parameters
    ----------
    {param_x}
    dtype : DType
        The target dtype.
    copy : bool
        False returns x itself when dtype and device already match.
    device : str, device or None
        The target device; None for x's device.

    Returns
    -------
    Array
        x's elements in dtype (and on device).

    Raises
    ------
    {raises_x_not_array}
    DTypeError
        If dtype is no candlewick dtype, or complex is cast to a real dtype.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.astype(cw.asarray([0.0, 2.5]), cw.bool).tolist()
    [False, True]
    """
    if device is None and type(x) is Array:  # (Array.astype checks dtype, as this function names it)
        return x.astype(dtype, copy=copy)
    require_array(x, "astype")
    dtype = _dt.as_dtype(dtype, "dtype", "astype")
    if device is not None:
        moved = x.to_device(device)
        if moved is not x:
            # the transfer already made a new buffer: no second copy is needed
            return moved.astype(dtype, copy=False)
    return x.astype(dtype, copy=copy)


def can_cast(from_: DTypeLike | Array, to: DTypeLike, /) -> bool:
    """True when ``from_`` (a dtype or array) promotes to ``to`` without leaving it
    (the standard's promotion table: no cast between kinds).

    Parameters
    ----------
    from_ : DType or Array
        The source dtype, or an array of it.
    to : DType
        The target dtype.

    Returns
    -------
    bool
        Whether the cast is allowed by promotion.

    Raises
    ------
    DTypeError
        If ``from_`` or ``to`` is not a candlewick dtype (or array).

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.can_cast(cw.int8, cw.int32), cw.can_cast(cw.float64, cw.int32)
    (True, False)
    """
    from_ = _dtype_of(from_, "can_cast", "from_")
    to = _dt.as_dtype(to, "to", "can_cast")
    try:
        return standard_promotion(from_, to) is to
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


# id(dtype) -> (dtype, its info): a DType hashes through Python code, and scikit-learn asks
# finfo eight times a StandardScaler fit (the entry holds its dtype, so the id stays its own)
_FINFO: dict[int, tuple[_dt.DType, finfo_object]] = {}
_IINFO: dict[int, tuple[_dt.DType, iinfo_object]] = {}


def finfo(type: DTypeLike | Array, /) -> finfo_object:
    """Limits of a real or complex floating dtype; for complex, of its real component
    (``dtype`` is then the real floating dtype, as the standard says).

    Parameters
    ----------
    type : DType or Array
        A floating dtype, or an array of one.

    Returns
    -------
    finfo_object
        ``bits``, ``eps``, ``max``, ``min``, ``smallest_normal`` and ``dtype``.

    Raises
    ------
    DTypeError
        If type is not a floating-point dtype.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.finfo(cw.float32).bits
    32
    """
    hit = _FINFO.get(id(type))  # (a DType asked before)
    if hit is not None and hit[0] is type:
        return hit[1]
    dtype = _dtype_of(type, "finfo", "type")
    hit = _FINFO.get(id(dtype))
    if hit is not None:
        return hit[1]
    if not (dtype.is_floating or dtype.is_complex):
        raise DTypeError(f"finfo: expected a floating-point dtype, got {dtype.name}")
    real = _dt.real_dtype_of(dtype)
    info = ml_dtypes.finfo(real.numpy) if real is _dt.bfloat16 else np.finfo(real.numpy)
    found = finfo_object(
        bits=real.bits,
        eps=float(info.eps),
        max=float(info.max),
        min=float(info.min),
        smallest_normal=float(info.smallest_normal),
        dtype=real,
    )
    _FINFO[id(dtype)] = (dtype, found)
    return found


def iinfo(type: DTypeLike | Array, /) -> iinfo_object:
    """Limits of an integer dtype.

    Parameters
    ----------
    type : DType or Array
        An integer dtype, or an array of one.

    Returns
    -------
    iinfo_object
        ``bits``, ``max``, ``min`` and ``dtype``.

    Raises
    ------
    DTypeError
        If type is not an integer dtype.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.iinfo(cw.int8).max
    127
    """
    dtype = _dtype_of(type, "iinfo", "type")
    hit = _IINFO.get(id(dtype))
    if hit is not None:
        return hit[1]  # (frozen: one object per dtype, as finfo)
    if not dtype.is_integer:
        raise DTypeError(f"iinfo: expected an integer dtype, got {dtype.name}")
    info = np.iinfo(dtype.numpy)
    found = iinfo_object(bits=dtype.bits, max=int(info.max), min=int(info.min), dtype=dtype)
    _IINFO[id(dtype)] = (dtype, found)
    return found


def result_type(*arrays_and_dtypes: Array | DTypeLike | Scalar) -> _dt.DType:
    """The dtype an operation on these operands returns (2024.12 rules).

    Arrays and dtypes promote first (at least one is required), then Python scalars join
    that dtype, by the rule every operation follows (docs/promotion.md): the standard's
    table and scalar rules, and where the standard leaves kinds mixed the higher kind
    (strict promotion mode: TypeError there instead). An int out of an integer dtype's
    range raises OverflowError, as the operation itself would.

    Parameters
    ----------
    *arrays_and_dtypes : Array, DType or Python scalar
        The operands (a NumPy scalar counts as a 0-d array of its dtype).

    Returns
    -------
    DType
        The promoted dtype.

    Raises
    ------
    DTypeError
        If the operands do not promote, or none is an array or dtype.
    OverflowError
        If a Python int does not fit the integer dtype.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.result_type(cw.int8, cw.int16)
    candlewick.int16
    """
    result = None
    scalars = []
    for obj in arrays_and_dtypes:
        if isinstance(obj, _dt.DType):
            dtype = obj
        elif _dt.is_dtype_like(obj):
            dtype = _dt.as_dtype(obj, "arrays_and_dtypes", "result_type")
        elif isinstance(obj, Array):
            dtype = obj._dtype
        elif isinstance(obj, np.generic):  # a NumPy scalar carries its dtype, as a 0-d array
            dtype = _dt.as_dtype(obj.dtype, "arrays_and_dtypes", "result_type")
        elif isinstance(obj, (bool, int, float, complex)):
            scalars.append(obj)
            continue
        else:
            raise DTypeError(
                f"result_type: arguments must be candlewick arrays, dtypes or Python scalars, "
                f"got {type(obj).__name__}"
            )
        result = dtype if result is None else promote_types(result, dtype)
    if result is None:
        raise ArgumentValueError("result_type: at least one argument must be an array or a dtype")
    for value in scalars:
        # as in an operation: an int outside the integer dtype's range is an OverflowError
        _, result = scalar_for(value, result, "result_type")
    return result
