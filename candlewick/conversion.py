"""Arrays from Python objects and back: ``asarray`` (Python scalars, nested sequences,
NumPy arrays and buffers, candlewick arrays on any device) and ``to_numpy``.

NumPy is used here only to turn Python scalars, sequences and buffers into host
buffers; the device then makes the array from that buffer.
"""

from __future__ import annotations

import math
from array import array as _py_array
from typing import TYPE_CHECKING, Any

import numpy as np

from . import dtypes as _dt
from ._core import check_dtype_on, is_scalar, require_array
from .arguments import NESTING, copy_flag
from .array import Array, wrap
from .errors import ArgumentTypeError, ArgumentValueError, DTypeError, OutOfRangeError, short_repr
from .fp_state import quietly
from .lazy_gate import copy_operand
from .registry import get_device
from .scalars import INT_RANGES

if TYPE_CHECKING:
    from ._types import DeviceLike, DTypeLike


def default_dtype_for_scalar(value):
    """The dtype a Python scalar takes when no dtype is given (bool, int64, float64, complex128)."""
    if isinstance(value, bool):
        return _dt.bool_
    if isinstance(value, int):
        return _dt.DEFAULT_INT
    if isinstance(value, float):
        return _dt.DEFAULT_FLOAT
    if isinstance(value, complex):
        return _dt.DEFAULT_COMPLEX
    raise ArgumentTypeError(f"expected a Python bool, int, float or complex, got {type(value).__name__}")


def _infer_host(obj, dtype=None):
    """Turn a scalar / nested sequence / buffer into a host ndarray with an API dtype."""
    code = _ARRAY_TYPECODE.get(dtype)
    if code is not None and type(obj) is list:
        # a flat list into float32/64: the array module converts every element as float()
        # does, in one C pass, with the cast's own rounding (NumPy's inference then a cast
        # was 1.3x NumPy's direct call at 2^20 elements); what float() refuses (strings,
        # None, complex, nested lists) goes the long way below, which names it
        try:
            return np.frombuffer(_py_array(code, obj), dtype.numpy)
        except (TypeError, ValueError, OverflowError):
            pass
    if dtype in _INFER_FIRST and type(obj) is list:
        # a list of Python floats into float32/64/complex: NumPy's own inference (one C
        # pass; strings, None and other objects come out as another kind and go the long
        # way below) then one cast, which rounds each double once, as the direct path does
        try:
            host = np.asarray(obj)
        except (ValueError, TypeError):
            host = None
        if host is not None and host.dtype.kind == "f" and host.dtype.isnative:
            return quietly(host.astype, dtype.numpy, copy=False)
    kinds = set(map(type, obj)) if isinstance(obj, (list, tuple)) else None  # one C-speed pass, used twice
    flat_scalars = kinds is not None and kinds <= _EXACT_SCALARS
    if dtype is not None and (flat_scalars or isinstance(obj, (list, tuple)) and _holds_only_python_scalars(obj)):
        # straight to dtype: exact for Python ints beyond int64 (uint64) and for ints past
        # 2**64 into floats; NumPy refuses a value out of the dtype's range (OverflowError)
        # and NaN or infinity into an integer dtype, which _refuse_unstorable names
        try:
            return quietly(np.asarray, obj, dtype=dtype.numpy)
        except (TypeError, ValueError, OverflowError):
            _refuse_unstorable(obj, dtype)  # else complex into a real dtype, ragged: reported below

    if not flat_scalars and isinstance(obj, (list, tuple)) and any(isinstance(o, Array) for o in _flatten_first(obj)):
        obj = _arrays_to_host(obj)
    if is_scalar(obj):
        dtype = default_dtype_for_scalar(obj)
        if dtype is _dt.int64 and not -(2**63) <= obj < 2**63:
            raise OutOfRangeError(f"asarray: Python int {obj} does not fit in int64")
        return np.asarray(obj, dtype=dtype.numpy)
    try:
        host = np.asarray(obj)
    except (ValueError, TypeError) as exc:
        raise ArgumentValueError(f"asarray: obj is not a rectangular nested sequence or buffer: {exc}") from None
    if host.dtype == np.object_:
        raise ArgumentTypeError(f"asarray: obj must hold numbers (bool, int, float, complex), got {type(obj).__name__} of objects")
    if host.dtype.kind in "US":
        raise ArgumentTypeError("asarray: strings are not array data")
    if not host.dtype.isnative:  # big-endian data: every device computes in native order
        host = host.astype(host.dtype.newbyteorder("="))
    if dtype is None and host.size and host.dtype.kind in "uf" and (
            kinds == _EXACT_INT if flat_scalars else _holds_only_ints(obj)):
        raise OutOfRangeError("asarray: Python ints above the int64 range need dtype=uint64")
    return host


def _python_scalars(obj):
    """The Python scalars of a nested sequence, depth first (iteratively: any depth)."""
    stack = [obj]
    while stack:
        item = stack.pop()
        if isinstance(item, (list, tuple)):
            stack.extend(reversed(item))
        else:
            yield item


def _refuse_unstorable(obj, dtype):
    """Raise the candlewick error for the first Python scalar of ``obj`` that ``dtype``
    cannot hold, as ``full`` and ``x[i] = v`` do (``scalars.scalar_into``): NaN or
    infinity into an integer dtype (ArgumentValueError), a number outside the dtype's
    range (OutOfRangeError; a float is truncated toward zero first, as NumPy does).
    Returns when every value fits (the conversion failed for another reason)."""
    lo, hi = INT_RANGES.get(dtype, (None, None))
    for value in _python_scalars(obj):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            continue
        if lo is None:  # bool takes any number; a floating dtype all but an int past the double range
            if isinstance(value, int) and not dtype.is_bool:
                try:
                    float(value)
                except OverflowError:
                    raise OutOfRangeError(f"asarray: Python int {short_repr(value)} is out of range for "
                                          f"{dtype.name}") from None
            continue
        whole = value
        if isinstance(value, float):
            if not math.isfinite(value):
                raise ArgumentValueError(f"asarray: {value} cannot be stored as {dtype.name} "
                                         f"(integers have no NaN or infinity)")
            whole = int(value)
        if not lo <= whole <= hi:
            raise OutOfRangeError(f"asarray: {short_repr(value)} is out of range for {dtype.name} [{lo}, {hi}]")


def _host_as(host, dtype):
    """``host`` converted to ``dtype`` as NumPy casts (complex data only to complex);
    values out of a narrower float's range become infinities silently, as IEEE
    conversion gives them, with no NumPy RuntimeWarning reaching the user."""
    if host.dtype == dtype.numpy:
        return host
    if host.dtype.kind == "c" and not dtype.is_complex:
        raise DTypeError(f"asarray: cannot convert complex data to {dtype.name}")
    return quietly(host.astype, dtype.numpy)


# a flat sequence whose element types are all exactly these holds only Python scalars:
# one C-speed pass (set(map(type, seq))) decides it instead of a Python call per element
_EXACT_SCALARS = frozenset({bool, int, float, complex})
_EXACT_INT = frozenset({int})
_INFER_FIRST = frozenset({_dt.float32, _dt.float64, _dt.complex64, _dt.complex128})
_ARRAY_TYPECODE = {_dt.float32: "f", _dt.float64: "d"}  # the array module's C float and double


# (a nest deeper than NumPy's dimension limit, or one holding itself, holds no array's
# values: False there, not a walk past Python's stack)
def _holds_only_python_scalars(seq, depth=0):
    if isinstance(seq, (list, tuple)):
        return depth < NESTING and (set(map(type, seq)) <= _EXACT_SCALARS
                                    or all(_holds_only_python_scalars(s, depth + 1) for s in seq))
    return is_scalar(seq)


def _holds_only_ints(seq, depth=0):
    if isinstance(seq, (list, tuple)):
        kinds = set(map(type, seq))
        if kinds <= _EXACT_SCALARS:
            return kinds == _EXACT_INT or not seq
        return depth < NESTING and all(_holds_only_ints(s, depth + 1) for s in seq)
    return isinstance(seq, int) and not isinstance(seq, bool)


def _flatten_first(seq):
    while isinstance(seq, (list, tuple)) and seq:
        yield from (s for s in seq if not isinstance(s, (list, tuple)))
        seq = seq[0]


def _arrays_to_host(obj, depth=0):
    if isinstance(obj, Array):
        return obj._storage.to_host(obj._layout)
    if isinstance(obj, (list, tuple)) and depth <= NESTING:  # (deeper: NumPy refuses it below)
        return [_arrays_to_host(o, depth + 1) for o in obj]
    return obj


def asarray(obj: Any, /, *, dtype: DTypeLike | None = None, device: DeviceLike | None = None,
            copy: bool | None = None) -> Array:
    """Convert a candlewick array, Python scalar, nested sequence or buffer to an array.

    Parameters
    ----------
    obj : Array, Python scalar, nested sequence, NumPy array or buffer
        The data. A Python scalar or sequence takes the default dtype of its kind
        (bool, int64, float64, complex128) when dtype is None.
    dtype : DType or None
        The dtype of the result; None to infer it from obj.
    device : str, device or None
        The device of the result; None for obj's device (an Array) or the default device.
    copy : bool or None
        True always copies; False never copies (ValueError when a copy is needed); None
        copies only when needed.

    Returns
    -------
    Array
        An array holding obj's elements.

    Raises
    ------
    ValueError
        If ``copy=False`` and a copy is needed, or obj is ragged, or a Python float NaN
        or infinity meets an integer dtype (``ArgumentValueError``, as in NumPy and
        ``full``; an array's elements are cast, as ``astype`` casts them).
    OutOfRangeError
        If a Python number in obj lies outside dtype's range (a float is truncated toward
        zero first), as NumPy's OverflowError; both ValueError and OverflowError catch it.
    DTypeError
        If dtype names no candlewick dtype, or complex data meets a real dtype.
    BackendUnavailableError
        If the device's backend cannot run here.

    Examples
    --------
    >>> import candlewick as cw
    >>> x = cw.asarray([[1, 2], [3, 4]], dtype=cw.float32)
    >>> x.dtype, x.shape
    (candlewick.float32, (2, 2))
    """
    copy = copy_flag(copy, "asarray")
    if dtype is not None:
        dtype = _dt.as_dtype(dtype)
    if isinstance(obj, Array):
        target = obj._device if device is None else get_device(device)
        out = obj
        if target is not obj._device:
            if copy is False:
                raise ArgumentValueError("asarray: copy=False but the array is on another device")
            out = out.to_device(target)
        if dtype is not None and dtype is not out._dtype:
            if copy is False:
                raise ArgumentValueError("asarray: copy=False but a dtype conversion is needed")
            return out.astype(dtype)
        if copy and out is obj:
            # (lazy mode records the copy: the writes into it that follow fuse with it)
            return wrap(copy_operand(obj).copy(obj._layout), obj._layout.shape, obj._dtype, obj._device)
        return out
    if copy is False:
        raise ArgumentValueError(
            "asarray: copy=False cannot be honoured: the data is not a candlewick array, "
            "so it must be copied to the device"
        )
    target = get_device(device)
    if dtype is not None and type(obj) is not list and is_scalar(obj):
        # one rule for every kind of obj: a scalar converts as the one-element list does
        host = _host_as(_infer_host([obj], dtype), dtype).reshape(())
    else:
        host = _infer_host(obj, dtype)
        if dtype is None:
            dtype = _dt.from_numpy(host.dtype)
        else:
            host = _host_as(host, dtype)
    check_dtype_on(target, dtype)
    shape = host.shape  # np.ascontiguousarray turns a 0-d array into shape (1,)
    host = np.ascontiguousarray(host)
    return wrap(target.storage_from_host(host), shape, dtype, target)


def to_numpy(x: Array, /) -> np.ndarray:
    """A NumPy array holding a copy of ``x``'s elements (synchronizes with the device).

    Parameters
    ----------
    x : Array
        The array to copy to the host (from any device).

    Returns
    -------
    numpy.ndarray
        A host array of x's shape; bfloat16 comes as ml_dtypes' bfloat16.

    Raises
    ------
    TypeError
        If x is not a candlewick array.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.to_numpy(cw.asarray([1, 2])).tolist()
    [1, 2]
    """
    require_array(x, "to_numpy")
    return x._storage.to_host(x._layout)
