"""RocmStorage: the BackendStorage of the ROCm backend.

Host transfer, in-place writes and element-wise primitives are here; reductions live in
``reductions.py``, scans in ``scans.py``, indexing/sorting in ``indexing.py``, GEMM in
``rocblas.py``. Every primitive queues kernels on the device stream and returns at once.
"""

import numpy as np

from candlewick import dtypes as dt
from candlewick.backend import OPTIONAL_PRIMITIVES
from candlewick.errors import UnsupportedOperation
from candlewick.layout import contiguous_strides, shape_size

from . import fft as _fft
from . import linalg as _linalg
from . import linalg_spectral as _spectral
from . import ops
from .argpack import (CONTIGUOUS, EW_ARGS, FLAG_A, FLAG_B, INDEX32, SCALAR_BYTES, coalesce, ew_values,
                      split_dims)
from .kernels import grid_for, runtime
from .storage_slice import StorageSlice

# The contiguous fast path packs only these fields (the kernels' CW_CONTIGUOUS path
# reads nothing else) with one pack_into; see hip/elementwise.hip.
_EW_CONTIG = EW_ARGS.packer(["n", "ndim", "flags"] + [f"op{k}_{f}" for k in range(4) for f in ("ptr", "offset")]
                            + ["scalar"])
_EW_ACQUIRE, _EW_RELEASE = EW_ARGS.lock.acquire, EW_ARGS.lock.release
_EW_BUFFER = EW_ARGS.buffer
_EW_EXTRA = EW_ARGS.extra_arg
_NO_SCALAR = bytes(SCALAR_BYTES)
_INDEX32_LIMIT = 1 << 31
_CONTIG_INDEX32 = CONTIGUOUS | INDEX32
# elements one thread handles per grid-stride step on the contiguous path (a 16-byte
# vector of float32, two per step): sizes the grid so small arrays get few blocks
_EW_ITEMS_PER_THREAD = 8
# threads per block of the contiguous path (the kernels' launch bound is ops.EW_BLOCK):
# exp f32 measured 128.0 / 504.4 us on the device at 2^26 / 2^28 with 128, 130.7 / 516.9
# with 256, torch 127.9 / 505.5 (H200 through the shim, bench/results/rocm_probe_*session3*)
_EW_CONTIG_BLOCK = 128


def compute_dtype(dtype):
    """The dtype kernels compute in: float16/bfloat16 compute in float32."""
    return dt.float32 if dtype in (dt.float16, dt.bfloat16) else dtype


def scalar_bytes(value, dtype):
    """Raw bits of a scalar in ``dtype``, for a 16-byte scalar slot."""
    return np.asarray(value).astype(dtype.numpy).tobytes().ljust(16, b"\0")


def launch_ew(device, key, shape, operands, scalar=b"", flags=0, name=None, dtype=None, blocks=None):
    """Launch an element-wise kernel of the table over ``shape`` (split if > 8 dims).
    ``blocks(n)`` overrides the grid (kernels that give a whole block to each item)."""
    spec = ops.lookup(key, name, dtype)
    rt = runtime(device)
    for piece_shape, piece_ops in split_dims(tuple(shape), operands):
        n = shape_size(piece_shape)
        if n == 0:
            continue
        values = ew_values(piece_shape, piece_ops, scalar, flags)
        rt.launch(spec, blocks(n) if blocks else grid_for(n, spec.block, device), values)


def ew_kernel(device, family, op, dtype):
    """(BoundKernel, result dtype) of an element-wise op of the table: after the first
    call, one dict hit on a key of interned strings (enum and DType hashing are
    Python-level and cost more than the rest of the lookup)."""
    rt = runtime(device)
    key = (family, op._value_, dtype.name)
    hit = rt.ew_cache.get(key)
    if hit is None:
        spec = ops.lookup((family, op, dtype), op.value, dtype)
        out = dt.bool_ if family == "compare" else op.result_dtype(dtype)
        hit = rt.ew_cache[key] = (rt.kernel(spec), out)
    return hit


def raw_kernel(device, key):
    """BoundKernel of a dtype-agnostic kernel (copy, fill, where by item size), cached."""
    rt = runtime(device)
    k = rt.ew_cache.get(key)
    if k is None:
        k = rt.ew_cache[key] = rt.kernel(ops.lookup(key))
    return k


def launch_contiguous(device, kernel, n, p0, o0, p1=0, o1=0, p2=0, o2=0, p3=0, o3=0,
                      scalar=_NO_SCALAR, flags=0):
    """Queue an element-wise kernel whose operands are all C-contiguous over the same
    ``n`` elements (operand k at pointer pk, element offset ok; pointer 0 = scalar slot).
    The host hot path of every small op: no shape/stride work, one pack, one launch."""
    launcher = device._kernel_runtime.launcher
    block = _EW_CONTIG_BLOCK
    grid = (n + block * _EW_ITEMS_PER_THREAD - 1) // (block * _EW_ITEMS_PER_THREAD)
    if grid > device.ew_grid_cap:
        grid = device.ew_grid_cap
    flags |= _CONTIG_INDEX32 if n < _INDEX32_LIMIT else CONTIGUOUS
    raw = launcher.raw
    _EW_ACQUIRE()  # acquire/release rather than `with`: half the cost
    try:
        _EW_CONTIG.pack_into(_EW_BUFFER, 0, n, 1, flags, p0, o0, p1, o1, p2, o2, p3, o3, scalar)
        if raw is not None and kernel.fn_arg is not None:  # launch.py's ctypes path, inlined
            status = raw(kernel.fn_arg, grid, 1, 1, block, 1, 1, 0, launcher.stream_arg, None, _EW_EXTRA)
            if status:
                launcher.fail(kernel, status)
        else:
            launcher.launch_packed(kernel, grid, 1, 1, block, 1, 1, EW_ARGS)
    finally:
        _EW_RELEASE()


# a tiled transpose pays off once both sides of the tile have this many elements
_TRANSPOSE_MIN = 16


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


def launch_transpose(device, itemsize, plan, dst_ptr, dst_offset, src_ptr, src_offset):
    b, r, c, s_b, s_c = plan
    tile = ops.TRANSPOSE_TILE
    rt = runtime(device)
    spec = ops.lookup(("transpose", itemsize))
    grid = (-(-c // tile), min(-(-r // tile), 65535), min(b, 65535))
    rt.launch(spec, grid, (dst_ptr, src_ptr, dst_offset, src_offset, b, r, c, s_b, s_c),
              block=(tile, ops.TRANSPOSE_ROWS, 1))


class RocmStorage:
    """A flat device buffer of one dtype (``size`` elements)."""

    __slots__ = ("slice", "dtype", "device", "size", "ptr")

    def __init__(self, slice_, dtype, size):
        self.slice = slice_
        self.dtype = dtype
        self.device = slice_.device
        self.size = size
        self.ptr = slice_.ptr  # read on every launch: a plain slot, not a property

    @classmethod
    def empty(cls, device, dtype, size):
        nbytes = size * dtype.itemsize
        ptr, capacity = device.allocator.allocate(nbytes)
        return cls(StorageSlice(device, ptr, nbytes, capacity, dtype), dtype, size)

    def __repr__(self):
        return f"RocmStorage({self.device.name}, {self.dtype}, size={self.size})"

    def operand(self, layout, strides=None):
        """(pointer, offset, strides) of this storage viewed by ``layout``."""
        return (self.ptr, layout.offset, tuple(layout.strides if strides is None else strides))

    def _new(self, shape, dtype=None):
        return RocmStorage.empty(self.device, dtype or self.dtype, shape_size(shape))

    @staticmethod
    def out_operand(out, shape):
        return (out.ptr, 0, contiguous_strides(tuple(shape)))

    def _unsupported(self, op, dtype=None, detail=""):
        return UnsupportedOperation(op, dtype or self.dtype, "rocm", detail)

    # --- host transfer -----------------------------------------------------
    def to_host(self, layout):
        out = np.empty(layout.shape, dtype=self.dtype.numpy)
        if out.size == 0:
            self.device.synchronize()
            return out
        if layout.is_contiguous:
            return self.slice.copy_to_host(out, layout.offset * self.dtype.itemsize)
        tmp = self.copy(layout)
        return tmp.slice.copy_to_host(out)

    # --- in-place ----------------------------------------------------------
    def assign(self, dst_layout, src, src_layout):
        self.slice.version += 1  # in place: voids what finite_weights learnt
        if src.dtype is not self.dtype:
            raise self._unsupported("assign", src.dtype, f"source dtype {src.dtype} differs from {self.dtype}")
        if src.slice is self.slice and _overlap(dst_layout, src_layout):
            src, src_layout = src.copy(src_layout), _contiguous(src_layout.shape)
        if dst_layout.is_contiguous and src_layout.is_contiguous:
            n = shape_size(dst_layout.shape)
            if n:
                launch_contiguous(self.device, raw_kernel(self.device, ("copy", self.dtype.itemsize)), n,
                                  self.ptr, dst_layout.offset, src.ptr, src_layout.offset)
            return
        if dst_layout.is_contiguous:
            plan = transposed_copy_plan(dst_layout.shape, contiguous_strides(dst_layout.shape),
                                        src_layout.strides)
            if plan is not None:
                launch_transpose(self.device, self.dtype.itemsize, plan, self.ptr, dst_layout.offset,
                                 src.ptr, src_layout.offset)
                return
        launch_ew(self.device, ("copy", self.dtype.itemsize), dst_layout.shape,
                  [self.operand(dst_layout), src.operand(src_layout)])

    def fill(self, layout, value):
        self.slice.version += 1  # in place: voids what finite_weights learnt
        bits = scalar_bytes(value, self.dtype)
        if layout.is_contiguous:
            n = shape_size(layout.shape)
            if n:
                launch_contiguous(self.device, raw_kernel(self.device, ("fill", self.dtype.itemsize)), n,
                                  self.ptr, layout.offset, scalar=bits.ljust(SCALAR_BYTES, b"\0"))
            return
        launch_ew(self.device, ("fill", self.dtype.itemsize), layout.shape, [self.operand(layout)], bits)

    def scatter(self, dst_layout, indices, idx_layout, src, src_layout, axis):
        self.slice.version += 1
        from .indexing import scatter

        scatter(self, dst_layout, indices, idx_layout, src, src_layout, axis, accumulate=False)

    def scatter_add(self, dst_layout, indices, idx_layout, src, src_layout, axis):
        self.slice.version += 1
        from .indexing import scatter

        scatter(self, dst_layout, indices, idx_layout, src, src_layout, axis, accumulate=True)

    def index_add(self, dst_layout, indices, idx_layout, src, src_layout, axis):
        self.slice.version += 1
        from .indexing import index_add

        index_add(self, dst_layout, indices, idx_layout, src, src_layout, axis)

    # --- element-wise ------------------------------------------------------
    def copy(self, layout):
        out = self._new(layout.shape)
        if layout.is_contiguous:
            out.slice.copy_from_device(self.slice, out.size * self.dtype.itemsize, 0,
                                       layout.offset * self.dtype.itemsize)
            return out
        out.assign(_contiguous(layout.shape), self, layout)  # the strided / transposing copy
        return out

    def unary(self, op, layout):
        device = self.device
        hit = device._kernel_runtime.ew_cache.get(("unary", op._value_, self.dtype.name))
        kernel, out_dtype = hit or ew_kernel(device, "unary", op, self.dtype)
        if layout.is_contiguous:
            n = shape_size(layout.shape)
            out = RocmStorage.empty(device, out_dtype, n)
            if n:
                launch_contiguous(device, kernel, n, out.ptr, 0, self.ptr, layout.offset)
            return out
        out = self._new(layout.shape, out_dtype)
        launch_ew(device, ("unary", op, self.dtype), layout.shape,
                  [self.out_operand(out, layout.shape), self.operand(layout)], name=op.value, dtype=self.dtype)
        return out

    def binary(self, op, lhs_layout, rhs, rhs_layout):
        device = self.device
        hit = device._kernel_runtime.ew_cache.get(("binary", op._value_, self.dtype.name))
        kernel, out_dtype = hit or ew_kernel(device, "binary", op, self.dtype)
        if lhs_layout.is_contiguous and rhs_layout.is_contiguous:  # the hot path, inlined
            n = shape_size(lhs_layout.shape)
            out = RocmStorage.empty(device, out_dtype, n)
            if n:
                launch_contiguous(device, kernel, n, out.ptr, 0, self.ptr, lhs_layout.offset,
                                  rhs.ptr, rhs_layout.offset)
            return out
        return self._binary("binary", op, lhs_layout, rhs, rhs_layout)

    def compare(self, op, lhs_layout, rhs, rhs_layout):
        return self._binary("compare", op, lhs_layout, rhs, rhs_layout)

    def _binary(self, family, op, lhs_layout, rhs, rhs_layout):
        device = self.device
        kernel, out_dtype = ew_kernel(device, family, op, self.dtype)
        if lhs_layout.is_contiguous and rhs_layout.is_contiguous:
            n = shape_size(lhs_layout.shape)
            out = RocmStorage.empty(device, out_dtype, n)
            if n:
                launch_contiguous(device, kernel, n, out.ptr, 0, self.ptr, lhs_layout.offset,
                                  rhs.ptr, rhs_layout.offset)
            return out
        out = self._new(lhs_layout.shape, out_dtype)
        launch_ew(device, (family, op, self.dtype), lhs_layout.shape,
                  [self.out_operand(out, lhs_layout.shape), self.operand(lhs_layout), rhs.operand(rhs_layout)],
                  name=op.value, dtype=self.dtype)
        return out

    def binary_scalar(self, op, layout, scalar, reflected):
        device = self.device
        kernel, out_dtype = ew_kernel(device, "binary", op, self.dtype)
        bits = scalar_bytes(scalar, self.dtype)
        # the scalar operand has pointer 0 and reads its slot: operand 1 -> slot 0, 2 -> slot 1
        packed = bits + b"\0" * 16 if reflected else b"\0" * 16 + bits
        if layout.is_contiguous:
            n = shape_size(layout.shape)
            out = RocmStorage.empty(device, out_dtype, n)
            if n:
                if reflected:
                    launch_contiguous(device, kernel, n, out.ptr, 0, 0, 0, self.ptr, layout.offset, scalar=packed)
                else:
                    launch_contiguous(device, kernel, n, out.ptr, 0, self.ptr, layout.offset, scalar=packed)
            return out
        out = self._new(layout.shape, out_dtype)
        scalar_op = (0, 0, ())
        operands = [scalar_op, self.operand(layout)] if reflected else [self.operand(layout), scalar_op]
        launch_ew(device, ("binary", op, self.dtype), layout.shape,
                  [self.out_operand(out, layout.shape)] + operands, packed, name=op.value, dtype=self.dtype)
        return out

    def where(self, cond_layout, x, x_layout, y, y_layout):
        device = self.device
        n = shape_size(cond_layout.shape)
        out = RocmStorage.empty(device, x.dtype, n)
        if cond_layout.is_contiguous and x_layout.is_contiguous and y_layout.is_contiguous:
            if n:
                launch_contiguous(device, raw_kernel(device, ("where", x.dtype.itemsize)), n, out.ptr, 0,
                                  self.ptr, cond_layout.offset, x.ptr, x_layout.offset, y.ptr, y_layout.offset)
            return out
        launch_ew(device, ("where", x.dtype.itemsize), cond_layout.shape,
                  [self.out_operand(out, cond_layout.shape), self.operand(cond_layout),
                   x.operand(x_layout), y.operand(y_layout)])
        return out

    def _map(self, key, layout, out_dtype, scalar=_NO_SCALAR, flags=0, name=None):
        """One input, one output (astype, affine, clip): contiguous fast path or strided."""
        out = self._new(layout.shape, out_dtype)
        if layout.is_contiguous:
            if out.size:
                spec = ops.lookup(key, name, self.dtype)
                launch_contiguous(self.device, runtime(self.device).kernel(spec), out.size, out.ptr, 0,
                                  self.ptr, layout.offset, scalar=scalar.ljust(SCALAR_BYTES, b"\0"), flags=flags)
            return out
        launch_ew(self.device, key, layout.shape, [self.out_operand(out, layout.shape), self.operand(layout)],
                  scalar, flags, name=name, dtype=self.dtype)
        return out

    def astype(self, layout, dtype):
        if dtype is self.dtype:
            return self.copy(layout)
        return self._map(("astype", self.dtype, dtype), layout, dtype, name=f"astype to {dtype.name}")

    def affine(self, layout, mul, add):
        c = compute_dtype(self.dtype)
        return self._map(("affine", self.dtype), layout, self.dtype, scalar_bytes(mul, c) + scalar_bytes(add, c),
                         name="affine")

    def clip(self, layout, lo, hi):
        c = compute_dtype(self.dtype)
        flags = (FLAG_A if lo is not None else 0) | (FLAG_B if hi is not None else 0)
        packed = scalar_bytes(0 if lo is None else lo, c) + scalar_bytes(0 if hi is None else hi, c)
        return self._map(("clip", self.dtype), layout, self.dtype, packed, flags, name="clip")

    # --- reductions, indexing, ordering, linear algebra -----------------------
    def reduce(self, op, layout, axes):
        return _reductions.reduce(self, op, layout, tuple(axes))

    def scan(self, op, layout, axis):
        return _scans.scan(self, op, layout, axis)

    def index_select(self, layout, indices, idx_layout, axis):
        from .indexing import index_select

        return index_select(self, layout, indices, idx_layout, axis)

    def gather(self, layout, indices, idx_layout, axis):
        from .indexing import gather

        return gather(self, layout, indices, idx_layout, axis)

    def sort(self, layout, axis, descending, stable):
        from .indexing import sort

        return sort(self, layout, axis, descending)

    def searchsorted(self, layout, values, values_layout, right):
        from .indexing import searchsorted

        return searchsorted(self, layout, values, values_layout, right)

    def matmul(self, rhs, lhs_layout, rhs_layout):
        from .rocblas import matmul

        return matmul(self, rhs, lhs_layout, rhs_layout)

    # --- nn: MIOpen where it applies, else our kernels (rocm_backend/nn.py decides) ------
    def conv1d(self, layout, weight, w_layout, stride, padding, dilation, groups):
        return _nn.conv1d(self, layout, weight, w_layout, stride, padding, dilation, groups)

    def conv2d(self, layout, weight, w_layout, stride, padding, dilation, groups):
        return _nn.conv2d(self, layout, weight, w_layout, tuple(stride), tuple(padding), tuple(dilation), groups)

    def conv_transpose1d(self, layout, weight, w_layout, stride, padding, output_padding, dilation, groups):
        return _nn.conv_transpose1d(self, layout, weight, w_layout, stride, padding, output_padding,
                                    dilation, groups)

    def conv_transpose2d(self, layout, weight, w_layout, stride, padding, output_padding, dilation, groups):
        return _nn.conv_transpose2d(self, layout, weight, w_layout, tuple(stride), tuple(padding),
                                    tuple(output_padding), tuple(dilation), groups)

    def avg_pool2d(self, layout, kernel, stride, padding, count_include_pad):
        return _nn.avg_pool2d(self, layout, tuple(kernel), tuple(stride), tuple(padding), count_include_pad)

    def max_pool2d(self, layout, kernel, stride, padding, dilation):
        return _nn.max_pool2d(self, layout, tuple(kernel), tuple(stride), tuple(padding), tuple(dilation))

    def upsample_nearest2d(self, layout, out_h, out_w):
        return _nn.upsample_nearest2d(self, layout, out_h, out_w)

    # --- optional groups "linalg" (hipSOLVER) and "fft" (hipFFT): linalg*.py, fft.py ------
    def cholesky(self, layout, upper):
        return _linalg.cholesky(self, layout, upper)

    def solve(self, layout, rhs, rhs_layout):
        return _linalg.solve(self, layout, rhs, rhs_layout)

    def inv(self, layout):
        return _linalg.inv(self, layout)

    def det(self, layout):
        return _linalg.det(self, layout)

    def slogdet(self, layout):
        return _linalg.slogdet(self, layout)

    def qr(self, layout, complete):
        return _spectral.qr(self, layout, complete)

    def svd(self, layout, full_matrices):
        return _spectral.svd(self, layout, full_matrices)

    def eigh(self, layout):
        return _spectral.eigh(self, layout)

    def eig(self, layout):
        raise UnsupportedOperation("eig", self.dtype, "rocm",
                                   "hipSOLVER has no geev; eig/eigvals are not implemented on rocm yet")

    def fft(self, layout, axis, inverse):
        return _fft.fft(self, layout, axis, inverse)

    def rfft(self, layout, axis):
        return _fft.rfft(self, layout, axis)

    def irfft(self, layout, axis, n):
        return _fft.irfft(self, layout, axis, n)

    # --- DLPack export (optional hook candlewick.backend.DLPackStorage) -------------------
    def dlpack_view(self, layout):
        from .dlpack import DLPackView
        from .finite_weights import share

        share(self.slice)  # the consumer may write it
        return DLPackView(self, layout)


def _contiguous(shape):
    from candlewick.layout import Layout

    return Layout.contiguous(tuple(shape))


def _overlap(a, b):
    """Do two layouts over one buffer touch a common element range (conservative)?"""
    if a.size == 0 or b.size == 0:
        return False
    lo_a, hi_a = a.span()
    lo_b, hi_b = b.span()
    return not (hi_a < lo_b or hi_b < lo_a)


# imported last: reductions and nn build on this module (a function-level import would
# run the import machinery on every call)
from . import nn as _nn  # noqa: E402
from . import reductions as _reductions  # noqa: E402
from . import scans as _scans  # noqa: E402


def _unimplemented(op, group):
    """A method for a primitive of an optional group this backend does not declare: it
    exists so the storage satisfies the protocol, and it says why it cannot run."""

    def method(self, *args, **kwargs):
        raise UnsupportedOperation(op, self.dtype, "rocm", f"the optional '{group}' group is not implemented")

    method.__name__ = method.__qualname__ = op
    return method


for _group, _ops in OPTIONAL_PRIMITIVES.items():
    for _op in _ops:
        if not hasattr(RocmStorage, _op):
            setattr(RocmStorage, _op, _unimplemented(_op, _group))
