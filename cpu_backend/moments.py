"""The ``var`` primitive (and std, its square root): NumPy's own two-pass algorithm, run
straight on the ufuncs.

The mean is a sum divided by N (rounded as a division in double precision); the
deviations ``x - mean`` are one full-size temporary, squared in place (complex: the
squares of both parts, added into the real parts' memory); their sum divided by
``N - correction`` is the variance. These are the steps and roundings of ``np.var`` (so
the results are NumPy's bit for bit) without its Python wrapper's argument handling,
which costs more than the arithmetic at 16 elements.
"""

import numpy as np

from .error import quiet

#: the dtypes ``var`` takes, and the real dtype of each (its result's)
REAL_OF = {np.dtype(np.float32): np.dtype(np.float32), np.dtype(np.float64): np.dtype(np.float64),
           np.dtype(np.complex64): np.dtype(np.float32), np.dtype(np.complex128): np.dtype(np.float64)}

_add, _subtract, _square, _divide, _sqrt = np.add, np.subtract, np.square, np.true_divide, np.sqrt
_sum = np.add.reduce
_F64 = np.float64
_EXACT = 1 << 24  # ints up to this one are exact in float32


def _divide_by(a, d, in_double):
    """``a /= d`` in place, rounded as NumPy's var rounds: its divisor is an intp (or a
    float64), so it divides in double precision and casts back. A real float divided by
    an int exact in its dtype rounds the same directly: a quotient in double rounded to
    float32 is the correctly rounded float32 quotient."""
    if in_double:
        _divide(a, _F64(d), out=a, casting="unsafe")
    else:
        _divide(a, d, out=a)


def _var(x, axes, correction, root):
    """The variance (``root``: standard deviation) of the ndarray ``x`` over ``axes``
    (a tuple), the reduced axes kept as 1s."""
    shape = x.shape
    count = 1
    for a in axes:
        count *= shape[a]
    dof = count - correction
    real = REAL_OF[x.dtype]
    if dof <= 0:
        return np.full([1 if i in axes else n for i, n in enumerate(shape)], np.nan, real)
    mean = _sum(x, axes, None, None, True)
    complex_ = x.dtype.kind == "c"
    _divide_by(mean, count, complex_ or count > _EXACT)
    deviation = _subtract(x, mean)
    if not complex_:
        squares = _square(deviation, out=deviation)  # (square's loop outruns multiply's)
    else:  # |d|**2 = re**2 + im**2, into the real parts' memory (NumPy's var does the same)
        parts = deviation.view((real, (2,)))  # (..., 2): the parts, in any memory order
        _square(parts, out=parts)
        squares = _add(parts[..., 0], parts[..., 1], out=deviation.real).real
    total = _sum(squares, axes, None, None, True)
    _divide_by(total, dof, complex_ or type(dof) is not int or dof > _EXACT)
    return _sqrt(total, out=total) if root else total


#: ``_var`` under the backend's quiet floating-point policy (inf - inf is a defined NaN)
var = quiet(_var)
