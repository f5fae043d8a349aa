"""The CPU storage's primitives of the neural-network ops and of the optional groups
"linalg" and "fft": ``GroupPrimitives``, a base class of ``storage.CpuStorage``. Each views
its operands through their layouts and hands them to its family (``nn``, ``linalg``,
``fft``); a result is a storage of the caller's class holding the family's fresh array.
"""

from candlewick import dtypes as dt
from candlewick.layout import Layout

from . import fft as _fft
from . import linalg, nn
from .error import unsupported
from .storage_slice import view

#: a NumPy result's candlewick dtype (linalg and fft results, whose dtype NumPy decided)
DTYPE_OF_NUMPY = {d.numpy: d for d in dt.ALL_DTYPES}


class GroupPrimitives:
    """nn, linalg and fft primitives over a ``buf``/``dtype`` storage with ``_same_dtype``."""

    __slots__ = ()

    # --- neural-network ops ---------------------------------------------------------------------

    def _nn_operands(self, op, layout, weight, w_layout):
        if not self.dtype.is_floating:
            raise unsupported(op, self.dtype)
        self._same_dtype(weight, "weight", op)
        return view(self.buf, layout), view(weight.buf, w_layout)

    def conv1d(self, layout, weight, w_layout, stride, padding, dilation, groups):
        x, w = self._nn_operands("conv1d", layout, weight, w_layout)
        out = nn.conv("conv1d", x, w, (stride,), (padding,), (dilation,), groups)
        return type(self)(out.reshape(-1), self.dtype)

    def conv2d(self, layout, weight, w_layout, stride, padding, dilation, groups):
        x, w = self._nn_operands("conv2d", layout, weight, w_layout)
        out = nn.conv("conv2d", x, w, tuple(stride), tuple(padding), tuple(dilation), groups)
        return type(self)(out.reshape(-1), self.dtype)

    def conv_transpose1d(self, layout, weight, w_layout, stride, padding, output_padding,
                         dilation, groups):
        x, w = self._nn_operands("conv_transpose1d", layout, weight, w_layout)
        out = nn.conv_transpose("conv_transpose1d", x, w, (stride,), (padding,), (output_padding,),
                                (dilation,), groups)
        return type(self)(out.reshape(-1), self.dtype)

    def conv_transpose2d(self, layout, weight, w_layout, stride, padding, output_padding,
                         dilation, groups):
        x, w = self._nn_operands("conv_transpose2d", layout, weight, w_layout)
        out = nn.conv_transpose("conv_transpose2d", x, w, tuple(stride), tuple(padding),
                                tuple(output_padding), tuple(dilation), groups)
        return type(self)(out.reshape(-1), self.dtype)

    def _nn_input(self, op, layout):
        if not self.dtype.is_floating:
            raise unsupported(op, self.dtype)
        return view(self.buf, layout)

    def avg_pool2d(self, layout, kernel, stride, padding, count_include_pad):
        x = self._nn_input("avg_pool2d", layout)
        out = nn.avg_pool2d(x, tuple(kernel), tuple(stride), tuple(padding), count_include_pad)
        return type(self)(out.reshape(-1), self.dtype)

    def max_pool2d(self, layout, kernel, stride, padding, dilation):
        x = self._nn_input("max_pool2d", layout)
        out = nn.max_pool2d(x, tuple(kernel), tuple(stride), tuple(padding), tuple(dilation))
        return type(self)(out.reshape(-1), self.dtype)

    def upsample_nearest2d(self, layout, out_h, out_w):
        x = self._nn_input("upsample_nearest2d", layout)
        return type(self)(nn.upsample_nearest2d(x, out_h, out_w).reshape(-1), self.dtype)

    # --- optional group "linalg" ------------------------------------------------------------------

    def _linalg_input(self, op, layout):
        if self.dtype not in linalg.DTYPES:
            raise unsupported(op, self.dtype, "linalg takes float32/64 and complex64/128")
        return view(self.buf, layout)

    def cholesky(self, layout, upper):
        return self._wrap(linalg.cholesky(self._linalg_input("cholesky", layout), upper))

    def qr(self, layout, complete):
        return self._wrap_all(linalg.qr(self._linalg_input("qr", layout), complete))

    def svd(self, layout, full_matrices):
        return self._wrap_all(linalg.svd(self._linalg_input("svd", layout), full_matrices))

    def eigh(self, layout):
        return self._wrap_all(linalg.eigh(self._linalg_input("eigh", layout)))

    def eig(self, layout):
        return self._wrap_all(linalg.eig(self._linalg_input("eig", layout)))

    def solve(self, layout, rhs, rhs_layout):
        a = self._linalg_input("solve", layout)
        self._same_dtype(rhs, "rhs", "solve")
        return self._wrap(linalg.solve(a, view(rhs.buf, rhs_layout)))

    def inv(self, layout):
        return self._wrap(linalg.inv(self._linalg_input("inv", layout)))

    def det(self, layout):
        return self._wrap(linalg.det(self._linalg_input("det", layout)))

    def slogdet(self, layout):
        return self._wrap_all(linalg.slogdet(self._linalg_input("slogdet", layout)))

    # --- optional group "fft" -----------------------------------------------------------------------

    def fft(self, layout, axis, inverse):
        if self.dtype not in _fft.COMPLEX_DTYPES:
            raise unsupported("fft", self.dtype, "fft takes complex64/complex128")
        return self._wrap(_fft.fft(view(self.buf, layout), axis, inverse))

    def rfft(self, layout, axis):
        if self.dtype not in _fft.REAL_DTYPES:
            raise unsupported("rfft", self.dtype, "rfft takes float32/float64")
        return self._wrap(_fft.rfft(view(self.buf, layout), axis))

    def irfft(self, layout, axis, n):
        if self.dtype not in _fft.COMPLEX_DTYPES:
            raise unsupported("irfft", self.dtype, "irfft takes complex64/complex128")
        return self._wrap(_fft.irfft(view(self.buf, layout), axis, n))

    def fftn(self, layout, axes, inverse):
        if self.dtype not in _fft.COMPLEX_DTYPES:
            raise unsupported("fftn", self.dtype, "fftn takes complex64/complex128")
        return self._wrap(_fft.fftn(view(self.buf, layout), tuple(axes), inverse))

    def rfftn(self, layout, axes):
        if self.dtype not in _fft.REAL_DTYPES:
            raise unsupported("rfftn", self.dtype, "rfftn takes float32/float64")
        out = _fft.rfftn(view(self.buf, layout), tuple(axes))
        return self._wrap(out), Layout.contiguous(out.shape)

    # --- results whose dtype NumPy already decided (linalg, fft) ------------------------------------

    def _wrap(self, array):
        return type(self)(array.reshape(-1), DTYPE_OF_NUMPY[array.dtype])

    def _wrap_all(self, arrays):
        return tuple(self._wrap(a) for a in arrays)
