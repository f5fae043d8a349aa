"""Helpers of data-dependent shapes, shared by searching, sets, advanced_indexing and
repetition: a stream compaction and its pieces. An inclusive ``scan`` of the 0/1 mask
gives each kept element its output slot, ONE device-to-host read of the scan's last
element gives the output length, and a ``scatter`` moves the kept elements. Dropped
elements are scattered to a spare row of a buffer one row longer than the output, so no
element needs a branch. (``x[mask]`` and ``nonzero`` use the ``compress`` primitive;
``unique_*`` keep this composition, which also yields the scan they need.)
"""

from . import dtypes as _dt
from ._core import contiguous_layout, new_array
from .layout import Layout, shape_size
from .opdefs import BinaryOp, ScanOp

_int64 = _dt.int64


def arange_int64(device, n):
    """``[0, 1, ..., n-1]`` as an int64 storage on ``device``."""
    return device.arange(0, 1, n, _int64)


def read_int(storage, index):
    """One device-to-host read: element ``index`` of a contiguous 1-D int storage."""
    return int(storage.to_host(Layout((), (), index, True))[()])


def mask_of(x):
    """``x != 0`` as a bool storage of x's shape (x itself when x is bool): the
    ``astype`` primitive's bool conversion is exactly ``!= 0`` (NaN and complex with
    either part non-zero count as non-zero)."""
    if x._dtype.is_bool:
        return x._storage, x._layout
    return x._storage.astype(x._layout, _dt.bool_), contiguous_layout(x._layout.shape)


class Compaction:
    """Where each element of a 1-D bool mask of length ``n`` lands when the unmasked
    ones are dropped. ``count`` is the number kept (one host read). ``slots`` (int64,
    length n) is ``scan * mask``: a kept element's 1-based rank, 0 for a dropped one, so
    row 0 of the scatter target is the spare row every dropped element lands in and the
    result is rows ``1..count``. ``scan`` is the inclusive count of kept elements."""

    __slots__ = ("device", "n", "count", "slots", "scan")

    def __init__(self, mask_storage, mask_layout, n, device):
        self.device = device
        self.n = n
        if n == 0:
            self.count = 0
            self.slots = self.scan = device.empty((0,), _int64)
            return
        line = contiguous_layout((n,))
        ones = mask_storage.astype(mask_layout, _int64)
        self.scan = ones.scan(ScanOp.SUM, line, 0)
        self.count = read_int(self.scan, n - 1)
        self.slots = self.scan.binary(BinaryOp.MULTIPLY, line, ones, line)

    def take(self, src_storage, src_layout, dtype):
        """The kept elements of ``src`` (leading axis of length n; trailing axes are carried
        along): (new storage, its contiguous layout of shape ``(count,) + rest``)."""
        rest = src_layout.shape[1:]
        out = self.device.empty((self.count + 1,) + rest, dtype)
        if self.n:
            idx_layout = Layout((self.n,) + rest, (1,) + (0,) * len(rest), 0)
            out.scatter(contiguous_layout((self.count + 1,) + rest), self.slots, idx_layout,
                        src_storage, src_layout, 0)
        return out, Layout.contiguous((self.count,) + rest, shape_size(rest))


def wrap_layout(like, storage, layout, dtype, device):
    """An array of ``like``'s class over ``storage`` viewed through ``layout``."""
    a = new_array(type(like), storage, (), dtype, device)
    a._layout = layout
    return a


def flat_layout(x):
    """A 1-D layout viewing x's elements in C order, or None when that needs a copy."""
    return x._layout.reshape((x._layout.size,))


def flatten(x):
    """x as a 1-D array in C order (a view when possible)."""
    lay = flat_layout(x)
    if lay is None:
        return new_array(type(x), x._storage.copy(x._layout), (x._layout.size,), x._dtype, x._device)
    Array = type(x)
    out = Array.__new__(Array)
    out._storage, out._layout, out._dtype, out._device = x._storage, lay, x._dtype, x._device
    return out
