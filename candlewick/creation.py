"""Array creation functions of the Array API, filled arrays: ``zeros``, ``ones``,
``empty``, ``full`` and their ``*_like``; every array's contents are made by its device.
Arrays from Python objects (``asarray``) are in ``conversion``, ranges and grids
(``arange``, ``linspace``, ``meshgrid``) in ``ranges``, matrices by their diagonal
(``eye``, ``tril``, ``triu``) in ``matrices``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from . import dtypes as _dt
from ._core import as_shape, check_dtype_on, new_array, require_array, scalar_into
from .array import Array, wrap
from .allocation import check_allocation
from .conversion import default_dtype_for_scalar
from .docstrings import shared_doc
from .errors import ArgumentValueError
from .registry import default_device_now, get_device

if TYPE_CHECKING:
    from ._types import DeviceLike, DTypeLike, Scalar, ShapeLike

_DType = _dt.DType


# the docstring entries the filled-array functions share (``docstrings.shared_doc``)
_DOCS = {
    "param_shape": "shape : int or tuple of int\n    The shape of the result.",
    "param_dtype_device": (
        "dtype : DType or None\n    The dtype of the result; None for the default floating dtype (float64).\n"
        "device : str, device or None\n    The device of the result; None for the default device."
    ),
    "param_fill_value": "fill_value : Python scalar or 0-d Array\n    The value of every element.",
    "raises_shape": (
        "TypeError\n    If shape is not an int or a tuple of ints.\n"
        "ValueError\n    If a size is negative, or the array is larger than any device can address.\n"
        "DTypeError\n    If dtype names no candlewick dtype.\n"
        "BackendUnavailableError\n    If the device's backend cannot run here."
    ),
    "param_like": "x : Array\n    The array whose shape (and default dtype and device) the result takes.",
    "param_like_dtype_device": (
        "dtype : DType or None\n    The dtype of the result; None for x's dtype.\n"
        "device : str, device or None\n    The device of the result; None for x's device."
    ),
    "returns_raises_like": (
        "Returns\n-------\nArray\n    A new array of x's shape.\n\n"
        "Raises\n------\nTypeError\n    If x is not a candlewick array.\n"
        "DTypeError\n    If dtype names no candlewick dtype."
    ),
}


def _filled(fname, shape, dtype, device, make, fill=None):
    """A new array of ``shape`` whose storage ``make(device, shape, dtype, fill)`` asks
    the device for, after the checks every filled-array function makes (each helper
    tests the common case first: a tuple of non-negative ints, a DType, a device
    declaring every dtype, a result too small to ask the device's free memory about)."""
    shape = as_shape(shape, fname)
    if dtype is None:
        dtype = _dt.DEFAULT_FLOAT
    elif type(dtype) is not _DType:
        dtype = _dt.as_dtype(dtype)
    device = default_device_now() if device is None else get_device(device)
    check_dtype_on(device, dtype)
    check_allocation(fname, shape, dtype, device)
    return new_array(Array, make(device, shape, dtype, fill), shape, dtype, device)


# each function's device primitive, named in its own function (tools/gen_array_api_doc.py
# reads from the source which primitives a namespace function needs)

def _zeros(device, shape, dtype, fill):
    return device.zeros(shape, dtype)


def _ones(device, shape, dtype, fill):
    return device.ones(shape, dtype)


def _empty(device, shape, dtype, fill):
    return device.empty(shape, dtype)


def _full(device, shape, dtype, fill):
    return device.full(shape, dtype, fill)


@shared_doc(_DOCS)
def zeros(shape: ShapeLike, *, dtype: DTypeLike | None = None, device: DeviceLike | None = None) -> Array:
    """An array of ``shape`` filled with zeros.

    Parameters
    ----------
    {param_shape}
    {param_dtype_device}

    Returns
    -------
    Array
        A new array of ``shape``, ``dtype`` and ``device``.

    Raises
    ------
    {raises_shape}

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.zeros((2, 3)).shape
    (2, 3)
    >>> cw.zeros(2).tolist()
    [0.0, 0.0]
    """
    return _filled("zeros", shape, dtype, device, _zeros)


@shared_doc(_DOCS)
def ones(shape: ShapeLike, *, dtype: DTypeLike | None = None, device: DeviceLike | None = None) -> Array:
    """An array of ``shape`` filled with ones.

    Parameters
    ----------
    {param_shape}
    {param_dtype_device}

    Returns
    -------
    Array
        A new array of ``shape``, ``dtype`` and ``device``.

    Raises
    ------
    {raises_shape}

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.ones((2, 3)).shape
    (2, 3)
    >>> cw.ones(2, dtype=cw.int32).tolist()
    [1, 1]
    """
    return _filled("ones", shape, dtype, device, _ones)


@shared_doc(_DOCS)
def empty(shape: ShapeLike, *, dtype: DTypeLike | None = None, device: DeviceLike | None = None) -> Array:
    """An array of ``shape`` whose elements are not initialized.

    Parameters
    ----------
    {param_shape}
    {param_dtype_device}

    Returns
    -------
    Array
        A new array of ``shape``, ``dtype`` and ``device``.

    Raises
    ------
    {raises_shape}

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.empty((2, 3)).shape
    (2, 3)
    >>> cw.empty(0).tolist()
    []
    """
    return _filled("empty", shape, dtype, device, _empty)


@shared_doc(_DOCS)
def full(shape: ShapeLike, fill_value: Scalar | Array, *, dtype: DTypeLike | None = None,
         device: DeviceLike | None = None) -> Array:
    """An array of ``shape`` with every element ``fill_value``.

    Parameters
    ----------
    {param_shape}
    {param_fill_value}
    dtype : DType or None
        The dtype of the result; None for the default dtype of fill_value's kind.
    device : str, device or None
        The device of the result; None for the default device.

    Returns
    -------
    Array
        A new array of ``shape``.

    Raises
    ------
    {raises_shape}
    ValueError
        If fill_value is an array that is not 0-d.
    DTypeError
        If dtype cannot hold fill_value.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.full((2,), 1.5).tolist()
    [1.5, 1.5]
    """
    if isinstance(fill_value, Array):
        if fill_value.ndim != 0:
            raise ArgumentValueError("full: fill_value must be a scalar or a 0-d array")
        fill_value = fill_value._scalar("full").item()
    if dtype is None:
        if isinstance(fill_value, np.generic):
            fill_value = fill_value.item()
        dtype = default_dtype_for_scalar(fill_value)
    else:
        dtype = _dt.as_dtype(dtype)
    value = scalar_into(fill_value, dtype, "full")
    return _filled("full", shape, dtype, device, _full, value)


def _like(fname, x, dtype, device):
    require_array(x, fname)
    return x._layout.shape, (x._dtype if dtype is None else dtype), (x._device if device is None else device)


@shared_doc(_DOCS)
def zeros_like(x: Array, /, *, dtype: DTypeLike | None = None, device: DeviceLike | None = None) -> Array:
    """An array of zeros with the shape of ``x`` (and its dtype and device unless given).

    Parameters
    ----------
    {param_like}
    {param_like_dtype_device}

    {returns_raises_like}

    Examples
    --------
    >>> import candlewick as cw
    >>> x = cw.asarray([[1, 2], [3, 4]])
    >>> cw.zeros_like(x).shape
    (2, 2)
    """
    shape, dtype, device = _like("zeros_like", x, dtype, device)
    return _filled("zeros", shape, dtype, device, _zeros)


@shared_doc(_DOCS)
def ones_like(x: Array, /, *, dtype: DTypeLike | None = None, device: DeviceLike | None = None) -> Array:
    """An array of ones with the shape of ``x`` (and its dtype and device unless given).

    Parameters
    ----------
    {param_like}
    {param_like_dtype_device}

    {returns_raises_like}

    Examples
    --------
    >>> import candlewick as cw
    >>> x = cw.asarray([[1, 2], [3, 4]])
    >>> cw.ones_like(x).shape
    (2, 2)
    """
    shape, dtype, device = _like("ones_like", x, dtype, device)
    return _filled("ones", shape, dtype, device, _ones)


@shared_doc(_DOCS)
def empty_like(x: Array, /, *, dtype: DTypeLike | None = None, device: DeviceLike | None = None) -> Array:
    """An array of uninitialized elements with the shape of ``x`` (and its dtype and device unless given).

    Parameters
    ----------
    {param_like}
    {param_like_dtype_device}

    {returns_raises_like}

    Examples
    --------
    >>> import candlewick as cw
    >>> x = cw.asarray([[1, 2], [3, 4]])
    >>> cw.empty_like(x).shape
    (2, 2)
    """
    shape, dtype, device = _like("empty_like", x, dtype, device)
    return _filled("empty", shape, dtype, device, _empty)


@shared_doc(_DOCS)
def full_like(x: Array, /, fill_value: Scalar | Array, *, dtype: DTypeLike | None = None,
              device: DeviceLike | None = None) -> Array:
    """An array filled with ``fill_value`` with the shape of ``x`` (and its dtype and device unless given).

    Parameters
    ----------
    {param_like}
    {param_fill_value}
    {param_like_dtype_device}

    {returns_raises_like}

    Examples
    --------
    >>> import candlewick as cw
    >>> x = cw.asarray([[1, 2], [3, 4]])
    >>> cw.full_like(x, 7).shape
    (2, 2)
    """
    shape, dtype, device = _like("full_like", x, dtype, device)
    return full(shape, fill_value, dtype=dtype, device=device)
