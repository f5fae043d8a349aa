"""[families] The optional ``linalg`` group, part 3: the general eigenproblem (``eig``; the
front end's ``eigvals`` takes its values). hipSOLVER and rocSOLVER have no geev, so this
is our own kernel, ``hip/eig.hip`` (Hessenberg reduction, complex shifted QR, back
substitution; one thread block per matrix), on a contiguous complex copy of the input;
for a real input the kernel closes the spectrum under conjugation, as LAPACK's real Schur
form gives it (exact conjugate pairs, real eigenvalues with a zero imaginary part).
The data stays on the device; the one host read is the kernel's ``info`` ints (one per
matrix, after the whole batch is queued) to raise LinAlgError for a non-finite or
non-converged matrix."""

import numpy as np

from candlewick import dtypes as dt
from candlewick.errors import LinAlgError
from candlewick.layout import Layout

from . import linalg_common as lc
from ..abi.structs import EIG_ARGS, EIG_BLOCK, EIG_NONFINITE, GRID_LOOP_CAP
from ..kernels import kernel



def eig(a, layout, want_vectors=True):
    """(values, vectors): flat contiguous storages of ``(..., n)`` and ``(..., n, n)``,
    complex64 for float32/complex64 input, complex128 for float64/complex128; the vectors
    are columns of unit 2-norm, their largest component real. ``want_vectors=False``
    skips the vectors (the returned vectors storage is then empty)."""
    lc.require("eig", a)
    batch, count, n, _ = lc.split(layout.shape)
    device = a.device
    cdt = a.dtype if a.dtype.is_complex else dt.complex_dtype_of(a.dtype)
    values = device.storage_type.empty(device, cdt, count * n)
    vectors = device.storage_type.empty(device, cdt, count * n * n if want_vectors else 0)
    if count == 0 or n == 0:
        return values, vectors
    work = a.astype(layout, cdt)  # a private contiguous complex copy the kernel overwrites
    scratch = device.storage_type.empty(device, cdt, count * (n + n * n if want_vectors else n))
    info = lc.ints(device, count)
    k = kernel(device, ("eig", cdt.name), "eig", cdt)
    device.launcher.launch(k, min(count, GRID_LOOP_CAP), block_for(n, device.warp_size), EIG_ARGS,
                           (work.ptr, values.ptr, vectors.ptr if want_vectors else 0, scratch.ptr, info.ptr,
                            n, count, 1 if want_vectors else 0, 0 if a.dtype.is_complex else 1))
    raise_on_eig_info(info, count)
    return values, vectors


def block_for(n, warp_size):
    """Threads per block: whole warps, about one per row (the updates' parallelism),
    at most the kernel's bound: small matrices leave room for more resident blocks."""
    return min(EIG_BLOCK, -(-n // warp_size) * warp_size)


def raise_on_eig_info(info, count):
    """Read the kernel's ``info`` ints (a synchronizing read of ``count`` ints, never the
    data): LinAlgError naming linalg.eig for the first failed matrix."""
    host = info.to_host(Layout.contiguous((count,)))
    bad = np.flatnonzero(host != 0)
    if not bad.size:
        return
    first = int(bad[0])
    code = int(host[first])
    if code == EIG_NONFINITE:
        raise LinAlgError(f"linalg.eig: the matrix holds inf or NaN (matrix {first} of the batch)")
    raise LinAlgError(f"linalg.eig: the QR iteration did not converge for eigenvalue {code - 1} "
                      f"(matrix {first} of the batch)")
