"""Sorting functions of the Array API (sort, argsort) on the ``sort`` primitive.

NaN sorts above +inf (last ascending, first descending). ``stable`` keeps equal
elements in their original order in both directions. bool is sorted by the backend
as it is (the protocol's ``sort``, ``sort_values`` and ``argsort`` take bool, integer and
real floating dtypes: the conformance suite's ``ORDERED``), so no uint8 copy is made
before the sort nor a bool one after it; complex has no order.
"""

from __future__ import annotations

from . import dtypes as _dt
from ._core import ArrayBase, contiguous_layout, require_array
from .backend_optional import declares_descending_sort_view
from .array import Array, wrap
from .docstrings import FRAGMENTS, shared_doc
from .errors import ArgumentTypeError, DTypeError
from .shapes import normalize_axis

#: Array's __new__, read once: sort makes its descending result with the view's layout itself
_new_array = Array.__new__


def _no_order(x, fname):
    """The error of sorting complex ``x``."""
    return DTypeError(f"{fname}: complex numbers have no order; got {x._dtype.name}")


def _checked_axis(x, axis, descending, stable, fname):
    """``axis`` normalized for ``x`` once sort's arguments are checked: the common case
    (an array, bool flags, an int axis in range) in one test, each check's own error
    otherwise."""
    if (isinstance(x, ArrayBase) and (descending is False or descending is True)
            and (stable is True or stable is False) and type(axis) is int):
        ndim = len(x._layout.shape)
        if -ndim <= axis < ndim:
            return axis + ndim if axis < 0 else axis
    require_array(x, fname)
    if not isinstance(descending, bool):
        raise ArgumentTypeError(f"{fname}: descending must be a bool, got {type(descending).__name__}")
    if not isinstance(stable, bool):
        raise ArgumentTypeError(f"{fname}: stable must be a bool, got {type(stable).__name__}")
    return normalize_axis(axis, x.ndim)


#: (shape, axis) -> the offset-0 C-contiguous layout of shape read backwards along axis:
#: a descending sort's view of its result (shared, as _core's contiguous layouts: layouts
#: are immutable), made once per shape instead of a Layout.flip per call
_BACKWARDS: dict = {}


def _backwards(shape, axis):
    if len(_BACKWARDS) > 4096:  # (bounded as _core's cache of contiguous layouts)
        _BACKWARDS.clear()
    layout = _BACKWARDS[shape, axis] = contiguous_layout(shape).flip((axis,))
    return layout


#: the sections sort and argsort share (filled in by ``docstrings.shared_doc``)
_DOCS = {
    "sort_params": (
        "Parameters\n----------\nx : Array\n    Input array of a real dtype (at least 1-D).\n"
        "axis : int\n    The axis to sort along.\ndescending : bool\n    Sort in descending order.\n"
        "stable : bool\n    Keep equal elements in their order (otherwise the backend's fastest sort)."
    ),
    "sort_raises": (
        "Raises\n------\nTypeError\n    If x is not a candlewick array, or descending/stable are not bools.\n"
        "DTypeError\n    If x is complex.\n" + FRAGMENTS["raises_axis"]
    ),
}


@shared_doc(_DOCS)
def sort(x: Array, /, *, axis: int = -1, descending: bool = False, stable: bool = True) -> Array:
    """A sorted copy of ``x`` along ``axis``.

    {sort_params}

    Returns
    -------
    Array
        A sorted copy of x.

    {sort_raises}

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.sort(cw.asarray([3, 1, 2])).tolist()
    [1, 2, 3]
    """
    axis = _checked_axis(x, axis, descending, stable, "sort")
    layout, dtype, device = x._layout, x._dtype, x._device
    if dtype.kind == "c":  # (DType.is_complex without its property call: sort is timed against np.sort)
        raise _no_order(x, "sort")
    if descending and declares_descending_sort_view(device):
        # the ascending sort of x reversed, viewed reversed (backend.DescendingSortViewDevice);
        # where x is C-contiguous from its buffer's start, x reversed is that view's layout too
        viewed = _BACKWARDS.get((layout.shape, axis)) or _backwards(layout.shape, axis)
        values = x._storage.sort_values(viewed if layout.dense_size >= 0 else layout.flip((axis,)), axis, False, stable)
        # the new array made with that view's layout (wrap's steps, the contiguous layout's
        # look-up left out: one array made, no layout replaced)
        out = _new_array(Array)
        out._storage, out._layout, out._dtype, out._device = values, viewed, dtype, device
        return out
    return wrap(x._storage.sort_values(layout, axis, descending, stable), layout.shape, dtype, device)


@shared_doc(_DOCS)
def argsort(x: Array, /, *, axis: int = -1, descending: bool = False, stable: bool = True) -> Array:
    """The int64 indices that sort ``x`` along ``axis``.

    {sort_params}

    Returns
    -------
    Array
        int64 indices of x's shape.

    {sort_raises}

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.argsort(cw.asarray([3, 1, 2])).tolist()
    [1, 2, 0]
    """
    axis = _checked_axis(x, axis, descending, stable, "argsort")
    if x._dtype.is_complex:
        raise _no_order(x, "argsort")
    indices = x._storage.argsort(x._layout, axis, descending, stable)
    return wrap(indices, x._layout.shape, _dt.int64, x._device)


__all__ = ["sort", "argsort"]
