"""The reduce and scan tables: every ``ReduceOp`` and ``ScanOp`` of ``candlewick.opdefs``
mapped to a NumPy kernel per dtype (built by ``op_tables.build_table``; ``ops``
re-exports both tables beside its element-wise ones).

Table shapes (keyed ``[op.value][dtype.name]``):

* ``REDUCE`` -> ``(kernel(view, axes), loud, result DType)``; the kernel keeps the
  reduced axes (``keepdims``) so a full reduction is still an array; ``loud``: it can
  set an IEEE flag, and ``reductions.reduce`` runs it in the quiet error state.
* ``SCAN`` -> ``(kernel(view, axis), result DType)``.

Numerics beyond raw NumPy: sums and products accumulate in ``accumulation_dtype``
(float32 for float16/bfloat16, complex128 for complex64) and are rounded once; min, max
and their arg forms compare float16/bfloat16 in float32. Every kernel that can set an
IEEE flag is run quietly (a scan's is wrapped in ``error.quiet``).
"""

import functools

import numpy as np

from candlewick.opdefs import ReduceOp, ScanOp

from .error import QuietBlock, quiet
from .op_tables import F32, I64, LOW_PRECISION, accumulation_dtype, build_table

try:  # NumPy 2's whole-array count (np.count_nonzero without an axis calls it after a Python wrapper)
    from numpy._core.multiarray import count_nonzero as _COUNT_ALL
except ImportError:  # pragma: no cover - other NumPy layouts
    _COUNT_ALL = np.count_nonzero
try:  # argmin/argmax along short float rows in one C loop (NumPy's answers, index for index)
    from candlewick._native import arg_rows as _arg_rows
except ImportError:  # (not built: NumPy's method, the same answers)
    _arg_rows = None
#: the longest rows arg_rows takes: NumPy's per-row call costs more below (measured 3-8x at
#: 2-16 elements, 1.5-2x at 32), its vector loop is as fast from about 64
_ARG_ROWS_UPTO = 32
_ARG_ROWS_DTYPES = frozenset((np.dtype(np.float32), np.dtype(np.float64)))


def _reduce_impl(op, dtype):
    np_dtype = dtype.numpy
    low = dtype in LOW_PRECISION

    if op in (ReduceOp.SUM, ReduceOp.PROD):
        ufunc = np.add if op is ReduceOp.SUM else np.multiply
        acc = accumulation_dtype(dtype)  # also stops NumPy promoting small ints to int64
        if acc == np_dtype:  # the ufunc's reduce itself: a call of C, no Python frame
            return functools.partial(ufunc.reduce, dtype=acc, keepdims=True)

        def accumulate(v, axes):
            return ufunc.reduce(v, axis=axes, dtype=acc, keepdims=True).astype(np_dtype)

        return accumulate

    if op in (ReduceOp.MIN, ReduceOp.MAX):
        ufunc = np.minimum if op is ReduceOp.MIN else np.maximum  # both propagate NaN
        if not low:
            return functools.partial(ufunc.reduce, keepdims=True)

        def extreme(v, axes):
            return ufunc.reduce(v.astype(F32), axis=axes, keepdims=True).astype(np_dtype)

        return extreme

    if op in (ReduceOp.ARGMIN, ReduceOp.ARGMAX):
        # first extreme / first NaN: the ndarray method, which np.argmin calls after two
        # Python wrappers (fromnumeric's and _wrapfunc: a KMeans step's argmin along rows)
        find = np.ndarray.argmin if op is ReduceOp.ARGMIN else np.ndarray.argmax
        largest = op is ReduceOp.ARGMAX

        def arg_extreme(v, axes):
            (axis,) = axes
            if low:
                v = v.astype(F32)
            if (v.ndim == 2 and axis in (1, -1) and v.shape[1] <= _ARG_ROWS_UPTO and _arg_rows is not None
                    and v.dtype in _ARG_ROWS_DTYPES):  # a KMeans step's nearest center
                out = np.empty((v.shape[0], 1), I64)
                if _arg_rows(v, out, largest):
                    return out
            if v.ndim == 1:  # a whole run (the flat buffer or a 1-D view): its index as a 1-element result
                out = np.empty(1, I64)
                out[0] = find(v)
                return out
            return find(v, axis=axis, keepdims=True).astype(np.int64, copy=False)

        return arg_extreme

    if op is ReduceOp.COUNT_NONZERO:
        def count(v, axes):  # NumPy counts float16 and ml_dtypes' bfloat16 as they are (NaN non-zero)
            ndim = v.ndim
            if len(axes) == ndim:  # the whole-array count: NumPy's C function, as np.count_nonzero calls it
                out = np.empty(1, I64)
                out[0] = _COUNT_ALL(v)
                return out if ndim == 1 else out.reshape((1,) * ndim)
            return np.count_nonzero(v, axis=axes, keepdims=True).astype(np.int64, copy=False)

        return count

    ufunc = np.logical_or if op is ReduceOp.ANY else np.logical_and

    def truth(v, axes):
        if not dtype.is_bool:
            v = np.not_equal(v.astype(F32) if low else v, 0)  # NaN counts as true
        return ufunc.reduce(v, axis=axes, keepdims=True)

    return truth


def _scan_impl(op, dtype):
    np_dtype = dtype.numpy
    acc = accumulation_dtype(dtype)
    narrow = acc != np_dtype
    # the ufuncs' accumulate: np.cumsum/np.cumprod are Python wrappers around the same loop
    run = (np.add if op is ScanOp.SUM else np.multiply).accumulate

    def scan(v, axis):
        r = run(v, axis=axis, dtype=acc)
        return r.astype(np_dtype) if narrow else r

    return scan


def all_finite(v):
    """True where every element of the float or complex view ``v`` is finite. Its sum is
    finite only then (an inf or NaN operand never gives a finite sum); a finite array whose
    sum overflows is told by the element-wise test. The sum allocates nothing, where
    ``isfinite(v).all()`` makes a bool array of v's size and passes over it again: for the
    SVD of scikit-learn's Ridge/PCA (20000 x 64 float32) 0.3 ms where the allocator reused
    memory, and where it had handed the SVD's work buffers back to the system, up to ~450
    page faults more (~2 ms of system time) on this project's VM (2026-12-01)."""
    with QuietBlock():  # (an overflowing sum is no warning for the caller)
        total = np.add.reduce(v, axis=None)
    return bool(np.isfinite(total)) or bool(np.isfinite(v).all())


#: a count compares with zero only, and NumPy's argmin/argmax (no ufunc) consult no error
#: state: no floating-point flag to silence (nor a Python frame and a context variable's
#: set and reset a call: a KMeans step's argmin along rows)
_NEVER_LOUD = frozenset((ReduceOp.COUNT_NONZERO, ReduceOp.ARGMIN, ReduceOp.ARGMAX))


def _loud(op, dtype):
    return (dtype.is_floating or dtype.is_complex) and op not in _NEVER_LOUD


def _reduce_kernel(op, dtype, impl):
    # (the flag, not a wrapper: the wrapper's frame and the kernel's were two of a sum's
    # Python frames, each about a us after NumPy's calls over the data: a StandardScaler
    # fit makes eight reductions)
    return impl, _loud(op, dtype)


def _scan_kernel(op, dtype, impl):
    return (quiet(impl),) if _loud(op, dtype) else (impl,)


# _reduce_impl and _scan_impl cover every op of their enum
REDUCE = build_table(ReduceOp, _reduce_impl, _reduce_kernel, ReduceOp)
SCAN = build_table(ScanOp, _scan_impl, _scan_kernel, ScanOp)
