"""The optional ``fft`` group, through ``numpy.fft`` (pocketfft).

The contract is unnormalized in both directions. NumPy's ``norm="backward"`` leaves
the forward transform unscaled and ``norm="forward"`` leaves the inverse unscaled, so
each direction picks the one that does no scaling. NumPy >= 2 keeps single precision:
complex64 in gives complex64 out, float32 rfft gives complex64, and irfft of complex64
gives float32 (the casts below only pin that down).
"""

import numpy as np

from candlewick import dtypes as dt

from .error import QuietBlock

COMPLEX_DTYPES = (dt.complex64, dt.complex128)
REAL_DTYPES = (dt.float32, dt.float64)
_COMPLEX_OF = {np.dtype(np.float32): np.dtype(np.complex64), np.dtype(np.float64): np.dtype(np.complex128)}
_REAL_OF = {c: r for r, c in _COMPLEX_OF.items()}


def fft(x, axis, inverse):
    with QuietBlock():
        if inverse:
            out = np.fft.ifft(x, axis=axis, norm="forward")
        else:
            out = np.fft.fft(x, axis=axis, norm="backward")
    return np.ascontiguousarray(out, dtype=x.dtype)


def rfft(x, axis):
    with QuietBlock():
        out = np.fft.rfft(x, axis=axis, norm="backward")
    return np.ascontiguousarray(out, dtype=_COMPLEX_OF[x.dtype])


def irfft(x, axis, n):
    with QuietBlock():
        out = np.fft.irfft(x, n=n, axis=axis, norm="forward")
    return np.ascontiguousarray(out, dtype=_REAL_OF[x.dtype])


def fftn(x, axes, inverse):
    with QuietBlock():
        if inverse:
            out = np.fft.ifftn(x, axes=axes, norm="forward")
        else:
            out = np.fft.fftn(x, axes=axes, norm="backward")
    return np.ascontiguousarray(out, dtype=x.dtype)


def rfftn(x, axes):
    with QuietBlock():
        out = np.fft.rfftn(x, axes=axes, norm="backward")
    return np.ascontiguousarray(out, dtype=_COMPLEX_OF[x.dtype])
