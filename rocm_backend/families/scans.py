"""[families] scan (cumulative sum and product along one axis): rows by groups of threads,
or tiles.

* Many rows, or short ones: ``cw_scan`` gives each row a group of threads (a power of
  two, ``threads_per_row``) that walks it in chunks of ``SCAN_ITEMS`` elements per
  thread with a running carry; a block holds ``EW_BLOCK / group`` rows, so short rows
  do not leave most of a block idle.
* Few long rows (each longer than one tile; at most ``TILED_ROWS_MAX`` rows, or
  ``TILED_STRIDED_ROWS_MAX`` when rows are strided along the axis): a few blocks
  would walk the rows alone and leave most of the device idle, so each row is
  cut into tiles of ``SCAN_TILE`` elements: one launch writes each tile's total, the
  totals are scanned (this same function, on their compute dtype), and a second launch
  scans every tile from the total of the tiles before it (hip/scan.hip).
* Complex products keep NumPy's left-to-right order: one thread per row.
"""

import struct

from candlewick import dtypes as dt
from candlewick.layout import Layout
from candlewick.shapes import contiguous_strides, shape_size
from candlewick.opdefs import ScanOp

from ..abi import structs
from ..abi.structs import FLAG_A, GRID_YZ_MAX, SCAN_ITEMS
from .ew_launch import launch_ew

#: elements per tile of the tiled scan and per block step of the row scan (CW_SCAN_TILE)
SCAN_TILE = structs.EW_BLOCK * SCAN_ITEMS
#: rows a block takes at most when rows are strided along the scanned axis (a scan
#: along a slow axis: the tile's loads run across neighbouring rows); fewer when that
#: would leave the device under STRIDED_BLOCKS_PER_SM blocks per multiprocessor
STRIDED_ROWS_MAX = 32
STRIDED_BLOCKS_PER_SM = 2
#: grid limits (x: rows, y: tiles); the kernel loops over what does not fit
GRID_CAP = (1 << 16, GRID_YZ_MAX)
#: rows up to which long rows are scanned in tiles, for unit-stride rows and for rows
#: strided along the axis (bench/rocm_probe.py's ``scan`` section measures both kernels)
TILED_ROWS_MAX = 4096
TILED_STRIDED_ROWS_MAX = 256
#: None, "rows" or "tiles": the kernel forced (tiles still only for rows longer than a
#: tile); FORCE_THREADS_PER_ROW: None or a power of two (tests, bench/rocm_probe_scan.py)
FORCE_KERNEL = None
FORCE_THREADS_PER_ROW = None

#: the dtype a scan computes in, which is what the tiles' totals are stored as
_COMPUTE = {dt.float16: dt.float32, dt.bfloat16: dt.float32}


def scan(storage, op, layout, axis):
    device = storage.device
    shape = tuple(layout.shape)
    out = device.storage_type.empty(device, storage.dtype, shape_size(shape))
    if out.size == 0:
        return out
    out_strides = contiguous_strides(shape)
    kept = [i for i in range(len(shape)) if i != axis]
    kept_shape = tuple(shape[i] for i in kept)
    length, rows = shape[axis], shape_size(kept_shape)
    operands = [(out.ptr, 0, tuple(out_strides[i] for i in kept)),
                (storage.ptr, layout.offset, tuple(layout.strides[i] for i in kept))]
    name = f"cumulative_{op.value}"
    if op is ScanOp.PROD and storage.dtype.is_complex:
        # complex products: NumPy's left-to-right order, one thread per row (a parallel
        # scan regroups the multiplications, and with inf/NaN factors that changes which
        # parts come out NaN, not only the rounding)
        launch_ew(device, ("scan_seq", op, storage.dtype), kept_shape, operands,
                  _scalars(length, layout.strides[axis], out_strides[axis]), name=name, dtype=storage.dtype)
    elif use_tiles(rows, length, layout.strides[axis]):
        _tiled(storage, op, kept_shape, operands, length, layout.strides[axis], out_strides[axis], name)
    else:
        group = threads_per_row(length, layout.strides[axis], rows, device.multiprocessors)
        per_block = structs.EW_BLOCK // group
        launch_ew(device, ("scan", op, storage.dtype), kept_shape, operands,
                  _scalars(length, layout.strides[axis], out_strides[axis], group), name=name,
                  dtype=storage.dtype, blocks=lambda n: min(-(-n // per_block), GRID_CAP[0]))
    return out


def use_tiles(rows, length, in_stride):
    """Whether rows of ``length`` go through the tiled scan rather than cw_scan."""
    if length <= SCAN_TILE:  # one tile: nothing to split (and the recursion on totals ends)
        return False
    if FORCE_KERNEL is not None:
        return FORCE_KERNEL == "tiles"
    return rows <= (TILED_ROWS_MAX if abs(in_stride) == 1 else TILED_STRIDED_ROWS_MAX)


def threads_per_row(length, in_stride, rows, multiprocessors):
    """Threads of a block that scan one row together: the power of two that covers the
    row in one step of ``SCAN_ITEMS`` elements each, at most a block. Rows strided along
    the axis take fewer, so that a block holds up to ``STRIDED_ROWS_MAX`` neighbouring
    rows, as long as the grid keeps ``STRIDED_BLOCKS_PER_SM`` blocks per multiprocessor."""
    if FORCE_THREADS_PER_ROW is not None:
        return FORCE_THREADS_PER_ROW
    group = min(structs.EW_BLOCK, 1 << max(0, (-(-length // SCAN_ITEMS) - 1).bit_length()))
    if abs(in_stride) != 1:
        strided = structs.EW_BLOCK // STRIDED_ROWS_MAX
        while strided < group and -(-rows * strided // structs.EW_BLOCK) < STRIDED_BLOCKS_PER_SM * multiprocessors:
            strided *= 2
        group = min(group, strided)
    return group


def _scalars(length, in_stride, out_stride, last=0):
    """The kernels' scalar slots; ``last``: threads per row (cw_scan) or tiles per row
    (cw_scan_tiles)."""
    return struct.pack("<qqqq", length, in_stride, out_stride, last)


def _tiled(storage, op, kept_shape, operands, length, in_stride, out_stride, name):
    device, dtype = storage.device, storage.dtype
    rows = shape_size(kept_shape)
    tiles = -(-length // SCAN_TILE)
    totals_dtype = _COMPUTE.get(dtype, dtype)
    totals = device.storage_type.empty(device, totals_dtype, rows * tiles)
    # the totals operand walks the kept axes like the rows (row r's tiles start at r * tiles)
    totals_strides = tuple(s * tiles for s in contiguous_strides(kept_shape))
    scalars = _scalars(length, in_stride, out_stride, tiles)
    grid = (min(rows, GRID_CAP[0]), min(tiles, GRID_CAP[1]), 1)
    key = ("scan_tiles", op, dtype)
    launch_ew(device, key, kept_shape, operands + [(totals.ptr, 0, totals_strides)], scalars,
              name=name, dtype=dtype, blocks=lambda n: grid)
    before = scan(totals, op, Layout.contiguous((rows, tiles)), 1)
    launch_ew(device, key, kept_shape, operands + [(before.ptr, 0, totals_strides)], scalars, FLAG_A,
              name=name, dtype=dtype, blocks=lambda n: grid)
