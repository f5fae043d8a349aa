"""The CPU storage's primitives of the neural-network ops and of the optional groups
"linalg" and "fft" (each takes the storage it works on first; ``storage.CpuStorage`` binds
them as its methods). Each views its operands through their layouts and hands them to
its family (``nn``, ``linalg``, ``fft``); a result is a storage of the caller's class
holding the family's fresh array.
"""

from candlewick import dtypes as dt
from candlewick.errors import DeviceMemoryError
from candlewick.layout import Layout

from . import fft as _fft
from . import linalg, nn
from .error import out_of_memory, reports_out_of_memory, same_dtype, unsupported
from .storage_slice import view

#: a NumPy result's candlewick dtype (linalg and fft results, whose dtype NumPy decided)
DTYPE_OF_NUMPY = {d.numpy: d for d in dt.ALL_DTYPES}
_new = object.__new__


# --- neural-network ops ---------------------------------------------------------------------

def _nn_operands(self, op, layout, weight, w_layout):
    if not self.dtype.is_floating:
        raise unsupported(op, self.dtype)
    same_dtype(self, weight, "weight", op)
    return view(self.buf, layout), view(weight.buf, w_layout)


@reports_out_of_memory
def conv1d(self, layout, weight, w_layout, stride, padding, dilation, groups):
    x, w = _nn_operands(self, "conv1d", layout, weight, w_layout)
    out = nn.conv("conv1d", x, w, (stride,), (padding,), (dilation,), groups)
    return type(self)(out.reshape(-1), self.dtype)


@reports_out_of_memory
def conv2d(self, layout, weight, w_layout, stride, padding, dilation, groups):
    x, w = _nn_operands(self, "conv2d", layout, weight, w_layout)
    out = nn.conv("conv2d", x, w, tuple(stride), tuple(padding), tuple(dilation), groups)
    return type(self)(out.reshape(-1), self.dtype)


@reports_out_of_memory
def conv_transpose1d(self, layout, weight, w_layout, stride, padding, output_padding,
                     dilation, groups):
    x, w = _nn_operands(self, "conv_transpose1d", layout, weight, w_layout)
    out = nn.conv_transpose("conv_transpose1d", x, w, (stride,), (padding,), (output_padding,),
                            (dilation,), groups)
    return type(self)(out.reshape(-1), self.dtype)


@reports_out_of_memory
def conv_transpose2d(self, layout, weight, w_layout, stride, padding, output_padding,
                     dilation, groups):
    x, w = _nn_operands(self, "conv_transpose2d", layout, weight, w_layout)
    out = nn.conv_transpose("conv_transpose2d", x, w, tuple(stride), tuple(padding),
                            tuple(output_padding), tuple(dilation), groups)
    return type(self)(out.reshape(-1), self.dtype)


def _nn_input(self, op, layout):
    if not self.dtype.is_floating:
        raise unsupported(op, self.dtype)
    return view(self.buf, layout)


@reports_out_of_memory
def avg_pool2d(self, layout, kernel, stride, padding, count_include_pad):
    x = _nn_input(self, "avg_pool2d", layout)
    out = nn.avg_pool2d(x, tuple(kernel), tuple(stride), tuple(padding), count_include_pad)
    return type(self)(out.reshape(-1), self.dtype)


@reports_out_of_memory
def max_pool2d(self, layout, kernel, stride, padding, dilation):
    x = _nn_input(self, "max_pool2d", layout)
    out = nn.max_pool2d(x, tuple(kernel), tuple(stride), tuple(padding), tuple(dilation))
    return type(self)(out.reshape(-1), self.dtype)


@reports_out_of_memory
def upsample_nearest2d(self, layout, out_h, out_w):
    x = _nn_input(self, "upsample_nearest2d", layout)
    return type(self)(nn.upsample_nearest2d(x, out_h, out_w).reshape(-1), self.dtype)


# --- optional group "linalg" ------------------------------------------------------------------

def _linalg_input(self, op, layout):
    if self.dtype not in linalg.DTYPES:
        raise unsupported(op, self.dtype, "linalg takes float32/64 and complex64/128")
    return view(self.buf, layout)


@reports_out_of_memory
def cholesky(self, layout, upper):
    return _wrap(self, linalg.cholesky(_linalg_input(self, "cholesky", layout), upper))


@reports_out_of_memory
def qr(self, layout, complete):
    return _wrap_all(self, linalg.qr(_linalg_input(self, "qr", layout), complete))


@reports_out_of_memory
def svd(self, layout, full_matrices):
    return _wrap_all(self, linalg.svd(_linalg_input(self, "svd", layout), full_matrices))


@reports_out_of_memory
def eigh(self, layout):
    return _wrap_all(self, linalg.eigh(_linalg_input(self, "eigh", layout)))


@reports_out_of_memory
def eig(self, layout):
    return _wrap_all(self, linalg.eig(_linalg_input(self, "eig", layout)))


@reports_out_of_memory
def solve(self, layout, rhs, rhs_layout):
    a = _linalg_input(self, "solve", layout)
    same_dtype(self, rhs, "rhs", "solve")
    return _wrap(self, linalg.solve(a, view(rhs.buf, rhs_layout)))


@reports_out_of_memory
def inv(self, layout):
    return _wrap(self, linalg.inv(_linalg_input(self, "inv", layout)))


@reports_out_of_memory
def det(self, layout):
    return _wrap(self, linalg.det(_linalg_input(self, "det", layout)))


@reports_out_of_memory
def slogdet(self, layout):
    return _wrap_all(self, linalg.slogdet(_linalg_input(self, "slogdet", layout)))


# --- optional group "fft" -----------------------------------------------------------------------

@reports_out_of_memory
def fft(self, layout, axis, inverse, norm=None, n=None):
    if self.dtype not in _fft.COMPLEX_DTYPES:
        raise unsupported("fft", self.dtype, "fft takes complex64/complex128")
    return _wrap(self, _fft.fft(_fft.padded(view(self.buf, layout), axis, n, "fft"), axis, inverse, norm))


# rfft and irfft do inline what reports_out_of_memory, view and _wrap do for the others:
# scipy.fft and scipy.signal.fftconvolve make two or three of them a call, each after the
# last one's memory traffic has evicted the Python code from the caches, where every frame
# costs its cache misses (the chain was 19 Python calls a transform, ~45 us of a 78 x 4096
# float32 rfft's 0.72 ms on this project's VM against NumPy's ~30 us through scipy.fft,
# 2026-12-01)
def rfft(self, layout, axis, norm=None, n=None):
    if self.dtype not in _fft.REAL_DTYPES:
        raise unsupported("rfft", self.dtype, "rfft takes float32/float64")
    buf = self.buf
    x = buf.reshape(layout.shape) if layout.dense_size == len(buf) else view(buf, layout)
    try:
        if n is not None and n != x.shape[axis]:
            x = _fft.padded(x, axis, n, "rfft")
        out = _fft.rfft(x, axis, norm)
    except DeviceMemoryError:
        raise
    except MemoryError as exc:
        raise out_of_memory("rfft", exc) from exc
    result = _new(type(self))  # (type(self)(...) without the __init__ call)
    result.buf = out.reshape(-1)
    result.dtype = DTYPE_OF_NUMPY[out.dtype]
    return result


def irfft(self, layout, axis, n, norm=None):
    if self.dtype not in _fft.COMPLEX_DTYPES:
        raise unsupported("irfft", self.dtype, "irfft takes complex64/complex128")
    buf = self.buf
    x = buf.reshape(layout.shape) if layout.dense_size == len(buf) else view(buf, layout)
    try:
        out = _fft.irfft(x, axis, n, norm)
    except DeviceMemoryError:
        raise
    except MemoryError as exc:
        raise out_of_memory("irfft", exc) from exc
    result = _new(type(self))
    result.buf = out.reshape(-1)
    result.dtype = DTYPE_OF_NUMPY[out.dtype]
    return result


@reports_out_of_memory
def fftn(self, layout, axes, inverse, norm=None):
    if self.dtype not in _fft.COMPLEX_DTYPES:
        raise unsupported("fftn", self.dtype, "fftn takes complex64/complex128")
    return _wrap(self, _fft.fftn(view(self.buf, layout), tuple(axes), inverse, norm))


@reports_out_of_memory
def rfftn(self, layout, axes, norm=None):
    if self.dtype not in _fft.REAL_DTYPES:
        raise unsupported("rfftn", self.dtype, "rfftn takes float32/float64")
    out = _fft.rfftn(view(self.buf, layout), tuple(axes), norm)
    return _wrap(self, out), Layout.contiguous(out.shape)


# --- results whose dtype NumPy already decided (linalg, fft) ------------------------------------

def _wrap(self, array):
    return type(self)(array.reshape(-1), DTYPE_OF_NUMPY[array.dtype])


def _wrap_all(self, arrays):
    return tuple(_wrap(self, a) for a in arrays)
