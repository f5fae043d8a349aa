"""The element-wise primitives of ``CpuStorage``: ``unary``, ``binary``, ``compare``,
their scalar forms and ``where`` (``primitives(CpuStorage)``, bound on the class by
``storage``).

These run on every element-wise call, where each Python step is a visible share of a
16-element op's cost, so they are written flat: one table lookup (``ops.*_RAW``: the
kernel without ``error.quiet``'s wrapper), the whole-buffer case known from one cached
attribute (``Layout.dense_size``: no ``flat`` call), the quiet floating-point state set
around the kernel inline where the kernel can raise a flag, and the result storage made
without an ``__init__`` call (the class's ``__new__`` and its two slots). Other
contiguous operands run on 1-D slices (``flat``); the rest are viewed through their
layouts and the result flattened in C order.
"""

import numpy as np

from candlewick.errors import DTypeError

from .error import QUIET, out_of_memory, reset_fp_state, set_fp_state, unsupported
from .ops import BINARY_RAW, COMPARE_RAW, SCALAR_TYPE, UNARY_RAW
from .storage_slice import flat, view

# a scalar operand reaches its kernel as a 0-d array of the compute type: a ufunc takes
# one in about half the time it takes a NumPy scalar (np.greater at 16 elements: 0.27
# against 0.52 us on the 2-core VM), and making it costs the same
_SCALAR_DTYPE = {name: np.dtype(t) for name, t in SCALAR_TYPE.items()}
_array = np.array


def primitives(storage):
    """``{name: function}``: the element-wise primitives for the class ``storage`` (a
    ``buf``/``dtype`` slotted storage), each making its result of that class."""
    new = storage.__new__

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
        result = new(storage)  # (storage(out, out_dtype) without the __init__ call)
        result.buf = out if out.ndim == 1 else out.reshape(-1)
        result.dtype = out_dtype
        return result

    def pairwise(table):
        """The two-operand primitive over ``table`` (BINARY_RAW or COMPARE_RAW) on two
        layouts of one shape."""

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
            result = new(storage)
            result.buf = out if out.ndim == 1 else out.reshape(-1)
            result.dtype = out_dtype
            return result

        return two_operands

    def with_scalar(table):
        """The two-operand primitive over ``table`` with a Python scalar as one operand."""

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
            result = new(storage)
            result.buf = out if out.ndim == 1 else out.reshape(-1)
            result.dtype = out_dtype
            return result

        return array_and_scalar

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
        result = new(storage)
        result.buf = out if out.ndim == 1 else out.reshape(-1)
        result.dtype = dtype
        return result

    return {"unary": unary, "binary": pairwise(BINARY_RAW), "compare": pairwise(COMPARE_RAW),
            "binary_scalar": with_scalar(BINARY_RAW), "compare_scalar": with_scalar(COMPARE_RAW),
            "where": where}
