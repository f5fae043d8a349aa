"""Dispatch helpers shared by the namespace: wrapping storages, scalars, promotion.

Hot paths (binary ops on arrays of one dtype and shape) are written to do as little
Python work as possible: the per-op dtype tables below are built once at import.
"""

import builtins

from . import dtypes as _dt
from .allocation import check_allocation
from .errors import ArgumentTypeError, ArgumentValueError, DeviceMismatchError, DTypeError, OutOfRangeError, short_repr
from .layout import Layout, broadcast_shapes, contiguous_strides
from .opdefs import ALL_OP_ENUMS

# op -> {accepted dtype: result dtype}
RESULT = {op: {d: op.result_dtype(d) for d in op.dtypes()} for enum in ALL_OP_ENUMS for op in enum}

_CONTIG_CACHE = {}


def contiguous_layout(shape):
    """The offset-0 C-contiguous layout of ``shape`` (shared: layouts are immutable)."""
    lay = _CONTIG_CACHE.get(shape)
    if lay is None:
        if len(_CONTIG_CACHE) > 4096:
            _CONTIG_CACHE.clear()
        lay = _CONTIG_CACHE[shape] = Layout(shape, contiguous_strides(shape), 0, True)
    return lay




#: the Array class, set by candlewick.array when it is defined (array.py imports this
#: module, so it cannot be imported here); read as a module global on hot paths
Array = None


def array_type():
    return Array


def check_accepts(op, dtype, fname):
    table = RESULT[op]
    if dtype not in table:
        kinds = {"B": "bool", "I": "integer", "F": "real floating", "C": "complex floating"}
        allowed = ", ".join(kinds[c] for c in op.domain)
        raise DTypeError(f"{fname} does not accept dtype {dtype.name}; expected {allowed}")
    return table[dtype]


def same_device(a, b, fname):
    if a._device is not b._device:
        raise DeviceMismatchError(
            f"{fname}: operands are on different devices ({a._device.name} and {b._device.name}); "
            f"move one with .to_device(...) first"
        )


# --- Python scalars ------------------------------------------------------------------

_INT_RANGES = {}
for _d in _dt.INTEGER:
    import numpy as _np

    _info = _np.iinfo(_d.numpy)
    _INT_RANGES[_d] = (int(_info.min), int(_info.max))


def scalar_for(value, dtype, fname):
    """Check a Python scalar against an array dtype per the Array API scalar rules and
    return ``(value converted for that dtype, dtype the operation must run in)``."""
    t = type(value)
    if t is bool:
        if dtype.is_bool:
            return value, dtype
        raise DTypeError(f"{fname}: a Python bool combines only with bool arrays, not {dtype.name}")
    if t is int or (isinstance(value, int) and not isinstance(value, bool)):
        value = int(value)
        if dtype.is_integer:
            lo, hi = _INT_RANGES[dtype]
            if not lo <= value <= hi:
                raise OutOfRangeError(
                    f"{fname}: Python int {value} is out of range for {dtype.name} [{lo}, {hi}]"
                )
            return value, dtype
        if dtype.is_bool:
            raise DTypeError(f"{fname}: a Python int does not combine with a bool array")
        return (float(value) if dtype.is_floating else complex(value)), dtype
    if t is float or isinstance(value, float):
        if dtype.is_floating or dtype.is_complex:
            return float(value), dtype
        raise DTypeError(
            f"{fname}: a Python float does not combine with a {dtype.name} array "
            f"(mixed-kind promotion is not defined); cast the array with astype first"
        )
    if t is complex or isinstance(value, complex):
        if dtype.is_complex:
            return complex(value), dtype
        if dtype.is_floating:
            return complex(value), _dt.complex_dtype_of(dtype)
        raise DTypeError(f"{fname}: a Python complex does not combine with a {dtype.name} array")
    raise ArgumentTypeError(f"{fname}: expected an array or a Python scalar, got {type(value).__name__}")


def is_scalar(value):
    return isinstance(value, (bool, int, float, complex))


# --- promotion and broadcasting --------------------------------------------------------

def promote_pair(x1, x2, fname):
    """Return (a, b) Arrays of one dtype and device (not yet broadcast)."""
    same_device(x1, x2, fname)
    if x1._dtype is x2._dtype:
        return x1, x2
    dtype = _dt.promote_types(x1._dtype, x2._dtype)
    return x1.astype(dtype) if x1._dtype is not dtype else x1, x2.astype(dtype) if x2._dtype is not dtype else x2


def broadcast_layouts(*arrays, fname="broadcast"):
    shape = broadcast_shapes(*(a._layout.shape for a in arrays))
    first = arrays[0]
    # the operands' sizes were checked when they were made; broadcasting can outgrow them
    check_allocation(fname, shape, first._dtype, first._device)
    return shape, [a._layout.broadcast_to(shape) for a in arrays]


def scalar_array(value, dtype, device):
    """A 0-d array holding a Python scalar (used where a primitive wants a storage)."""
    return wrap(device.full((), dtype, value), (), dtype, device)


def wrap(storage, shape, dtype, device):
    a = Array.__new__(Array)
    a._storage = storage
    a._layout = contiguous_layout(shape)
    a._dtype = dtype
    a._device = device
    return a


def view(x, layout):
    """An Array sharing ``x``'s storage with a new layout."""
    Array = type(x)
    a = Array.__new__(Array)
    a._storage = x._storage
    a._layout = layout
    a._dtype = x._dtype
    a._device = x._device
    return a


def require_array(x, fname, argname="x"):
    if type(x) is not Array and not isinstance(x, Array):
        raise ArgumentTypeError(f"{fname}: {argname} must be a candlewick array, got {type(x).__name__}")
    return x


def as_shape(shape, fname, argname="shape"):
    if isinstance(shape, int) and not isinstance(shape, bool):
        shape = (shape,)
    try:
        shape = tuple(operator_index(n, fname, argname) for n in shape)
    except TypeError:
        raise ArgumentTypeError(f"{fname}: {argname} must be an int or a tuple of ints, got {short_repr(shape)}") from None
    for n in shape:
        if n < 0:
            raise ArgumentValueError(f"{fname}: {argname} must have non-negative sizes, got {shape}")
    return shape


def operator_index(value, fname, argname):
    if isinstance(value, bool):
        raise ArgumentTypeError(f"{fname}: {argname} must be an integer, got bool")
    try:
        return value.__index__()
    except AttributeError:
        raise ArgumentTypeError(f"{fname}: {argname} must be an integer, got {type(value).__name__}") from None


builtins_sum = builtins.sum
