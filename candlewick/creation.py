"""Array creation functions of the Array API (and ``to_numpy``, the way back to the host).

NumPy is used here only to turn Python scalars, sequences and buffers into host
buffers; every array's contents are then made by its device.
"""

import math

import numpy as np

from . import dtypes as _dt
from ._core import as_shape, is_scalar, scalar_for, wrap
from .allocation import check_allocation
from .errors import ArgumentTypeError, ArgumentValueError, DTypeError, OutOfRangeError, short_repr, UnsupportedOperation
from .registry import get_device


def _resolve_device(device):
    return get_device(device)


def _check_dtype_on(device, dtype):
    if dtype not in device.dtypes:
        raise UnsupportedOperation("create", dtype, device.backend, "dtype not supported by this device")
    return dtype


def _default_dtype_for_scalar(value):
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
    from .array import Array

    if dtype is not None and dtype.is_integer and isinstance(obj, (list, tuple)):
        try:  # exact for Python ints beyond int64 (uint64); NumPy raises OverflowError itself
            return np.asarray(obj, dtype=dtype.numpy)
        except (TypeError, ValueError):
            pass

    if isinstance(obj, (list, tuple)) and any(isinstance(o, Array) for o in _flatten_first(obj)):
        obj = _arrays_to_host(obj)
    if is_scalar(obj):
        dtype = _default_dtype_for_scalar(obj)
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
    if dtype is None and host.size and host.dtype.kind in "uf" and _holds_only_ints(obj):
        raise OutOfRangeError("asarray: Python ints above the int64 range need dtype=uint64")
    return host


def _holds_only_ints(seq):
    if isinstance(seq, (list, tuple)):
        return all(_holds_only_ints(s) for s in seq)
    return isinstance(seq, int) and not isinstance(seq, bool)


def _flatten_first(seq):
    while isinstance(seq, (list, tuple)) and seq:
        yield from (s for s in seq if not isinstance(s, (list, tuple)))
        seq = seq[0]


def _arrays_to_host(obj):
    from .array import Array

    if isinstance(obj, Array):
        return obj._storage.to_host(obj._layout)
    if isinstance(obj, (list, tuple)):
        return [_arrays_to_host(o) for o in obj]
    return obj


def asarray(obj, /, *, dtype=None, device=None, copy=None):
    """Convert a candlewick array, Python scalar, nested sequence or buffer to an array."""
    from .array import Array

    if dtype is not None:
        dtype = _dt.as_dtype(dtype)
    if isinstance(obj, Array):
        target = obj._device if device is None else _resolve_device(device)
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
            return wrap(obj._storage.copy(obj._layout), obj._layout.shape, obj._dtype, obj._device)
        return out
    if copy is False:
        raise ArgumentValueError(
            "asarray: copy=False cannot be honoured: the data is not a candlewick array, "
            "so it must be copied to the device"
        )
    target = _resolve_device(device)
    if dtype is not None and is_scalar(obj):
        if dtype.is_bool and not isinstance(obj, bool):
            value = bool(obj)
        else:
            value, run_dtype = scalar_for(obj, dtype, "asarray")
            if run_dtype is not dtype:
                raise DTypeError(f"asarray: a {type(obj).__name__} cannot be stored as {dtype.name}")
        with np.errstate(over="ignore"):  # a float past a narrow dtype's range is inf, by IEEE
            host = np.asarray(value, dtype=dtype.numpy)
    else:
        host = _infer_host(obj, dtype)
        if dtype is None:
            dtype = _dt.from_numpy(host.dtype)
        elif host.dtype != dtype.numpy:
            if host.dtype.kind == "c" and not dtype.is_complex:
                raise DTypeError(f"asarray: cannot convert complex data to {dtype.name}")
            with np.errstate(over="ignore"):  # out-of-range floats become inf, by IEEE
                host = host.astype(dtype.numpy)
    _check_dtype_on(target, dtype)
    shape = host.shape  # np.ascontiguousarray turns a 0-d array into shape (1,)
    host = np.ascontiguousarray(host)
    return wrap(target.storage_from_host(host), shape, dtype, target)


def to_numpy(x, /):
    """A NumPy array holding a copy of ``x``'s elements (synchronizes with the device)."""
    from .array import Array

    if not isinstance(x, Array):
        raise ArgumentTypeError(f"to_numpy: x must be a candlewick array, got {type(x).__name__}")
    return x._storage.to_host(x._layout)


def _filled(fname, shape, dtype, device, make):
    shape = as_shape(shape, fname)
    dtype = _dt.DEFAULT_FLOAT if dtype is None else _dt.as_dtype(dtype)
    device = _resolve_device(device)
    _check_dtype_on(device, dtype)
    check_allocation(fname, shape, dtype, device)
    return wrap(make(device, shape, dtype), shape, dtype, device)


def zeros(shape, *, dtype=None, device=None):
    return _filled("zeros", shape, dtype, device, lambda d, s, t: d.zeros(s, t))


def ones(shape, *, dtype=None, device=None):
    return _filled("ones", shape, dtype, device, lambda d, s, t: d.ones(s, t))


def empty(shape, *, dtype=None, device=None):
    return _filled("empty", shape, dtype, device, lambda d, s, t: d.empty(s, t))


def full(shape, fill_value, *, dtype=None, device=None):
    from .array import Array

    if isinstance(fill_value, Array):
        if fill_value.ndim != 0:
            raise ArgumentValueError("full: fill_value must be a scalar or a 0-d array")
        fill_value = fill_value._scalar("full").item()
    if isinstance(fill_value, np.generic):
        fill_value = fill_value.item()
    if dtype is None:
        dtype = _default_dtype_for_scalar(fill_value)
    else:
        dtype = _dt.as_dtype(dtype)
    value, run_dtype = scalar_for(fill_value, dtype, "full")
    if run_dtype is not dtype:
        raise DTypeError(f"full: fill_value {short_repr(fill_value)} does not fit dtype {dtype.name}")
    return _filled("full", shape, dtype, device, lambda d, s, t: d.full(s, t, value))


def _like(fname, x, dtype, device):
    from .array import Array

    if not isinstance(x, Array):
        raise ArgumentTypeError(f"{fname}: x must be a candlewick array, got {type(x).__name__}")
    return x._layout.shape, (x._dtype if dtype is None else dtype), (x._device if device is None else device)


def zeros_like(x, /, *, dtype=None, device=None):
    shape, dtype, device = _like("zeros_like", x, dtype, device)
    return zeros(shape, dtype=dtype, device=device)


def ones_like(x, /, *, dtype=None, device=None):
    shape, dtype, device = _like("ones_like", x, dtype, device)
    return ones(shape, dtype=dtype, device=device)


def empty_like(x, /, *, dtype=None, device=None):
    shape, dtype, device = _like("empty_like", x, dtype, device)
    return empty(shape, dtype=dtype, device=device)


def full_like(x, /, fill_value, *, dtype=None, device=None):
    shape, dtype, device = _like("full_like", x, dtype, device)
    return full(shape, fill_value, dtype=dtype, device=device)


def arange(start, /, stop=None, step=1, *, dtype=None, device=None):
    """Evenly spaced values in ``[start, stop)``; int64 for ints, float64 otherwise."""
    if stop is None:
        start, stop = 0, start
    for name, v in (("start", start), ("stop", stop), ("step", step)):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise ArgumentTypeError(f"arange: {name} must be an int or float, got {type(v).__name__}")
    if step == 0:
        raise ArgumentValueError("arange: step must not be zero")
    all_int = all(isinstance(v, int) for v in (start, stop, step))
    if dtype is None:
        dtype = _dt.DEFAULT_INT if all_int else _dt.DEFAULT_FLOAT
    else:
        dtype = _dt.as_dtype(dtype)
        if dtype.is_bool or dtype.is_complex:
            raise DTypeError(f"arange: dtype must be a real numeric dtype, got {dtype.name}")
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
    device = _resolve_device(device)
    _check_dtype_on(device, dtype)
    check_allocation("arange", (size,), dtype, device)
    if dtype.is_integer and size:
        last = start + (size - 1) * step
        scalar_for(int(start), dtype, "arange")
        scalar_for(int(last), dtype, "arange")
    return wrap(device.arange(start, step, size, dtype), (size,), dtype, device)
