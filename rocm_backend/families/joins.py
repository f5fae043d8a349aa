"""[families] Joins and compaction: concat (one output, a strided copy per operand) and compress
(the rows under a bool mask: scan of the mask, one host read of the count, a scatter of the
elements, or of the kept rows' numbers and a gather of those rows; the scan and its count
are shared by compressions over one mask, as unique's)."""

from candlewick import dtypes as dt
from candlewick.errors import DTypeError
from candlewick.layout import Layout
from candlewick.shapes import shape_size
from candlewick.opdefs import BinaryOp, ScanOp

from . import creation
from .copies import assign, copy, to_host
from .elementwise import astype, binary
from .indexing import scatter_in_range, select_in_range
from .scans import scan


def concat(x, layout, rest, axis):
    """``x[layout]`` and every ``(storage, layout)`` of ``rest`` joined along ``axis``."""
    device = x.device
    parts = [(x, layout)] + list(rest)
    for storage, _ in parts[1:]:
        if storage.dtype is not x.dtype:
            raise DTypeError(f"concat: rest has dtype {storage.dtype}, expected {x.dtype}")
    shape = list(layout.shape)
    shape[axis] = sum(part_layout.shape[axis] for _, part_layout in parts)
    out_layout = Layout.contiguous(tuple(shape))
    out = device.storage_type.empty(device, x.dtype, shape_size(shape))
    start = 0
    for storage, part_layout in parts:
        n = part_layout.shape[axis]
        if n and part_layout.size:
            assign(out, out_layout.slice(axis, start, start + n, 1), storage, part_layout)
        start += n
    return out


def compress(x, layout, mask, mask_layout):
    """(rows of ``x[layout]`` where the 1-D ``mask`` is True, their count): the mask's
    ranks (``mask_ranks``), their count read to the host, the rows moved (``compress_ranked``)."""
    if not mask.dtype.is_bool:
        raise DTypeError(f"compress: mask has dtype {mask.dtype}, expected bool")
    device = x.device
    n = layout.shape[0]
    if n == 0:
        return device.storage_type.empty(device, x.dtype, 0), 0
    ones, ranks = mask_ranks(mask, mask_layout)
    count = read_count(ranks, n)
    return compress_ranked(x, layout, ones, ranks, count), count


def mask_ranks(mask, mask_layout):
    """(the 1-D bool ``mask`` as int64 ones, their inclusive scan: a kept element's 1-based
    rank among the kept), both contiguous: what every compress over the mask shares."""
    line = Layout.contiguous(tuple(mask_layout.shape))
    ones = astype(mask, mask_layout, dt.int64)
    return ones, scan(ones, ScanOp.SUM, line, 0)


def read_count(ranks, n):
    """How many of the first ``n`` elements of the mask the ``ranks`` rank are kept (the host read)."""
    return int(to_host(ranks, Layout((1,), (1,), n - 1))[0]) if n else 0


def compress_ranked(x, layout, ones, ranks, count):
    """The rows of ``x[layout]`` (n of them) kept by the mask whose first n ``ones`` and
    ``ranks`` (mask_ranks') are given, ``count`` of them. A kept element's rank is where
    a scatter puts it (dropped ones land on a spare slot 0); rows of several elements are
    gathered by the kept rows' numbers. The indices are this function's own, in range:
    no index check (indexing.py)."""
    device = x.device
    n = layout.shape[0]
    rest = tuple(layout.shape[1:])
    row = shape_size(rest)
    if count == 0 or row == 0:
        return device.storage_type.empty(device, x.dtype, 0)
    line = Layout.contiguous((n,))
    if row > 1:
        # the kept rows' numbers, then those rows gathered: a scatter of whole rows would
        # send every dropped row's elements to one spare row, and their stores to the same
        # addresses queue (X[y == 1] of 200000 x 256 float32 took 1.54 ms on the H200,
        # torch's 0.15)
        numbers = compress_ranked(creation.arange(device, 0, 1, n, dt.int64), line, ones, ranks, count)
        return select_in_range(x, layout, numbers, Layout.contiguous((count,)), 0)
    slots = binary(ranks, BinaryOp.MULTIPLY, line, ones, line)
    spare = device.storage_type.empty(device, x.dtype, (count + 1) * row)
    idx_layout = Layout((n,) + rest, (1,) + (0,) * len(rest), 0)
    scatter_in_range(spare, Layout.contiguous((count + 1,) + rest), slots, idx_layout, x, layout, 0)
    return copy(spare, Layout.contiguous((count,) + rest, row))
