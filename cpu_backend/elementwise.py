"""The element-wise primitives of ``CpuStorage``: ``unary``, ``binary``, ``compare``,
their scalar forms, ``where``, ``astype``, ``affine`` and ``clip`` (each takes the storage
it works on first and makes its result of that storage's class; ``storage.CpuStorage``
binds them as its methods).

These run on every element-wise call, where each Python step is a visible share of a
16-element op's cost, so they are written flat: one table lookup (``ops.*_RAW``: the
kernel without ``error.quiet``'s wrapper), the whole-buffer case known from one cached
attribute (``Layout.dense_size``: no ``flat`` call), the quiet floating-point state set
around the kernel inline where the kernel can raise a flag, and the result storage made
without an ``__init__`` call (``object.__new__`` and its two slots). Other
contiguous operands run on 1-D slices (``flat``); the rest are viewed through their
layouts and the result flattened in C order.
"""

import numpy as np

from candlewick import dtypes as dt
from candlewick.errors import DTypeError
from candlewick.fp_state import LOUD, STATE_VAR
from candlewick.opdefs import BinaryOp, CompareOp, UnaryOp

try:  # optional: the ufunc primitives' common case in C (_in_c)
    from candlewick import _native
except ImportError:  # pragma: no cover - built where a C compiler was found
    _native = None  # type: ignore[assignment]

from .error import QUIET, QuietBlock, out_of_memory, reports_out_of_memory, reset_fp_state, set_fp_state, unsupported
from .ops import AT_SCALAR, BINARY_RAW, COMPARE_RAW, SCALAR_TYPE, UNARY_RAW, compute_dtype
from .storage_slice import flat, view

# a scalar operand reaches its kernel as a 0-d array of the compute type: a ufunc takes
# one in about half the time it takes a NumPy scalar (np.greater at 16 elements: 0.27
# against 0.52 us on the 2-core VM), and making it costs the same
_SCALAR_DTYPE = {name: np.dtype(t) for name, t in SCALAR_TYPE.items()}
_array = np.array
_new = object.__new__
_AFFINE_DTYPE = {
    d.name: np.dtype(np.complex128 if d.is_complex else np.float64)
    for d in (dt.float16, dt.bfloat16, dt.float32, dt.complex64)
}

try:  # NumPy 2's clip ufunc (np.clip reaches it through two Python wrappers)
    from numpy._core.umath import clip as _CLIP
except ImportError:  # pragma: no cover - other NumPy layouts
    _CLIP = np.clip


def unary(self, op, layout):
    try:
        kernel, loud, out_dtype = UNARY_RAW[op._value_][self.dtype.name]
    except (KeyError, AttributeError):
        raise unsupported(op, self.dtype) from None
    x = self.buf
    if layout.dense_size != x.size:  # (else the whole buffer, as it lies)
        x = flat(x, layout) if layout.is_contiguous else view(x, layout)
    try:
        if loud:
            token = set_fp_state(QUIET)
            try:
                out = kernel(x)
            finally:
                reset_fp_state(token)
        else:
            out = kernel(x)
    except MemoryError as exc:  # (a try costs nothing until it catches)
        raise out_of_memory(op, exc) from exc
    result = _new(type(self))  # (type(self)(out, out_dtype) without the __init__ call)
    result.buf = out if out.ndim == 1 else out.reshape(-1)
    result.dtype = out_dtype
    return result

def _two_operands(table, primitive):
    """The two-operand primitive named ``primitive`` over ``table`` (BINARY_RAW or
    COMPARE_RAW) on two layouts of one shape."""

    def two_operands(self, op, lhs_layout, rhs, rhs_layout):
        try:
            kernel, loud, out_dtype = table[op._value_][self.dtype.name]
        except (KeyError, AttributeError):
            raise unsupported(op, self.dtype) from None
        a, b = self.buf, rhs.buf
        if lhs_layout.dense_size != a.size or rhs_layout.dense_size != b.size:  # (else whole buffers)
            if lhs_layout.is_contiguous and rhs_layout.is_contiguous:
                a, b = flat(a, lhs_layout), flat(b, rhs_layout)
            else:
                a, b = view(a, lhs_layout), view(b, rhs_layout)
        try:
            if loud:
                token = set_fp_state(QUIET)
                try:
                    out = kernel(a, b)
                finally:
                    reset_fp_state(token)
            else:
                out = kernel(a, b)
        except MemoryError as exc:
            raise out_of_memory(op, exc) from exc
        result = _new(type(self))
        result.buf = out if out.ndim == 1 else out.reshape(-1)
        result.dtype = out_dtype
        return result

    two_operands.__name__ = two_operands.__qualname__ = primitive
    return two_operands


def _in_c(primitive, table, ops, scalar=False, unary=False, converting=False):
    """``primitive`` (a two-operand one over ``table``; with ``scalar``, an array and a
    Python scalar; with ``unary``, one array; with ``converting``, ``binary_as``: two
    operands of any dtypes, each converted to the call's as the ufunc reads it) with its
    common case in C where candlewick._native was built
    (``_native.UfuncNew``: an op whose kernel is one NumPy ufunc, on 1-D views of the
    buffers, or on the buffers reshaped so that NumPy broadcasts them to the layouts'
    strides; the scalar the same 0-d array; a kernel of ``ops.AT_SCALAR`` the one-operand
    ufunc it is at the scalar's value, ``x ** 2`` as np.square; the same quiet state,
    result and errors),
    ``primitive`` for the rest. After a NumPy call over 10^5-10^6 elements this
    primitive's Python frame costs 15-25 us of cache misses (bench/pydata_e2e.py's
    KMeans-like loop makes eight such calls an iteration)."""
    if _native is None or STATE_VAR is None:
        return primitive
    def extra(name):  # (the scalar's dtype; the converting form's signature, in that form's quiet state)
        np_dtype = dt.from_name(name).numpy
        return (_SCALAR_DTYPE[name],) if scalar else ((np_dtype, np_dtype, None),) if converting else ()

    entries = {id(ops(op)): {id(dt.from_name(name)): (AT_SCALAR.get(kernel, kernel), bool(loud) or converting, out_dtype)
                                                     + extra(name)  # (by identity)
                             for name, (kernel, loud, out_dtype) in row.items()
                             if (type(kernel) is np.ufunc and kernel.nin == (1 if unary else 2)
                                 and kernel.nout == 1 or scalar and kernel in AT_SCALAR)
                             and (not scalar or name in _SCALAR_DTYPE)}
               for op, row in table.items()}
    return _native.UfuncNew(entries, STATE_VAR, QUIET, out_of_memory, primitive, loud=LOUD,
                            convert=_array if scalar else None, unary=unary, converting=converting)


unary = _in_c(unary, UNARY_RAW, UnaryOp, unary=True)
binary = _in_c(_two_operands(BINARY_RAW, "binary"), BINARY_RAW, BinaryOp)
compare = _in_c(_two_operands(COMPARE_RAW, "compare"), COMPARE_RAW, CompareOp)


def _binary_as(self, op, lhs_layout, rhs, rhs_layout, dtype):
    """The optional group "binary_dtype": ``binary`` of both operands converted to
    ``dtype``. A kernel that is one ufunc converts them a buffer at a time (its
    ``signature``, NumPy's unsafe cast: astype's values), with no converted copy of
    either; any other kernel (complex64's rounded ones, pow, floor_divide) is given
    converted operands. Flat as ``binary`` (scikit-learn's ``X - mean``, float32 and
    float64, once a StandardScaler fit: the general helpers' frames cost ~40 us there
    after NumPy's calls over the data have evicted them)."""
    try:
        kernel, _, out_dtype = BINARY_RAW[op._value_][dtype.name]
    except (KeyError, AttributeError):
        raise unsupported(op, dtype) from None
    np_dtype = dtype.numpy
    a, b = self.buf, rhs.buf
    if lhs_layout.dense_size != a.size or rhs_layout.dense_size != b.size:  # (else whole buffers)
        if lhs_layout.is_contiguous and rhs_layout.is_contiguous:
            a, b = flat(a, lhs_layout), flat(b, rhs_layout)
        else:
            a, b = view(a, lhs_layout), view(b, rhs_layout)
    token = set_fp_state(QUIET)  # a narrowing conversion may overflow, as astype's quietly does
    try:
        if type(kernel) is np.ufunc:
            out = kernel(a, b, signature=(np_dtype, np_dtype, None), casting="unsafe")
        else:
            out = kernel(a.astype(np_dtype, copy=False), b.astype(np_dtype, copy=False))
    except MemoryError as exc:
        raise out_of_memory(op, exc) from exc
    finally:
        reset_fp_state(token)
    result = _new(type(self))
    result.buf = out if out.ndim == 1 else out.reshape(-1)
    result.dtype = out_dtype
    return result


_binary_as.__name__ = _binary_as.__qualname__ = "binary_as"
binary_as = _in_c(_binary_as, BINARY_RAW, BinaryOp, converting=True)


def _with_scalar(table, primitive):
    """The primitive named ``primitive`` over ``table`` with a Python scalar as one operand."""

    def array_and_scalar(self, op, layout, scalar, reflected):
        name = self.dtype.name
        try:
            kernel, loud, out_dtype = table[op._value_][name]
        except (KeyError, AttributeError):
            raise unsupported(op, self.dtype) from None
        x = self.buf
        if layout.dense_size != x.size:  # (else the whole buffer, as it lies)
            x = flat(x, layout) if layout.is_contiguous else view(x, layout)
        try:
            if loud:  # (every floating dtype): the scalar's conversion runs quietly too, as a
                # Python float past a narrow float's range rounds to inf, which NumPy's cast
                # reports as a RuntimeWarning
                token = set_fp_state(QUIET)
                try:
                    s = _array(scalar, _SCALAR_DTYPE[name])
                    out = kernel(s, x) if reflected else kernel(x, s)
                finally:
                    reset_fp_state(token)
            else:  # integers (in range: the front end checked) and bool
                s = _array(scalar, _SCALAR_DTYPE[name])
                out = kernel(s, x) if reflected else kernel(x, s)
        except MemoryError as exc:
            raise out_of_memory(op, exc) from exc
        result = _new(type(self))
        result.buf = out if out.ndim == 1 else out.reshape(-1)
        result.dtype = out_dtype
        return result

    array_and_scalar.__name__ = array_and_scalar.__qualname__ = primitive
    return array_and_scalar


binary_scalar = _in_c(_with_scalar(BINARY_RAW, "binary_scalar"), BINARY_RAW, BinaryOp, scalar=True)
compare_scalar = _in_c(_with_scalar(COMPARE_RAW, "compare_scalar"), COMPARE_RAW, CompareOp, scalar=True)


def where(self, cond_layout, x, x_layout, y, y_layout):
    dtype = x.dtype
    if y.dtype is not dtype:
        raise DTypeError(f"where: x has dtype {dtype} but y has dtype {y.dtype}")
    c, a, b = self.buf, x.buf, y.buf
    if cond_layout.dense_size != c.size or x_layout.dense_size != a.size or y_layout.dense_size != b.size:
        if cond_layout.is_contiguous and x_layout.is_contiguous and y_layout.is_contiguous:
            c, a, b = flat(c, cond_layout), flat(a, x_layout), flat(b, y_layout)
        else:
            c, a, b = view(c, cond_layout), view(a, x_layout), view(b, y_layout)
    try:
        out = np.where(c, a, b)
    except MemoryError as exc:
        raise out_of_memory("where", exc) from exc
    result = _new(type(self))
    result.buf = out if out.ndim == 1 else out.reshape(-1)
    result.dtype = dtype
    return result


def astype(self, layout, dtype):
    x = self.buf
    # the quiet state set inline (QuietBlock's enter and exit are two Python frames more
    # on a call that a KMeans step and pairwise_distances make after large NumPy calls)
    token = set_fp_state(QUIET)  # NaN/inf/out-of-range to int is defined as "unspecified", not a warning
    try:
        if layout.dense_size == x.size:  # (the whole buffer, as it lies)
            out = x.astype(dtype.numpy)
        elif layout.is_contiguous:
            out = flat(x, layout).astype(dtype.numpy)
        else:
            out = view(x, layout).astype(dtype.numpy, order="C").reshape(-1)
    except MemoryError as exc:
        raise out_of_memory("astype", exc) from exc
    finally:
        reset_fp_state(token)
    result = _new(type(self))  # (type(self)(out, dtype) without the __init__ call)
    result.buf = out
    result.dtype = dtype
    return result


@reports_out_of_memory
def affine(self, layout, mul, add):
    if not (self.dtype.is_integer or self.dtype.is_floating or self.dtype.is_complex):
        raise unsupported("affine", self.dtype)
    # integers wrap in their own dtype; floating types below float64 compute in double
    # precision and round once, so x * mul may pass the dtype's range when the sum
    # does not (as a fused multiply-add would)
    wide = _AFFINE_DTYPE.get(self.dtype.name, self.dtype.numpy)
    x = flat(self.buf, layout) if layout.is_contiguous else view(self.buf, layout)
    with QuietBlock():  # the rounding back may overflow to inf, as IEEE says, silently
        out = np.multiply(x, wide.type(mul), dtype=wide)
        out += wide.type(add)
        out = out.astype(self.dtype.numpy, copy=False)
    return type(self)(out.reshape(-1), self.dtype)


@reports_out_of_memory
def clip(self, layout, lo, hi):
    if not (self.dtype.is_integer or self.dtype.is_floating):
        raise unsupported("clip", self.dtype)
    scalar = SCALAR_TYPE[self.dtype.name]
    x = flat(self.buf, layout) if layout.is_contiguous else view(self.buf, layout)
    if self.dtype.numpy == compute_dtype(self.dtype) and (lo is not None or hi is not None):
        # NumPy's clip loop: one pass, NaN stays NaN, min(max(x, lo), hi) when lo > hi
        # (np.maximum with a scalar operand is several times slower per element)
        if lo is not None and hi is not None:  # the ufunc np.clip ends in, without its wrappers
            out = _CLIP(x, scalar(lo), scalar(hi))
        else:
            out = np.clip(x, None if lo is None else scalar(lo), None if hi is None else scalar(hi))
        return type(self)(out.reshape(-1), self.dtype)
    with QuietBlock():  # (the cast back too: a bound past a narrow float's range gives inf)
        out = x.astype(compute_dtype(self.dtype), order="C")  # a private copy to clip in place
        if lo is not None:
            np.maximum(out, scalar(lo), out=out)  # NaN stays NaN
        if hi is not None:
            np.minimum(out, scalar(hi), out=out)
        out = out.astype(self.dtype.numpy, copy=False)
    return type(self)(out.reshape(-1), self.dtype)
