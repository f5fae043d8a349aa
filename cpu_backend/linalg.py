"""The optional ``linalg`` group, through ``numpy.linalg`` (batched over leading dims).

Accepted dtypes are float32/float64/complex64/complex128; NumPy's LAPACK loops keep
single precision in single precision. A singular or non-positive-definite matrix
surfaces as ``candlewick.errors.LinAlgError`` (through ``error.failure``).
"""

import numpy as np

from candlewick import dtypes as dt

from .error import QuietBlock, failure
from .reduce_ops import all_finite

DTYPES = (dt.float32, dt.float64, dt.complex64, dt.complex128)


def _run(op, fn, *args, **kwargs):
    try:
        with QuietBlock():
            return fn(*args, **kwargs)
    except (np.linalg.LinAlgError, ValueError) as exc:
        raise failure(op, exc) from exc


def _fresh(a, np_dtype):
    # results become flat storages: C order, the storage's dtype, and never a view of
    # an input (numpy returns scalars for 0-d batches; asarray makes them arrays)
    return np.ascontiguousarray(np.asarray(a), dtype=np_dtype)


def cholesky(a, upper):
    return _fresh(_run("cholesky", np.linalg.cholesky, a, upper=upper), a.dtype)


def qr(a, complete):
    q, r = _run("qr", np.linalg.qr, a, mode="complete" if complete else "reduced")
    return _fresh(q, a.dtype), _fresh(r, a.dtype)


def svd(a, full_matrices):
    if not all_finite(a):
        # LAPACK's gesdd can loop forever on a matrix holding infinity (seen with OpenBLAS:
        # [[-1, .5, 0], [inf, .5, 0], [0, .5, 1e-40]]); NumPy raises for NaN: refuse both,
        # as rocm's Jacobi kernel does
        raise failure("svd", np.linalg.LinAlgError("the SVD did not converge: the input holds NaN or infinity"))
    u, s, vh = _run("svd", np.linalg.svd, a, full_matrices=full_matrices)
    real = np.empty(0, a.dtype).real.dtype
    return _fresh(u, a.dtype), _fresh(s, real), _fresh(vh, a.dtype)


def eigh(a):
    w, v = _run("eigh", np.linalg.eigh, a)
    real = np.empty(0, a.dtype).real.dtype
    return _fresh(w, real), _fresh(v, a.dtype)


def eig(a):
    w, v = _run("eig", np.linalg.eig, a)
    # NumPy returns real results for a real matrix whose eigenvalues are all real
    complex_dtype = np.result_type(a.dtype, np.complex64)
    return _fresh(w, complex_dtype), _fresh(v, complex_dtype)


def solve(a, b):
    return _fresh(_run("solve", np.linalg.solve, a, b), a.dtype)


def inv(a):
    return _fresh(_run("inv", np.linalg.inv, a), a.dtype)


def det(a):
    return _fresh(_run("det", np.linalg.det, a), a.dtype)


def slogdet(a):
    sign, logabsdet = _run("slogdet", np.linalg.slogdet, a)
    real = np.empty(0, a.dtype).real.dtype
    return _fresh(sign, a.dtype), _fresh(logabsdet, real)
