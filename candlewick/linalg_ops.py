"""Linear-algebra functions of the main namespace: matmul, matrix_transpose, vecdot, tensordot."""

from . import dtypes as _dt
from ._core import promote_pair, require_array, view, wrap
from .errors import DTypeError, ShapeError
from .layout import broadcast_shapes


def matmul(x1, x2, /):
    """Matrix product with NumPy's rules for 1-D operands and broadcast batch dimensions."""
    require_array(x1, "matmul", "x1")
    require_array(x2, "matmul", "x2")
    x1, x2 = promote_pair(x1, x2, "matmul")
    if x1._dtype.is_bool:
        raise DTypeError("matmul does not accept dtype bool; expected a numeric dtype")
    l1, l2 = x1._layout, x2._layout
    if l1.ndim == 0 or l2.ndim == 0:
        raise ShapeError("matmul: operands must have at least one dimension (use multiply for scalars)")
    squeeze_left = l1.ndim == 1
    squeeze_right = l2.ndim == 1
    if squeeze_left:
        l1 = l1.expand_dims(0)
    if squeeze_right:
        l2 = l2.expand_dims(1)
    m, k = l1.shape[-2:]
    k2, n = l2.shape[-2:]
    if k != k2:
        raise ShapeError(
            f"matmul: contracted dimensions differ: x1 has shape {x1.shape} and x2 {x2.shape} ({k} != {k2})"
        )
    batch = broadcast_shapes(l1.shape[:-2], l2.shape[:-2])
    l1 = l1.broadcast_to(batch + (m, k))
    l2 = l2.broadcast_to(batch + (k, n))
    storage = x1._storage.matmul(x2._storage, l1, l2)
    out_shape = batch + ((m,) if not squeeze_left else ()) + ((n,) if not squeeze_right else ())
    return wrap(storage, out_shape, x1._dtype, x1._device)


def matrix_transpose(x, /):
    require_array(x, "matrix_transpose")
    if x.ndim < 2:
        raise ShapeError(f"matrix_transpose needs at least 2 dimensions, got {x.ndim}")
    return view(x, x._layout.transpose_last2())
