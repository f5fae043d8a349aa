"""[families] The fft group's transforms over several axes (``fftn``, ``rfftn``): one
multi-dimensional hipFFT plan where the axes are the trailing ones (up to 3, as hipFFT's
plans go), else one-axis transforms in turn (``fft.transform``). rfftn of one matrix over
both its axes is the exception: two passes, the result left transposed
(``_rows_then_columns``).

Why one plan: cuFFT/rocFFT transform the inner rows and the strided columns of a 2-D
plan together, where two rank-1 plans read the columns with a large stride (rfft2 of
4096 x 4096 float32 took 0.217 ms in two passes on an H100, PyTorch's 2-D plan 0.129).
The plan reads a C-contiguous input (a strided view is copied first) and writes the
contiguous result; its plans share ``fft``'s cache, keyed by the tuple of lengths.
A ``norm`` that scales (the device declares ``fft_norm``) multiplies the fresh result in
place (``fft.scale``), the factor from the product of the lengths.
"""

import functools

from candlewick import dtypes as dt
from candlewick.errors import UnsupportedOperation
from candlewick.layout import Layout
from candlewick.shapes import shape_size

from ..abi.structs import INT32_MAX
from . import fft as _fft

MAX_RANK = 3  # hipFFT plans have rank 1, 2 or 3


@functools.lru_cache(maxsize=_fft.STEPS_CACHE_SIZE)
def planned(shape, axes, op):
    """Whether ``axes`` of ``shape`` go through one multi-dimensional plan: 2 or 3 axes
    that are the trailing ones (for rfftn the real transform's axis last), int32 sizes."""
    ndim = len(shape)
    if not 1 < len(axes) <= MAX_RANK or sorted(axes) != list(range(ndim - len(axes), ndim)):
        return False
    if op == "rfft" and axes[-1] != ndim - 1:
        return False
    return shape_size(shape) <= INT32_MAX


def fftn(x, layout, axes, inverse, norm=None):
    out = _transform(x, layout, tuple(axes), "fft", inverse)
    return _fft.scale(out, _fft.norm_factor(norm, _points(layout, axes), inverse))


def _points(layout, axes):
    """The number of points of a transform over ``axes`` (what ``norm`` divides by)."""
    return shape_size(tuple(layout.shape[a] for a in axes))


def rfftn(x, layout, axes, norm=None):
    out, out_layout = _rfftn(x, layout, axes)
    return _fft.scale(out, _fft.norm_factor(norm, _points(layout, axes), False)), out_layout


def _rfftn(x, layout, axes):
    """(result, its layout): a 2-D transform of the last two axes of one matrix runs as
    the real pass along rows and one column pass that writes each column's transform
    contiguously, leaving the result transposed in memory (``_rows_then_columns``); anything
    else is C-contiguous."""
    axes = tuple(axes)
    shape = tuple(layout.shape)
    if ("rfft", x.dtype) in _fft.KIND and _two_passes(shape, axes):
        return _rows_then_columns(x, layout)
    out = _transform(x, layout, axes, "rfft", False)
    last = axes[-1]
    return out, Layout.contiguous(shape[:last] + (shape[last] // 2 + 1,) + shape[last + 1:])


def _two_passes(shape, axes):
    """Whether rfftn of ``shape`` over ``axes`` takes ``_rows_then_columns``: the two
    trailing axes of one matrix (leading dimensions of size 1), neither of length 0."""
    return (len(shape) >= 2 and tuple(a % len(shape) for a in axes) == (len(shape) - 2, len(shape) - 1)
            and shape_size(shape[:-2]) == 1 and min(shape[-2:]) > 0 and shape_size(shape) <= INT32_MAX)


def _rows_then_columns(x, layout):
    """rfft2 of one (n0, n1) matrix as PyTorch computes it: R2C along the rows into a
    contiguous (n0, m) buffer, then one batched C2C down its m columns (stride m) whose
    output stride is 1: the spectrum lands as its (m, n0) transpose. cuFFT's 2-D plan writes
    the columns with stride m instead; on an H200, 4096 x 4096 float32: 87 µs for that
    column pass against 67 µs for this one (the row pass is 37 µs either way)."""
    shape = tuple(layout.shape)
    n0, n1 = shape[-2:]
    m = n1 // 2 + 1
    rows = _fft.transform(x, layout, len(shape) - 1, "rfft")  # contiguous (..., n0, m)
    kind = "C2C" if rows.dtype == dt.complex64 else "Z2Z"
    out = x.device.storage_type.empty(x.device, rows.dtype, n0 * m)
    _fft.run_plan(x.device, (kind, n0, m, m, 1, 1, n0), rows.ptr, out.ptr)  # batch m: istride m, idist 1; ostride 1, odist n0
    lead = len(shape) - 2
    return out, Layout(shape[:-1] + (m,), (n0 * m,) * lead + (1, n0), 0)


def _transform(x, layout, axes, op, inverse):
    shape = tuple(layout.shape)
    if planned(shape, axes, op):
        return _one_plan(x, layout, len(axes), op, inverse)
    # one axis at a time: the real transform first (its axis is the last of ``axes``)
    rest = axes[:-1] if op == "rfft" else axes
    out, out_layout = x, layout
    if op == "rfft":
        out = _fft.transform(x, layout, axes[-1], "rfft")
        shape = shape[:axes[-1]] + (shape[axes[-1]] // 2 + 1,) + shape[axes[-1] + 1:]
        out_layout = Layout.contiguous(shape)
    for axis in rest:
        out = _fft.transform(out, out_layout, axis, "fft", inverse=inverse)
        out_layout = Layout.contiguous(shape)
    if out is x:  # no axis: the contract still returns a fresh storage
        out = x.copy(layout)
    return out


def _one_plan(x, layout, rank, op, inverse):
    kind = _fft.KIND.get((op, x.dtype))
    if kind is None:
        want = "complex64/complex128" if op == "fft" else "float32/float64"
        raise UnsupportedOperation(op + "n", x.dtype, "rocm", f"{op}n takes {want}")
    out_size, out_dtype, key = _plan_steps(kind, tuple(layout.shape), rank)
    out = x.device.storage_type.empty(x.device, out_dtype, out_size)
    if out.size == 0:
        return out
    if key is None:
        raise UnsupportedOperation(op + "n", x.dtype, "rocm", "a transform of length 0")
    address = x.ptr + layout.offset * x.dtype.itemsize
    if not layout.is_contiguous or not _fft.input_aligned(kind, address, x.dtype.itemsize):
        x = x.copy(layout)
        address = x.ptr
    _fft.run_plan(x.device, key, address, out.ptr, inverse)
    return out


@functools.lru_cache(maxsize=_fft.STEPS_CACHE_SIZE)
def _plan_steps(kind, shape, rank):
    """(result size, result dtype, plan key; None for a transform of length 0) of one
    rank-``rank`` plan over the trailing axes of a contiguous ``shape``, worked out once."""
    dims = shape[-rank:]
    real_in = kind in ("R2C", "D2Z")
    out_dims = dims[:-1] + (dims[-1] // 2 + 1,) if real_in else dims
    batch = shape_size(shape[:-rank])
    in_dtype = _fft.KIND_DTYPE[kind]
    out_dtype = dt.complex_dtype_of(in_dtype) if real_in else in_dtype
    key = None if min(dims) == 0 else (kind, dims, batch, 1, shape_size(dims), 1, shape_size(out_dims))
    return batch * shape_size(out_dims), out_dtype, key
