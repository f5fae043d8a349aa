"""RocmStorage: the BackendStorage of the ROCm backend.

Host transfer, in-place writes and element-wise primitives are here; reductions and
scans live in ``reductions.py``, indexing/sorting in ``indexing.py``, GEMM in
``rocblas.py``. Every primitive queues kernels on the device stream and returns at once.
"""

import numpy as np

from candlewick import dtypes as dt
from candlewick.errors import UnsupportedOperation
from candlewick.layout import contiguous_strides, shape_size

from . import ops
from .argpack import FLAG_A, FLAG_B, ew_values, split_dims
from .kernels import grid_for, runtime
from .storage_slice import StorageSlice


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


class RocmStorage:
    """A flat device buffer of one dtype (``size`` elements)."""

    __slots__ = ("slice", "dtype", "device", "size")

    def __init__(self, slice_, dtype, size):
        self.slice = slice_
        self.dtype = dtype
        self.device = slice_.device
        self.size = size

    @classmethod
    def empty(cls, device, dtype, size):
        return cls(StorageSlice.allocate(device, size * dtype.itemsize, dtype), dtype, size)

    @property
    def ptr(self):
        return self.slice.ptr

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
        if src.dtype is not self.dtype:
            raise self._unsupported("assign", src.dtype, f"source dtype {src.dtype} differs from {self.dtype}")
        if src.slice is self.slice and _overlap(dst_layout, src_layout):
            src, src_layout = src.copy(src_layout), _contiguous(src_layout.shape)
        launch_ew(self.device, ("copy", self.dtype.itemsize), dst_layout.shape,
                  [self.operand(dst_layout), src.operand(src_layout)])

    def fill(self, layout, value):
        launch_ew(self.device, ("fill", self.dtype.itemsize), layout.shape, [self.operand(layout)],
                  scalar_bytes(value, self.dtype))

    def scatter(self, dst_layout, indices, idx_layout, src, src_layout, axis):
        from .indexing import scatter

        scatter(self, dst_layout, indices, idx_layout, src, src_layout, axis, accumulate=False)

    def scatter_add(self, dst_layout, indices, idx_layout, src, src_layout, axis):
        from .indexing import scatter

        scatter(self, dst_layout, indices, idx_layout, src, src_layout, axis, accumulate=True)

    def index_add(self, dst_layout, indices, idx_layout, src, src_layout, axis):
        from .indexing import index_add

        index_add(self, dst_layout, indices, idx_layout, src, src_layout, axis)

    # --- element-wise ------------------------------------------------------
    def copy(self, layout):
        out = self._new(layout.shape)
        if layout.is_contiguous:
            out.slice.copy_from_device(self.slice, out.size * self.dtype.itemsize, 0,
                                       layout.offset * self.dtype.itemsize)
            return out
        launch_ew(self.device, ("copy", self.dtype.itemsize), layout.shape,
                  [self.out_operand(out, layout.shape), self.operand(layout)])
        return out

    def unary(self, op, layout):
        out = self._new(layout.shape, op.result_dtype(self.dtype))
        launch_ew(self.device, ("unary", op, self.dtype), layout.shape,
                  [self.out_operand(out, layout.shape), self.operand(layout)], name=op.value, dtype=self.dtype)
        return out

    def binary(self, op, lhs_layout, rhs, rhs_layout):
        return self._binary("binary", op, self.dtype, lhs_layout, rhs, rhs_layout)

    def compare(self, op, lhs_layout, rhs, rhs_layout):
        return self._binary("compare", op, dt.bool_, lhs_layout, rhs, rhs_layout)

    def _binary(self, family, op, out_dtype, lhs_layout, rhs, rhs_layout):
        out = self._new(lhs_layout.shape, out_dtype)
        launch_ew(self.device, (family, op, self.dtype), lhs_layout.shape,
                  [self.out_operand(out, lhs_layout.shape), self.operand(lhs_layout), rhs.operand(rhs_layout)],
                  name=op.value, dtype=self.dtype)
        return out

    def binary_scalar(self, op, layout, scalar, reflected):
        out = self._new(layout.shape)
        bits = scalar_bytes(scalar, self.dtype)
        scalar_op = (0, 0, ())
        if reflected:  # operand 1 reads scalar slot 0
            operands, packed = [scalar_op, self.operand(layout)], bits + b"\0" * 16
        else:  # operand 2 reads scalar slot 1
            operands, packed = [self.operand(layout), scalar_op], b"\0" * 16 + bits
        launch_ew(self.device, ("binary", op, self.dtype), layout.shape,
                  [self.out_operand(out, layout.shape)] + operands, packed, name=op.value, dtype=self.dtype)
        return out

    def where(self, cond_layout, x, x_layout, y, y_layout):
        out = RocmStorage.empty(self.device, x.dtype, shape_size(cond_layout.shape))
        launch_ew(self.device, ("where", x.dtype.itemsize), cond_layout.shape,
                  [self.out_operand(out, cond_layout.shape), self.operand(cond_layout),
                   x.operand(x_layout), y.operand(y_layout)])
        return out

    def astype(self, layout, dtype):
        if dtype is self.dtype:
            return self.copy(layout)
        out = self._new(layout.shape, dtype)
        launch_ew(self.device, ("astype", self.dtype, dtype), layout.shape,
                  [self.out_operand(out, layout.shape), self.operand(layout)],
                  name=f"astype to {dtype.name}", dtype=self.dtype)
        return out

    def affine(self, layout, mul, add):
        out = self._new(layout.shape)
        c = compute_dtype(self.dtype)
        launch_ew(self.device, ("affine", self.dtype), layout.shape,
                  [self.out_operand(out, layout.shape), self.operand(layout)],
                  scalar_bytes(mul, c) + scalar_bytes(add, c), name="affine", dtype=self.dtype)
        return out

    def clip(self, layout, lo, hi):
        out = self._new(layout.shape)
        c = compute_dtype(self.dtype)
        flags = (FLAG_A if lo is not None else 0) | (FLAG_B if hi is not None else 0)
        packed = scalar_bytes(0 if lo is None else lo, c) + scalar_bytes(0 if hi is None else hi, c)
        launch_ew(self.device, ("clip", self.dtype), layout.shape,
                  [self.out_operand(out, layout.shape), self.operand(layout)], packed, flags,
                  name="clip", dtype=self.dtype)
        return out

    # --- reductions, indexing, ordering, linear algebra -----------------------
    def reduce(self, op, layout, axes):
        from .reductions import reduce

        return reduce(self, op, layout, tuple(axes))

    def scan(self, op, layout, axis):
        from .reductions import scan

        return scan(self, op, layout, axis)

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
        from . import nn

        return nn.conv1d(self, layout, weight, w_layout, stride, padding, dilation, groups)

    def conv2d(self, layout, weight, w_layout, stride, padding, dilation, groups):
        from . import nn

        return nn.conv2d(self, layout, weight, w_layout, tuple(stride), tuple(padding), tuple(dilation), groups)

    def conv_transpose1d(self, layout, weight, w_layout, stride, padding, output_padding, dilation, groups):
        from . import nn

        return nn.conv_transpose1d(self, layout, weight, w_layout, stride, padding, output_padding,
                                   dilation, groups)

    def conv_transpose2d(self, layout, weight, w_layout, stride, padding, output_padding, dilation, groups):
        from . import nn

        return nn.conv_transpose2d(self, layout, weight, w_layout, tuple(stride), tuple(padding),
                                   tuple(output_padding), tuple(dilation), groups)

    def avg_pool2d(self, layout, kernel, stride, padding, count_include_pad):
        from . import nn

        return nn.avg_pool2d(self, layout, tuple(kernel), tuple(stride), tuple(padding), count_include_pad)

    def max_pool2d(self, layout, kernel, stride, padding, dilation):
        from . import nn

        return nn.max_pool2d(self, layout, tuple(kernel), tuple(stride), tuple(padding), tuple(dilation))

    def upsample_nearest2d(self, layout, out_h, out_w):
        from . import nn

        return nn.upsample_nearest2d(self, layout, out_h, out_w)

    # --- DLPack export (optional hook candlewick.backend.DLPackStorage) -------------------
    def dlpack_view(self, layout):
        from .dlpack import DLPackView

        return DLPackView(self, layout)

    # --- optional groups "linalg" and "fft": not declared in the device's
    # capabilities; present so the storage satisfies the protocol, and they say so ----
    def _optional(self, op, group):
        raise UnsupportedOperation(op, self.dtype, "rocm", f"the optional '{group}' group is not implemented")

    def cholesky(self, *args, **kwargs):
        self._optional("cholesky", "linalg")

    def qr(self, *args, **kwargs):
        self._optional("qr", "linalg")

    def svd(self, *args, **kwargs):
        self._optional("svd", "linalg")

    def eigh(self, *args, **kwargs):
        self._optional("eigh", "linalg")

    def solve(self, *args, **kwargs):
        self._optional("solve", "linalg")

    def inv(self, *args, **kwargs):
        self._optional("inv", "linalg")

    def det(self, *args, **kwargs):
        self._optional("det", "linalg")

    def slogdet(self, *args, **kwargs):
        self._optional("slogdet", "linalg")

    def fft(self, *args, **kwargs):
        self._optional("fft", "fft")

    def rfft(self, *args, **kwargs):
        self._optional("rfft", "fft")

    def irfft(self, *args, **kwargs):
        self._optional("irfft", "fft")


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
