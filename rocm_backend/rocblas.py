"""[families] The BLAS layer: every GEMM and BLAS call of the backend. Matrix products
through hipBLAS (``bindings/hipblas.py``), which forwards to rocBLAS on AMD, for floating
and complex dtypes; our own tiled kernel for integers (BLAS has no wrapping integer
GEMM); the nn fallback's im2col GEMMs; hipBLAS's batched LU (getrfBatched/getrsBatched,
which ``families/linalg.py`` uses for batches of small matrices); trsm (``solve_upper_right``:
``families/cholesky_qr.py``'s R^-1). Every strided batched
GEMM goes through ``gemm``: its int32 check and its split of the batch count.

hipBLAS is column-major; a row-major product C = A B is computed as C^T = B^T A^T.
Transposed views are passed as transposes, any other strided operand (a negative batch
stride included) is copied contiguous first (never an error). Batch dimensions,
broadcast ones (stride 0) included, are coalesced into one strided batch where possible
and looped on the host otherwise. Complex products run as one real GEMM plus a combine (``_complex_matmul``
says why). float32 products with one small edge that hipBLAS's GEMM reads slowly run our own
kernels (``families/skinny_matmul.py``).
"""

import itertools

import numpy as np

from candlewick import dtypes as dt
from candlewick.errors import LinAlgError, UnsupportedOperation
from candlewick.layout import Layout
from candlewick.shapes import contiguous_strides, shape_size
from candlewick.opdefs import BinaryOp

from .abi import structs
from .abi.ew_operands import coalesce, pad_dims
from .abi.structs import GRID_YZ_MAX, INT32_MAX, MATMUL_ARGS, MAX_DIMS
from .bindings import hipblas
from .families import skinny_matmul as skinny
from .families.copies import copy
from .families.ew_launch import launch_ew
from .kernels import kernel

# real dtypes hipBLAS multiplies (complex ones run as real GEMMs: _complex_matmul)
_BLAS_TYPES = tuple(d for d in hipblas.BLAS_TYPES if not d.is_complex)
# complex dtype -> the real dtype of its parts (complex GEMM runs as real GEMM)
_COMPLEX_PARTS = {dt.complex64: dt.float32, dt.complex128: dt.float64}
#: batches of one hipBLAS call at most (batchCount is an int; keep launches modest: the
#: grid's own limit along y and z)
GEMM_BATCH_MAX = GRID_YZ_MAX


def matmul(lhs, rhs, lhs_layout, rhs_layout):
    device, dtype, (*batch, m, k) = lhs.device, lhs.dtype, lhs_layout.shape
    n = rhs_layout.shape[-1]
    # a float32 product with one small edge: our kernels where they are faster (asked first,
    # so a product that hipBLAS made once, misaligned, does not keep the next ones there)
    if not batch and dtype is dt.float32 and (m >= skinny.NARROW_MIN_ROWS or k >= skinny.LONG_MIN_K):
        out = skinny.matmul(lhs, rhs, lhs_layout, rhs_layout, m, n, k)
        if out is not None:
            return out
    # a product of the same dtype and layouts as one before (a loop's): its GEMM's arguments
    # kept, the pointers and the handle (per stream) filled in (``_blas_matmul`` keeps them)
    plan = device.launches.get(_gemm_key(device, dtype, lhs_layout, rhs_layout))
    if plan is not None:
        size, call = plan
        out = device.storage_type.empty(device, dtype, size)
        _kept_gemm(call, lhs, rhs, lhs_layout, rhs_layout, out)
        return out
    batch = tuple(batch)
    out_shape = batch + (m, n)
    out = device.storage_type.empty(device, dtype, shape_size(out_shape))
    if out.size == 0:
        return out
    if k == 0:
        out.buffer.memset(0)
        return out
    if dtype.is_integer:
        _integer_matmul(lhs, rhs, lhs_layout, rhs_layout, out, batch, m, n, k)
    elif dtype in _COMPLEX_PARTS:
        _complex_matmul(lhs, rhs, lhs_layout, rhs_layout, out, batch, m, n, k)
    elif dtype in _BLAS_TYPES:
        _blas_matmul(lhs, rhs, lhs_layout, rhs_layout, out, batch, m, n, k)
    else:
        raise UnsupportedOperation("matmul", dtype, "rocm", "matmul takes numeric dtypes")
    return out


def gemm_operand(rows, cols, rs, cs):
    """(transpose?, leading dimension) presenting a row-major view X (rows x cols,
    strides rs, cs) as X^T to a column-major GEMM, or None if it needs a copy."""
    if (cs == 1 or cols == 1) and (rows == 1 or rs >= max(cols, 1)):
        return False, rs if rows > 1 else max(cols, 1)
    if (rs == 1 or rows == 1) and (cols == 1 or cs >= max(rows, 1)):
        return True, cs if cols > 1 else max(rows, 1)
    return None


def _blas_operand(layout):
    """gemm_operand of a (..., rows, cols) layout hipBLAS reads as it is (leading dimension
    an int, no negative batch stride), else None: ``_blas_matmul`` copies it first."""
    rows, cols = layout.shape[-2:]
    op = gemm_operand(rows, cols, *layout.strides[-2:])
    if op is None or op[1] > INT32_MAX or min(layout.strides[:-2], default=0) < 0:
        return None
    return op


def blas_reads(layout):
    """Whether a real GEMM operand of this layout goes to hipBLAS without a copy."""
    return _blas_operand(layout) is not None


def _materialize(storage, layout):
    return copy(storage, layout), Layout.contiguous(layout.shape)


def _gemm_key(device, dtype, lhs_layout, rhs_layout):
    """The key of a real product's kept GEMM arguments in ``device.launches``: its dtype, its
    operands' shapes and strides (not their offsets: the pointers are filled in per call) and
    the current stream (whose hipBLAS handle makes the call)."""
    return ("gemm", dtype.name, lhs_layout.shape, lhs_layout.strides, rhs_layout.shape, rhs_layout.strides,
            device._current.stream.index)


def _kept_gemm(call, lhs, rhs, lhs_layout, rhs_layout, out):
    """A kept GEMM (``hipblas.prepared_gemm``) on these operands into ``out`` (column-major:
    rhs is its A)."""
    item = lhs.dtype.itemsize
    call(lhs.device.blas, rhs.ptr + rhs_layout.offset * item, lhs.ptr + lhs_layout.offset * item, out.ptr)


def _blas_matmul(lhs, rhs, lhs_layout, rhs_layout, out, batch, m, n, k):
    # a negative batch stride is copied too: cuBLAS's float16 GEMMs (behind the
    # HIP-on-CUDA shim) read out of bounds with one, float32 ones do not, and neither
    # hipBLAS nor cuBLAS documents the sign as allowed
    a_op = _blas_operand(lhs_layout)
    copied = a_op is None
    if copied:
        lhs, lhs_layout = _materialize(lhs, lhs_layout)
        a_op = _blas_operand(lhs_layout)
    b_op = _blas_operand(rhs_layout)
    if b_op is None:
        copied = True
        rhs, rhs_layout = _materialize(rhs, rhs_layout)
        b_op = _blas_operand(rhs_layout)
    if max(m, n, k) > INT32_MAX:
        raise UnsupportedOperation("matmul", lhs.dtype, "rocm", "a matrix dimension exceeds 2^31-1")
    out_strides = contiguous_strides(batch + (m, n))
    bshape, (ab, bb, cb) = coalesce(batch, [lhs_layout.strides[:-2], rhs_layout.strides[:-2], out_strides[:-2]])
    if not bshape:
        bshape, ab, bb, cb = (1,), (0,), (0,), (m * n,)
    item = lhs.dtype.itemsize
    device = lhs.device
    if len(bshape) == 1 and bshape[0] <= GEMM_BATCH_MAX and not copied:  # one call: kept for the next such product
        types = hipblas.types(lhs.dtype)
        call = hipblas.prepared_gemm(b_op[0], a_op[0], n, m, k, b_op[1], bb[-1], a_op[1], ab[-1], n, cb[-1],
                                     bshape[0], types, types)
        device.launches.keep(_gemm_key(device, lhs.dtype, lhs_layout, rhs_layout), (out.size, call))
        _kept_gemm(call, lhs, rhs, lhs_layout, rhs_layout, out)
        return
    for lead in itertools.product(*(range(s) for s in bshape[:-1])):  # host loop: rare
        a_off = lhs_layout.offset + sum(i * s for i, s in zip(lead, ab))
        b_off = rhs_layout.offset + sum(i * s for i, s in zip(lead, bb))
        c_off = sum(i * s for i, s in zip(lead, cb))
        gemm(device, lhs.dtype, lhs.dtype, b_op[0], a_op[0], n, m, k,
             rhs.ptr + b_off * item, b_op[1], bb[-1], lhs.ptr + a_off * item, a_op[1], ab[-1],
             out.ptr + c_off * item, n, cb[-1], bshape[-1], "matmul")


def gemm(device, in_dtype, out_dtype, trans_a, trans_b, m, n, k, a, lda, stride_a, b, ldb, stride_b,
         c, ldc, stride_c, batch, op="conv (im2col+GEMM)"):
    """Column-major strided batched ``C = op(A) op(B)`` through hipBLAS (pointers are ints),
    in calls of at most GEMM_BATCH_MAX matrices; float16/bfloat16 inputs compute in
    float32, float64 in float64. ``op`` names the primitive in the error of a size past
    hipBLAS's int arguments."""
    if max(m, n, k, lda, ldb, ldc) > INT32_MAX:
        raise UnsupportedOperation(op, in_dtype, "rocm", "a GEMM dimension exceeds 2^31-1")
    ab_types, c_types = hipblas.types(in_dtype), hipblas.types(out_dtype)
    in_item, out_item = in_dtype.itemsize, out_dtype.itemsize
    for start in range(0, batch, GEMM_BATCH_MAX):
        nb = min(GEMM_BATCH_MAX, batch - start)
        hipblas.gemm_strided_batched(
            device.blas, trans_a, trans_b, m, n, k, a + start * stride_a * in_item, lda, stride_a,
            b + start * stride_b * in_item, ldb, stride_b,
            c + start * stride_c * out_item, ldc, stride_c, nb, ab_types, c_types)


def _complex_matmul(lhs, rhs, lhs_layout, rhs_layout, out, batch, m, n, k):
    """Complex C = A B as one real GEMM on the parts, then a combine.

    A complex GEMM (hipBLAS CGEMM/ZGEMM) scales its sum by alpha = 1+0j as a complex
    product, so an infinite sum turns into NaN (0 * inf), and it may use other product
    formulas; the contract is the plain product sum, re = sum(ar br - ai bi),
    im = sum(ar bi + ai br), with IEEE real arithmetic throughout. So:

    * A is presented as the real 2M x K matrix whose row 2i+p is part p of row i, B as
      the real K x 2N matrix whose column 2j+q is part q of column j (a strided view of
      the complex buffer itself where that axis has unit stride: B row-major, A
      column-major such as a transposed view; else one copy with the real copy kernel,
      broadcast batch dimensions not expanded);
    * one real GEMM gives P (2M x 2N) with P[2i+p, 2j+q] = sum_k A_p[i,k] B_q[k,j]
      (the four part products ArBr, ArBi, AiBr, AiBi, each a sum of K real products:
      the same 8MNK flops as the complex GEMM and the same error bound, plus one
      rounding in the combine; temporaries: the copies and P, 4MN reals per batch);
    * two element-wise launches combine re = ArBr - AiBi, im = ArBi + AiBr straight
      into the interleaved output.

    Special values then match the product sum: sum_k(p_k - q_k) and
    sum_k p_k - sum_k q_k are NaN or +-inf under the same conditions (a NaN term, or
    infinities of both signs among the p_k and -q_k; finite overflow aside), since the
    products themselves are the same real products. Launches: at most one copy per
    operand (none for A.T @ B with B row-major), the GEMM (one per 65535 batches and
    per non-coalescable batch index, as for real dtypes) and two combines.
    """
    real = _COMPLEX_PARTS[lhs.dtype]
    a, a_layout = _parts_operand(lhs, lhs_layout, real, rows=True)
    b, b_layout = _parts_operand(rhs, rhs_layout, real, rows=False)
    p = lhs.device.storage_type.empty(lhs.device, real, shape_size(batch) * 4 * m * n)
    _blas_matmul(a, b, a_layout, b_layout, p, batch, 2 * m, 2 * n, k)
    shape = batch + (m, n)
    # P viewed as (batch, M, part, N, part); out as (batch, M, N, part)
    p_strides = contiguous_strides(batch + (2 * m, 2 * n))[:-2] + (4 * n, 2)
    o_strides = tuple(2 * s for s in contiguous_strides(shape))
    for op, out_part, left, right in ((BinaryOp.SUBTRACT, 0, 0, 2 * n + 1), (BinaryOp.ADD, 1, 1, 2 * n)):
        launch_ew(lhs.device, ("binary", op, real), shape,
                  [(out.ptr, out_part, o_strides), (p.ptr, left, p_strides), (p.ptr, right, p_strides)],
                  name=op.value, dtype=real)


def _parts_operand(storage, layout, real, rows):
    """(real storage, Layout) of a complex operand (batch..., R, C) with its parts
    interleaved along the rows ((batch..., 2R, C), row 2i+p = part p of row i) or
    along the columns ((batch..., R, 2C), column 2j+q = part q of column j).

    A view of the same buffer when that axis has unit stride or extent 1; else a copy
    into a contiguous (batch', R, 2, C) / (batch', R, C, 2) buffer, where batch' keeps
    broadcast (stride 0) batch dimensions at extent 1."""
    *batch, r, c = layout.shape
    *bstrides, rs, cs = layout.strides
    batch, bstrides = tuple(batch), tuple(bstrides)
    shape = batch + ((2 * r, c) if rows else (r, 2 * c))
    if (rs if rows else cs) == 1 or (r if rows else c) == 1:
        view = type(storage)(storage.buffer, real, 2 * storage.size)
        strides = tuple(2 * s for s in bstrides) + ((1, 2 * cs) if rows else (2 * rs, 1))
        return view, Layout(shape, strides, 2 * layout.offset)
    cbatch = tuple(1 if s == 0 else e for e, s in zip(batch, bstrides))
    dst_shape = cbatch + ((r, 2, c) if rows else (r, c, 2))
    dst_strides = contiguous_strides(dst_shape)
    src_strides = tuple(2 * s for s in bstrides) + ((2 * rs, 1, 2 * cs) if rows else (2 * rs, 2 * cs, 1))
    dst = storage.device.storage_type.empty(storage.device, real, shape_size(dst_shape))
    launch_ew(storage.device, ("copy", real.itemsize), dst_shape,
              [(dst.ptr, 0, dst_strides), (storage.ptr, 2 * layout.offset, src_strides)])
    strides = tuple(0 if s == 0 else d for s, d in zip(bstrides, dst_strides)) + ((c, 1) if rows else (2 * c, 1))
    return dst, Layout(shape, strides, 0)


def _integer_matmul(lhs, rhs, lhs_layout, rhs_layout, out, batch, m, n, k):
    bshape, (ab, bb) = coalesce(batch, [lhs_layout.strides[:-2], rhs_layout.strides[:-2]])
    if len(bshape) > MAX_DIMS:
        lhs, lhs_layout = _materialize(lhs, lhs_layout)
        rhs, rhs_layout = _materialize(rhs, rhs_layout)
        bshape, (ab, bb) = coalesce(batch, [lhs_layout.strides[:-2], rhs_layout.strides[:-2]])
    nbatch = shape_size(batch)
    kern = kernel(lhs.device, ("matmul", lhs.dtype.name), "matmul", lhs.dtype)
    values = ([m, n, k, nbatch, len(bshape), 0] + pad_dims(bshape, 1) + pad_dims(ab) + pad_dims(bb)
              + list(lhs_layout.strides[-2:]) + list(rhs_layout.strides[-2:])
              + [lhs.ptr, lhs_layout.offset, rhs.ptr, rhs_layout.offset, out.ptr])
    tile = structs.MATMUL_TILE
    grid = (-(-n // tile), min(-(-m // tile), GRID_YZ_MAX), min(nbatch, GRID_YZ_MAX))
    if -(-m // tile) > GRID_YZ_MAX:
        raise UnsupportedOperation("matmul", lhs.dtype, "rocm", "more than 2^20 rows in an integer matmul")
    lhs.device.launcher.launch(kern, grid, (tile, tile, 1), MATMUL_ARGS, values)


# --- batched LU (hipBLAS) -------------------------------------------------------------

def getrf_batched(device, letter, n, a_ptrs, ipiv, info, count):
    """Queue the LU factorization of ``count`` column-major n x n matrices (leading
    dimension n) whose addresses the device array at ``a_ptrs`` holds: pivots into
    ``ipiv`` (n ints per matrix), one ``info`` int per matrix (hipBLAS getrfBatched)."""
    hipblas.lu_batched(letter, "getrfBatched", device.blas, n, a_ptrs, n, ipiv, info, count)


def getrs_batched(device, letter, trans, n, k, a_ptrs, ipiv, b_ptrs, count):
    """Queue the solves of ``count`` factored systems in place: the n x k column-major
    blocks at ``b_ptrs`` (hipBLAS getrsBatched, ``trans`` hipSOLVER's operation); an
    argument it rejects (reported on the host) raises LinAlgError."""
    host_info = np.zeros(1, np.int32)
    hipblas.lu_batched(letter, "getrsBatched", device.blas, trans, n, k, a_ptrs, n, ipiv, b_ptrs, n,
                       host_info.ctypes.data, count)
    if host_info[0] != 0:
        raise LinAlgError(f"getrsBatched rejected argument {-int(host_info[0])}")


# --- triangular solve (hipBLAS trsm) ---------------------------------------------------

_TRSM_LETTER = {dt.float32: "S", dt.float64: "D"}


def solve_upper_right(b, r, m, n, op, arg="x"):
    """In place: the C-contiguous (m, n) ``b`` becomes B R^-1, R the upper triangular
    (n, n) matrix C-contiguous in ``r`` (its strict lower triangle never read), real
    floating dtypes. One hipBLAS trsm: read column-major, b's buffer is B^T (n x m) and
    r's is R^T, lower, so B^T := (R^T)^-1 B^T is a solve from the left with R^T as stored
    (no transposing copy of either). ``op`` and ``arg``: the user's function and its
    argument the matrices come from, which an error names."""
    dtype = b.dtype
    if dtype not in _TRSM_LETTER:
        raise UnsupportedOperation(op, dtype, "rocm", f"{arg}: hipBLAS's triangular solve (trsm) takes float32 "
                                   f"or float64, got {dtype}")
    if max(m, n) > INT32_MAX:
        raise UnsupportedOperation(op, dtype, "rocm", f"{arg}: hipBLAS's triangular solve (trsm) takes matrix "
                                   f"dimensions up to 2^31-1, got {m} x {n}")
    if m == 0 or n == 0:
        return
    b.buffer.version += 1  # in place: voids what pad_fixup_cache learnt
    hipblas.trsm(b.device.blas, _TRSM_LETTER[dtype], True, True, n, m, hipblas.types(dtype).alpha,
                 r.ptr, n, b.ptr, n)
