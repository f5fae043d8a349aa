"""Ranges and grids of the Array API's creation functions: ``arange`` and ``linspace``
(evenly spaced values, made by the device's ``arange``) and ``meshgrid`` (coordinate
matrices from 1-D arrays, as broadcast copies).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from . import dtypes as _dt
from ._core import check_dtype_on, contiguous_layout, require_array, scalar_for
from .allocation import check_allocation
from .api_version import revision_sequence
from .arguments import integer, python_number
from .array import Array, wrap
from .elementwise import floor
from .errors import ArgumentTypeError, ArgumentValueError, DeviceMismatchError, DTypeError, ShapeError, short_repr
from .layout import Layout
from .opdefs import BinaryOp
from .registry import get_device
from .shapes import check_ndim

if TYPE_CHECKING:
    from ._types import DTypeLike, DeviceLike


def arange(start: int | float, /, stop: int | float | None = None, step: int | float = 1, *,
           dtype: DTypeLike | None = None, device: DeviceLike | None = None) -> Array:
    """Evenly spaced values in ``[start, stop)``; int64 for ints, float64 otherwise.

    Parameters
    ----------
    start : int or float
        The first value; with stop None, the end (and the start is 0).
    stop : int, float or None
        The end, excluded.
    step : int or float
        The spacing (non-zero).
    dtype : DType or None
        The dtype of the result; None for int64 (all ints) or float64.
    device : str, device or None
        The device of the result; None for the default device.

    Returns
    -------
    Array
        A 1-D array of ``ceil((stop - start) / step)`` values.

    Raises
    ------
    TypeError
        If start, stop or step is not an int or float.
    ValueError
        If step is 0.
    DTypeError
        If dtype names no candlewick dtype.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.arange(5).tolist()
    [0, 1, 2, 3, 4]
    >>> cw.arange(1.0, 2.0, 0.25).tolist()
    [1.0, 1.25, 1.5, 1.75]
    """
    if stop is None:
        start, stop = 0, start
    all_int = type(start) is int and type(stop) is int and type(step) is int  # the common call
    if not all_int:
        # NumPy's scalars and 0-d arrays are numbers too (np.arange and array-api-strict take them)
        start, stop, step = (python_number(v) for v in (start, stop, step))
        for name, v in (("start", start), ("stop", stop), ("step", step)):
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise ArgumentTypeError(f"arange: {name} must be an int or float, got {type(v).__name__}")
        all_int = all(isinstance(v, int) for v in (start, stop, step))
    if step == 0:
        raise ArgumentValueError("arange: step must not be zero")
    if dtype is None:
        dtype = _dt.DEFAULT_INT if all_int else _dt.DEFAULT_FLOAT
    else:
        dtype = _dt.as_dtype(dtype)
        if dtype.is_bool:
            raise DTypeError(f"arange: dtype must be a numeric dtype, got {dtype.name}")
        if dtype.is_complex:  # NumPy's complex arange: the real values, as complex numbers
            return arange(start, stop, step, dtype=_dt.real_dtype_of(dtype), device=device).astype(dtype)
        if dtype.is_integer and not all_int:
            raise DTypeError(f"arange: dtype {dtype.name} needs int start, stop and step, got a float among them")
    if all_int:
        size = max(0, -((start - stop) // step))
    else:
        span = (stop - start) / step
        if not math.isfinite(span):
            raise ArgumentValueError(
                f"arange: start, stop and step must give a finite length, got {start}, {stop}, {step}"
            )
        size = max(0, math.ceil(span))
    device = get_device(device)
    check_dtype_on(device, dtype)
    check_allocation("arange", (size,), dtype, device)
    if dtype.is_integer and size:
        last = start + (size - 1) * step
        scalar_for(int(start), dtype, "arange")
        scalar_for(int(last), dtype, "arange")
    return wrap(device.arange(start, step, size, dtype), (size,), dtype, device)


def linspace(start: int | float | complex, stop: int | float | complex, /, num: int, *,
             dtype: DTypeLike | None = None, device: DeviceLike | None = None,
             endpoint: bool = True) -> Array:
    """``num`` evenly spaced values from ``start`` to ``stop`` (inclusive when ``endpoint``).

    Values are ``start + i * step`` computed in float64 (per component for complex) and
    rounded once to ``dtype``; with ``endpoint`` the last value is exactly ``stop``.

    Parameters
    ----------
    start : int, float or complex
        The first value (a NumPy scalar or a 0-d array of one is taken too).
    stop : int, float or complex
        The last value (or the end, excluded).
    num : int
        The number of values (>= 0).
    dtype : DType or None
        The dtype of the result; None for the default floating dtype (an integer dtype
        floors the float64 values, as NumPy's).
    device : str, device or None
        The device of the result; None for the default device.
    endpoint : bool
        Include stop as the last value.

    Returns
    -------
    Array
        A 1-D array of num values.

    Raises
    ------
    TypeError
        If start or stop is not a number, or num is not an int.
    ValueError
        If num is negative.
    DTypeError
        If dtype cannot hold the values (complex bounds with a real dtype).

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.linspace(0, 1, 5).tolist()
    [0.0, 0.25, 0.5, 0.75, 1.0]
    """
    narrow = _narrow_precision(start, stop)
    start, stop = python_number(start), python_number(stop)  # NumPy scalars, 0-d arrays
    for name, v in (("start", start), ("stop", stop)):
        if isinstance(v, bool) or not isinstance(v, (int, float, complex)):
            raise ArgumentTypeError(f"linspace: {name} must be an int, float or complex, got {type(v).__name__}")
    num = integer(num, "linspace", "num", 0)
    if not isinstance(endpoint, bool):
        raise ArgumentTypeError(f"linspace: endpoint must be a bool, got {type(endpoint).__name__}")
    is_complex = isinstance(start, complex) or isinstance(stop, complex)
    if dtype is None:
        dtype = _dt.DEFAULT_COMPLEX if is_complex else _dt.DEFAULT_FLOAT
    dtype = _dt.as_dtype(dtype)
    if dtype.is_integer:  # NumPy's: the float64 values, floored
        values = linspace(start, stop, num, dtype=_dt.float64, device=device, endpoint=endpoint)
        return floor(values).astype(dtype)
    if not (dtype.is_floating or dtype.is_complex):
        raise DTypeError(f"linspace: dtype must be a numeric dtype, got {dtype.name}")
    if is_complex and not dtype.is_complex:
        raise DTypeError(f"linspace: complex start/stop need a complex dtype, got {dtype.name}")
    device = get_device(device)
    check_dtype_on(device, dtype)
    check_allocation("linspace", (num,), dtype, device)
    div = (num - 1) if endpoint else num
    if dtype.is_complex:
        start, stop = complex(start), complex(stop)
        real = _spaced(device, start.real, stop.real, num, div, _dt.real_dtype_of(dtype))
        imag = _spaced(device, start.imag, stop.imag, num, div, _dt.real_dtype_of(dtype))
        layout = contiguous_layout((num,))
        real = real.astype(layout, dtype)
        imag = imag.astype(layout, dtype).binary_scalar(BinaryOp.MULTIPLY, layout, 1j, False)
        storage = real.binary(BinaryOp.ADD, layout, imag, layout)
    elif narrow is not None:
        storage = _spaced_narrow(device, start, stop, num, div, narrow)
        if endpoint and num > 1:  # stop rounded to the narrow dtype, as NumPy stores it there
            storage.fill(Layout((1,), (1,), num - 1), float(np.dtype(narrow.name).type(stop)))
        if narrow != dtype:
            storage = storage.astype(contiguous_layout((num,)), dtype)
        return wrap(storage, (num,), dtype, device)
    else:
        storage = _spaced(device, float(start), float(stop), num, div, dtype)  # type: ignore[arg-type]  # complex took the branch above
    if endpoint and num > 1:
        storage.fill(Layout((1,), (1,), num - 1), complex(stop) if dtype.is_complex else float(stop))  # type: ignore[arg-type]
    return wrap(storage, (num,), dtype, device)


def _narrow_precision(start, stop):
    """NumPy's precision for linspace of typed bounds narrower than float64 (a float32
    NumPy scalar or 0-d array; a Python number beside it is weak): its values are computed in
    that dtype, not in float64, so candlewick's match them bit for bit (SciPy's histogram
    compares its bin edges with NumPy's). None where the bounds ask for float64."""
    found = None
    for value in (start, stop):
        if isinstance(value, (bool, int, float, complex)):
            continue
        name = getattr(getattr(value, "dtype", None), "name", None)
        if name not in ("float16", "float32") or getattr(value, "shape", None) != ():
            return None
        found = name if found in (None, name) else "float32"  # float16 beside float32: float32
    return None if found is None else _dt.as_dtype(found)


def _spaced_narrow(device, start, stop, num, div, dtype):
    """NumPy's steps for a narrow float dtype: the step and each value rounded to it
    (arange * step, then + start: two roundings, as NumPy's two ufuncs)."""
    kind = np.dtype(dtype.name).type
    first, last = kind(start), kind(stop)
    with np.errstate(all="ignore"):  # NumPy computes the same overflow to inf
        delta = last - first
        step = delta / kind(div) if div > 0 else kind(0)
    layout = contiguous_layout((num,))
    values = device.arange(0, 1, num, dtype)
    if div > 0 and step == 0:  # NumPy's any_step_zero branch: divide first, then scale
        values = values.binary_scalar(BinaryOp.DIVIDE, layout, float(div), False)
        values = values.binary_scalar(BinaryOp.MULTIPLY, layout, float(delta), False)
    else:
        values = values.binary_scalar(BinaryOp.MULTIPLY, layout, float(step), False)
    return values.binary_scalar(BinaryOp.ADD, layout, float(first), False)


def _spaced(device, start, stop, num, div, dtype):
    step = (stop - start) / div if div > 0 else 0.0
    return device.arange(start, step, num, dtype)


def meshgrid(*arrays: Array, indexing: str = "xy") -> list[Array]:
    """Coordinate matrices from 1-D arrays (``'xy'``: Cartesian, ``'ij'``: matrix indexing).
    Each output is a new contiguous array (not a broadcast view), as NumPy's default.

    Parameters
    ----------
    *arrays : Array
        1-D arrays of one dtype and device.
    indexing : {'xy', 'ij'}
        Cartesian or matrix indexing.

    Returns
    -------
    list of Array
        One array per input, each of the grid's shape.

    Raises
    ------
    ValueError
        If indexing is neither 'xy' nor 'ij', or an array is not 1-D.
    TypeError
        If an argument is not a candlewick array.
    DTypeError
        If the arrays differ in dtype.
    DeviceMismatchError
        If the arrays are on different devices.

    Examples
    --------
    >>> import candlewick as cw
    >>> xs, ys = cw.meshgrid(cw.asarray([1, 2, 3]), cw.asarray([4, 5]))
    >>> xs.shape
    (2, 3)
    """
    if not isinstance(indexing, str) or indexing not in ("xy", "ij"):
        raise ArgumentValueError(f"meshgrid: indexing must be 'xy' or 'ij', got {short_repr(indexing)}")
    for a in arrays:
        require_array(a, "meshgrid", "arrays")
        if a.ndim != 1:
            raise ShapeError(f"meshgrid: every array must be 1-D, got shape {a.shape}")
    if not arrays:
        return revision_sequence(())
    first = arrays[0]
    for a in arrays[1:]:
        if a._dtype is not first._dtype:
            raise DTypeError(f"meshgrid: arrays must share one dtype, got {first._dtype.name} and {a._dtype.name}")
        if a._device is not first._device:
            raise DeviceMismatchError("meshgrid: arrays must be on one device")
    sizes = [a.shape[0] for a in arrays]
    axis_of = list(range(len(arrays)))
    if indexing == "xy" and len(arrays) > 1:
        sizes[0], sizes[1] = sizes[1], sizes[0]
        axis_of[0], axis_of[1] = 1, 0
    out_shape = tuple(sizes)
    check_ndim(len(out_shape))
    check_allocation("meshgrid", out_shape, first._dtype, first._device, count=len(arrays))
    out = []
    for a, axis in zip(arrays, axis_of):
        lay = a._layout
        strides = [0] * len(out_shape)
        strides[axis] = lay.strides[0]
        spread = Layout(out_shape, tuple(strides), lay.offset)
        out.append(wrap(a._storage.copy(spread), out_shape, a._dtype, a._device))
    return revision_sequence(out)
