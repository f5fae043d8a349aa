"""[families] reduce: the reduction primitive, its kernel choice and its launches.

Every reduction is one launch (hip/reduce.hip says how the kernels work): ``rows`` when
the reduced elements are the closest in memory, else ``cols``; each in a ``_vec`` form
(unit-stride 16-byte loads, no index decoding, few registers) where the layout allows,
else the generic form (any strides). The launch geometry (groups, tiles, splits, grids
that fill the device in whole waves) is ``reduce_plan.py``'s, from the runtime's
occupancy query of each kernel. Split reductions meet in a last-block combine through
per-stream tickets and partials (``_Scratch``): a plan holds its stream's tickets, so plans
are kept per stream too (the stream's index ends their keys).
"""

from candlewick.errors import UnsupportedOperation
from candlewick.layout import Layout
from candlewick.shapes import shape_size
from candlewick.opdefs import ReduceOp

from ..abi.ew_operands import coalesce, pad_dims
from ..abi.structs import MAX_DIMS, REDUCE_ARGS
from .. import ops
from ..kernels import kernel
from ..runtime.launcher import PreparedLaunch
from ..storage_slice import DeviceBuffer
from . import reduce_plan
from .copies import copy, fill
from .reduce_plan import TICKETS, block_size, cols_plan, rows_plan

_EMPTY_RESULT = {ReduceOp.SUM: 0, ReduceOp.PROD: 1, ReduceOp.ANY: False, ReduceOp.ALL: True,
                 ReduceOp.COUNT_NONZERO: 0}
_PARTIAL_BYTES = 16  # >= sizeof every accumulator (cw_arg_acc<double> and cw_c128 are 16)
_SCRATCH_PARTIALS = 4 << 20  # bytes of partials kept per device (larger needs allocate)
_ONES = (1,) * MAX_DIMS
_ZEROS = (0,) * MAX_DIMS
# the whole-array contiguous reduction (sum(x) of a contiguous x): out_ndim 0, one unit-
# stride reduced axis; everything else of cw_reduce_args is zero and not read
_FLAT = REDUCE_ARGS.packer(["n_out", "n_red", "out_ndim", "red_ndim", "red_shape", "red_strides", "in",
                            "in_offset", "out", "partial", "tickets", "chunk", "splits", "vec", "group"])
# where the input pointer, its offset, the output pointer and the partials go in _values
_SRC = 4 + 4 * MAX_DIMS
# its fields from red_shape[1:] to red_strides[1:]: constant (one tuple, unpacked per launch)
_FLAT_MIDDLE = _ONES[1:] + (1,) + _ZEROS[1:]
_FLAT_SRC = 5 + len(_FLAT_MIDDLE)  # where _FLAT's values take the input pointer


# ---- device state: last-block counters and partials ------------------------------------------

class _Scratch:
    """Per stream of a device, for its lifetime: ``TICKETS`` zeroed uint32 counters (the
    kernels leave them at zero) and a partials area (kernels of one stream run one at a
    time, in stream order, so one area serves every launch on it; kernels of two streams
    may run at once, so each stream has its own)."""

    def __init__(self, device, record=None):
        self.buffer = DeviceBuffer.allocate(device, 4 * TICKETS + _SCRATCH_PARTIALS)
        self.buffer.memset(0, 4 * TICKETS)  # queued on the device stream
        self.tickets = self.buffer.ptr
        self.partials = self.buffer.ptr + 4 * TICKETS


def scratch(device):
    """The current stream's ``_Scratch`` (made on first use; ``device.py`` makes it before a
    graph capture)."""
    return device.stream_state("reductions", _Scratch)


def _partials(device, nbytes):
    """(pointer, keep-alive) of ``nbytes`` of partials for one launch."""
    s = scratch(device)
    if nbytes <= _SCRATCH_PARTIALS:
        return s.partials, None
    tmp = DeviceBuffer.allocate(device, nbytes)  # freed after queueing: stream order keeps it
    return tmp.ptr, tmp


def _kernel(device, shape, op, dtype, into=None):
    if into is not None:  # reduce_as: reading dtype, accumulating in and writing ``into``
        return kernel(device, ("reduce_as", shape, op._value_, dtype.name, into.name), op.value, dtype)
    return kernel(device, ("reduce", shape, op._value_, dtype.name), op.value, dtype)


# ---- launches -----------------------------------------------------------------------------

def _group(shape, strides):
    cshape, (cstrides,) = coalesce(tuple(shape), [tuple(strides)])
    return cshape, cstrides


def reduce(storage, op, layout, axes, into=None):
    """The ``reduce`` primitive; ``into`` (reduce_as): the dtype the kernels accumulate in
    and write, reading the input's (a pair of ``ops.REDUCE_AS_PAIRS``)."""
    if type(axes) is not tuple:  # the protocol's axes may be any sequence; plans key on a tuple
        axes = tuple(axes)
    dtype = storage.dtype
    device = storage.device
    ndim = len(layout.shape)
    n_red = layout.dense_size  # > 0: a known offset-0 C-contiguous layout, without its properties
    if (n_red > 0 or layout.is_contiguous) and len(axes) == ndim:  # sum(x): the host fast path
        n_red = n_red if n_red > 0 else shape_size(layout.shape)
        if n_red:
            out = device.storage_type.empty(device, op.result_dtype(dtype) if into is None else into, 1)
            _flat(device, op, dtype, storage, layout.offset, out, n_red, into)
            return out
    # every other reduction: planned once per layout (and the alignment its vector loads need)
    launches = device.launches
    key = ("reduce", op._value_, dtype.name, tuple(layout.shape), tuple(layout.strides), axes,
           (storage.ptr + layout.offset * dtype.itemsize) % 16, device._current.stream.index,
           None if into is None else into.name)
    plan = launches.get(key)
    if plan is None or plan[-1] != reduce_plan.TUNING:  # TUNING: a caller (the probe) may change it
        plan = launches.keep(key, _plan(device, op, dtype, storage, layout, axes, into))
    kind, out_dtype, n_out = plan[:3]
    if kind == "copy":  # more than MAX_DIMS dimensions after grouping: reduce a contiguous copy
        return reduce(copy(storage, layout), op, Layout.contiguous(layout.shape), axes, into)
    out = device.storage_type.empty(device, out_dtype, n_out)
    if kind == "launch":
        prepared, partial_bytes = plan[3:5]
        partial, keep = _partials(device, partial_bytes) if partial_bytes else (0, None)
        prepared.run(storage.ptr, layout.offset, out.ptr, partial)
        del keep
    elif kind == "fill":
        if op not in _EMPTY_RESULT:
            raise UnsupportedOperation(op.value, dtype, "rocm", "reduction over an empty set")
        fill(out, Layout.contiguous(plan[3]), _EMPTY_RESULT[op])
    return out


def _plan(device, op, dtype, src, layout, axes, into=None):
    """How ``reduce`` runs on this layout: ("launch", out dtype, n_out, the PreparedLaunch
    (filled with the input pointer and offset, the output pointer and the partials), the
    partials' bytes), ("empty", ...), ("fill", ..., out shape) or ("copy", ...); the TUNING
    it was planned for last."""
    out_dtype = op.result_dtype(dtype) if into is None else into
    tuning = dict(reduce_plan.TUNING)
    kept = [i for i in range(len(layout.shape)) if i not in axes]
    out_shape = tuple(layout.shape[i] for i in kept)
    n_out = shape_size(out_shape)
    n_red = shape_size(tuple(layout.shape[i] for i in axes))
    if n_out == 0:
        return "empty", out_dtype, n_out, tuning
    if n_red == 0:
        return "fill", out_dtype, n_out, out_shape, tuning
    out_dims = _group(out_shape, [layout.strides[i] for i in kept])
    red_dims = _group([layout.shape[i] for i in axes], [layout.strides[i] for i in axes])
    if op in (ReduceOp.ARGMIN, ReduceOp.ARGMAX):  # the index counts along the one axis
        red_dims = ((n_red,), (layout.strides[axes[0]],)) if len(axes) == 1 else red_dims
    if len(out_dims[0]) > MAX_DIMS or len(red_dims[0]) > MAX_DIMS:
        return "copy", out_dtype, n_out, tuning
    if _use_rows(out_dims, red_dims, n_out, n_red):
        kern, grid, block, values, partial_bytes = _rows_launch(device, op, dtype, out_dims, red_dims, n_out, n_red,
                                                                into)
    else:
        kern, grid, block, values, partial_bytes = _cols_launch(
            device, op, dtype, src.ptr + layout.offset * dtype.itemsize, out_dims, red_dims, n_out, n_red, into)
    prepared = PreparedLaunch(device.launcher, kern, grid, block, REDUCE_ARGS, values, range(_SRC, _SRC + 4))
    return "launch", out_dtype, n_out, prepared, partial_bytes, tuning


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


def _flat(device, op, dtype, src, offset, out, n_red, into=None):
    """Reduce all of a contiguous array into ``out``: one pack, one launch (its geometry
    and constant fields decided once per device, op, dtype, size and tuning)."""
    # keyed by interned strings and ints: enum and DType hashing are Python-level
    plan = device.launches.get(("reduce_flat", op._value_, dtype.name, n_red, device._current.stream.index)
                               if into is None else
                               ("reduce_flat", op._value_, dtype.name, n_red, device._current.stream.index, into.name))
    if plan is None or plan[-1] != reduce_plan.TUNING:  # TUNING: a caller (the probe) may change it
        plan = flat_plan(device, op, dtype, n_red, into)
    prepared, splits, _ = plan
    if splits == 1:
        prepared.run(src.ptr, offset, out.ptr, 0)
        return
    partial, keep = _partials(device, splits * _PARTIAL_BYTES)
    prepared.run(src.ptr, offset, out.ptr, partial)
    del keep


def flat_plan(device, op, dtype, n_red, into=None):
    """The launch of ``_flat`` for one op, dtype and size, planned now: (the
    PreparedLaunch, filled with the input pointer and offset, the output pointer and the
    partials; the splits; the TUNING it was planned for)."""
    kern = _kernel(device, "rows_vec", op, dtype, into)
    block = block_size()
    group, splits, chunk, grid = rows_plan(1, n_red, _vec_width(dtype), device.kernels.resident_blocks(kern, block),
                                           device.warp_size)
    values = (1, n_red, 0, 1, n_red) + _FLAT_MIDDLE + (0, 0, 0, 0) + (scratch(device).tickets, chunk, splits, 1, group)
    prepared = PreparedLaunch(device.launcher, kern, grid, block, REDUCE_ARGS, values, range(_FLAT_SRC, _FLAT_SRC + 4),
                              _FLAT)
    key = ("reduce_flat", op._value_, dtype.name, n_red, device._current.stream.index)
    return device.launches.keep(key if into is None else key + (into.name,),
                                (prepared, splits, dict(reduce_plan.TUNING)))


def _rows_launch(device, op, dtype, out_dims, red_dims, n_out, n_red, into=None):
    """(kernel, grid, block, values, partials' bytes) of the rows kernels."""
    fast = len(red_dims[0]) == 1 and red_dims[1][0] == 1 and len(out_dims[0]) <= 1
    kern = _kernel(device, "rows_vec" if fast else "rows", op, dtype, into)
    block = block_size()
    vw = _vec_width(dtype) if len(red_dims[0]) == 1 and red_dims[1][0] == 1 else 1
    group, splits, chunk, grid = rows_plan(n_out, n_red, vw, device.kernels.resident_blocks(kern, block),
                                           device.warp_size)
    values = _values(n_out, n_red, out_dims, red_dims, 0, 0, 0, 0, scratch(device).tickets, chunk, splits, 1, group)
    return kern, grid, block, values, 0 if splits == 1 else n_out * splits * _PARTIAL_BYTES


def _cols_vec(dtype, address, out_dims, red_dims, n_out):
    """Adjacent outputs per thread of the cols_vec kernel (one vector load per reduced
    element): 4 (or 2) when the reduced axis stride and the first element's ``address``
    allow aligned vectors; else 1."""
    size = dtype.itemsize
    for vec in (4, 2):
        if vec * size <= 16 and n_out % vec == 0 and red_dims[1][0] % vec == 0 and address % (vec * size) == 0:
            return vec
    return 1


def _cols_launch(device, op, dtype, address, out_dims, red_dims, n_out, n_red, into=None):
    """(kernel, grid, block, values, partials' bytes) of the cols kernels; ``address``: the
    first element's (its alignment decides the vector width)."""
    fast = len(out_dims[0]) == 1 and out_dims[1][0] == 1 and len(red_dims[0]) == 1
    vec = _cols_vec(dtype, address, out_dims, red_dims, n_out) if fast else 1
    kern = _kernel(device, "cols_vec" if fast else "cols", op, dtype, into)
    bx, by, splits, chunk, gx = cols_plan(n_out, n_red, vec, lambda threads: device.kernels.resident_blocks(kern, threads))
    values = _values(n_out, n_red, out_dims, red_dims, 0, 0, 0, 0, scratch(device).tickets, chunk, splits, vec, 1)
    return kern, (gx, splits, 1), (bx, by, 1), values, 0 if splits == 1 else n_out * splits * _PARTIAL_BYTES


# ---- the optional group "reduce_dtype" ------------------------------------------------------

_CONVERTING = frozenset((src.name, dst.name) for src, dst in ops.REDUCE_AS_PAIRS)


def reduce_as(storage, op, layout, axes, dtype):
    """``reduce`` of the input converted to ``dtype``: the kernels read the input's dtype and
    accumulate in ``dtype`` for the pairs of ``ops.REDUCE_AS_PAIRS`` (float32 into float64,
    the half dtypes into float32 or float64); any other pair is converted first (astype:
    the same values, with the converted copy)."""
    if op in _SUM_PROD and (storage.dtype.name, dtype.name) in _CONVERTING:
        return reduce(storage, op, layout, axes, dtype)
    return reduce(storage.astype(layout, dtype), op, Layout.contiguous(layout.shape), axes)


def scan_as(storage, op, layout, axis, dtype):
    """``scan`` of the input converted to ``dtype``: converted first (the scan kernels take
    one dtype)."""
    return storage.astype(layout, dtype).scan(op, Layout.contiguous(layout.shape), axis)


_SUM_PROD = (ReduceOp.SUM, ReduceOp.PROD)
