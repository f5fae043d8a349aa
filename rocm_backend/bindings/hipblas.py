"""[bindings] hipBLAS: the handle, hipblasGemmStridedBatchedEx (the one GEMM call of the
backend) with its host cost kept low, the batched LU (getrfBatched, getrsBatched) and the
triangular solve (trsm).

hip-python converts each of the call's 23 arguments into a wrapper object on every call
(tens of µs on the GPU hosts we measured: a GEMM-only 1x1 convolution spent ~70 µs on the
host for 7-30 µs on the device). As for kernel launches (bindings/hip_ctypes.py), the function is
called through ctypes on the very ``libhipblas`` hip-python loaded (``RTLD_NOLOAD``), with
the enum values and the alpha/beta scalars converted once per dtype. Where that library
cannot be found (another OS, a stand-in in tests) or ``CANDLEWICK_ROCM_RAW_BLAS=0``,
hip-python makes the call.
"""

import ctypes
import os
import threading

import numpy as np

from candlewick import dtypes as dt

from ..error import RocmError, check
from .hip import hip_api
from .hip_ctypes import loaded_function, loaded_library_path

#: dtype -> (hipDataType name, hipblasComputeType_t name, numpy type of alpha/beta)
BLAS_TYPES = {
    dt.float16: ("HIP_R_16F", "HIPBLAS_COMPUTE_32F", np.float32),
    dt.bfloat16: ("HIP_R_16BF", "HIPBLAS_COMPUTE_32F", np.float32),
    dt.float32: ("HIP_R_32F", "HIPBLAS_COMPUTE_32F", np.float32),
    dt.float64: ("HIP_R_64F", "HIPBLAS_COMPUTE_64F", np.float64),
    dt.complex64: ("HIP_C_32F", "HIPBLAS_COMPUTE_32F", np.complex64),
    dt.complex128: ("HIP_C_64F", "HIPBLAS_COMPUTE_64F", np.complex128),
}
_INT = ctypes.c_int
_I64 = ctypes.c_int64
_VP = ctypes.c_void_p
_ARGTYPES = [_VP, _INT, _INT, _INT, _INT, _INT, _VP, _VP, _INT, _INT, _I64, _VP, _INT, _INT, _I64,
             _VP, _VP, _INT, _INT, _I64, _INT, _INT, _INT]
_lock = threading.Lock()
_state = {}


class _Types:
    """Per (data dtype, compute dtype) constants of a GEMM call, converted once."""

    def __init__(self, data_dtype, compute_dtype):
        api = hip_api()
        hip, hipblas = api.hip, api.hipblas
        data_name = BLAS_TYPES[data_dtype][0]
        _, compute_name, scalar = BLAS_TYPES[compute_dtype]
        self.data_enum = getattr(hip.hipDataType, data_name)
        self.compute_enum = getattr(hipblas.hipblasComputeType_t, compute_name)
        self.data = _as_int(self.data_enum)
        self.compute = _as_int(self.compute_enum)
        # alpha/beta live as long as the process: hipBLAS reads them during the call
        self.alpha_array, self.beta_array = np.ones(1, scalar), np.zeros(1, scalar)
        self.alpha, self.beta = self.alpha_array.ctypes.data, self.beta_array.ctypes.data


def _as_int(enum):
    """The C value of a hip-python enum member (None for stand-ins without one)."""
    try:
        return int(enum)
    except (TypeError, ValueError):
        return None


def _status(code):
    """hip-python's hipblasStatus_t for a raw status (named in the error), else the int."""
    try:
        return hip_api().hipblas.hipblasStatus_t(code)
    except Exception:  # noqa: BLE001
        return code


def _loaded_hipblas():
    return loaded_library_path("libhipblas")


def _raw_function():
    if os.environ.get("CANDLEWICK_ROCM_RAW_BLAS", "1") == "0":
        return None
    fn = loaded_function(_loaded_hipblas(), "hipblasGemmStridedBatchedEx")
    if fn is not None:
        fn.argtypes = _ARGTYPES
    return fn


def _setup():
    with _lock:
        if "ops" not in _state:
            api = hip_api()
            op = api.hipblas.hipblasOperation_t
            _state["enums"] = (op.HIPBLAS_OP_N, op.HIPBLAS_OP_T,
                               api.hipblas.hipblasGemmAlgo_t.HIPBLAS_GEMM_DEFAULT)
            ops = tuple(_as_int(e) for e in _state["enums"])
            _state["raw"] = _raw_function() if None not in ops else None
            # "ops" last: callers test for it without the lock, then read "raw" (8 threads'
            # first GEMMs raced here on the GPU: KeyError 'raw')
            _state["ops"] = ops
    return _state


def types(data_dtype, compute_dtype=None):
    """The cached _Types of a GEMM on ``data_dtype`` data (compute: float32 for the
    16-bit floats, float64 for float64/complex128, the data's own otherwise)."""
    key = (data_dtype, compute_dtype or data_dtype)
    found = _state.get(key)
    if found is None:
        found = _state[key] = _Types(*key)
    return found


def create_handle(stream):
    """A hipBLAS handle bound to ``stream``."""
    hipblas = hip_api().hipblas
    handle = check("hipblasCreate", hipblas.hipblasCreate())
    check("hipblasSetStream", hipblas.hipblasSetStream(handle, stream))
    return handle


def gemm_strided_batched(handle, trans_a, trans_b, m, n, k, a, lda, stride_a, b, ldb, stride_b,
                         c, ldc, stride_c, batch, ab_types, c_types=None):
    """Column-major ``C = op(A) op(B)`` over ``batch`` strided matrices (pointers are
    ints; ``ab_types``/``c_types`` from ``types()``; alpha = 1, beta = 0 of ab_types)."""
    prepared_gemm(trans_a, trans_b, m, n, k, lda, stride_a, ldb, stride_b, ldc, stride_c, batch, ab_types,
                  c_types)(handle, a, b, c)


def prepared_gemm(trans_a, trans_b, m, n, k, lda, stride_a, ldb, stride_b, ldc, stride_c, batch, ab_types,
                  c_types=None):
    """``gemm_strided_batched`` of these arguments as a function of (handle, a, b, c): every
    other argument converted once (a product made again, as a loop's, pays the call alone).
    The call goes through ctypes where the raw function was found and the handle converts
    to an int, else through hip-python."""
    state = _state if "ops" in _state else _setup()
    c_types = c_types or ab_types
    op_n, op_t, algo = state["enums"]

    def hip_python_call(handle, a, b, c):
        status = hip_api().hipblas.hipblasGemmStridedBatchedEx(
            handle, op_t if trans_a else op_n, op_t if trans_b else op_n, m, n, k, ab_types.alpha,
            a, ab_types.data_enum, lda, stride_a, b, ab_types.data_enum, ldb, stride_b, ab_types.beta,
            c, c_types.data_enum, ldc, stride_c, batch, ab_types.compute_enum, algo)
        check("hipblasGemmStridedBatchedEx", status)

    raw = state["raw"] if ab_types.data is not None else None
    if raw is None:
        return hip_python_call
    op_n, op_t, algo = state["ops"]
    head = (op_t if trans_a else op_n, op_t if trans_b else op_n, m, n, k, ab_types.alpha)
    a_args, b_args = (ab_types.data, lda, stride_a), (ab_types.data, ldb, stride_b, ab_types.beta)
    tail = (c_types.data, ldc, stride_c, batch, ab_types.compute, algo)

    def call(handle, a, b, c):
        try:
            handle_int = int(handle)
        except TypeError:  # a handle with no C value (a stand-in): hip-python's call
            return hip_python_call(handle, a, b, c)
        status = raw(handle_int, *head, a, *a_args, b, *b_args, c, *tail)
        if status:
            raise RocmError("hipblasGemmStridedBatchedEx", _status(status))
    return call


def lu_batched(letter, routine, *args):
    """hipBLAS's batched LU: hipblas<letter><routine> (getrfBatched, getrsBatched)."""
    name = f"hipblas{letter}{routine}"
    return check(name, getattr(hip_api().hipblas, name)(*args))


def trsm(handle, letter, left, lower, m, n, alpha, a, lda, b, ldb):
    """hipblas<letter>trsm, in place on the column-major m x n ``b``: B := A^-1 B (``left``)
    or B A^-1, A triangular (``lower`` or upper, non-unit diagonal, only that triangle
    read), op N; ``alpha`` the address of a host scalar (hipBLAS's default pointer mode)."""
    hb = hip_api().hipblas
    side = hb.hipblasSideMode_t.HIPBLAS_SIDE_LEFT if left else hb.hipblasSideMode_t.HIPBLAS_SIDE_RIGHT
    fill = hb.hipblasFillMode_t
    name = f"hipblas{letter}trsm"
    check(name, getattr(hb, name)(handle, side, fill.HIPBLAS_FILL_MODE_LOWER if lower else fill.HIPBLAS_FILL_MODE_UPPER,
                                  hb.hipblasOperation_t.HIPBLAS_OP_N, hb.hipblasDiagType_t.HIPBLAS_DIAG_NON_UNIT,
                                  m, n, alpha, a, lda, b, ldb))
