"""reduce: choosing the reduction kernel, its launch geometry and its splits.

Every reduction is one launch (hip/reduce.hip says how the kernels work). The choices
here, all pure functions of the shape, the device and ``TUNING`` (so tests can check
them without a GPU):

* the kernel: ``rows`` when the reduced elements are the closest in memory, else
  ``cols``; each in a ``_vec`` form (unit-stride 16-byte loads, no index decoding, few
  registers) where the layout allows, else the generic form (any strides);
* rows: the group (threads per output) and the splits (segments per output, combined
  by the last block of each output); cols: the tile width and height (threads along
  outputs and along the reduced axis) and the splits of the reduced axis;
* grids that fill the device in whole waves: the resident blocks per multiprocessor
  come from the runtime's occupancy query of each kernel (its register count decides).

``TUNING`` holds the knobs; ``CANDLEWICK_ROCM_REDUCE_VARIANT`` (read once at import,
e.g. ``"rows_group=64,cols_bx=64"``) overrides them, and so can a caller (e.g. the
probe in bench/rocm_probe.py) by assigning to the dict.
"""

import os
import threading
import warnings

from candlewick import dtypes as dt
from candlewick.errors import UnsupportedOperation
from candlewick.layout import Layout, shape_size
from candlewick.opdefs import ReduceOp

from . import ops
from .argpack import MAX_DIMS, REDUCE_ARGS, coalesce, pad_dims
from .kernels import runtime
from .storage import RocmStorage

ENV = "CANDLEWICK_ROCM_REDUCE_VARIANT"
#: the launch-geometry knobs (bench/rocm_probe.py's ``reduce`` section measures them)
DEFAULT_TUNING = {
    "block": ops.EW_BLOCK,  # threads per block (at most the kernels' launch bound, EW_BLOCK)
    "all_waves": 1,  # sum of everything: segments = resident blocks x all_waves
    "rows_group": 0,  # threads per output of rows: 0 = from the shape, else a power of two
    "rows_waves": 1,  # rows: groups (and splits of few rows) sized to fill resident threads x rows_waves
    "cols_bx": 32,  # cols: threads along the outputs per block (power of two)
    "cols_waves": 1,  # cols: tiles x splits aim at resident blocks x cols_waves
    "seg_min": 4096,  # fewest reduced elements per segment of a split reduction
    "cols_rows_min": 16,  # fewest reduced elements per thread of a split cols reduction
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

_EMPTY_RESULT = {ReduceOp.SUM: 0, ReduceOp.PROD: 1, ReduceOp.ANY: False, ReduceOp.ALL: True}
_PARTIAL_BYTES = 16  # >= sizeof every accumulator (cw_arg_acc<double> and cw_c128 are 16)
_SEGMENT_ALIGN = 64  # segments start on multiples of this: their 16-byte vectors stay aligned
_TICKETS = 1 << 14  # last-block counters per device (one per output or output tile)
_SCRATCH_PARTIALS = 4 << 20  # bytes of partials kept per device (larger needs allocate)
_GRID_CAP = 1 << 20  # blocks per launch (the kernels loop over the rest)
_SPLITS_CAP = 65535  # cols: gridDim.y
_ONES = (1,) * MAX_DIMS
_ZEROS = (0,) * MAX_DIMS
# the whole-array contiguous reduction (sum(x) of a contiguous x): out_ndim 0, one unit-
# stride reduced axis; everything else of cw_reduce_args is zero and not read
_FLAT = REDUCE_ARGS.packer(["n_out", "n_red", "out_ndim", "red_ndim", "red_shape", "red_strides", "in",
                            "in_offset", "out", "partial", "tickets", "chunk", "splits", "vec", "group"])
# its fields from red_shape[1:] to red_strides[1:]: constant (one tuple, unpacked per launch)
_FLAT_MIDDLE = _ONES[1:] + (1,) + _ZEROS[1:]


# ---- launch geometry (pure) ---------------------------------------------------------------

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
    return min(_pow2_floor((tuning or TUNING)["block"]), ops.EW_BLOCK)


def rows_plan(n_out, n_red, vec_width, resident, warp, tuning=None):
    """(group, splits, chunk, grid) of a rows launch: ``resident`` blocks of
    ``block_size(tuning)`` threads fit on the device at once; ``vec_width`` elements per
    16-byte vector (1 for a strided reduced axis)."""
    t = tuning or TUNING
    block = block_size(t)
    if n_out == 1:
        splits = min(resident * t["all_waves"], n_red // t["seg_min"])
    elif n_out < resident and n_out <= _TICKETS:
        splits = wave_splits(n_out, n_red // t["seg_min"], resident * t["rows_waves"])
    else:
        splits = 1
    splits, chunk = _segments(n_red, splits, _SEGMENT_ALIGN)
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
    grid = min(-(-(n_out * splits) // per_block), _GRID_CAP)
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
    if by > _pow2_ceil(n_red):  # short reductions: wider tiles instead of idle y-lanes
        by = _pow2_ceil(n_red)
        bx = min(block // by, _pow2_ceil(nthreads))
    tiles = -(-nthreads // bx)
    slots = resident_for(bx * by) * t["cols_waves"]
    splits = 1
    if tiles <= _TICKETS:
        splits = wave_splits(tiles, min(n_red // (by * t["cols_rows_min"]), _SPLITS_CAP), slots)
    splits, chunk = _segments(n_red, splits, 1)
    return bx, by, splits, chunk, min(tiles, _GRID_CAP)


# ---- device state: last-block counters, partials, occupancy ---------------------------------

class _Scratch:
    """Per device, for its lifetime: ``_TICKETS`` zeroed uint32 counters (the kernels
    leave them at zero) and a partials area (kernels of one device run one at a time, in
    stream order, so one area serves every launch)."""

    def __init__(self, device):
        self.storage = RocmStorage.empty(device, dt.uint8, 4 * _TICKETS + _SCRATCH_PARTIALS)
        self.storage.slice.memset(0, 4 * _TICKETS)  # queued on the device stream
        self.tickets = self.storage.ptr
        self.partials = self.storage.ptr + 4 * _TICKETS


_scratch_lock = threading.Lock()


def _scratch(device):
    s = getattr(device, "_reduce_scratch", None)
    if s is None:
        with _scratch_lock:
            s = getattr(device, "_reduce_scratch", None)
            if s is None:
                s = device._reduce_scratch = _Scratch(device)
    return s


def _partials(device, nbytes):
    """(pointer, keep-alive) of ``nbytes`` of partials for one launch."""
    s = _scratch(device)
    if nbytes <= _SCRATCH_PARTIALS:
        return s.partials, None
    tmp = RocmStorage.empty(device, dt.uint8, nbytes)  # freed after queueing: stream order keeps it
    return tmp.ptr, tmp


def resident_blocks(device, kernel, block):
    """Blocks of ``block`` threads of ``kernel`` resident on the whole device at once
    (the runtime's occupancy query, cached; 2048 threads per multiprocessor without one)."""
    cache = runtime(device).ew_cache
    key = ("reduce_resident", kernel.name, block)
    n = cache.get(key)
    if n is None:
        per_sm = 0
        try:
            from .device import hip_api

            status, per_sm = hip_api().hip.hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(kernel.fn, block, 0)
            per_sm = int(per_sm) if int(status) == 0 else 0
        except Exception:  # noqa: BLE001 (a runtime without the query: assume full occupancy)
            per_sm = 0
        if per_sm <= 0:
            per_sm = max(1, 2048 // block)
        n = cache[key] = per_sm * device.multiprocessors
    return n


def _kernel(device, shape, op, dtype):
    rt = runtime(device)
    key = ("reduce_" + shape, op._value_, dtype.name)
    k = rt.ew_cache.get(key)
    if k is None:
        k = rt.ew_cache[key] = rt.kernel(ops.lookup(("reduce", shape, op, dtype), op.value, dtype))
    return k


# ---- launches -----------------------------------------------------------------------------

def _group(shape, strides):
    cshape, (cstrides,) = coalesce(tuple(shape), [tuple(strides)])
    return cshape, cstrides


def reduce(storage, op, layout, axes):
    dtype = storage.dtype
    device = storage.device
    out_dtype = op.result_dtype(dtype)
    ndim = len(layout.shape)
    if layout.is_contiguous and len(axes) == ndim:  # sum(x): the host fast path
        n_red = shape_size(layout.shape)
        if n_red:
            out = RocmStorage.empty(device, out_dtype, 1)
            _flat(device, op, dtype, storage, layout.offset, out, n_red)
            return out
    kept = [i for i in range(ndim) if i not in axes]
    out_shape = tuple(layout.shape[i] for i in kept)
    n_out = shape_size(out_shape)
    n_red = shape_size(tuple(layout.shape[i] for i in axes))
    out = RocmStorage.empty(device, out_dtype, n_out)
    if n_out == 0:
        return out
    if n_red == 0:
        if op not in _EMPTY_RESULT:
            raise UnsupportedOperation(op.value, dtype, "rocm", "reduction over an empty set")
        out.fill(Layout.contiguous(out_shape), _EMPTY_RESULT[op])
        return out
    out_dims = _group(out_shape, [layout.strides[i] for i in kept])
    red_dims = _group([layout.shape[i] for i in axes], [layout.strides[i] for i in axes])
    if op in (ReduceOp.ARGMIN, ReduceOp.ARGMAX):  # the index counts along the one axis
        red_dims = ((n_red,), (layout.strides[axes[0]],)) if len(axes) == 1 else red_dims
    if len(out_dims[0]) > MAX_DIMS or len(red_dims[0]) > MAX_DIMS:
        storage = storage.copy(layout)
        return reduce(storage, op, Layout.contiguous(layout.shape), axes)
    if _use_rows(out_dims, red_dims, n_out, n_red):
        _launch_rows(device, op, dtype, storage, layout.offset, out, out_dims, red_dims, n_out, n_red)
    else:
        _launch_cols(device, op, dtype, storage, layout.offset, out, out_dims, red_dims, n_out, n_red)
    return out


def _use_rows(out_dims, red_dims, n_out, n_red):
    """One group of threads per output when the reduced elements are the closest in memory."""
    if n_out == 1:
        return True
    red_inner = min((abs(s) for s in red_dims[1]), default=0)
    out_inner = min((abs(s) for s in out_dims[1]), default=0)
    return red_inner <= out_inner and n_red >= 32


def _values(n_out, n_red, out_dims, red_dims, src_ptr, src_offset, dst_ptr, partial, tickets, chunk, splits,
            vec, group):
    return ([n_out, n_red, len(out_dims[0]), len(red_dims[0])]
            + pad_dims(out_dims[0], 1) + pad_dims(out_dims[1])
            + pad_dims(red_dims[0], 1) + pad_dims(red_dims[1])
            + [src_ptr, src_offset, dst_ptr, partial, tickets, chunk, splits, vec, group, 0])


def _vec_width(dtype):
    return max(1, 16 // dtype.itemsize)


_FLAT_PLANS = {}  # (device, op, dtype, n_red) -> the launch of _flat, and the TUNING it was planned for


def _flat(device, op, dtype, src, offset, out, n_red):
    """Reduce all of a contiguous array into ``out``: one pack, one launch (its geometry
    decided once per device, op, dtype, size and tuning)."""
    key = (device, op, dtype, n_red)
    plan = _FLAT_PLANS.get(key)
    if plan is None or plan[-1] != TUNING:  # TUNING: a caller (the probe) may change it
        kernel = _kernel(device, "rows_vec", op, dtype)
        block = block_size()
        group, splits, chunk, grid = rows_plan(1, n_red, _vec_width(dtype), resident_blocks(device, kernel, block),
                                               device.warp_size)
        if len(_FLAT_PLANS) >= 1024:
            _FLAT_PLANS.clear()
        plan = _FLAT_PLANS[key] = (runtime(device).launcher, kernel, block, group, splits, chunk, grid,
                                   _scratch(device).tickets, dict(TUNING))
    launcher, kernel, block, group, splits, chunk, grid, tickets, _ = plan
    partial, keep = (0, None) if splits == 1 else _partials(device, splits * _PARTIAL_BYTES)
    lock = REDUCE_ARGS.lock
    lock.acquire()  # acquire/release rather than `with`: half the cost (as storage.launch_contiguous)
    try:
        _FLAT.pack_into(REDUCE_ARGS.buffer, 0, 1, n_red, 0, 1, n_red, *_FLAT_MIDDLE, src.ptr, offset,
                        out.ptr, partial, tickets, chunk, splits, 1, group)
        launcher.launch_packed(kernel, grid, 1, 1, block, 1, 1, REDUCE_ARGS)
    finally:
        lock.release()
    del keep


def _launch_rows(device, op, dtype, src, offset, out, out_dims, red_dims, n_out, n_red):
    fast = len(red_dims[0]) == 1 and red_dims[1][0] == 1 and len(out_dims[0]) <= 1
    kernel = _kernel(device, "rows_vec" if fast else "rows", op, dtype)
    block = block_size()
    vw = _vec_width(dtype) if len(red_dims[0]) == 1 and red_dims[1][0] == 1 else 1
    group, splits, chunk, grid = rows_plan(n_out, n_red, vw, resident_blocks(device, kernel, block),
                                           device.warp_size)
    partial, keep = (0, None) if splits == 1 else _partials(device, n_out * splits * _PARTIAL_BYTES)
    runtime(device).launcher.launch(
        kernel, grid, 1, 1, block, 1, 1, REDUCE_ARGS,
        _values(n_out, n_red, out_dims, red_dims, src.ptr, offset, out.ptr, partial, _scratch(device).tickets,
                chunk, splits, 1, group))
    del keep


def _cols_vec(dtype, src, offset, out_dims, red_dims, n_out):
    """Adjacent outputs per thread of the cols_vec kernel (one vector load per reduced
    element): 4 (or 2) when the reduced axis stride and the first element allow aligned
    vectors; else 1."""
    size = dtype.itemsize
    for vec in (4, 2):
        if vec * size <= 16 and n_out % vec == 0 and red_dims[1][0] % vec == 0 \
                and (src.ptr + offset * size) % (vec * size) == 0:
            return vec
    return 1


def _launch_cols(device, op, dtype, src, offset, out, out_dims, red_dims, n_out, n_red):
    fast = len(out_dims[0]) == 1 and out_dims[1][0] == 1 and len(red_dims[0]) == 1
    vec = _cols_vec(dtype, src, offset, out_dims, red_dims, n_out) if fast else 1
    kernel = _kernel(device, "cols_vec" if fast else "cols", op, dtype)
    bx, by, splits, chunk, gx = cols_plan(n_out, n_red, vec, lambda threads: resident_blocks(device, kernel, threads))
    partial, keep = (0, None) if splits == 1 else _partials(device, n_out * splits * _PARTIAL_BYTES)
    runtime(device).launcher.launch(
        kernel, gx, splits, 1, bx, by, 1, REDUCE_ARGS,
        _values(n_out, n_red, out_dims, red_dims, src.ptr, offset, out.ptr, partial, _scratch(device).tickets,
                chunk, splits, vec, 1))
    del keep
