"""The CPU storage's matrix product primitive, ``matmul`` (bound on ``storage.CpuStorage``):
vecdot's shape through NumPy's vecdot gufunc, integers through ``np.matmul`` (they wrap),
float16/bfloat16 accumulated in float32 and rounded once, and complex products that BLAS
turned non-finite redone as explicit IEEE products and sums. Results are storages of the
caller's class."""

import numpy as np

from candlewick import dtypes as dt
from candlewick.fp_state import STATE_VAR
from candlewick.shapes import broadcast_shapes

from .error import (
    QUIET, QuietBlock, out_of_memory, quiet, reports_out_of_memory, reset_fp_state, same_dtype, set_fp_state, unsupported,
)
from .ops import F32, LOW_PRECISION_NAMES
from .reduce_ops import all_finite
from .storage_slice import flat, view

try:  # optional: the real 2-D product's common case in C (_in_c)
    from candlewick import _native
except ImportError:  # pragma: no cover - built where a C compiler was found
    _native = None  # type: ignore[assignment]

_IEEE_NAMES = frozenset(d.name for d in dt.REAL_FLOATING + dt.COMPLEX)
_COMPLEX_NAMES = frozenset(d.name for d in dt.COMPLEX)
_quiet_matmul = quiet(np.matmul)
#: the dtypes whose vecdot-shaped matmul goes through np.vecdot (complex: vecdot would
#: conjugate; float16/bfloat16 accumulate in float32 through matmul's path)
_VECDOT_NAMES = frozenset(d.name for d in dt.INTEGER + (dt.float32, dt.float64))


def _complex_matmul_ieee(a, b):
    """Complex matmul as explicit IEEE products and sums (complex128, rounded once).

    BLAS cgemm/zgemm rearrange the complex products, so with an inf or NaN among the
    inputs they can return NaN where the products and sums give +-inf. Only called when
    BLAS produced a non-finite value; a loop over K keeps memory at O(M*N)."""
    wide_a, wide_b = a.astype(np.complex128), b.astype(np.complex128)
    # (candlewick's broadcast_shapes: NumPy's stops at 32 dimensions)
    shape = broadcast_shapes(a.shape[:-2], b.shape[:-2]) + (a.shape[-2], b.shape[-1])
    acc = np.zeros(shape, np.complex128)
    with QuietBlock():
        for k in range(a.shape[-1]):
            acc += wide_a[..., :, k : k + 1] * wide_b[..., k : k + 1, :]
        return acc.astype(a.dtype)


_REAL_BLAS_NAMES = frozenset(("float32", "float64"))
_new = object.__new__


def matmul(self, rhs, lhs_layout, rhs_layout):
    dtype = self.dtype
    if len(lhs_layout.shape) == 2 and dtype.name in _REAL_BLAS_NAMES and rhs.dtype is dtype:
        # the common case, a real 2-D product (a KMeans-like loop makes two an iteration):
        # np.matmul under the quiet state, without general's wrappers and checks
        a, b = view(self.buf, lhs_layout), view(rhs.buf, rhs_layout)
        token = set_fp_state(QUIET)
        try:
            out = np.matmul(a, b)
        except MemoryError as exc:
            raise out_of_memory("matmul", exc) from exc
        finally:
            reset_fp_state(token)
        result = _new(type(self))  # (type(self)(...) without the __init__ call)
        result.buf = out.reshape(-1)
        result.dtype = dtype
        return result
    return _general_matmul(self, rhs, lhs_layout, rhs_layout)


@reports_out_of_memory
def _general_matmul(self, rhs, lhs_layout, rhs_layout):
    dtype = self.dtype
    name = dtype.name
    shape = lhs_layout.shape
    if (name in _VECDOT_NAMES and rhs.dtype is dtype and len(shape) > 2 and shape[-2] == 1
            and rhs_layout.shape[-1] == 1):
        # (*B, 1, K) @ (*B, K, 1), vecdot's shape: NumPy's vecdot gufunc, the same dot
        # products without matmul's per-item setup (1.1x faster on 1024 rows of 1024)
        a, b = self.buf, rhs.buf
        if lhs_layout.is_contiguous and rhs_layout.is_contiguous:  # one batch shape: (*B, K) rows
            rows = shape[:-2] + shape[-1:]
            if lhs_layout.dense_size != a.size or rhs_layout.dense_size != b.size:
                a, b = flat(a, lhs_layout), flat(b, rhs_layout)
            a, b = a.reshape(rows), b.reshape(rows)
        else:  # dropping a size-1 axis is a view
            a, b = view(a, lhs_layout)[..., 0, :], view(b, rhs_layout)[..., 0]
        token = set_fp_state(QUIET)
        try:
            out = np.vecdot(a, b)
        finally:
            reset_fp_state(token)
        cls = type(self)
        result = cls.__new__(cls)  # (cls(...) without the __init__ call)
        result.buf = out if out.ndim == 1 else out.reshape(-1)
        result.dtype = dtype
        return result
    if name == "bool":
        raise unsupported("matmul", dtype)
    same_dtype(self, rhs, "rhs", "matmul")
    a, b = view(self.buf, lhs_layout), view(rhs.buf, rhs_layout)
    if name not in _IEEE_NAMES:  # integers wrap silently
        return type(self)(np.matmul(a, b).reshape(-1), dtype)
    if name in LOW_PRECISION_NAMES:  # accumulate in float32, round once (past the range: inf, quietly)
        with QuietBlock():
            out = _quiet_matmul(a.astype(F32), b.astype(F32)).astype(dtype.numpy)
    else:
        out = _quiet_matmul(a, b)
        if name in _COMPLEX_NAMES and not all_finite(out):
            out = _complex_matmul_ieee(a, b)
    return type(self)(out.reshape(-1), dtype)


def _in_c(primitive):
    """``primitive`` (``matmul``) with its common case in C where candlewick._native was
    built (``_native.UfuncNew``'s matrix form: a float32 or float64 product of two 2-D
    operands each a matrix or its transpose in the buffer, np.matmul on views with the
    layouts' strides under the quiet state, as ``matmul``'s first branch), ``primitive``
    for the rest. After a NumPy call over 10^5-10^6 elements the Python form's frames cost
    tens of us of cache misses (a KMeans-like loop makes two products an iteration)."""
    if _native is None or STATE_VAR is None:
        return primitive
    table = {id(None): {id(d): (np.matmul, True, d) for d in (dt.float32, dt.float64)}}  # (by identity)
    return _native.UfuncNew(table, STATE_VAR, QUIET, out_of_memory, primitive, matrix=True)


matmul = _in_c(matmul)
