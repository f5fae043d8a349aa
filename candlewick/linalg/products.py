"""Products and diagonals of ``candlewick.linalg`` composed from core primitives:
cross, outer, diagonal (a view), trace."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import elementwise as _ew
from .. import statistical as _st
from .._core import promote_pair, require_array, view
from ..array import wrap
from ..docstrings import shared_doc
from ..errors import ArgumentTypeError, AxisError, DTypeError, ShapeError
from ..layout import Layout
from ..joining import stack
from ..opdefs import BinaryOp
from ._common import LINALG_DOCS, require_matrices, require_numeric

if TYPE_CHECKING:
    from ..array import Array
    from .._types import DTypeLike


def _numeric_pair(x1, x2, fname):
    require_array(x1, f"linalg.{fname}", "x1")
    require_array(x2, f"linalg.{fname}", "x2")
    x1, x2 = promote_pair(x1, x2, f"linalg.{fname}")
    if x1._dtype.is_bool:
        raise DTypeError(f"linalg.{fname} does not accept dtype bool; expected a numeric dtype")
    return x1, x2


@shared_doc(LINALG_DOCS)
def cross(x1: Array, x2: Array, /, *, axis: int = -1) -> Array:
    """Cross product of 3-element vectors along ``axis`` (a negative axis in
    ``[-min(x1.ndim, x2.ndim), -1]``), broadcasting the other dimensions.

    Parameters
    ----------
    {param_numeric_operands}
    axis : int
        The axis holding the 3-vectors.

    Returns
    -------
    Array
        The cross products, of the broadcast shape.

    Raises
    ------
    {raises_operand_not_array}
    ShapeError
        If the axis does not have length 3 in both.
    {raises_axis}
    DTypeError
        If an operand is bool.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.linalg.cross(cw.asarray([1, 0, 0]), cw.asarray([0, 1, 0])).tolist()
    [0, 0, 1]
    """
    x1, x2 = _numeric_pair(x1, x2, "cross")
    if isinstance(axis, bool) or not isinstance(axis, int):
        raise ArgumentTypeError(f"linalg.cross: axis must be an int, got {type(axis).__name__}")
    n = min(x1.ndim, x2.ndim)
    if not -n <= axis <= -1:
        raise AxisError(
            f"linalg.cross: axis {axis} must be a negative axis in [-{n}, -1] for shapes "
            f"{x1.shape} and {x2.shape}"
        )
    if x1.shape[axis] != 3 or x2.shape[axis] != 3:
        raise ShapeError(
            f"linalg.cross: x1 and x2 must have size 3 along axis {axis}, got shapes {x1.shape} and {x2.shape}"
        )
    a = [view(x1, x1._layout.select(x1.ndim + axis, i)) for i in range(3)]
    b = [view(x2, x2._layout.select(x2.ndim + axis, i)) for i in range(3)]
    mul, sub = _ew.multiply, _ew.subtract
    c = [
        sub(mul(a[1], b[2]), mul(a[2], b[1])),
        sub(mul(a[2], b[0]), mul(a[0], b[2])),
        sub(mul(a[0], b[1]), mul(a[1], b[0])),
    ]
    return stack(c, axis=axis)


@shared_doc(LINALG_DOCS)
def outer(x1: Array, x2: Array, /) -> Array:
    """Outer product of two 1-D arrays: ``out[i, j] = x1[i] * x2[j]``.

    Parameters
    ----------
    x1 : Array
        1-D array.
    x2 : Array
        1-D array.

    Returns
    -------
    Array
        ``(len(x1), len(x2))`` products.

    Raises
    ------
    {raises_operand_not_array}
    ShapeError
        If an operand is not 1-D.
    DTypeError
        If an operand is bool.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.linalg.outer(cw.asarray([1, 2]), cw.asarray([3, 4])).tolist()
    [[3, 4], [6, 8]]
    """
    x1, x2 = _numeric_pair(x1, x2, "outer")
    l1, l2 = x1._layout, x2._layout
    if l1.ndim != 1 or l2.ndim != 1:
        raise ShapeError(f"linalg.outer: x1 and x2 must be 1-D, got shapes {x1.shape} and {x2.shape}")
    # one multiply of x1 spread along columns by x2 spread along rows (stride-0 views)
    shape = (l1.shape[0], l2.shape[0])
    rows = Layout(shape, (l1.strides[0], 0), l1.offset)
    cols = Layout(shape, (0, l2.strides[0]), l2.offset)
    storage = x1._storage.binary(BinaryOp.MULTIPLY, rows, x2._storage, cols)
    return wrap(storage, shape, x1._dtype, x1._device)


@shared_doc(LINALG_DOCS)
def diagonal(x: Array, /, *, offset: int = 0) -> Array:
    """The ``offset``-th diagonal of each matrix, as a view of shape ``(..., L)``.

    {linalg_params_matrices}
    offset : int
        0 the main diagonal, > 0 above it, < 0 below it.

    Returns
    -------
    Array
        A view ``(..., L)``.

    Raises
    ------
    {raises_x_not_array}
    {linalg_raises_shape}

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.linalg.diagonal(cw.asarray([[1, 2], [3, 4]])).tolist()
    [1, 4]
    """
    require_array(x, "linalg.diagonal")
    require_matrices(x, "diagonal")
    if isinstance(offset, bool) or not isinstance(offset, int):
        raise ArgumentTypeError(f"linalg.diagonal: offset must be an int, got {type(offset).__name__}")
    lay = x._layout
    m, n = lay.shape[-2:]
    sm, sn = lay.strides[-2:]
    if offset >= 0:
        length = max(0, min(m, n - offset))
        start = offset * sn
    else:
        length = max(0, min(m + offset, n))
        start = -offset * sm
    layout = Layout(lay.shape[:-2] + (length,), lay.strides[:-2] + (sm + sn,), lay.offset + (start if length else 0))
    return view(x, layout)


@shared_doc(LINALG_DOCS)
def trace(x: Array, /, *, offset: int = 0, dtype: DTypeLike | None = None) -> Array:
    """Sum of the ``offset``-th diagonal of each matrix; the result dtype follows ``sum``
    (integers accumulate in the default integer dtype unless ``dtype`` is given).

    {linalg_params_matrices}
    offset : int
        The diagonal summed.
    dtype : DType or None
        The accumulation dtype; rules as for ``sum``.

    Returns
    -------
    Array
        The traces, of shape ``x.shape[:-2]``.

    Raises
    ------
    {raises_x_not_array}
    {linalg_raises_shape}
    DTypeError
        If x is bool or dtype of a lower kind.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.linalg.trace(cw.asarray([[1, 2], [3, 4]])).item()
    5
    """
    require_numeric(x, "trace")
    return _st.sum(diagonal(x, offset=offset), axis=-1, dtype=dtype)
