"""[families] The SVD of a batch of small real matrices by our own kernel
(hip/svd_jacobi.hip: one-sided Jacobi, one thread block per matrix in shared memory).

Why a kernel: hipSOLVER's gesvdjBatched is the library's batched SVD, but where it
forwards to cuSOLVER (the HIP-on-CUDA shim) that takes matrices up to 32 x 32 only, and
the per-matrix gesvdj loop it falls back to costs about a millisecond a matrix. The
kernel works on W = A (R = m rows, C = n columns) when m >= n and on W = A^T otherwise
(A = V_w S U_w^T: U and Vh swap roles), so it always orthogonalizes the C <= R columns
and writes U, S (descending) and Vh straight into the results' row-major buffers
through (row, column) strides: no transposing copies. It gives the reduced SVD, which
for a square matrix is the full one; a tall or wide full SVD goes to the library.
The one host read is the ``info`` check (non-convergence, or a non-finite input, raises
LinAlgError as NumPy does).
"""

from candlewick import dtypes as dt

from . import linalg_common as lc
from ..abi.structs import SVD_ARGS, SVD_BLOCK, SVD_MAX_N
from ..kernels import kernel

DTYPES = (dt.float32, dt.float64)
MAX_SWEEPS = 100  # cuSOLVER's gesvdj default; random 64 x 64 matrices take about 10


def fits(count, m, n, dtype, full_matrices):
    """Whether the kernel computes this batch: several real matrices of edges up to
    SVD_MAX_N, reduced SVD (or square)."""
    return (count >= 2 and dtype in DTYPES and 0 < min(m, n) and max(m, n) <= SVD_MAX_N
            and (not full_matrices or m == n))


def block_size(rows, cols):
    """Threads per block: a group of about rows/4 threads per column pair, in whole
    wavefronts of 64, at most SVD_BLOCK."""
    pairs = (cols + 1) // 2
    want = pairs * max(1, rows // 4)
    return min(SVD_BLOCK, max(64, -(-want // 64) * 64))


def svd(a, layout, count):
    """(U, S, Vh) of the reduced SVD of every (m, n) matrix of ``a`` (``count`` of them)."""
    batch, _, m, n = lc.split(layout.shape)
    device, dtype = a.device, a.dtype
    x = a if layout.is_contiguous and layout.offset == 0 else a.copy(layout)
    k = min(m, n)
    u = device.storage_type.empty(device, dtype, count * m * k)
    vh = device.storage_type.empty(device, dtype, count * k * n)
    s = device.storage_type.empty(device, dtype, count * k)
    info = lc.ints(device, count)
    if m >= n:  # W = A; U = U_w (m x k), Vh = V_w^T
        rows, cols = m, n
        src, u_out, v_out = (n, 1), (k, 1), (1, n)
        u_target, v_target = u, vh
    else:  # W = A^T; U = V_w (m x m), Vh = U_w^T (m x n)
        rows, cols = n, m
        src, u_out, v_out = (1, n), (1, n), (m, 1)
        u_target, v_target = vh, u
    scratch = device.storage_type.empty(device, dtype, count * (cols + 1) * cols) if dtype is dt.float64 else None
    values = (x.ptr, u_target.ptr, v_target.ptr, s.ptr, info.ptr, scratch.ptr if scratch is not None else 0,
              rows, cols, src[0], src[1], m * n, u_out[0], u_out[1], rows * cols, v_out[0], v_out[1],
              cols * cols, MAX_SWEEPS, 0)
    bound = kernel(device, ("svd_jacobi", dtype.name), "svd", dtype)
    device.launcher.launch(bound, count, block_size(rows, cols), SVD_ARGS, values)
    lc.raise_on_info(info, count, "svd", "the SVD did not converge (or the input is not finite)")
    return u, s, vh
