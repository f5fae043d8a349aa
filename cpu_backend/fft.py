"""The optional ``fft`` group, through pocketfft: SciPy's (``scipy.fft``) where SciPy is
installed, else NumPy's (``numpy.fft``). Both take the same arguments and norms; SciPy's
ran 5-25x NumPy's 2.4 on this project's VM (rfft + irfft of 78 x 4096 float32: 2 ms
against 53 ms), the gap that made ``scipy.fft`` on candlewick arrays 16x slower than on
NumPy arrays (bench/pydata_e2e.py).

The contract is unnormalized in both directions. NumPy's ``norm="backward"`` leaves
the forward transform unscaled and ``norm="forward"`` leaves the inverse unscaled, so
each direction picks the one that does no scaling where no ``norm`` is given; the device
declares ``fft_norm`` (``candlewick.backend.FFTNormDevice``), so the front end passes its
``norm`` along and pocketfft scales inside the transform (no pass of its own over the
result). NumPy >= 2 keeps single precision:
complex64 in gives complex64 out, float32 rfft gives complex64, and irfft of complex64
gives float32 (the casts below only pin that down).
"""

import numpy as np

from candlewick import dtypes as dt
from candlewick.errors import UnsupportedOperation

from .error import QuietBlock

_pocketfft = []  # the module, found on the first transform


def _fft():
    if not _pocketfft:
        try:
            # optional: SciPy's pocketfft, loaded on the first transform. Its functions
            # themselves (scipy.fft._pocketfft: public scipy.fft's signatures), not
            # scipy.fft's dispatch to them (uarray's backend lookup and the array API
            # namespace check, about 5 us of Python a call, 50-100 us at 78 x 4096 once
            # a transform's memory traffic has evicted that code from the caches);
            # scipy.fft itself where that module is gone
            import scipy.fft as public

            module = getattr(public, "_pocketfft", public)
            if not all(hasattr(module, name) for name in _FUNCTIONS):
                module = public
        except ImportError:
            module = np.fft
        _pocketfft.append(module)
    return _pocketfft[0]


_FUNCTIONS = ("fft", "ifft", "rfft", "irfft", "fftn", "ifftn", "rfftn", "irfftn")
_direct = []  # [(pocketfft's binding, SciPy's workers setting) or None], found on the first 1-D transform
_INORM = {"backward": 0, "ortho": 1, "forward": 2}  # the binding's scaling codes: none, 1/sqrt(n), 1/n


def _binding():
    if not _direct:
        try:
            # optional: the binding SciPy's pocketfft functions end in, called directly for
            # the one-axis transforms: those functions re-check what a storage's array
            # always is (native, aligned, float or complex) and fix lengths the front end
            # already fixed, 5-15 us a call on this project's VM (2026-11-30), 2-3 of them
            # per scipy.fft or fftconvolve call; SciPy's workers setting is still read
            from scipy.fft._pocketfft import pypocketfft
            from scipy.fft._pocketfft.helper import _workers

            found = (pypocketfft, _workers) if all(hasattr(pypocketfft, f) for f in ("c2c", "r2c", "c2r")) else None
        except ImportError:
            found = None
        _direct.append(found)
    return _direct[0]


def _direct_call(name, x, axis, *args):
    """The binding's ``name`` of x along ``axis`` (``args``: what follows the axes), or
    None where there is none or it refused the call (a SciPy whose binding takes other
    arguments: the public functions from then on)."""
    found = _direct[0] if _direct else _binding()
    if found is None or x.shape[axis] < 1:
        return None
    binding, workers = found
    try:
        return getattr(binding, name)(x, (axis,), *args, None, workers(None))
    except TypeError:
        _direct[0] = None
        return None

COMPLEX_DTYPES = (dt.complex64, dt.complex128)
REAL_DTYPES = (dt.float32, dt.float64)
_COMPLEX_OF = {np.dtype(np.float32): np.dtype(np.complex64), np.dtype(np.float64): np.dtype(np.complex128)}
_REAL_OF = {c: r for r, c in _COMPLEX_OF.items()}


def padded(x, axis, n, op):
    """x zero-padded to ``n`` along ``axis`` (fft_pad: ``n`` None or the axis's length: x);
    the copy pocketfft's own ``n=`` makes, made here so that the transform is the direct one."""
    if n is None or n == x.shape[axis]:
        return x
    if type(n) is not int or n < x.shape[axis]:
        raise UnsupportedOperation(op, dt.from_numpy(x.dtype), "cpu", f"n={n!r} must be an int of at least the "
                                   f"axis's length {x.shape[axis]} (a shorter transform is a view the caller makes)")
    out = np.zeros(x.shape[:axis] + (n,) + x.shape[axis + 1:], dtype=x.dtype)
    out[(slice(None),) * axis + (slice(0, x.shape[axis]),)] = x
    return out


def _norm(norm, inverse):
    """The norm to give pocketfft: ``norm``, or for None the one that does not scale."""
    if norm is None:
        return "forward" if inverse else "backward"
    return norm


# The one-axis transforms call the binding outside QuietBlock: pocketfft's C++ reads no
# NumPy error state (the block, two np.seterr calls, was a sixth of a 64-element rfft's
# cost on this project's VM); the public functions it falls back to are NumPy code.
def fft(x, axis, inverse, norm=None):
    code = _INORM[_norm(norm, inverse)]
    out = _direct_call("c2c", x, axis, not inverse, 2 - code if inverse else code)
    if out is None:
        with QuietBlock():
            public = _fft()
            out = (public.ifft if inverse else public.fft)(x, axis=axis, norm=_norm(norm, inverse))
    return np.ascontiguousarray(out, dtype=x.dtype)


def rfft(x, axis, norm=None):
    out = _direct_call("r2c", x, axis, True, _INORM["backward" if norm is None else norm])  # (_norm inline: a frame less)
    if out is None:
        with QuietBlock():
            out = _fft().rfft(x, axis=axis, norm=_norm(norm, False))
    return np.ascontiguousarray(out, dtype=_COMPLEX_OF[x.dtype])


def irfft(x, axis, n, norm=None):
    out = None
    if n >= 1 and x.shape[axis] == n // 2 + 1:  # (else the public function pads or crops it)
        out = _direct_call("c2r", x, axis, n, False, 2 - _INORM["forward" if norm is None else norm])
    if out is None:
        with QuietBlock():
            out = _fft().irfft(x, n=n, axis=axis, norm=_norm(norm, True))
    return np.ascontiguousarray(out, dtype=_REAL_OF[x.dtype])


def fftn(x, axes, inverse, norm=None):
    with QuietBlock():
        if inverse:
            out = _fft().ifftn(x, axes=axes, norm=_norm(norm, True))
        else:
            out = _fft().fftn(x, axes=axes, norm=_norm(norm, False))
    return np.ascontiguousarray(out, dtype=x.dtype)


def rfftn(x, axes, norm=None):
    with QuietBlock():
        out = _fft().rfftn(x, axes=axes, norm=_norm(norm, False))
    return np.ascontiguousarray(out, dtype=_COMPLEX_OF[x.dtype])
