"""[families] Host reads and copies: to_host, assign (strided to strided, or a tiled transpose),
fill, copy, to_device (a peer copy to another device of the host), and real_view (a
complex storage's memory as its real components: no copy)."""

import functools
import struct

import numpy as np

from candlewick.allocation import check_host_allocation
from candlewick.dtypes import real_dtype_of
from candlewick.errors import UnsupportedOperation
from candlewick.layout import Layout
from candlewick.shapes import contiguous_strides, shape_size

from ..abi import structs
from ..abi.ew_operands import coalesce
from ..abi.structs import GRID_YZ_MAX, SCALAR_BYTES, TRANSPOSE_ARGS
from ..kernels import kernel
from ..runtime import peer
from .ew_launch import launch_ew, scalar_bytes

# a tiled transpose pays off once both sides of the tile have this many elements
_TRANSPOSE_MIN = 16


def operand(x, layout, strides=None):
    """(pointer, offset, strides) of storage ``x`` viewed by ``layout``."""
    return (x.ptr, layout.offset, tuple(layout.strides if strides is None else strides))


def out_operand(out, shape):
    return (out.ptr, 0, _out_strides(tuple(shape)))


# every strided launch's output strides: a pure function of shapes that repeat call after call
_out_strides = functools.lru_cache(maxsize=1024)(contiguous_strides)


def contiguous(shape):
    return Layout.contiguous(tuple(shape))


def overlap(a, b):
    """Do two layouts over one buffer touch a common element range (conservative)?"""
    if a.size == 0 or b.size == 0:
        return False
    lo_a, hi_a = a.span()
    lo_b, hi_b = b.span()
    return not (hi_a < lo_b or hi_b < lo_a)


@functools.lru_cache(maxsize=1024)  # a pure function of layouts that repeat call after call
def transposed_copy_plan(shape, dst_strides, src_strides):
    """(B, R, C, sB, sC) when copying into a contiguous destination is a batched
    transpose: after coalescing, the source has unit stride along the second-to-last
    axis (R) and the destination along the last (C), e.g. x.T or NCHW <-> NHWC.
    None when the generic strided copy is the better kernel."""
    cshape, (dst, src) = coalesce(tuple(shape), [tuple(dst_strides), tuple(src_strides)])
    if len(cshape) == 2:
        cshape, dst, src = (1,) + cshape, (0,) + dst, (0,) + src
    if len(cshape) != 3 or src[1] != 1 or dst[2] != 1:
        return None
    b, r, c = cshape
    if r < _TRANSPOSE_MIN or c < _TRANSPOSE_MIN:
        return None
    return b, r, c, src[0], src[2]


@functools.lru_cache(maxsize=1024)
def row_copy_plan(shape, dst_strides, src_strides):
    """(rows, row length, destination row stride, source row stride) when a strided copy
    is rows that are each one contiguous run on both sides (after coalescing: a pad's or
    a crop's copy), else None."""
    cshape, (dst, src) = coalesce(tuple(shape), [tuple(dst_strides), tuple(src_strides)])
    if len(cshape) == 1 and dst[0] == 1 and src[0] == 1:
        return 1, cshape[0], 0, 0  # one run: one row, whose strides are never read
    if len(cshape) != 2 or dst[1] != 1 or src[1] != 1:
        return None
    return cshape[0], cshape[1], dst[0], src[0]


def launch_row_copy(device, itemsize, rows, row, dst, dst_stride, src, src_stride, src_rows,
                    indices=None, idx_offset=0, idx_stride=0, name="copy", checked=True, keep=None):
    """Queue row_copy (elementwise.hip): ``rows`` rows of ``row`` elements from the byte
    address ``src`` (row stride ``src_stride`` elements; source row r, or ``indices[r]`` of
    the int64 storage ``indices``, checked against ``src_rows``) to the byte address ``dst``
    (row stride ``dst_stride``), in the widest unit of 16/8/4/2/1 bytes dividing the row,
    the strides and both addresses; not ``checked``: indices known to be in range, no flag.
    ``keep`` (no ``indices``): each source row holds that many elements, the rest of each
    destination row is written zero (a zero-padded copy)."""
    pad = keep is not None and keep < row
    unit, row_units, dst_units, packed = _row_units(itemsize, row, dst_stride, src_stride, src_rows,
                                                    keep if pad else idx_stride, (dst | src) & 15, pad)
    index_op = (0, 0, (0,)) if indices is None else (indices.ptr, idx_offset, (0,))
    flag = device.error_flag(name) if indices is not None and checked else 0
    launch_ew(device, ("row_copy", unit), (rows * row_units,),
              [(dst, 0, dst_units), (src, 0, (1,)), index_op, (flag, 0, (1,))], packed,
              flags=structs.FLAG_A if pad else 0, name=name)


@functools.lru_cache(maxsize=1024)  # a pad's or a crop's copy repeats its shapes call after call
def _row_units(itemsize, row, dst_stride, src_stride, src_rows, last, misalign, pad=False):
    """(unit, row length in units, destination strides in units, packed arguments) of a
    row copy whose two addresses are ``misalign`` (their OR, mod 16) off 16 bytes: the
    widest unit of 16/8/4/2/1 bytes dividing the row, both strides and both addresses
    (for powers of two, dividing both addresses is dividing their OR), and with ``pad``
    the source row's length ``last`` (else ``last`` is the indices' stride)."""
    sizes = (row * itemsize, dst_stride * itemsize, src_stride * itemsize, misalign) + ((last * itemsize,) if pad else ())
    unit = next(u for u in (16, 8, 4, 2, 1) if not any(v % u for v in sizes))
    row_units = row * itemsize // unit
    return (unit, row_units, (dst_stride * itemsize // unit,),
            struct.pack("<qqqq", src_stride * itemsize // unit, src_rows, row_units,
                        last * itemsize // unit if pad else last))


def launch_transpose(device, itemsize, plan, dst_ptr, dst_offset, src_ptr, src_offset):
    b, r, c, s_b, s_c = plan
    tile = structs.TRANSPOSE_TILE
    grid = (-(-c // tile), min(-(-r // tile), GRID_YZ_MAX), min(b, GRID_YZ_MAX))
    device.launcher.launch(kernel(device, ("transpose", itemsize)), grid, (tile, structs.TRANSPOSE_ROWS, 1),
                           TRANSPOSE_ARGS, (dst_ptr, src_ptr, dst_offset, src_offset, b, r, c, s_b, s_c))


def to_host(x, layout):
    check_host_allocation("to_host", layout.shape, x.dtype)  # not NumPy's MemoryError
    out = np.empty(layout.shape, dtype=x.dtype.numpy)
    if out.size == 0:
        x.device.synchronize()
        return out
    if layout.is_contiguous:
        return x.buffer.copy_to_host(out, layout.offset * x.dtype.itemsize)
    tmp = copy(x, layout)
    return tmp.buffer.copy_to_host(out)


def assign(x, dst_layout, src, src_layout):
    x.buffer.version += 1  # in place: voids what pad_fixup_cache learnt
    if src.dtype is not x.dtype:
        raise UnsupportedOperation("assign", src.dtype, "rocm", f"source dtype {src.dtype} differs from {x.dtype}")
    if src.buffer is x.buffer and overlap(dst_layout, src_layout):
        src, src_layout = copy(src, src_layout), contiguous(src_layout.shape)
    if dst_layout.is_contiguous and src_layout.is_contiguous:
        n = shape_size(dst_layout.shape)
        if n:
            x.device.ew_contiguous(kernel(x.device, ("copy", x.dtype.itemsize)), n,
                                   (x.ptr, dst_layout.offset, src.ptr, src_layout.offset))
        return
    if dst_layout.is_contiguous:
        plan = transposed_copy_plan(tuple(dst_layout.shape), contiguous_strides(dst_layout.shape), tuple(src_layout.strides))
        if plan is not None:
            launch_transpose(x.device, x.dtype.itemsize, plan, x.ptr, dst_layout.offset, src.ptr,
                             src_layout.offset)
            return
    rows = row_copy_plan(tuple(dst_layout.shape), tuple(dst_layout.strides), tuple(src_layout.strides))
    if rows is not None:  # a pad's or a crop's rows: whole units, no per-element decode
        item = x.dtype.itemsize
        launch_row_copy(x.device, item, rows[0], rows[1], x.ptr + dst_layout.offset * item, rows[2],
                        src.ptr + src_layout.offset * item, rows[3], rows[0])
        return
    launch_ew(x.device, ("copy", x.dtype.itemsize), dst_layout.shape,
              [operand(x, dst_layout), operand(src, src_layout)])


def padded_copy(x, layout, shape):
    """A new C-contiguous storage of ``shape``: the elements ``layout`` views in its leading
    corner (``layout.shape`` no longer than ``shape`` along any axis), zeros elsewhere. Where
    only the last axis is padded and the source's rows are runs, one zero-padding row copy
    (no fill of the whole buffer before the copy: an fft's padded input, fft_pad); else a
    fill and the strided copy."""
    shape = tuple(shape)
    out = x.device.storage_type.empty(x.device, x.dtype, shape_size(shape))
    if not out.size:
        return out
    strides = contiguous_strides(shape)
    rows = None
    if layout.size and tuple(layout.shape[:-1]) == shape[:-1]:
        rows = row_copy_plan(tuple(layout.shape), strides, tuple(layout.strides))
    if rows is not None and rows[1] == layout.shape[-1] and (rows[2] == shape[-1] or rows[0] == 1):
        item = x.dtype.itemsize
        launch_row_copy(x.device, item, rows[0], shape[-1], out.ptr, rows[2], x.ptr + layout.offset * item, rows[3],
                        rows[0], keep=rows[1])
        return out
    out.buffer.memset(0)
    if layout.size:
        assign(out, Layout(tuple(layout.shape), strides, 0), x, layout)
    return out


def fill(x, layout, value):
    x.buffer.version += 1  # in place: voids what pad_fixup_cache learnt
    bits = scalar_bytes(value, x.dtype)
    if layout.is_contiguous:
        n = shape_size(layout.shape)
        if n:
            x.device.ew_contiguous(kernel(x.device, ("fill", x.dtype.itemsize)), n, (x.ptr, layout.offset),
                                   bits.ljust(SCALAR_BYTES, b"\0"))
        return
    launch_ew(x.device, ("fill", x.dtype.itemsize), layout.shape, [operand(x, layout)], bits)


def copy(x, layout):
    """A new contiguous storage holding ``x`` as ``layout`` views it."""
    out = x.device.storage_type.empty(x.device, x.dtype, shape_size(layout.shape))
    if layout.is_contiguous:
        out.buffer.copy_from_device(x.buffer, out.size * x.dtype.itemsize, 0, layout.offset * x.dtype.itemsize)
        return out
    assign(out, contiguous(layout.shape), x, layout)  # the strided / transposing copy
    return out


def to_device(x, layout, device):
    """The elements ``layout`` views, contiguous, on another rocm ``device`` of this host,
    by a peer copy (``runtime/peer.py``); None when ``device`` is no rocm device or the
    pair has no peer access: the caller then copies through the host."""
    if not isinstance(device, type(x.device)) or device.same_device(x.device):
        return None
    if not peer.peer_access(device, x.device):
        return None
    src, offset = x, layout.offset
    if not layout.is_contiguous:
        src, offset = copy(x, layout), 0
    n = shape_size(layout.shape)
    out = device.storage_type.empty(device, x.dtype, n)
    peer.copy(out.buffer, src.buffer, n * x.dtype.itemsize, offset * x.dtype.itemsize)
    return out


def real_view(x):
    """The optional hook ``candlewick.backend.ComplexViewStorage``: complex storage ``x``'s
    buffer as ``2 * x.size`` elements of its component dtype (the same device pointer: the
    strided kernels read the parts' layouts, strides and offset doubled). The buffer is
    shared, so assign's overlap check (one buffer) and the buffer's write ``version`` cover
    writes through the view and into x alike."""
    return type(x)(x.buffer, real_dtype_of(x.dtype), 2 * x.size)
