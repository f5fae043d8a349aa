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

from .error import QUIET, reports_out_of_memory, reset_fp_state, set_fp_state, unsupported
from .ops import BINARY_INTO, COMPARE_INTO, SCALAR_TYPE, UNARY_INTO
from .storage_slice import flat, lock_of, view

#: the most elements a chunk of the chunked path holds (a bounded temporary)
CHUNK = 1 << 14
_ITER_FLAGS = ["external_loop", "buffered", "zerosize_ok", "copy_if_overlap"]
_READ = ["readonly", "overlap_assume_elementwise"]
_WRITE = ["writeonly", "overlap_assume_elementwise"]
_SCALAR_DTYPE = {name: np.dtype(t) for name, t in SCALAR_TYPE.items()}
_array = np.array
_may_share_memory = np.may_share_memory
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


def _pairwise(table, name):
    def into(self, op, dst_layout, lhs, lhs_layout, rhs, rhs_layout):
        _same(lhs, rhs, op.value)
        entry = _entry(table, op, lhs.dtype, self.dtype)
        out, a, b = _views(self, dst_layout, ((lhs, lhs_layout), (rhs, rhs_layout)))
        with lock_of(self):
            _run(entry, out, (a, b))

    into.__name__ = into.__qualname__ = name
    return reports_out_of_memory(into)


def _with_scalar(table, name):
    def into(self, op, dst_layout, src, src_layout, scalar, reflected):
        entry = _entry(table, op, src.dtype, self.dtype)
        out, x = _views(self, dst_layout, ((src, src_layout),))
        with lock_of(self):
            _run(entry, out, (None, x) if reflected else (x, None), (scalar, _SCALAR_DTYPE[src.dtype.name]))

    into.__name__ = into.__qualname__ = name
    return reports_out_of_memory(into)


binary_into = _pairwise(BINARY_INTO, "binary_into")
compare_into = _pairwise(COMPARE_INTO, "compare_into")
binary_scalar_into = _with_scalar(BINARY_INTO, "binary_scalar_into")
compare_scalar_into = _with_scalar(COMPARE_INTO, "compare_scalar_into")


@reports_out_of_memory
def where_into(self, dst_layout, cond, cond_layout, x, x_layout, y, y_layout):
    if not cond.dtype.is_bool:
        raise DTypeError(f"where: cond has dtype {cond.dtype}, expected bool")
    _same(self, x, "where")
    _same(self, y, "where")
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
                np.putmask(out, c, a[(0,) * a.ndim])
            else:
                _copyto(out, a, where=c)
        elif x_is_out:
            _copyto(out, b, where=np.logical_not(c))
        else:
            if _may_share_memory(a, out):  # the first pass below would change it
                a = a.copy()
            _copyto(out, b)  # (copyto reads an overlapping source whole first)
            _copyto(out, a, where=c)
