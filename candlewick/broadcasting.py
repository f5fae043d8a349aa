"""The Array API's broadcasting functions (broadcast_to, broadcast_arrays,
broadcast_shapes): views with zero strides over the operands' memory, and the shape
they broadcast to."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._core import as_shape, require_array, view
from .allocation import check_addressable
from .api_version import requires, revision_sequence
from .array import Array
from .errors import DeviceMismatchError
from .shapes import broadcast_shapes as _broadcast_shapes

if TYPE_CHECKING:
    from ._types import ShapeLike


def broadcast_to(x: Array, /, shape: ShapeLike) -> Array:
    """``x`` broadcast to ``shape`` (a read-only-by-convention view with zero strides).

    Parameters
    ----------
    x : Array
        Input array.
    shape : int or tuple of int
        The target shape, which x's shape broadcasts to.

    Returns
    -------
    Array
        A view of x with the given shape.

    Raises
    ------
    TypeError
        If x is not a candlewick array.
    ShapeError
        If x's shape does not broadcast to shape.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.broadcast_to(cw.asarray([1, 2]), (3, 2)).tolist()
    [[1, 2], [1, 2], [1, 2]]
    """
    require_array(x, "broadcast_to")
    shape = as_shape(shape, "broadcast_to")
    layout = x._layout.broadcast_to(shape)
    check_addressable("broadcast_to", shape, x._dtype)
    return view(x, layout)


def broadcast_arrays(*arrays: Array) -> list[Array]:
    """The arrays broadcast against each other (views of one common shape).

    Parameters
    ----------
    *arrays : Array
        Arrays on one device.

    Returns
    -------
    list of Array
        One view per input, all of the broadcast shape.

    Raises
    ------
    TypeError
        If an argument is not a candlewick array.
    ShapeError
        If the shapes do not broadcast.
    DeviceMismatchError
        If the arrays are on different devices.

    Examples
    --------
    >>> import candlewick as cw
    >>> a, b = cw.broadcast_arrays(cw.zeros((2, 1)), cw.zeros(3))
    >>> a.shape, b.shape
    ((2, 3), (2, 3))
    """
    for a in arrays:
        require_array(a, "broadcast_arrays", "arrays")
        if a._device is not arrays[0]._device:
            raise DeviceMismatchError("broadcast_arrays: arrays are on different devices")
    shape = _broadcast_shapes(*(a.shape for a in arrays))
    for a in arrays:
        check_addressable("broadcast_arrays", shape, a._dtype)
    return revision_sequence(view(a, a._layout.broadcast_to(shape)) for a in arrays)


@requires("2025.12")
def broadcast_shapes(*shapes: ShapeLike) -> tuple[int, ...]:
    """The shape that arrays of ``shapes`` broadcast to (``()`` for no shapes), 2025.12.

    Parameters
    ----------
    *shapes : tuple of int
        The shapes to broadcast together.

    Returns
    -------
    tuple of int
        The broadcast shape.

    Raises
    ------
    ShapeError
        If the shapes do not broadcast (a ValueError).
    ArgumentTypeError
        If a shape is not a tuple of ints.
    ApiVersionError
        If the namespace follows the 2024.12 revision.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.broadcast_shapes((2, 1), (3,))
    (2, 3)
    """
    checked = [as_shape(s, "broadcast_shapes", "shapes") for s in shapes]
    return _broadcast_shapes(*checked)  # its ShapeError names this function (errors.CandlewickError)
