"""[families] Joins and compaction: concat (one output, a strided copy per operand) and compress
(the rows under a bool mask: their positions by ``kept_positions``, the rows gathered there).
``kept_positions`` is the one way to the positions a bool mask keeps (compress, unique's run
starts, nonzero): two launches that read the bool itself and one host read of their count;
a mask past MASK_TILES_MAX tiles: the mask's scan, the host read, one ``compact`` launch."""

import struct

from candlewick import dtypes as dt
from candlewick.errors import DTypeError
from candlewick.layout import Layout
from candlewick.shapes import shape_size
from candlewick.opdefs import BinaryOp, ScanOp

from ..abi.structs import EW_BLOCK
from ..ops import MASK_ITEMS
from .copies import assign, to_host
from .creation import full
from .ew_launch import launch_ew
from .elementwise import astype, binary_scalar
from .indexing import select_in_range
from .scans import scan

#: mask elements a block of mask_count/mask_select takes (hip/mask_select.hip)
MASK_TILE = MASK_ITEMS * EW_BLOCK
#: tiles up to which ``kept_positions`` runs: each mask_select block adds up the counts of
#: the tiles before its own (tiles^2 / 2 loads in all, 8 M at 4096 tiles, 16.7 M mask
#: elements); a longer mask goes through the scan (``_scanned_positions``)
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
    """(rows of ``x[layout]`` where the 1-D ``mask`` is True, their count): the kept
    positions (``kept_positions``: X[y == 1] of 200000 rows, 2 launches and the read
    against the scan's 6 and the read), then the rows there gathered (a scatter of whole
    rows sent every dropped row's elements to one spare row, and their stores to the same
    addresses queued: X[y == 1] of 200000 x 256 float32 took 1.54 ms on the H200, torch's 0.15)."""
    if not mask.dtype.is_bool:
        raise DTypeError(f"compress: mask has dtype {mask.dtype}, expected bool")
    device = x.device
    n = layout.shape[0]
    if n == 0:
        return device.storage_type.empty(device, x.dtype, 0), 0
    positions, count, _ = kept_positions(mask, Layout((n,), tuple(mask_layout.strides), mask_layout.offset))
    if count == 0 or layout.size == 0:
        return device.storage_type.empty(device, x.dtype, 0), count
    return select_in_range(x, layout, positions, Layout.contiguous((count,)), 0), count


def kept_positions(mask, mask_layout, runs=False, ends=False, device=None):
    """(int64 storage whose first ``count`` elements are the positions the 1-D bool
    ``mask`` keeps, in order; ``count``, read to the host; with ``runs`` an int64 storage of
    the mask's length holding each element's kept count up to and including it, less one
    (unique's inverse), else None). The mask has at least one element. Up to
    MASK_TILES_MAX tiles mask_count writes each tile's count, mask_select each tile's
    positions and the total (hip/mask_select.hip); the storage holds the mask's length.
    Past that the mask's scan (``_scanned_positions``). ``ends``: the mask is one element
    longer at each end, both kept (unique's run starts: ``mask`` the n - 1 comparisons of
    neighbours, None where there are none; ``device`` its device)."""
    n = mask_layout.shape[0] + (2 if ends else 0)
    device = device or mask.device
    tiles = -(-n // MASK_TILE)
    if tiles > MASK_TILES_MAX:
        return _scanned_positions(mask, mask_layout, n, runs, ends, device)
    counts = device.storage_type.empty(device, dt.int64, tiles + 1)
    positions = device.storage_type.empty(device, dt.int64, n)
    source = (mask.ptr, mask_layout.offset, tuple(mask_layout.strides)) if mask is not None else (0, 0, (1,))
    operands = [source, (counts.ptr, 0, (1,)), (positions.ptr, 0, (1,))]
    scalars = struct.pack("<qq", tiles, int(ends))
    launch_ew(device, ("mask", "count"), (n,), operands, scalars, name="compress", blocks=lambda _: tiles)
    ranks = device.storage_type.empty(device, dt.int64, n) if runs else None
    if ranks is not None:
        operands.append((ranks.ptr, 0, (1,)))
    launch_ew(device, ("mask", "select"), (n,), operands, scalars, name="compress", blocks=lambda _: tiles)
    return positions, int(to_host(counts, Layout((1,), (1,), tiles))[0]), ranks


def _scanned_positions(mask, mask_layout, n, runs, ends, device):
    """``kept_positions`` of a mask past MASK_TILES_MAX tiles: its inclusive scan as
    int64 (a kept element's 1-based rank), the last rank read to the host, the kept
    positions packed by one ``compact`` launch (the storage holds ``count``)."""
    line = Layout.contiguous((n,))
    if ends:  # the run starts' mask written out: True at both ends, the comparisons between
        flags = full(device, (n,), dt.bool_, True)
        if mask is not None:
            assign(flags, Layout((n - 2,), (1,), 1), mask, mask_layout)
        mask, mask_layout = flags, line
    ranks = scan(astype(mask, mask_layout, dt.int64), ScanOp.SUM, line, 0)
    count = int(to_host(ranks, Layout((1,), (1,), n - 1))[0])
    positions = device.storage_type.empty(device, dt.int64, count)
    if count:
        launch_ew(device, ("compact",), (n,),
                  [(positions.ptr, 0, (1,)), (ranks.ptr, 0, (1,)),
                   (mask.ptr, mask_layout.offset, (mask_layout.strides[0],))], name="compress")
    return positions, count, binary_scalar(ranks, BinaryOp.SUBTRACT, line, 1, False) if runs else None
