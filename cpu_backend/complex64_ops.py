"""complex64 ``multiply``: the complex128 product rounded once to complex64 (``ops``' rule
for complex64, where NumPy's single-precision loop forms ``a*c - b*d`` with products
that overflow or a difference that cancels while the result does not), at the speed of
NumPy's own complex64 loop.

Through NumPy that rule is a complex128 multiply whose operands and result are cast a
buffer at a time: 2.5x the time of the complex64 loop (scipy.fft's ``irfft(rfft(x) *
response)`` spent a third of its time there, issue 39 item 2). Where candlewick's C module
was built, ``_native.complex64_multiply`` computes the same values directly: a float
widens exactly and the product of two widened floats is exact in double, so each part is
one double rounding of an exact difference or sum, then one rounding to float: NumPy's
complex128 result cast to complex64, bit for bit (a NaN's sign aside, which IEEE and the
standard leave open). Other operands (a complex128 scalar, a non-complex64 array) and
installs without the C module take the NumPy path.
"""

import numpy as np

from candlewick.shapes import broadcast_shapes

try:  # candlewick's optional compiled module (absent where no C compiler was found)
    from candlewick._native import complex64_multiply as _native_multiply
except ImportError:
    _native_multiply = None

_C64 = np.dtype(np.complex64)


def multiply(wide_kernel):
    """The complex64 multiply kernel: ``_native.complex64_multiply`` where it was built and
    both operands are complex64 arrays, else ``wide_kernel`` (the NumPy complex128 path,
    ``ops.widened``'s)."""
    if _native_multiply is None:
        return wide_kernel

    def complex64_multiply(a, b):
        if a.dtype != _C64 or b.dtype != _C64:
            return wide_kernel(a, b)
        shape = a.shape
        if b.shape != shape:
            # (candlewick's broadcast_shapes: NumPy's stops at 32 dimensions)
            shape = broadcast_shapes(a.shape, b.shape)
            a, b = np.broadcast_to(a, shape), np.broadcast_to(b, shape)
        out = np.empty(shape, _C64)
        _native_multiply(a, b, out)
        return out

    return complex64_multiply
