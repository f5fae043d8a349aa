"""The Array API's running sums and products, on the ``scan`` primitive:
cumulative_sum, cumulative_prod."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._core import check_accepts, check_dtype_on, contiguous_layout, require_array
from .arguments import flag
from .array import wrap
from .docstrings import FRAGMENTS, shared_doc
from .errors import ArgumentValueError, ShapeError
from .shapes import normalize_axis
from .opdefs import ScanOp
from .statistical import accumulation_dtype, converts_as_read

if TYPE_CHECKING:
    from .array import Array
    from ._types import DTypeLike


#: entries cumulative_sum and cumulative_prod share (filled in by ``docstrings.shared_doc``)
_DOCS = {
    "cumulative_axis": "axis : int or None\n    The axis to accumulate along; may be None only for a 1-D x.",
    "cumulative_raises": (
        "Raises\n------\n" + FRAGMENTS["raises_x_not_array"] + "\n"
        "ValueError\n    If axis is None and x is not 1-D.\n"
        "AxisError\n    If axis is outside ``[-ndim, ndim)``."
    ),
}


def _cumulative(op, x, axis, dtype, include_initial, fname):
    require_array(x, fname)
    include_initial = flag(include_initial, fname, "include_initial")
    shape = x._layout.shape
    if not shape:
        raise ShapeError(f"{fname}: x must have at least one dimension")
    if axis is None:
        if len(shape) > 1:
            raise ArgumentValueError(f"{fname}: axis must be given for a {len(shape)}-D array")
        axis = 0
    axis = normalize_axis(axis, len(shape))
    acc = accumulation_dtype(x, dtype, fname)
    check_accepts(op, acc, fname)
    if converts_as_read(x, acc):  # the device converts as it reads: no cast copy of x
        check_dtype_on(x._device, acc, fname)
        scanned = x._storage.scan_as(op, x._layout, axis, acc)
    else:
        if acc is not x._dtype:
            x = x.astype(acc)
        scanned = x._storage.scan(op, x._layout, axis)
    if not include_initial:
        return wrap(scanned, shape, acc, x._device)
    out_shape = shape[:axis] + (shape[axis] + 1,) + shape[axis + 1 :]
    device = x._device
    out = device.zeros(out_shape, acc) if op is ScanOp.SUM else device.ones(out_shape, acc)
    body = contiguous_layout(out_shape).slice(axis, 1, shape[axis] + 1, 1)
    out.assign(body, scanned, contiguous_layout(shape))
    return wrap(out, out_shape, acc, device)


@shared_doc(_DOCS)
def cumulative_sum(x: Array, /, *, axis: int | None = None, dtype: DTypeLike | None = None,
                   include_initial: bool = False) -> Array:
    """Inclusive running sum along ``axis`` (optional for 1-D); ``include_initial``
    prepends the empty sum 0. dtype rules as for ``sum``.

    Parameters
    ----------
    {param_x}
    {cumulative_axis}
    dtype : DType or None
        The accumulation and result dtype; rules as for ``sum``.
    include_initial : bool
        Prepend the empty sum (0): the result is one longer along ``axis``.

    Returns
    -------
    Array
        The running sums, of x's shape (one longer along ``axis`` with include_initial).

    {cumulative_raises}

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.cumulative_sum(cw.asarray([1, 2, 3, 4])).tolist()
    [1, 3, 6, 10]
    """
    return _cumulative(ScanOp.SUM, x, axis, dtype, include_initial, "cumulative_sum")


@shared_doc(_DOCS)
def cumulative_prod(x: Array, /, *, axis: int | None = None, dtype: DTypeLike | None = None,
                    include_initial: bool = False) -> Array:
    """Inclusive running product along ``axis`` (optional for 1-D); ``include_initial``
    prepends the empty product 1. dtype rules as for ``prod``.

    Parameters
    ----------
    {param_x}
    {cumulative_axis}
    dtype : DType or None
        The accumulation and result dtype; rules as for ``prod``.
    include_initial : bool
        Prepend the empty product (1): the result is one longer along ``axis``.

    Returns
    -------
    Array
        The running products, of x's shape (one longer along ``axis`` with include_initial).

    {cumulative_raises}

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.cumulative_prod(cw.asarray([1, 2, 3, 4])).tolist()
    [1, 2, 6, 24]
    """
    return _cumulative(ScanOp.PROD, x, axis, dtype, include_initial, "cumulative_prod")


__all__ = ["cumulative_sum", "cumulative_prod"]
