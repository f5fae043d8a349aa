"""Products and diagonals of ``candlewick.linalg`` composed from core primitives:
cross, outer, diagonal (a view), trace."""

from .. import elementwise as _ew
from .. import statistical as _st
from .._core import promote_pair, require_array, view, wrap
from ..errors import ArgumentTypeError, AxisError, DTypeError, ShapeError
from ..layout import Layout
from ..manipulation import stack
from ..opdefs import BinaryOp
from ._common import require_matrices, require_numeric


def _numeric_pair(x1, x2, fname):
    require_array(x1, f"linalg.{fname}", "x1")
    require_array(x2, f"linalg.{fname}", "x2")
    x1, x2 = promote_pair(x1, x2, f"linalg.{fname}")
    if x1._dtype.is_bool:
        raise DTypeError(f"linalg.{fname} does not accept dtype bool; expected a numeric dtype")
    return x1, x2


def cross(x1, x2, /, *, axis=-1):
    """Cross product of 3-element vectors along ``axis`` (a negative axis in
    ``[-min(x1.ndim, x2.ndim), -1]``), broadcasting the other dimensions."""
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


def outer(x1, x2, /):
    """Outer product of two 1-D arrays: ``out[i, j] = x1[i] * x2[j]``."""
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


def diagonal(x, /, *, offset=0):
    """The ``offset``-th diagonal of each matrix, as a view of shape ``(..., L)``."""
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


def trace(x, /, *, offset=0, dtype=None):
    """Sum of the ``offset``-th diagonal of each matrix; the result dtype follows ``sum``
    (integers accumulate in the default integer dtype unless ``dtype`` is given)."""
    require_numeric(x, "trace")
    return _st.sum(diagonal(x, offset=offset), axis=-1, dtype=dtype)
