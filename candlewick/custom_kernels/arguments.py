"""The checks every custom kernel makes of its arguments before anything runs: which are
arrays and which scalars, one device for all of them, scalars converted to their
parameter's dtype, pointers only to C-contiguous memory. Each error names the kernel
and the parameter."""

from __future__ import annotations

import numpy as np

from .._core import ArrayBase
from ..errors import ArgumentTypeError, ArgumentValueError, DeviceMismatchError, DTypeError, short_repr
from ..fp_state import quietly
from ..registry import default_device_now, get_device
from ..scalars import scalar_for

__all__ = ["convert_scalar", "is_scalar", "one_device", "require_contiguous"]

_PYTHON_SCALARS = (bool, int, float, complex)


def is_scalar(value):
    """A Python or NumPy scalar (what a scalar parameter takes)."""
    return type(value) in _PYTHON_SCALARS or isinstance(value, (np.generic, *_PYTHON_SCALARS))


def one_device(named, label, device=None):
    """The device of every array of ``named`` ((parameter name, array) pairs), ``device``
    (a device or its name) when given, else the default device when there is no array;
    DeviceMismatchError naming the parameter of an array elsewhere."""
    first = None if device is None else ("device", get_device(device))
    for name, array in named:
        if first is None:
            first = (name, array._device)
        elif array._device is not first[1]:
            raise DeviceMismatchError(
                f"{label}: the array for parameter {name!r} is on {array._device.name}, "
                f"{'the device given is' if first[0] == 'device' else f'the one for {first[0]!r} is on'} "
                f"{first[1].name}: a kernel runs on one device; move it with .to_device(...)")
    return default_device_now() if first is None else first[1]


def convert_scalar(value, dtype, label, pname):
    """``value`` as a NumPy scalar of ``dtype``, or an error naming the parameter when it
    would change kind (a float for an integer parameter) or does not fit."""
    if isinstance(value, ArrayBase):
        raise ArgumentTypeError(f"{label}: parameter {pname!r} takes a scalar of {dtype.name}, got an array "
                                f"(pass a Python scalar, e.g. x.item())")
    if not is_scalar(value):
        raise ArgumentTypeError(f"{label}: parameter {pname!r} takes a scalar of {dtype.name}, got "
                                f"{short_repr(value)}")
    converted, run = scalar_for(value, dtype, f"{label}: parameter {pname!r}")
    if run is not dtype:
        raise DTypeError(f"{label}: parameter {pname!r} takes {dtype.name}, got {short_repr(value)} of another kind "
                         f"(convert it first)")
    return quietly(dtype.numpy.type, converted)  # past a narrow float's range: inf, as a + 70000 gives


def require_array(value, label, pname, what):
    if not isinstance(value, ArrayBase):
        raise ArgumentTypeError(f"{label}: parameter {pname!r} takes a candlewick array ({what}), got "
                                f"{short_repr(value)}")
    return value


def require_contiguous(array, label, pname):
    """A pointer parameter reads elements in C order from the first one: its array must
    be C-contiguous (a view with an offset is fine)."""
    if not array._layout.is_contiguous:
        raise ArgumentValueError(
            f"{label}: parameter {pname!r} is a pointer but its array (shape {array.shape}, strides "
            f"{array._layout.strides}) is not C-contiguous; pass a contiguous copy "
            f"(candlewick.asarray(x, copy=True))")
