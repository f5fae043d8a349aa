"""reduce and scan: choosing the reduction kernel shape and the two-pass split."""

import struct

from candlewick import dtypes as dt
from candlewick.errors import UnsupportedOperation
from candlewick.layout import contiguous_strides, shape_size
from candlewick.opdefs import ReduceOp, ScanOp

from . import ops
from .argpack import MAX_DIMS, REDUCE_ARGS, coalesce, pad_dims
from .kernels import runtime
from .storage import RocmStorage, launch_ew

_EMPTY_RESULT = {ReduceOp.SUM: 0, ReduceOp.PROD: 1, ReduceOp.ANY: False, ReduceOp.ALL: True}
_PARTIAL_BYTES = 32  # >= sizeof every accumulator (cw_arg_acc<double> is 16)
_SEGMENT_MIN = 4096  # reduced elements per block worth a second pass
_SEGMENT_ALIGN = 256  # segments start on multiples of this: their vector loads stay aligned
_ONES = (1,) * MAX_DIMS
_ZEROS = (0,) * MAX_DIMS
# the whole-array contiguous reduction (sum(x) of a contiguous x): out_ndim 0, one unit-
# stride reduced axis; everything else of cw_reduce_args is zero and not read
_FLAT = REDUCE_ARGS.packer(["n_out", "n_red", "out_ndim", "red_ndim", "red_shape", "red_strides", "in",
                            "in_offset", "out", "chunk", "splits", "stage", "vec"])


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
        from candlewick.layout import Layout

        out.fill(Layout.contiguous(out_shape), _EMPTY_RESULT[op])
        return out
    out_dims = _group(out_shape, [layout.strides[i] for i in kept])
    red_dims = _group([layout.shape[i] for i in axes], [layout.strides[i] for i in axes])
    if op in (ReduceOp.ARGMIN, ReduceOp.ARGMAX):  # the index counts along the one axis
        red_dims = ((n_red,), (layout.strides[axes[0]],)) if len(axes) == 1 else red_dims
    if len(out_dims[0]) > MAX_DIMS or len(red_dims[0]) > MAX_DIMS:
        storage = storage.copy(layout)
        from candlewick.layout import Layout

        return reduce(storage, op, Layout.contiguous(layout.shape), axes)
    rows = _use_rows(out_dims, red_dims, n_out, n_red)
    _launch_reduce(device, op, dtype, storage, layout.offset, out, out_dims, red_dims, n_out, n_red, rows)
    return out


def _use_rows(out_dims, red_dims, n_out, n_red):
    """One block per output when the reduced elements are the closest in memory."""
    if n_out == 1:
        return True
    red_inner = min((abs(s) for s in red_dims[1]), default=0)
    out_inner = min((abs(s) for s in out_dims[1]), default=0)
    return red_inner <= out_inner and n_red >= 32


def _values(n_out, n_red, out_dims, red_dims, src_ptr, src_offset, dst_ptr, chunk, splits, stage, vec=1):
    return ([n_out, n_red, len(out_dims[0]), len(red_dims[0])]
            + pad_dims(out_dims[0], 1) + pad_dims(out_dims[1])
            + pad_dims(red_dims[0], 1) + pad_dims(red_dims[1])
            + [src_ptr, src_offset, dst_ptr, chunk, splits, stage, vec, 0])


def _row_splits(device, n_out, n_red):
    """(splits, chunk) of the rows kernel: enough blocks to fill the device, segments of
    at least _SEGMENT_MIN elements starting on multiples of _SEGMENT_ALIGN."""
    target_blocks = device.multiprocessors * 8
    splits = 1
    if n_out < target_blocks and n_red >= 2 * _SEGMENT_MIN:
        splits = min(-(-target_blocks // n_out), n_red // _SEGMENT_MIN)
    chunk = -(-n_red // splits)
    if splits > 1:
        chunk = -(-chunk // _SEGMENT_ALIGN) * _SEGMENT_ALIGN
    return -(-n_red // chunk), chunk


def _flat(device, op, dtype, src, offset, out, n_red):
    """Reduce all of a contiguous array into ``out`` (one pack per launch)."""
    rt = runtime(device)
    kernel = rt.ew_cache.get(("reduce_rows", op._value_, dtype.name))
    if kernel is None:
        kernel = rt.ew_cache[("reduce_rows", op._value_, dtype.name)] = rt.kernel(
            ops.lookup(("reduce", "rows", op, dtype), op.value, dtype))
    launcher = rt.launcher
    splits, chunk = _row_splits(device, 1, n_red)
    red_shape = (n_red,) + _ONES[1:]
    red_strides = (1,) + _ZEROS[1:]
    dst = out if splits == 1 else RocmStorage.empty(device, dt.uint8, splits * _PARTIAL_BYTES)
    with REDUCE_ARGS.lock:
        _FLAT.pack_into(REDUCE_ARGS.buffer, 0, 1, n_red, 0, 1, *red_shape, *red_strides, src.ptr, offset,
                        dst.ptr, chunk, splits, 1 if splits > 1 else 0, 1)
        launcher.launch_packed(kernel, splits, 1, 1, kernel.block, 1, 1, REDUCE_ARGS)
    if splits > 1:
        _combine_rows(rt, op, dtype, dst, out, 1, splits)


def _combine_rows(rt, op, dtype, partial, out, n_out, splits):
    """Second pass over rows partials [n_out][splits]: one block per output."""
    combine = ops.lookup(("reduce", "rows", op, dtype), op.value, dtype)
    rt.launch(combine, min(n_out, 1 << 20),
              _values(n_out, splits, ((n_out,), (splits,)), ((splits,), (1,)), partial.ptr, 0,
                      out.ptr, splits, 1, 2))


def _cols_vec(dtype, src, offset, out_dims, red_dims, n_out):
    """Adjacent outputs per thread of the cols kernel (one vector load per reduced
    element): 4 (or 2) when the outputs are one unit-stride axis, the reduced axis stride
    and the first element allow aligned vectors; else 1."""
    if len(out_dims[0]) != 1 or out_dims[1][0] != 1 or len(red_dims[0]) != 1:
        return 1
    size = dtype.itemsize
    for vec in (4, 2):
        if vec * size <= 16 and n_out % vec == 0 and red_dims[1][0] % vec == 0 \
                and (src.ptr + offset * size) % (vec * size) == 0:
            return vec
    return 1


def _launch_reduce(device, op, dtype, src, offset, out, out_dims, red_dims, n_out, n_red, rows):
    rt = runtime(device)
    if rows:
        spec = ops.lookup(("reduce", "rows", op, dtype), op.value, dtype)
        splits, chunk = _row_splits(device, n_out, n_red)
        grid = lambda total: min(total, 1 << 20)  # noqa: E731 (blocks loop over the rest)
        if splits == 1:
            rt.launch(spec, grid(n_out), _values(n_out, n_red, out_dims, red_dims, src.ptr, offset,
                                                 out.ptr, chunk, 1, 0))
            return
        partial = RocmStorage.empty(device, dt.uint8, n_out * splits * _PARTIAL_BYTES)
        rt.launch(spec, grid(n_out * splits), _values(n_out, n_red, out_dims, red_dims, src.ptr, offset,
                                                      partial.ptr, chunk, splits, 1))
        _combine_rows(rt, op, dtype, partial, out, n_out, splits)
        return
    spec = ops.lookup(("reduce", "cols", op, dtype), op.value, dtype)
    block = spec.block
    vec = _cols_vec(dtype, src, offset, out_dims, red_dims, n_out)
    threads = n_out // vec
    threads_wanted = device.multiprocessors * 2048
    splits = 1
    if threads < threads_wanted and n_red >= 256:
        splits = min(-(-threads_wanted // threads), n_red // 64, 65535)
    chunk = -(-n_red // splits)
    splits = -(-n_red // chunk)
    gx = min(-(-threads // block), 1 << 20)
    if splits == 1:
        rt.launch(spec, (gx, 1, 1), _values(n_out, n_red, out_dims, red_dims, src.ptr, offset,
                                            out.ptr, chunk, 1, 0, vec))
        return
    partial = RocmStorage.empty(device, dt.uint8, n_out * splits * _PARTIAL_BYTES)
    rt.launch(spec, (gx, splits, 1), _values(n_out, n_red, out_dims, red_dims, src.ptr, offset,
                                             partial.ptr, chunk, splits, 1, vec))
    # second pass: partials [splits][n_out], one coalesced thread per output
    rt.launch(spec, (min(-(-n_out // block), 1 << 20), 1, 1),
              _values(n_out, splits, ((n_out,), (1,)), ((splits,), (n_out,)), partial.ptr, 0,
                      out.ptr, splits, 1, 2))


def scan(storage, op, layout, axis):
    device = storage.device
    shape = tuple(layout.shape)
    out = RocmStorage.empty(device, storage.dtype, shape_size(shape))
    if out.size == 0:
        return out
    out_strides = contiguous_strides(shape)
    kept = [i for i in range(len(shape)) if i != axis]
    kept_shape = tuple(shape[i] for i in kept)
    packed = struct.pack("<qqq", shape[axis], layout.strides[axis], out_strides[axis])
    if op is ScanOp.PROD and storage.dtype.is_complex:
        # complex products: NumPy's left-to-right order, one thread per row (a parallel
        # scan regroups the multiplications, and with inf/NaN factors that changes which
        # parts come out NaN, not only the rounding)
        launch_ew(device, ("scan_seq", op, storage.dtype), kept_shape,
                  [(out.ptr, 0, tuple(out_strides[i] for i in kept)),
                   (storage.ptr, layout.offset, tuple(layout.strides[i] for i in kept))],
                  packed, name=f"cumulative_{op.value}", dtype=storage.dtype)
        return out
    launch_ew(device, ("scan", op, storage.dtype), kept_shape,
              [(out.ptr, 0, tuple(out_strides[i] for i in kept)),
               (storage.ptr, layout.offset, tuple(layout.strides[i] for i in kept))],
              packed, name=f"cumulative_{op.value}", dtype=storage.dtype,
              blocks=lambda rows: min(rows, 1 << 16))  # one block per row
    return out
