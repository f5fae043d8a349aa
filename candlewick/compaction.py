"""Helpers of data-dependent shapes, shared by searching, set_membership and repetition:
the positions ``0..n-1``, where runs of equal sorted elements start, an array's C-order
flattening. The data-dependent step itself is the ``compress`` primitive (``x[mask]``,
``isin``'s distinct values): the kept rows and their count, read once on the host
(``nonzero`` and ``unique_*`` have primitives of their own).
"""

from . import dtypes as _dt
from ._core import contiguous_layout, new_array
from .layout import Layout
from .opdefs import CompareOp

_int64 = _dt.int64


def arange_int64(device, n):
    """``[0, 1, ..., n-1]`` as an int64 storage on ``device``."""
    return device.arange(0, 1, n, _int64)


def run_starts(values, n, device, closed=False):
    """Where runs of equal elements start in the 1-D contiguous ``values`` (n of them, sorted
    so equal ones are adjacent): a bool storage, True at 0 and where an element differs from
    the one before it (NaN differs from everything); with ``closed`` one more True after the
    last element, which closes the last run."""
    starts = device.full((n + closed,), _dt.bool_, True)
    if n > 1:
        later, earlier = Layout((n - 1,), (1,), 1, True), contiguous_layout((n - 1,))
        starts.assign(later, values.compare(CompareOp.NOT_EQUAL, later, values, earlier), earlier)
    return starts


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
