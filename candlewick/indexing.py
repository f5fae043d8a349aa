"""``__getitem__`` / ``__setitem__``: basic keys as layout views; integer-array and
boolean-mask keys through ``advanced_indexing``."""

from ._core import view
from .advanced_indexing import advanced_getitem, advanced_setitem, mask_fill, mask_rows
from .basic_indexing import (
    basic_layout, element_layout, fit_value, is_basic, out_of_bounds, setitem_value, slice_bounds, too_many_indices,
)
from .writes import check_writable


def getitem(x, key):
    Array = type(x)
    if type(key) is int:
        # the commonest key: one integer on the first axis
        layout = x._layout
        if not layout.shape:
            raise too_many_indices(0, 1)
        n = layout.shape[0]
        if not -n <= key < n:
            raise out_of_bounds(key, 0, n)
        return view(x, layout.select(0, key + n if key < 0 else key))
    if type(key) is slice and x._layout.shape:
        layout = x._layout
        return view(x, layout.slice(0, *slice_bounds(key, layout.shape[0])))
    if type(key) is Array and key._layout.shape:
        return advanced_getitem(x, key)  # an index array or a mask: never basic
    if is_basic(key, Array):
        return view(x, basic_layout(x._layout, key))
    return advanced_getitem(x, key)


def setitem(x, key, value):
    Array = type(x)
    if type(key) is Array:
        if type(value) is float and mask_fill(x, key, value):
            return  # x[mask] = 0.5
        if type(value) is Array and mask_rows(x, key, value):
            return  # x[mask] = y[mask]
    check_writable(x, "__setitem__")
    if type(key) is slice and type(value) is Array and value._storage is x._storage and x._layout.shape:
        # x[a:b:c] op= y (as getitem's slice case): Python stores the updated view back
        # into the place it views, which the in-place operator has already written
        layout = x._layout
        if value._layout == layout.slice(0, *slice_bounds(key, layout.shape[0])):
            return
    if type(key) is tuple and len(key) == len(x._layout.shape) and all(type(k) is int for k in key):
        dst = element_layout(x._layout, key)  # x[i, j] = v: one element (a loop's store)
        if type(value) is Array and value._dtype is x._dtype and value._device is x._device \
                and not value._layout.shape:
            # a 0-d value of x's dtype (scikit-learn's fill_diagonal loop, 2048 stores per
            # pairwise_distances call): nothing to convert or broadcast
            x._storage.assign(dst, value._storage, value._layout)
            return
    elif not is_basic(key, Array):
        return advanced_setitem(x, key, value)
    else:
        dst = basic_layout(x._layout, key)
    value = setitem_value(x, value)
    if isinstance(value, Array):
        if value._storage is x._storage and value._layout == dst:
            # x[key] op= y: Python stores the updated view back into the place it views,
            # which the in-place operator has already written
            return
        x._storage.assign(dst, value._storage, fit_value(value._layout, dst.shape))
    else:
        x._storage.fill(dst, value)
