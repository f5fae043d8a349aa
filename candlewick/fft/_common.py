"""Argument checks, resizing along an axis, normalization and the one-axis transform
steps (complex-to-complex, real-to-complex, complex-to-real) for ``candlewick.fft``.

The "fft" primitives are unnormalized in both directions; the front end applies the
``norm`` scaling (or, where the device declares ``fft_norm``, passes ``norm`` to the
primitive, which scales inside the transform: ``inside``), pads with zeros (or, where the
device declares ``fft_pad``, passes fft's and rfft's ``n`` to the primitive, which pads)
or truncates to the requested length, and turns multi-axis transforms into repeated 1-D
ones.
"""

import math
import operator

from .. import dtypes as _dt
from .._core import contiguous_layout, new_array, permuted_array, require_array, view
from ..allocation import check_allocation
from ..array import Array, wrap
from ..arguments import one_of, sequence
from ..backend_optional import declares_fft_norm, declares_fft_pad
from ..layout import Layout
from ..errors import (
    ArgumentTypeError, ArgumentValueError, DTypeError, UnsupportedOperation,
)
from ..shapes import normalize_axis
from ..opdefs import BinaryOp

NORMS = ("backward", "ortho", "forward")


def check_input(x, fname, kind):
    """x must be a complex64/128 (``kind='complex'``) or float32/64 (``'real'``) array
    on a device that declares the optional "fft" capability."""
    require_array(x, f"fft.{fname}")
    allowed = (_dt.complex64, _dt.complex128) if kind == "complex" else (_dt.float32, _dt.float64)
    if x._dtype not in allowed:
        raise DTypeError(
            f"fft.{fname}: x must have dtype {' or '.join(d.name for d in allowed)}, got {x._dtype.name}"
        )
    device = x._device
    if "fft" not in device.capabilities:
        raise UnsupportedOperation(
            f"fft.{fname}", x._dtype, device.name,
            f"device {device.name} does not declare the optional 'fft' capability",
        )
    return x


def check_norm(norm, fname):
    return one_of(norm, NORMS, f"fft.{fname}", "norm")


def check_length(n, fname, argname="n"):
    if isinstance(n, bool):
        raise ArgumentTypeError(f"fft.{fname}: {argname} must be an integer, got bool")
    try:
        n = operator.index(n)
    except TypeError:
        raise ArgumentTypeError(f"fft.{fname}: {argname} must be an integer, got {type(n).__name__}") from None
    if n < 1:
        raise ArgumentValueError(f"fft.{fname}: {argname} must be at least 1, got {n}")
    return n


def check_axis(x, axis, fname):
    return normalize_axis(axis, x.ndim, f"fft.{fname}: axis")


def check_axes_and_sizes(x, s, axes, fname):
    """Normalize (s, axes) the NumPy way: axes default to all axes, or the last len(s).
    Returns (axes, sizes) where a size of None (s omitted, or -1) means the transform's
    default length along that axis."""
    if axes is None:
        if s is None:
            axes = tuple(range(x.ndim))
        else:
            s = sequence(s, f"fft.{fname}", "s")
            if len(s) > x.ndim:
                raise ArgumentValueError(f"fft.{fname}: s has {len(s)} entries but x has {x.ndim} dimensions")
            axes = tuple(range(x.ndim - len(s), x.ndim))
    else:
        axes = tuple(normalize_axis(a, x.ndim, f"fft.{fname}: axes") for a in sequence(axes, f"fft.{fname}", "axes"))
        if len(set(axes)) != len(axes):
            raise ArgumentValueError(f"fft.{fname}: axes must not repeat an axis, got {axes}")
    if s is None:
        sizes = [None] * len(axes)
    else:
        s = sequence(s, f"fft.{fname}", "s")
        if len(s) != len(axes):
            raise ArgumentValueError(f"fft.{fname}: s and axes differ in length ({len(s)} and {len(axes)})")
        sizes = [None if n == -1 else check_length(n, fname, "s") for n in s]
    return list(axes), sizes


def resized(x, axis, n):
    """x with ``axis`` truncated (a view) or zero-padded (a copy) to length ``n``."""
    m = x.shape[axis]
    if n == m:
        return x
    if n < m:
        return view(x, x._layout.slice(axis, 0, n, 1))
    layout = x._layout
    shape = layout.shape[:axis] + (n,) + layout.shape[axis + 1 :]
    check_allocation("the zero-padded input", shape, x._dtype, x._device)
    storage = x._device.zeros(shape, x._dtype)
    if m and 0 not in shape:  # x in the first m entries along axis (what Layout.slice makes, made at once)
        storage.assign(Layout(layout.shape, contiguous_layout(shape).strides), x._storage, layout)
    return wrap(storage, shape, x._dtype, x._device)


def resized_all(x, axes, sizes, fname):
    """x resized along each of ``axes`` (a size of None keeps the axis), and the lengths."""
    lengths = []
    for axis, n in zip(axes, sizes):
        n = check_length(x.shape[axis] if n is None else n, fname)
        x = resized(x, axis, n)
        lengths.append(n)
    return x, lengths


def inside(device, norm):
    """The ``norm`` to pass the "fft" primitives: ``norm`` where ``device`` scales inside
    its transforms (it declares ``fft_norm``: no pass of the front end's over the
    result), else None (unnormalized: the caller multiplies by ``scale_factor``)."""
    return norm if declares_fft_norm(device) else None


def norm_kwargs(passed, pad=None):
    """The keyword arguments of a primitive call given ``inside``'s result and
    ``padding``'s ``n`` (None: the primitive pads nothing)."""
    kwargs = {} if passed is None else {"norm": passed}
    if pad is not None:
        kwargs["n"] = pad
    return kwargs


def scale_factor(norm, n, inverse, passed=None):
    """The factor a transform of length ``n`` is multiplied by: 1 where the primitive was
    given ``passed`` (it scaled), else ``norm``'s (the primitives do none)."""
    if passed is not None:
        return 1.0
    if norm == "ortho":
        return 1.0 / math.sqrt(n)
    if (norm == "backward") == inverse:
        return 1.0 / n
    return 1.0


def scaled(storage, shape, dtype, device, factor):
    if factor != 1.0:
        storage = storage.binary_scalar(BinaryOp.MULTIPLY, contiguous_layout(shape), factor, False)
    return wrap(storage, shape, dtype, device)


def scaled_view(storage, layout, shape, dtype, device, factor, fname):
    """``scaled`` of a result the backend returned with its own ``layout`` (``rfftn``)."""
    result = permuted_array(Array, storage, layout, shape, dtype, device, f"fft.{fname}")
    if factor != 1.0:  # the scaled copy is C-contiguous
        return scaled(storage.binary_scalar(BinaryOp.MULTIPLY, layout, factor, False), shape, dtype, device, 1.0)
    return result


def padding(x, axis, n):
    """(x, the ``n`` to pass a primitive): x cropped to ``n`` along ``axis`` (a view), or
    where ``n`` is longer, zero-padded by the primitive (the device declares ``fft_pad``: the
    padded copy is the one the transform reads) or here (a fill and a copy)."""
    m = x._layout.shape[axis]
    if n <= m or not declares_fft_pad(x._device):
        return resized(x, axis, n), None
    shape = x._layout.shape
    check_allocation("the zero-padded input", shape[:axis] + (n,) + shape[axis + 1:], x._dtype, x._device)
    return x, n


def c2c(x, n, axis, norm, inverse):
    """Complex-to-complex transform of x resized to ``n`` along ``axis``, scaled per ``norm``."""
    x, pad = padding(x, axis, n)
    passed = inside(x._device, norm)
    storage = x._storage.fft(x._layout, axis, inverse, **norm_kwargs(passed, pad))
    shape = x.shape[:axis] + (n,) + x.shape[axis + 1:]
    return scaled(storage, shape, x._dtype, x._device, scale_factor(norm, n, inverse, passed))


def r2c(x, n, axis, passed=None):
    """Real-to-complex transform of x resized to ``n``: the half spectrum, unscaled or
    scaled by the primitive per ``passed`` (``inside``'s result)."""
    x, pad = padding(x, axis, n)
    shape = x.shape[:axis] + (n // 2 + 1,) + x.shape[axis + 1 :]
    return x._storage.rfft(x._layout, axis, **norm_kwargs(passed, pad)), shape, _dt.complex_dtype_of(x._dtype)


def c2r(x, n, axis, passed=None):
    """Complex-to-real transform of length ``n`` (input resized to n//2+1), unscaled or
    scaled by the primitive per ``passed`` (``inside``'s result)."""
    x = resized(x, axis, n // 2 + 1)
    shape = x.shape[:axis] + (n,) + x.shape[axis + 1 :]
    return x._storage.irfft(x._layout, axis, n, **norm_kwargs(passed)), shape, _dt.real_dtype_of(x._dtype)


# The one-axis transforms once their arguments are checked (rfft's and irfft's, and rfftn's
# and irfftn's along one axis): ``n`` the signal's length. Two functions, not one with a
# direction flag: each calls only its own primitive (the needs table of docs/array_api*.md
# follows the calls).
def forward_one_axis(x, axis, n, norm):
    """``rfft`` of ``x`` resized to ``n`` along ``axis``: the ``n//2 + 1`` frequencies."""
    pad = None
    if x._layout.shape[axis] != n:
        x, pad = padding(x, axis, n)
    device, layout = x._device, x._layout
    shape = layout.shape
    passed = norm if declares_fft_norm(device) else None
    if pad is not None:
        storage = x._storage.rfft(layout, axis, **norm_kwargs(passed, pad))
    else:  # (the common call: no keyword dict built)
        storage = x._storage.rfft(layout, axis) if passed is None else x._storage.rfft(layout, axis, norm=passed)
    out_dtype = _dt.complex64 if x._dtype is _dt.float32 else _dt.complex128
    out_shape = shape[:axis] + (n // 2 + 1,) + shape[axis + 1:]
    if passed is not None:  # (scaled inside the transform: scaled's and wrap's frames skipped)
        return new_array(Array, storage, out_shape, out_dtype, device)
    return scaled(storage, out_shape, out_dtype, device, scale_factor(norm, n, False, passed))


def inverse_one_axis(x, axis, n, norm):
    """``irfft`` of ``x`` resized to ``n//2 + 1`` along ``axis``: a real signal of ``n``."""
    if x._layout.shape[axis] != n // 2 + 1:
        x = resized(x, axis, n // 2 + 1)
    device, layout = x._device, x._layout
    shape = layout.shape
    passed = norm if declares_fft_norm(device) else None
    storage = (x._storage.irfft(layout, axis, n) if passed is None
               else x._storage.irfft(layout, axis, n, norm=passed))
    out_dtype = _dt.float32 if x._dtype is _dt.complex64 else _dt.float64
    out_shape = shape[:axis] + (n,) + shape[axis + 1:]
    if passed is not None:
        return new_array(Array, storage, out_shape, out_dtype, device)
    return scaled(storage, out_shape, out_dtype, device, scale_factor(norm, n, True, passed))


def one_axis(x, axis, norm, fname, kind):
    """Checks shared by the 1-D transforms; returns the normalized axis."""
    check_input(x, fname, kind)
    check_norm(norm, fname)
    return check_axis(x, axis, fname)



_COMPLEX_X = "x : Array\n    Input array (complex64 or complex128)."
_REAL_X = "x : Array\n    Input array (real floating)."
_NORM = "norm : {'backward', 'ortho', 'forward'}\n    Which direction is scaled (by 1/n, 1/sqrt(n) both ways, or forward by 1/n)."
_N_AXIS_NORM = (
    "n : int or None\n"
    "    The length of the transformed axis (input cropped or zero-padded); None for its length.\n"
    "axis : int\n"
    "    The axis to transform.\n" + _NORM
)
_S_AXES_NORM = (
    "s : sequence of int or None\n"
    "    The lengths along axes; None for their lengths.\n"
    "axes : sequence of int or None\n"
    "    The axes to transform; None for the last len(s) axes (all when s is None).\n" + _NORM
)
_PARAMETERS = "Parameters\n----------\n"

#: numpydoc entries and sections the transforms share (filled in by ``docstrings.shared_doc``)
FFT_DOCS = {
    "fft_params_1d_complex": _PARAMETERS + _COMPLEX_X + "\n" + _N_AXIS_NORM,
    "fft_params_1d_real": _PARAMETERS + _REAL_X + "\n" + _N_AXIS_NORM,
    "fft_params_nd_complex": _PARAMETERS + _COMPLEX_X + "\n" + _S_AXES_NORM,
    "fft_params_nd_real": _PARAMETERS + _REAL_X + "\n" + _S_AXES_NORM,
    "fft_1d_params": _N_AXIS_NORM,
    "fft_freq_params": (  # fftfreq's and rfftfreq's
        "Parameters\n----------\nn : int\n    The window length (positive).\nd : float\n    The sample spacing.\n"
        "dtype : DType or None\n    A real floating dtype; None for the default.\n"
        "device : str, device or None\n    The device; None for the default."
    ),
    "fft_freq_raises": (
        "Raises\n------\nTypeError\n    If n is not an int.\nValueError\n    If n is not positive.\n"
        "DTypeError\n    If dtype is not real floating."
    ),
    "fft_shift_sections": (  # fftshift's and ifftshift's Parameters, Returns and Raises
        "Parameters\n----------\nx : Array\n    Input array.\n"
        "axes : int, sequence of int or None\n    The axes to shift; None for all.\n\n"
        "Returns\n-------\nArray\n    A new array of x's shape.\n\n"
        "Raises\n------\nTypeError\n    If x is not a candlewick array.\nAxisError\n    If an axis is out of range."
    ),
}

_RAISES = (
    "Raises\n"
    "------\n"
    "TypeError\n"
    "    If x is not a candlewick array.\n"
    "DTypeError\n"
    "    If x's dtype does not fit the transform.\n"
    "ValueError\n"
    "    If n/s is not positive or norm is unknown.\n"
    "AxisError\n"
    "    If an axis is out of range.\n"
    "UnsupportedOperation\n"
    "    If the device lacks the fft primitives."
)
FFT_DOCS["fft_raises"] = _RAISES
# the Returns and Raises sections of the transforms that return the same thing
for _result, _text in (("complex_spectrum", "The complex spectrum."), ("complex_signal", "The complex signal."),
                       ("real_signal", "The real signal.")):
    FFT_DOCS[f"fft_returns_{_result}"] = f"Returns\n-------\nArray\n    {_text}\n\n" + _RAISES
