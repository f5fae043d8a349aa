"""scan (cumulative sum and product along one axis): one block per row, or tiles.

* Many rows, or short ones: ``cw_scan`` gives each row a block that walks it in steps
  of a block's width with a running carry.
* Few long rows (at most ``TILED_ROWS_MAX`` rows, each longer than one tile): a block
  per row would leave most of the device idle and walk the row alone, so each row is
  cut into tiles of ``SCAN_TILE`` elements: one launch writes each tile's total, the
  totals are scanned (this same function, on their compute dtype), and a second launch
  scans every tile from the total of the tiles before it (hip/scan.hip).
* Complex products keep NumPy's left-to-right order: one thread per row.
"""

import struct

from candlewick import dtypes as dt
from candlewick.layout import Layout, contiguous_strides, shape_size
from candlewick.opdefs import ScanOp

from . import ops
from .argpack import FLAG_A
from .storage import RocmStorage, launch_ew

#: elements per tile of the tiled scan (CW_SCAN_TILE in hip/scan.hip)
SCAN_TILE = ops.EW_BLOCK * 8
#: grid limits (x: rows, y: tiles); the kernel loops over what does not fit
GRID_CAP = (1 << 16, 65535)
#: rows up to which long rows are scanned in tiles (bench/rocm_probe.py's ``scan``
#: section measures both kernels); a module attribute so the probe can move it
TILED_ROWS_MAX = 256

#: the dtype a scan computes in, which is what the tiles' totals are stored as
_COMPUTE = {dt.float16: dt.float32, dt.bfloat16: dt.float32}


def scan(storage, op, layout, axis):
    device = storage.device
    shape = tuple(layout.shape)
    out = RocmStorage.empty(device, storage.dtype, shape_size(shape))
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
    elif rows <= TILED_ROWS_MAX and length > SCAN_TILE:
        _tiled(storage, op, kept_shape, operands, length, layout.strides[axis], out_strides[axis], name)
    else:
        launch_ew(device, ("scan", op, storage.dtype), kept_shape, operands,
                  _scalars(length, layout.strides[axis], out_strides[axis]), name=name, dtype=storage.dtype,
                  blocks=lambda n: min(n, GRID_CAP[0]))  # one block per row
    return out


def _scalars(length, in_stride, out_stride, tiles=0):
    return struct.pack("<qqqq", length, in_stride, out_stride, tiles)


def _tiled(storage, op, kept_shape, operands, length, in_stride, out_stride, name):
    device, dtype = storage.device, storage.dtype
    rows = shape_size(kept_shape)
    tiles = -(-length // SCAN_TILE)
    totals_dtype = _COMPUTE.get(dtype, dtype)
    totals = RocmStorage.empty(device, totals_dtype, rows * tiles)
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
