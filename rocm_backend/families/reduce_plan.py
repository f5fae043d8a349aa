"""[families] reduce: the launch geometry of the reduction kernels and their splits.

The choices here are all pure functions of the shape, the device and ``TUNING`` (so
tests can check them without a GPU):

* rows: the group (threads per output) and the splits (segments per output, combined
  by the last block of each output); cols: the tile width and height (threads along
  outputs and along the reduced axis) and the splits of the reduced axis;
* grids that fill the device in whole waves: the resident blocks per multiprocessor
  come from the runtime's occupancy query of each kernel (its register count decides).

``TUNING`` holds the knobs; ``CANDLEWICK_ROCM_REDUCE_VARIANT`` (read once at import,
e.g. ``"rows_group=64,cols_bx=64"``) overrides them, and so can a caller (a benchmark)
by assigning to the dict.
"""

import os
import warnings

from ..abi import structs

ENV = "CANDLEWICK_ROCM_REDUCE_VARIANT"
#: the launch-geometry knobs (bench/rocm_probe.py's ``reduce`` section measures them)
DEFAULT_TUNING = {
    "block": structs.EW_BLOCK,  # threads per block (at most the kernels' launch bound, EW_BLOCK)
    "all_waves": 1,  # sum of everything: segments = resident blocks x all_waves
    "rows_group": 0,  # threads per output of rows: 0 = from the shape, else a power of two
    "rows_waves": 1,  # rows: groups (and splits of few rows) sized to fill resident threads x rows_waves
    "cols_bx": 32,  # cols: threads along the outputs per block (power of two)
    "cols_waves": 1,  # cols: tiles x splits aim at resident blocks x cols_waves
    "seg_min": 4096,  # fewest reduced elements per segment of a split reduction
    "cols_rows_min": 16,  # fewest reduced elements per thread of a split cols reduction
    "cols_serial_max": 16,  # cols: at most this many reduced elements, one thread each (by = 1)
}


def parse_tuning(text, base=None):
    """``TUNING`` updated from "key=value,key=value" (unknown keys or bad values warn)."""
    tuning = dict(base or DEFAULT_TUNING)
    for part in filter(None, (p.strip() for p in (text or "").split(","))):
        key, _, value = part.partition("=")
        key = key.strip()
        try:
            if key not in DEFAULT_TUNING:
                raise KeyError(key)
            tuning[key] = int(value)
        except (KeyError, ValueError):
            warnings.warn(f"{ENV}: ignoring {part!r} (keys: {', '.join(DEFAULT_TUNING)})", stacklevel=2)
    return tuning


TUNING = parse_tuning(os.environ.get(ENV))

SEGMENT_ALIGN = 64  # segments start on multiples of this: their 16-byte vectors stay aligned
TICKETS = 1 << 14  # last-block counters per device (one per output or output tile)
GRID_CAP = structs.GRID_LOOP_CAP  # blocks per launch (the kernels loop over the rest)
SPLITS_CAP = structs.GRID_YZ_MAX  # cols: gridDim.y


def _pow2_floor(n):
    return 1 << (max(int(n), 1).bit_length() - 1)


def _pow2_ceil(n):
    return 1 << (max(int(n), 1) - 1).bit_length()


def wave_splits(n_items, max_splits, slots):
    """Segments per item so that n_items * splits blocks fill ``slots`` resident blocks in
    whole waves: the most splits that fit one wave when that fills 90% of it, else of the
    fewest waves (up to 8) that do (else the fullest); at most ``max_splits``. 1 when the
    items alone fill the device."""
    if n_items >= slots or max_splits <= 1:
        return 1
    best, best_eff = 1, 0.0
    for waves in range(1, 9):
        s = min(waves * slots // n_items, max_splits)
        blocks = n_items * s
        eff = blocks / (-(-blocks // slots) * slots)
        if eff > best_eff + 1e-9:
            best, best_eff = s, eff
        if eff >= 0.9 or s == max_splits:
            break
    return best


def _segments(n_red, splits, align):
    """(splits, chunk): ``splits`` segments of ``chunk`` elements (a multiple of ``align``
    when split), none empty."""
    if splits <= 1:
        return 1, n_red
    chunk = -(-n_red // splits)
    chunk = -(-chunk // align) * align
    return -(-n_red // chunk), chunk


def block_size(tuning=None):
    """Threads per block: ``tuning['block']`` as a power of two within the kernels'
    launch bound."""
    return min(_pow2_floor((tuning or TUNING)["block"]), structs.EW_BLOCK)


def rows_plan(n_out, n_red, vec_width, resident, warp, tuning=None):
    """(group, splits, chunk, grid) of a rows launch: ``resident`` blocks of
    ``block_size(tuning)`` threads fit on the device at once; ``vec_width`` elements per
    16-byte vector (1 for a strided reduced axis)."""
    t = tuning or TUNING
    block = block_size(t)
    if n_out == 1:
        splits = min(resident * t["all_waves"], n_red // t["seg_min"])
    elif n_out < resident and n_out <= TICKETS:
        splits = wave_splits(n_out, n_red // t["seg_min"], resident * t["rows_waves"])
    else:
        splits = 1
    splits, chunk = _segments(n_red, splits, SEGMENT_ALIGN)
    if splits > 1:
        group = block  # the block is the group: the last block combines a whole output
    elif t["rows_group"]:
        group = min(_pow2_floor(t["rows_group"]), block)
    else:
        most = min(_pow2_floor(max(n_red // (2 * vec_width), 1)), block)  # two vectors per thread at least
        group = _pow2_floor(resident * block * t["rows_waves"] // n_out)  # the outputs fill the device
        group = max(min(group, most), min(most, 8))  # 8 x 16 bytes: a group's loads stay coalesced
    if group > warp and group % warp:
        group = warp  # a group spans whole warps
    per_block = block // group
    grid = min(-(-(n_out * splits) // per_block), GRID_CAP)
    return group, splits, chunk, grid


def cols_plan(n_out, n_red, vec, resident_for, tuning=None):
    """(bx, by, splits, chunk, grid_x) of a cols launch: blocks of bx x by threads (bx
    along the ``n_out // vec`` output vectors, by interleaved along the reduced axis);
    ``resident_for(threads)`` gives the resident blocks of that many threads."""
    t = tuning or TUNING
    block = block_size(t)
    nthreads = n_out // vec
    bx = min(_pow2_floor(t["cols_bx"]), _pow2_ceil(nthreads), block)
    by = block // bx
    if n_red <= t["cols_serial_max"]:
        # a few elements per output (argmin over the 8 columns of a (200000, 8) matrix):
        # each thread reduces its outputs' elements alone, with no combine across y-lanes
        # through shared memory (a barrier per halving); one lane per element took 31 us
        # on the H200 for that argmin, torch's 20
        by = 1
        bx = min(block, _pow2_ceil(nthreads))
    elif by > _pow2_ceil(n_red):  # short reductions: wider tiles instead of idle y-lanes
        by = _pow2_ceil(n_red)
        bx = min(block // by, _pow2_ceil(nthreads))
    tiles = -(-nthreads // bx)
    slots = resident_for(bx * by) * t["cols_waves"]
    splits = 1
    if tiles <= TICKETS:
        splits = wave_splits(tiles, min(n_red // (by * t["cols_rows_min"]), SPLITS_CAP), slots)
    splits, chunk = _segments(n_red, splits, 1)
    return bx, by, splits, chunk, min(tiles, GRID_CAP)
