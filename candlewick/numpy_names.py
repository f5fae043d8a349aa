"""NumPy's names for functions the standard spells differently, with NumPy's signatures:
cumsum, cumprod (``cumulative_sum``/``cumulative_prod``, flattening when axis is None),
transpose (``permute_dims``, all axes reversed by default). Libraries written against
NumPy's namespace call these on whatever namespace they are given (xarray's
``duck_array_ops`` calls ``xp.cumsum``, ``xp.transpose``), as they call them on CuPy's.
``write_out`` is NumPy's ``out=`` for the functions of this family."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._core import require_array
from .cumulative import cumulative_prod, cumulative_sum
from .docstrings import shared_doc
from .errors import ArgumentTypeError, ShapeError
from .manipulation import permute_dims, reshape

if TYPE_CHECKING:
    from .array import Array
    from ._types import DTypeLike

_DOCS = {
    "numpy_cumulative_params": (
        "Parameters\n----------\n"
        "a : Array\n    Input array.\n"
        "axis : int or None\n    The axis to accumulate along; None (NumPy's default) flattens a first.\n"
        "dtype : dtype or None\n    The accumulation and result dtype (rules as for ``sum``).\n"
        "out : Array or None\n    An array of the result's shape to write the result into (and return)."
    ),
    "numpy_cumulative_raises": (
        "Raises\n------\n"
        "TypeError\n    If a or out is not a candlewick array.\n"
        "AxisError\n    If axis is out of range.\n"
        "ShapeError\n    If out's shape is not the result's."
    ),
}


def write_out(out: Array | None, result: Array, fname: str) -> Array:
    """NumPy's ``out=``: ``result`` written into ``out`` (cast to out's dtype, as NumPy's
    assignment casts) and ``out`` returned; ``result`` itself when ``out`` is None."""
    if out is None:
        return result
    require_array(out, fname, "out")
    if tuple(out.shape) != tuple(result.shape):
        raise ShapeError(f"{fname}: out has shape {out.shape}, the result has shape {result.shape}")
    out[...] = result if out.dtype == result.dtype else result.astype(out.dtype)
    return out


def _flattened(a, axis, fname):
    require_array(a, fname, "a")
    if axis is None:
        return reshape(a, (-1,)), 0
    return a, axis


@shared_doc(_DOCS)
def cumsum(a: Array, axis: int | None = None, dtype: DTypeLike | None = None, out: Array | None = None) -> Array:
    """NumPy's ``cumsum``: the running sum along ``axis`` (of the flattened array when
    axis is None); ``cumulative_sum`` is the standard's.

    {numpy_cumulative_params}

    Returns
    -------
    Array
        The running sums (1-D when axis is None), or out.

    {numpy_cumulative_raises}

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.cumsum(cw.asarray([[1, 2], [3, 4]])).tolist()
    [1, 3, 6, 10]
    """
    a, axis = _flattened(a, axis, "cumsum")
    return write_out(out, cumulative_sum(a, axis=axis, dtype=dtype), "cumsum")


@shared_doc(_DOCS)
def cumprod(a: Array, axis: int | None = None, dtype: DTypeLike | None = None, out: Array | None = None) -> Array:
    """NumPy's ``cumprod``: the running product along ``axis`` (of the flattened array
    when axis is None); ``cumulative_prod`` is the standard's.

    {numpy_cumulative_params}

    Returns
    -------
    Array
        The running products (1-D when axis is None), or out.

    {numpy_cumulative_raises}

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.cumprod(cw.asarray([[1, 2], [3, 4]]), axis=1).tolist()
    [[1, 2], [3, 12]]
    """
    a, axis = _flattened(a, axis, "cumprod")
    return write_out(out, cumulative_prod(a, axis=axis, dtype=dtype), "cumprod")


def transpose(a: Array, axes: tuple[int, ...] | list[int] | None = None) -> Array:
    """NumPy's ``transpose``: a view with the axes reversed, or permuted as ``axes``
    says; ``permute_dims`` is the standard's.

    Parameters
    ----------
    a : Array
        Input array.
    axes : tuple of int or None
        The permutation (None: reverse the axes).

    Returns
    -------
    Array
        A view of a with its axes permuted.

    Raises
    ------
    TypeError
        If a is not a candlewick array or axes not a sequence of ints.
    AxisError
        If axes is not a permutation of a's axes.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.transpose(cw.zeros((2, 3, 4))).shape
    (4, 3, 2)
    """
    require_array(a, "transpose", "a")
    if axes is None:
        return permute_dims(a, tuple(range(a.ndim))[::-1])
    if not isinstance(axes, (tuple, list)):
        raise ArgumentTypeError(f"transpose: axes must be a tuple of ints or None, got {type(axes).__name__}")
    return permute_dims(a, tuple(axes))


__all__ = ["cumsum", "cumprod", "transpose"]
