"""Real and imaginary parts of complex arrays as new arrays: the ``unary`` primitive's
``real``/``imag``, which must not alias their input. (``candlewick.real``/``imag`` take
views through ``CpuStorage.real_view`` instead; these copies serve callers of the
primitive, as the conformance suite and a fused graph's replay.)

``z.real.copy()`` is a strided copy (every other float), which NumPy runs several times
slower than a contiguous one. On a little-endian host a complex64 element is one 64-bit
word whose low half is the real part: a uint64 -> uint32 cast (a contiguous, vectorised
loop) keeps exactly the real parts' bits, and the same cast over the words starting 4
bytes in keeps the imaginary parts' bits (the last one is read on its own, as that word
would pass the end). Bits are copied, so NaN payloads and signed zeros are kept, as a
copy keeps them. Other dtypes and layouts, and arrays too short for the cast's fixed
cost to pay (``_WORDS_FROM`` elements, measured), take the plain copy.
"""

import sys

import numpy as np

_C64 = np.dtype(np.complex64)
_WORDS = sys.byteorder == "little"
_WORDS_FROM = 4096


def _as_words(z):
    return _WORDS and z.dtype == _C64 and z.ndim == 1 and z.size >= _WORDS_FROM and z.flags.c_contiguous


def real(z):
    if _as_words(z):
        return z.view(np.uint64).astype(np.uint32).view(np.float32)
    return z.real.copy()


def imag(z):
    if _as_words(z):
        n = z.size
        out = np.empty(n, np.uint32)
        out[:-1] = np.ndarray((n - 1,), np.uint64, z, 4, (8,))  # uint64 -> uint32: low half
        out = out.view(np.float32)
        out[-1] = z[-1].imag
        return out
    return z.imag.copy()
