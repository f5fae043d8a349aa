"""The optional "inplace" group of ``CpuStorage``: ``unary_into``, ``binary_into``,
``binary_scalar_into``, ``compare_into``, ``compare_scalar_into`` and ``where_into``
(each takes the destination storage first; ``storage.CpuStorage`` binds them as its
methods).

An op that is one NumPy ufunc runs as that ufunc with ``out=`` the destination view
(``ops.*_INTO``): NumPy's own overlap handling then gives NumPy's result for operands
that share the destination's memory (``x[1:] += x[:-1]``, ``x += x.T``), and a widened
dtype (float16, bfloat16, complex64) computes in its wide dtype through the ufunc's
``signature``, rounded once by the output cast, a buffer at a time. The other ops (the
backend's own kernels: integer ``pow``, ``erf``, ...) run their out-of-place kernel over
chunks of at most ``CHUNK`` elements that ``np.nditer`` hands out, with its
``copy_if_overlap``: no temporary the size of the destination either way.

Why a lock: a chunked kernel reads and writes its chunk in several Python steps, and
another thread's write could land between them and be lost. Every in-place primitive
holds its destination's lock (``storage_slice.lock_of``, which every other write into a
storage holds too), so each call is one update, as a single
ufunc call is in NumPy (which holds the GIL through the loop below 500 elements).
"""

import numpy as np

from candlewick.errors import DTypeError
from candlewick.opdefs import BinaryOp
from candlewick.fp_state import LOUD, STATE_VAR

try:  # candlewick's optional compiled module (absent where no C compiler was found)
    from candlewick import _native
except ImportError:
    _native = None  # type: ignore[assignment]

from .error import QUIET, out_of_memory, reports_out_of_memory, reset_fp_state, set_fp_state, unsupported
from .ops import AT_SCALAR, BINARY_INTO, COMPARE_INTO, POW_AT, SCALAR_TYPE, UNARY_INTO
from .storage_slice import flat, lock_of, may_share_memory as _may_share_memory, view

#: the most elements a chunk of the chunked path holds (a bounded temporary)
CHUNK = 1 << 14
_ITER_FLAGS = ["external_loop", "buffered", "zerosize_ok", "copy_if_overlap"]
_READ = ["readonly", "overlap_assume_elementwise"]
_WRITE = ["writeonly", "overlap_assume_elementwise"]
_SCALAR_DTYPE = {name: np.dtype(t) for name, t in SCALAR_TYPE.items()}
_POW_UFUNC = ("float32", "float64")  # pow's dtypes whose table kernel is np.power but for 0.5
_array = np.array
_empty = np.empty
_putmask = getattr(np.putmask, "_implementation", np.putmask)  # (the C function, past NumPy's dispatcher)
_copyto = np.copyto


def _views(dst, dst_layout, operands):
    """The destination and operand ``(storage, layout)`` pairs as NumPy arrays of one shape:
    whole buffers or 1-D runs where every layout is C-contiguous, else strided views."""
    bufs = [dst.buf]
    layouts = [dst_layout]
    whole = dst_layout.dense_size == dst.buf.size
    for storage, layout in operands:
        buf = storage.buf
        bufs.append(buf)
        layouts.append(layout)
        whole = whole and layout.dense_size == buf.size
    if whole:  # (every layout covers its whole buffer, as it lies)
        return bufs
    if all([lay.is_contiguous for lay in layouts]):
        return [flat(b, lay) for b, lay in zip(bufs, layouts)]
    return [view(b, lay) for b, lay in zip(bufs, layouts)]


def _chunked(kernel, out, args):
    """``out[...] = kernel(*args)`` over chunks of at most CHUNK elements; inputs that
    overlap ``out`` other than element for element are copied first (nditer's rule, the
    ufuncs' too)."""
    with np.nditer([*args, out], flags=_ITER_FLAGS, op_flags=[_READ] * len(args) + [_WRITE],
                   buffersize=CHUNK) as it:
        for chunk in it:
            chunk[-1][...] = kernel(*chunk[:-1])


def _run(entry, out, args, scalar=None):
    """``entry``'s op of ``args`` into ``out``; ``scalar`` (a Python scalar, its position
    in ``args`` None) converted to the compute dtype in the same quiet state (a float past
    a narrow dtype's range rounds to inf, which NumPy's cast reports)."""
    ufunc, signature, loud, kernel, _ = entry
    token = set_fp_state(QUIET) if loud else None
    try:
        if scalar is not None:
            s = _array(scalar[0], scalar[1])
            args = tuple(s if a is None else a for a in args)
        if ufunc is None:
            _chunked(kernel, out, args)
        elif signature is None:
            ufunc(*args, out=out)
        else:
            ufunc(*args, out=out, signature=signature)
    finally:
        if token is not None:
            reset_fp_state(token)


def _entry(table, op, dtype, dst_dtype):
    try:
        entry = table[op._value_][dtype.name]
    except (KeyError, AttributeError):
        raise unsupported(op, dtype) from None
    if entry[-1] is not dst_dtype:
        raise DTypeError(f"{op.value}: the destination has dtype {dst_dtype}, the result is {entry[-1]}")
    return entry


def _same(storage, other, name):
    if other.dtype is not storage.dtype:
        raise DTypeError(f"{name}: operands have dtypes {storage.dtype} and {other.dtype}")


@reports_out_of_memory
def unary_into(self, op, dst_layout, src, src_layout):
    entry = _entry(UNARY_INTO, op, src.dtype, self.dtype)
    out, x = _views(self, dst_layout, ((src, src_layout),))
    with lock_of(self):
        _run(entry, out, (x,))


# The common case of binary_into / binary_scalar_into (x += y, x *= 2.0: one dtype, one
# ufunc that needs no signature) skips the general path's helpers, and with whole buffers
# runs in C where candlewick._native was built (``_in_c``). The ufunc over 2^20 elements
# leaves the caches holding its 8-12 MB of data, so every Python object, dict and code
# object the next call touches misses: on the 2-core Xeon VM the general path's ~3.5 us
# of Python took ~35 us there, 11 % of NumPy's whole update (bench/inplace.py).


def _ufunc_call(self, ufunc, a, b, out, name):
    """``ufunc(a, b, out=out)`` (``ufunc(a, out=out)`` where ``b`` is None) holding self's
    lock in the quiet state; ``b`` a (Python scalar, NumPy dtype) pair is converted in that
    state (a float past the dtype's range rounds to inf, which NumPy's cast reports)."""
    try:
        lock = self._lock
    except AttributeError:
        lock = lock_of(self)
    with lock:
        token = set_fp_state(QUIET)
        try:
            if b is None:  # a one-operand ufunc (x **= 2 as np.square)
                ufunc(a, out=out)
            else:
                if type(b) is tuple:
                    b = _array(b[0], b[1])
                ufunc(a, b, out=out)
        except MemoryError as exc:
            raise out_of_memory(name, exc) from exc
        finally:
            reset_fp_state(token)


def _fast_entry(table, op, dtype):
    """The table's loop of ``op`` for ``dtype``, or None (not an op: the general path's error)."""
    try:
        return table[op._value_].get(dtype.name)
    except (KeyError, AttributeError):
        return None


def _pairwise(table, name):
    def general(self, op, dst_layout, lhs, lhs_layout, rhs, rhs_layout):
        _same(lhs, rhs, op.value)
        entry = _entry(table, op, lhs.dtype, self.dtype)
        out, a, b = _views(self, dst_layout, ((lhs, lhs_layout), (rhs, rhs_layout)))
        with lock_of(self):
            _run(entry, out, (a, b))

    general = reports_out_of_memory(general)

    def into(self, op, dst_layout, lhs, lhs_layout, rhs, rhs_layout):
        dtype = self.dtype
        entry = _fast_entry(table, op, dtype)
        if (entry is not None and entry[1] is None and entry[0] is not None and lhs.dtype is dtype
                and rhs.dtype is dtype and entry[-1] is dtype):
            out, a, b = self.buf, lhs.buf, rhs.buf
            if not (dst_layout.dense_size == out.size and lhs_layout.dense_size == a.size
                    and rhs_layout.dense_size == b.size):
                if lhs is self and lhs_layout is dst_layout:  # x op= y: one view for both
                    out = a = view(out, dst_layout)
                    b = view(b, rhs_layout)
                else:
                    out, a, b = _views(self, dst_layout, ((lhs, lhs_layout), (rhs, rhs_layout)))
            _ufunc_call(self, entry[0], a, b, out, name)
            return
        general(self, op, dst_layout, lhs, lhs_layout, rhs, rhs_layout)

    into.__name__ = into.__qualname__ = name
    return into


def _with_scalar(table, name):
    def general(self, op, dst_layout, src, src_layout, scalar, reflected):
        entry = _entry(table, op, src.dtype, self.dtype)
        out, x = _views(self, dst_layout, ((src, src_layout),))
        with lock_of(self):
            _run(entry, out, (None, x) if reflected else (x, None), (scalar, _SCALAR_DTYPE[src.dtype.name]))

    general = reports_out_of_memory(general)

    def into(self, op, dst_layout, src, src_layout, scalar, reflected):
        dtype = self.dtype
        entry = _fast_entry(table, op, dtype)
        if entry is not None and entry[1] is None and entry[0] is not None and src.dtype is dtype \
                and entry[-1] is dtype and not reflected:
            out, a = self.buf, src.buf
            if not (dst_layout.dense_size == out.size and src_layout.dense_size == a.size):
                if src is self and src_layout is dst_layout:  # x op= 2.0: one view for both
                    out = a = view(out, dst_layout)
                else:
                    out, a = _views(self, dst_layout, ((src, src_layout),))
            _ufunc_call(self, entry[0], a, (scalar, _SCALAR_DTYPE[dtype.name]), out, name)
            return
        if (op is BinaryOp.POW and not reflected and src.dtype is dtype and dtype.name in _POW_UFUNC
                and scalar != 0.5 and type(scalar) in (int, float)):
            # x **= 2 (scikit-learn's variance): a scalar exponent other than 0.5 is NumPy's
            # power loop itself, not the chunked kernel that mends 0.5's sqrt; 2 is
            # np.square, as NumPy's own ``x **= 2`` takes it (x*x, correctly rounded as pow
            # is: the same values; power's loop ran 3.8x square's instructions, 1.4x its
            # time at 20000 x 64 float64)
            out, a = _views(self, dst_layout, ((src, src_layout),))
            at = POW_AT.get(scalar)
            if at is not None:
                _ufunc_call(self, at, a, None, out, name)
            else:
                _ufunc_call(self, np.power, a, (scalar, _SCALAR_DTYPE[dtype.name]), out, name)
            return
        general(self, op, dst_layout, src, src_layout, scalar, reflected)

    into.__name__ = into.__qualname__ = name
    return into


def _in_c(into, table, scalar):
    """``into`` with the common case of its fast path (one ufunc over whole buffers, or
    the 1-D slices of 1-D or C-contiguous layouts that ``view`` / ``flat`` make; a
    Python float made the general path's 0-d array of the dtype, for float32 and
    float64: ``_scalar_operand``; a kernel of ``ops.AT_SCALAR`` the one-operand ufunc it
    is at the scalar's value: ``x **= 2`` as np.square) in C where candlewick._native was
    built (``_native.UfuncInto``: the same lock, quiet state and ufunc call), ``into``
    for the rest."""
    if _native is None or STATE_VAR is None:
        return into
    ufuncs = {id(BinaryOp(op)): {id(e[-1]): e[0] if e[0] is not None else AT_SCALAR[e[3]]  # (by identity)
                                 for name, e in row.items()
                                 if (e[0] is not None or scalar and e[3] in AT_SCALAR) and e[1] is None
                                 and e[-1].name == name and (not scalar or name in ("float32", "float64"))}
              for op, row in table.items()}
    name = into.__name__
    return _native.UfuncInto(scalar, ufuncs, STATE_VAR, QUIET, lambda exc: out_of_memory(name, exc), into,
                             loud=LOUD, convert=_scalar_operand if scalar else None)


def _scalar_operand(value, dtype):
    """The C path's scalar operand: the general path's 0-d array of the compute dtype
    (made in the quiet state by the caller)."""
    return _array(value, _SCALAR_DTYPE[dtype.name])


binary_into = _in_c(_pairwise(BINARY_INTO, "binary_into"), BINARY_INTO, False)
compare_into = _pairwise(COMPARE_INTO, "compare_into")
binary_scalar_into = _in_c(_with_scalar(BINARY_INTO, "binary_scalar_into"), BINARY_INTO, True)
compare_scalar_into = _with_scalar(COMPARE_INTO, "compare_scalar_into")


def where_into(self, dst_layout, cond, cond_layout, x, x_layout, y, y_layout):
    if not cond.dtype.is_bool:
        raise DTypeError(f"where: cond has dtype {cond.dtype}, expected bool")
    if x_layout is not None:
        return _where_arrays(self, dst_layout, cond, cond_layout, x, x_layout, y, y_layout)
    # x a Python scalar (x[mask] = 0.5: the front end's mask_fill, where y is the destination
    # itself, in this one frame; scikit-learn's StandardScaler stores scale[scale < eps] = 1.0
    # once a fit, after NumPy's calls over the data have evicted the caches)
    try:
        if y is self and (y_layout is dst_layout or y_layout == dst_layout):
            (out, c), b = _views(self, dst_layout, ((cond, cond_layout),)), None
        else:
            _same(self, y, "where")
            out, c, b = _views(self, dst_layout, ((cond, cond_layout), (y, y_layout)))
        token = set_fp_state(QUIET)  # (the value converted as full stores it: past a narrow float's range, inf)
        try:
            value = _empty((), self.dtype.numpy)
            value.fill(x)
            with lock_of(self):
                if _may_share_memory(c, out):  # (a bool destination): the mask read whole first
                    c = c.copy()
                if b is not None:
                    _copyto(out, b)
                _putmask(out, c, value)
        finally:
            reset_fp_state(token)
    except MemoryError as exc:
        raise out_of_memory("where_into", exc) from exc


def _where_arrays(self, dst_layout, cond, cond_layout, x, x_layout, y, y_layout):
    """``where_into`` of two arrays."""
    _same(self, y, "where")
    _same(self, x, "where")
    out, c, a, b = _views(self, dst_layout, ((cond, cond_layout), (x, x_layout), (y, y_layout)))
    x_is_out = x is self and x_layout == dst_layout
    y_is_out = y is self and y_layout == dst_layout
    with lock_of(self):
        if _may_share_memory(c, out):  # (a bool destination): the mask read whole first
            c = c.copy()
        if y_is_out:  # x[mask] = v: only the masked elements are written
            if a.size and not any(a.strides):
                # one value spread over x: putmask, faster than copyto's masked loop
                # (1.3x at 2^16, random half masks), given the value itself (it makes
                # a contiguous copy of an array of values, a temporary of x's size)
                _putmask(out, c, a[(0,) * a.ndim])
            else:
                _copyto(out, a, where=c)
        elif x_is_out:
            _copyto(out, b, where=np.logical_not(c))
        else:
            if _may_share_memory(a, out):  # the first pass below would change it
                a = a.copy()
            _copyto(out, b)  # (copyto reads an overlapping source whole first)
            _copyto(out, a, where=c)


_where_arrays.__name__ = "where_into"  # (its MemoryError named as the primitive)
_where_arrays = reports_out_of_memory(_where_arrays)
