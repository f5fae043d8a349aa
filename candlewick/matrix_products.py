"""Linear-algebra functions of the main namespace: matmul, matrix_transpose, vecdot, tensordot."""

from __future__ import annotations

from math import prod
from typing import TYPE_CHECKING

from ._core import ArrayBase, cached_layout, contiguous_layout, new_array, promote_pair, require_array, view
from .docstrings import shared_doc
from .elementwise import conj
from .errors import ArgumentTypeError, ArgumentValueError, AxisError, DTypeError, ShapeError, short_repr
from .shapes import MAX_NDIM, broadcast_shapes, check_ndim, normalize_axis

if TYPE_CHECKING:
    from collections.abc import Sequence
    from .array import Array


@shared_doc()
def matmul(x1: Array, x2: Array, /) -> Array:
    """Matrix product with NumPy's rules for 1-D operands and broadcast batch dimensions.

    Parameters
    ----------
    {param_numeric_operands}

    Returns
    -------
    Array
        The product, in the operands' promoted dtype.

    Raises
    ------
    {raises_operand_not_array}
    DTypeError
        If an operand is bool or the dtypes do not promote.
    ShapeError
        If an operand is 0-d or the contracted dimensions differ.
    {raises_devices}

    Examples
    --------
    >>> import candlewick as cw
    >>> a = cw.asarray([[1.0, 2.0], [3.0, 4.0]])
    >>> cw.matmul(a, a).tolist()
    [[7.0, 10.0], [15.0, 22.0]]
    """
    if (type(x1) is type(x2) and isinstance(x1, ArrayBase) and x1._dtype is x2._dtype
            and x1._device is x2._device):
        # the common 2-D case, without the general path's layout bookkeeping
        l1, l2 = x1._layout, x2._layout
        s1, s2 = l1.shape, l2.shape
        if len(s1) == 2 and len(s2) == 2 and s1[1] == s2[0] and not x1._dtype.is_bool:
            storage = x1._storage.matmul(x2._storage, l1, l2)
            return new_array(type(x1), storage, (s1[0], s2[1]), x1._dtype, x1._device)
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
    return new_array(type(x1), storage, out_shape, x1._dtype, x1._device)


@shared_doc()
def matrix_transpose(x: Array, /) -> Array:
    """The transpose of the last two dimensions of ``x`` (a view).

    Parameters
    ----------
    x : Array
        Input array of at least 2 dimensions.

    Returns
    -------
    Array
        A view with the last two dimensions swapped.

    Raises
    ------
    {raises_x_not_array}
    ShapeError
        If x has fewer than 2 dimensions.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.matrix_transpose(cw.zeros((4, 2, 3))).shape
    (4, 3, 2)
    """
    require_array(x, "matrix_transpose")
    if x.ndim < 2:
        raise ShapeError(f"matrix_transpose needs at least 2 dimensions, got {x.ndim}")
    return view(x, x._layout.transpose_last2())


def _numeric_pair(x1, x2, fname):
    require_array(x1, fname, "x1")
    require_array(x2, fname, "x2")
    x1, x2 = promote_pair(x1, x2, fname)
    if x1._dtype.is_bool:
        raise DTypeError(f"{fname} does not accept dtype bool; expected a numeric dtype")
    return x1, x2


@shared_doc()
def tensordot(x1: Array, x2: Array, /, *, axes: int | tuple[Sequence[int], Sequence[int]] = 2) -> Array:
    """Sum of products over ``axes``: an int n (the last n axes of x1 with the first n of
    x2) or a pair of equal-length axis sequences. Contracted sizes must match exactly
    (no broadcasting). Computed as one matmul of the permuted, flattened operands.

    Parameters
    ----------
    {param_numeric_operands}
    axes : int or pair of sequences of int
        The axes to contract.

    Returns
    -------
    Array
        x1's free axes followed by x2's free axes.

    Raises
    ------
    TypeError
        If axes is neither an int nor a pair of sequences.
    ValueError
        If axes are out of range, of different lengths or repeated.
    ShapeError
        If contracted sizes differ.
    DTypeError
        If an operand is bool.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.tensordot(cw.ones((2, 3)), cw.ones((3, 4)), axes=1).shape
    (2, 4)
    """
    x1, x2 = _numeric_pair(x1, x2, "tensordot")
    n1, n2 = x1.ndim, x2.ndim
    if isinstance(axes, int) and not isinstance(axes, bool):
        if not 0 <= axes <= min(n1, n2):
            raise ArgumentValueError(
                f"tensordot: axes={axes} must be in [0, {min(n1, n2)}] for operands of "
                f"{n1} and {n2} dimensions"
            )
        ax1, ax2 = tuple(range(n1 - axes, n1)), tuple(range(axes))
    elif isinstance(axes, (tuple, list)) and len(axes) == 2:
        # as NumPy: an int in the pair is a one-axis sequence ((0, 2) contracts axis 0 with axis 2)
        seq1, seq2 = ((a,) if isinstance(a, int) and not isinstance(a, bool) else a for a in axes)
        if not (isinstance(seq1, (tuple, list)) and isinstance(seq2, (tuple, list))):
            raise ArgumentTypeError(f"tensordot: axes must be an int or a pair of axis sequences, got {short_repr(axes)}")
        ax1 = tuple(normalize_axis(a, n1, "axes") for a in seq1)
        ax2 = tuple(normalize_axis(a, n2, "axes") for a in seq2)
        if len(ax1) != len(ax2):
            raise ArgumentValueError(f"tensordot: the two axis sequences differ in length: {short_repr(axes)}")
        if len(set(ax1)) != len(ax1) or len(set(ax2)) != len(ax2):
            raise ArgumentValueError(f"tensordot: repeated axis in {short_repr(axes)}")
    else:
        raise ArgumentTypeError(f"tensordot: axes must be an int or a pair of axis sequences, got {short_repr(axes)}")
    for a, b in zip(ax1, ax2):
        if x1.shape[a] != x2.shape[b]:
            raise ShapeError(
                f"tensordot: contracted axes differ in size: x1 axis {a} has {x1.shape[a]}, "
                f"x2 axis {b} has {x2.shape[b]}"
            )
    free1 = tuple(a for a in range(n1) if a not in ax1)
    free2 = tuple(b for b in range(n2) if b not in ax2)
    k = _size(x1, ax1)
    s1, l1 = _as_matrix(x1, free1 + ax1, _size(x1, free1), k)
    s2, l2 = _as_matrix(x2, ax2 + free2, k, _size(x2, free2))
    out_shape = tuple(x1.shape[a] for a in free1) + tuple(x2.shape[b] for b in free2)
    check_ndim(len(out_shape))
    # the (P, Q) product is already the C-order buffer of the output shape
    return new_array(type(x1), s1.matmul(s2, l1, l2), out_shape, x1._dtype, x1._device)


def _size(x, axes):
    n = 1
    for a in axes:
        n *= x.shape[a]
    return n


def _as_matrix(x, order, rows, cols):
    """(storage, layout) of x with its axes in ``order`` seen as a (rows, cols) matrix:
    a view when the layout allows, else a contiguous copy."""
    layout = x._layout
    if order != tuple(range(len(order))):
        layout = layout.permute(order)
    matrix = layout.reshape((rows, cols))
    if matrix is None:
        return x._storage.copy(layout), contiguous_layout((rows, cols))
    return x._storage, matrix


@shared_doc()
def vecdot(x1: Array, x2: Array, /, *, axis: int = -1) -> Array:
    """Dot products of the vectors along ``axis`` (``sum(conj(x1) * x2)``), broadcasting
    the other axes. ``axis`` counts from the end: it must lie in ``[-N, -1]`` with
    ``N = min(x1.ndim, x2.ndim)``, and the contracted sizes must match (no broadcasting).

    Parameters
    ----------
    {param_numeric_operands}
    axis : int
        The (negative) axis holding the vectors.

    Returns
    -------
    Array
        The dot products, of the broadcast shape without axis.

    Raises
    ------
    TypeError
        If axis is not an int.
    AxisError
        If axis is outside ``[-N, -1]``.
    ShapeError
        If the vector lengths differ.
    DTypeError
        If an operand is bool.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.vecdot(cw.asarray([1.0, 2.0]), cw.asarray([3.0, 4.0])).item()
    11.0
    """
    if (type(axis) is int and axis == -1 and type(x1) is type(x2) and isinstance(x1, ArrayBase)
            and x1._dtype is x2._dtype and x1._device is x2._device):
        # the common case, two real arrays of one shape: one matmul of (*B, 1, K) by (*B, K, 1)
        l1, l2 = x1._layout, x2._layout
        shape, dtype = l1.shape, x1._dtype
        if shape and shape == l2.shape and 0 < dtype.level < 3 and len(shape) < MAX_NDIM:  # (integer or real floating)
            pair = _VECTOR_LAYOUTS.get(shape) if l1.dense_size >= 0 and l2.dense_size >= 0 else None
            l1, l2 = pair or _as_vector_products(l1, l2)
            cls = type(x1)
            out = cls.__new__(cls)  # (new_array, inlined)
            out._storage = x1._storage.matmul(x2._storage, l1, l2)
            shape = shape[:-1]
            out._layout = cached_layout(shape) or contiguous_layout(shape)
            out._dtype = dtype
            out._device = x1._device
            return out
    x1, x2 = _numeric_pair(x1, x2, "vecdot")
    if isinstance(axis, bool) or not isinstance(axis, int):
        raise ArgumentTypeError(f"vecdot: axis must be an int, got {type(axis).__name__}")
    n = min(x1.ndim, x2.ndim)
    if not -n <= axis <= -1:
        raise AxisError(
            f"vecdot: axis {axis} must be a negative axis in [-{n}, -1] "
            f"(counted from the end of x1 of shape {x1.shape} and x2 of shape {x2.shape})"
        )
    if x1.shape[axis] != x2.shape[axis]:
        raise ShapeError(
            f"vecdot: x1 and x2 differ in size along axis {axis}: {x1.shape[axis]} and {x2.shape[axis]}"
        )
    if x1._dtype.is_complex:
        x1 = conj(x1)
    l1 = _axis_last(x1._layout, axis)
    l2 = _axis_last(x2._layout, axis)
    batch = broadcast_shapes(l1.shape[:-1], l2.shape[:-1])
    kk = l1.shape[-1]
    if len(batch) + 2 > MAX_NDIM:  # (*B, 1, K) would pass an array's most dimensions: B as one axis
        n = prod(batch)
        s1 = x1._storage.copy(l1.broadcast_to(batch + (kk,)))
        s2 = x2._storage.copy(l2.broadcast_to(batch + (kk,)))
        storage = s1.matmul(s2, contiguous_layout((n, 1, kk)), contiguous_layout((n, kk, 1)))
        return new_array(type(x1), storage, batch, x1._dtype, x1._device)
    # (*B, 1, K) @ (*B, K, 1) -> (*B, 1, 1): one batched matmul, then a view dropping the 1s
    l1 = l1.broadcast_to(batch + (kk,)).expand_dims(len(batch))
    l2 = l2.broadcast_to(batch + (kk,)).expand_dims(len(batch) + 1)
    storage = x1._storage.matmul(x2._storage, l1, l2)
    return new_array(type(x1), storage, batch, x1._dtype, x1._device)


_VECTOR_LAYOUTS: dict = {}


def _as_vector_products(l1, l2):
    """(``l1`` as (*B, 1, K), ``l2`` as (*B, K, 1)) for one shape; made once per shape for
    the common pair of offset-0 C-contiguous layouts (layouts are immutable; vecdot reads
    the cache inline)."""
    common = l1.is_contiguous and l2.is_contiguous and not l1.offset and not l2.offset
    pair = _VECTOR_LAYOUTS.get(l1.shape) if common else None
    if pair is None:
        batch = len(l1.shape) - 1
        pair = l1.expand_dims(batch), l2.expand_dims(batch + 1)
        if common:
            if len(_VECTOR_LAYOUTS) > 256:
                _VECTOR_LAYOUTS.clear()
            _VECTOR_LAYOUTS[l1.shape] = pair
    return pair


def _axis_last(layout, axis):
    if axis == -1:
        return layout
    order = list(range(layout.ndim))
    order.append(order.pop(axis))
    return layout.permute(order)
