"""The Array API's ``where`` (a searching function of the standard): ``x1`` where a
condition is True, else ``x2``, one call of the storage's ``where`` primitive over the
operands promoted and broadcast together (a Python scalar operand spread with stride 0)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from . import dtypes as _dt
from ._core import ArrayBase, new_array, on_one_device, promote_pair, require_array, scalar_array, scalar_for
from .errors import ArgumentTypeError, DTypeError
from .layout import Layout
from .lazy_gate import operand
from .shapes import broadcast_shapes

if TYPE_CHECKING:
    from ._types import Scalar
    from .array import Array

_bool = _dt.bool_

def where(condition: Array, x1: Array | Scalar, x2: Array | Scalar, /) -> Array:
    """``x1`` where ``condition`` is True, else ``x2`` (arrays or Python scalars,
    broadcast together; at least one of x1, x2 must be an array).

    Parameters
    ----------
    condition : Array
        A bool array (other dtypes are taken as truth values).
    x1 : Array or Python scalar
        Values where condition is True.
    x2 : Array or Python scalar
        Values where condition is False.

    Returns
    -------
    Array
        The broadcast shape of the three operands, in x1's and x2's promoted dtype.

    Raises
    ------
    TypeError
        If condition is not an array, or neither x1 nor x2 is.
    ShapeError
        If the operands do not broadcast.
    DTypeError
        If x1 and x2 do not promote.
    DeviceMismatchError
        If the arrays are on different devices (a 0-d array in host memory follows the others).

    Examples
    --------
    >>> import candlewick as cw
    >>> x = cw.asarray([1, -2, 3])
    >>> cw.where(x > 0, x, 0).tolist()
    [1, 0, 3]
    """
    if (type(x1) is type(x2) and isinstance(condition, ArrayBase) and isinstance(x1, ArrayBase)
            and condition._dtype is _bool and x1._dtype is x2._dtype
            and condition._device is x1._device and x1._device is x2._device):
        # the common case: arrays of one shape, x1 and x2 of one dtype, all on one device
        c, l1, l2 = condition._layout, x1._layout, x2._layout
        shape = c.shape
        if shape == l1.shape and shape == l2.shape:
            storage = operand(condition).where(c, x1._storage, l1, x2._storage, l2)
            return new_array(type(x1), storage, shape, x1._dtype, x1._device)
    require_array(condition, "where", "condition")
    if not condition._dtype.is_bool:
        raise DTypeError(f"where: condition must have dtype bool, got {condition._dtype.name}")
    a1, a2 = isinstance(x1, ArrayBase), isinstance(x2, ArrayBase)
    if not a1 and not a2:
        raise ArgumentTypeError("where: at least one of x1 and x2 must be an array")
    if not a1:
        value, dtype = scalar_for(_plain(x1), x2._dtype, "where")
        x1 = scalar_array(x2, value, dtype, x2._device)
        if dtype is not x2._dtype:
            x2 = x2.astype(dtype)
    elif not a2:
        value, dtype = scalar_for(_plain(x2), x1._dtype, "where")
        x2 = scalar_array(x1, value, dtype, x1._device)
        if dtype is not x1._dtype:
            x1 = x1.astype(dtype)
    if x1._dtype is not x2._dtype or x1._device is not x2._device:
        x1, x2 = promote_pair(x1, x2, "where")
    if condition._device is not x1._device or condition._device is not x2._device:
        condition, x1 = on_one_device(condition, x1, "where")
        condition, x2 = on_one_device(condition, x2, "where")  # x1 and x2 were 0-d host arrays
    c, l1, l2 = condition._layout, x1._layout, x2._layout
    shape = c.shape
    if shape and shape == l1.shape and not l2.shape:  # where(cond, x, scalar): x2 spread
        l2 = Layout(shape, (0,) * len(shape), l2.offset)
    elif shape and shape == l2.shape and not l1.shape:
        l1 = Layout(shape, (0,) * len(shape), l1.offset)
    elif not (shape == l1.shape == l2.shape):
        shape = broadcast_shapes(c.shape, l1.shape, l2.shape)
        c, l1, l2 = c.broadcast_to(shape), l1.broadcast_to(shape), l2.broadcast_to(shape)
    storage = operand(condition).where(c, x1._storage, l1, x2._storage, l2)
    return new_array(type(x1), storage, shape, x1._dtype, x1._device)


def _plain(value):
    # NumPy scalars stay as they are: scalar_for takes them by kind and names them
    item = getattr(value, "item", None)
    if item is not None and not isinstance(value, (ArrayBase, np.generic)) and getattr(value, "size", 1) == 1:
        return item()
    return value  # (a NumPy array of several: scalar_for refuses it)


__all__ = ["where"]
