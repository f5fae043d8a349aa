"""[families] Joins and compaction: concat (one output, a strided copy per operand) and compress
(the rows under a bool mask: the kept positions by two launches that read the bool itself
(``kept_positions``), one host read of their count, the rows gathered there; a mask past
MASK_TILES_MAX tiles: scan of the mask, the host read, the kept elements packed by one
``compact`` launch or rows gathered at the kept positions; the scan and its count serve
every compression over one mask, as unique's)."""

import struct

from candlewick import dtypes as dt
from candlewick.errors import DTypeError
from candlewick.layout import Layout
from candlewick.shapes import shape_size
from candlewick.opdefs import ScanOp

from ..abi.structs import EW_BLOCK, FLAG_A
from ..ops import MASK_ITEMS
from .copies import assign, operand, to_host
from .ew_launch import launch_ew
from .elementwise import astype
from .indexing import select_in_range
from .scans import scan

#: mask elements a block of mask_count/mask_select takes (hip/index.hip)
MASK_TILE = MASK_ITEMS * EW_BLOCK
#: tiles up to which ``kept_positions`` runs: each mask_select block adds up the counts of
#: the tiles before its own (tiles^2 / 2 loads in all, 8 M at 4096 tiles, 16.7 M mask
#: elements); a longer mask goes through the scan (``mask_ranks``)
MASK_TILES_MAX = 4096


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
    ranks (``mask_ranks``), their count read to the host, then the kept elements packed by
    one ``compact``, or rows of several elements gathered at the kept positions."""
    if not mask.dtype.is_bool:
        raise DTypeError(f"compress: mask has dtype {mask.dtype}, expected bool")
    device = x.device
    n = layout.shape[0]
    if n == 0:
        return device.storage_type.empty(device, x.dtype, 0), 0
    kept = kept_positions(mask, Layout((n,), tuple(mask_layout.strides), mask_layout.offset))
    if kept is not None:  # X[y == 1] of 200000 rows: 2 launches and the read, against 6 and the read
        positions, count = kept
        if count == 0 or layout.size == 0:
            return device.storage_type.empty(device, x.dtype, 0), count
        return select_in_range(x, layout, positions, Layout.contiguous((count,)), 0), count
    ranks = mask_ranks(mask, mask_layout)
    count = read_count(ranks, n)
    if count == 0 or layout.size == 0:
        return device.storage_type.empty(device, x.dtype, 0), count
    if layout.ndim == 1:
        return compact(x, layout, mask, mask_layout, ranks, count), count
    # rows of several elements: the kept rows' positions, then those rows gathered (a
    # scatter of whole rows sent every dropped row's elements to one spare row, and their
    # stores to the same addresses queued: X[y == 1] of 200000 x 256 float32 took 1.54 ms
    # on the H200, torch's 0.15)
    positions = compact(None, None, mask, mask_layout, ranks, count)
    return select_in_range(x, layout, positions, Layout.contiguous((count,)), 0), count


def selects(n):
    """Whether ``kept_positions`` takes a mask of ``n`` elements."""
    return 0 < n and -(-n // MASK_TILE) <= MASK_TILES_MAX


def kept_positions(mask, mask_layout, runs=None, ends=False, device=None):
    """(int64 storage whose first ``count`` elements are the positions the 1-D bool
    ``mask`` keeps, in order; ``count``, read to the host), or None for an empty mask or
    one past MASK_TILES_MAX tiles. mask_count writes each tile's count, mask_select each
    tile's positions and the total (hip/mask_select.hip); the storage holds the mask's
    length. ``runs``: None or an int64 storage of the mask's length that gets each
    element's kept count up to and including it, less one (unique's inverse). ``ends``:
    the mask is one element longer at each end, both kept (unique's run starts: ``mask``
    the n - 1 comparisons of neighbours, None where there are none; ``device`` its device)."""
    n = mask_layout.shape[0] + (2 if ends else 0)
    tiles = -(-n // MASK_TILE)
    if not selects(n):
        return None
    device = device or mask.device
    counts = device.storage_type.empty(device, dt.int64, tiles + 1)
    positions = device.storage_type.empty(device, dt.int64, n)
    source = (mask.ptr, mask_layout.offset, tuple(mask_layout.strides)) if mask is not None else (0, 0, (1,))
    operands = [source, (counts.ptr, 0, (1,)), (positions.ptr, 0, (1,))]
    scalars = struct.pack("<qq", tiles, int(ends))
    launch_ew(device, ("mask", "count"), (n,), operands, scalars, name="compress", blocks=lambda _: tiles)
    if runs is not None:
        operands.append((runs.ptr, 0, (1,)))
    launch_ew(device, ("mask", "select"), (n,), operands, scalars, name="compress", blocks=lambda _: tiles)
    return positions, int(to_host(counts, Layout((1,), (1,), tiles))[0])


def mask_ranks(mask, mask_layout):
    """The inclusive scan of the 1-D bool ``mask`` as int64 (contiguous): a kept
    element's 1-based rank among the kept, what every compress over the mask shares."""
    line = Layout.contiguous(tuple(mask_layout.shape))
    return scan(astype(mask, mask_layout, dt.int64), ScanOp.SUM, line, 0)


def read_count(ranks, n):
    """How many of the first ``n`` elements of the mask the ``ranks`` rank are kept (the host read)."""
    return int(to_host(ranks, Layout((1,), (1,), n - 1))[0]) if n else 0


def compact(x, layout, mask, mask_layout, ranks, count):
    """The ``count`` elements of the 1-D ``x[layout]`` that the 1-D bool ``mask`` keeps,
    packed in order by one launch (``ranks``: the mask's, ``mask_ranks``); ``x`` None:
    the kept positions (int64). Over the mask's first ``layout``'s length elements."""
    device = mask.device
    positions = x is None
    out = device.storage_type.empty(device, dt.int64 if positions else x.dtype, count)
    if count:
        n = mask_layout.shape[0] if positions else layout.shape[0]
        source = (0, 0, (0,)) if positions else operand(x, layout)
        launch_ew(device, ("compact", 8 if positions else x.dtype.itemsize), (n,),
                  [(out.ptr, 0, (1,)), (ranks.ptr, 0, (1,)), source,
                   (mask.ptr, mask_layout.offset, (mask_layout.strides[0],))],
                  flags=FLAG_A if positions else 0, name="compress")
    return out
