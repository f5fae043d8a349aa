"""Helpers of data-dependent shapes, shared by searching, set_membership and repetition:
the positions ``0..n-1``, an array's C-order flattening. The data-dependent step itself
is the ``compress`` primitive (``x[mask]``): the kept rows and their count, read once on
the host (``nonzero``, ``unique_*`` and ``isin`` have primitives of their own).
"""

from . import dtypes as _dt
from ._core import new_array

_int64 = _dt.int64


def arange_int64(device, n):
    """``[0, 1, ..., n-1]`` as an int64 storage on ``device``."""
    return device.arange(0, 1, n, _int64)


def flat_layout(x):
    """A 1-D layout viewing x's elements in C order, or None when that needs a copy."""
    return x._layout.reshape((x._layout.size,))


def flatten(x):
    """x as a 1-D array in C order (a view when possible; x itself when 1-D)."""
    if len(x._layout.shape) == 1:
        return x
    lay = flat_layout(x)
    if lay is None:
        return new_array(type(x), x._storage.copy(x._layout), (x._layout.size,), x._dtype, x._device)
    Array = type(x)
    out = Array.__new__(Array)
    out._storage, out._layout, out._dtype, out._device = x._storage, lay, x._dtype, x._device
    return out
