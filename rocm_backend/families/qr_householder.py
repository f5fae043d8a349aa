"""[families] QR of a batch of small real matrices by our own kernel (hip/qr_householder.hip:
Householder reflections, one thread block per matrix in shared memory).

Why a kernel: hipSOLVER's regular API has no batched QR, and although hipBLAS has
geqrfBatched, nothing batches the forming of Q (orgqr/ungqr), so a batch would still
cost one orgqr call per matrix (the per-matrix loop took 252 ms for 1024 64 x 64
float32 matrices on an H100, bench/results/linalg_fft_nvidia-h100.md). The kernel
reads A through its strides and writes Q and R row-major into the results: no
transposes, no host read.
"""

from candlewick import dtypes as dt

from . import linalg_common as lc
from ..abi.structs import QR_ARGS, QR_BLOCK, QR_MAX_N
from ..kernels import kernel

DTYPES = (dt.float32, dt.float64)


def fits(count, m, n, dtype):
    """Whether the kernel computes this batch: several real matrices of edges up to QR_MAX_N."""
    return count >= 2 and dtype in DTYPES and 0 < min(m, n) and max(m, n) <= QR_MAX_N


def qr(a, layout, complete, count):
    """(Q, R) of every (m, n) matrix of ``a``: Q (m, kq), R (kr, n), kq = kr = m when
    ``complete`` else min(m, n)."""
    _, _, m, n = lc.split(layout.shape)
    device, dtype = a.device, a.dtype
    x = a if layout.is_contiguous and layout.offset == 0 else a.copy(layout)
    k = min(m, n)
    kq = kr = m if complete else k
    q = device.storage_type.empty(device, dtype, count * m * kq)
    r = device.storage_type.empty(device, dtype, count * kr * n)
    values = (x.ptr, q.ptr, r.ptr, m, n, kq, kr, n, 1, m * n, m * kq, kr * n)
    bound = kernel(device, ("qr_householder", dtype.name), "qr", dtype)
    device.launcher.launch(bound, count, QR_BLOCK, QR_ARGS, values)
    return q, r
