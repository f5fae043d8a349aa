"""The floating draws (uniform, normal, exponential and their kin) from a ``Stream``.

With scalar parameters a draw is one primitive call with the parameters passed to it
(``rand_uniform(low, high)``, ``rand_normal(mean, std)``), so each value is rounded once.
With arrays among the parameters (NumPy broadcasts them against each other and
``size``) the standard draw is made and shifted and scaled by the namespace's arithmetic.
"""

from __future__ import annotations

import operator

from .. import dtypes as _dt
from .._core import ArrayBase, as_shape
from ..arguments import real_number
from ..data_types import astype
from ..elementwise import exp, log1p
from ..errors import ArgumentTypeError, ArgumentValueError, DTypeError, ShapeError
from ..registry import get_device
from ..shapes import broadcast_shapes
from ..statistical import min as _min

#: dtypes whose draws are computed in float32 and rounded once (as the primitives do)
_HALF = ("float16", "bfloat16")


def size_shape(size, fname):
    """NumPy's ``size``: None for one value (a 0-d array here), an int or a tuple of ints."""
    return () if size is None else as_shape(size, fname, "size")


def float_dtype(dtype, fname):
    dtype = _dt.DEFAULT_FLOAT if dtype is None else _dt.as_dtype(dtype, fname=fname)
    if not dtype.is_floating:
        raise DTypeError(f"{fname}: dtype must be real floating, got {dtype.name}")
    return dtype


def parameter(value, fname, argname, *, nonnegative=False):
    """A real number (checked), or a real array (its sign checked with one host read)."""
    if isinstance(value, ArrayBase):
        if not (value.dtype.is_floating or value.dtype.is_integer):
            raise DTypeError(f"{fname}: {argname} must be a real array, got dtype {value.dtype.name}")
        if nonnegative and value.size and not float(_min(value)) >= 0:
            raise ArgumentValueError(f"{fname}: {argname} must be >= 0 everywhere")
        return value
    return real_number(value, fname, argname, nonnegative=nonnegative)


class Draw:
    """One floating draw's shape, dtype and device, from NumPy's arguments."""

    def __init__(self, fname, size, dtype, device, params):
        self.fname = fname
        self.arrays = [p for p in params if isinstance(p, ArrayBase)]
        self.dtype = float_dtype(dtype, fname)
        self.given_dtype = dtype is not None
        if device is None and self.arrays:
            device = self.arrays[0].device
        self.device = get_device(device)
        if size is None and self.arrays:
            self.shape = broadcast_shapes(*(a.shape for a in self.arrays))
        else:
            self.shape = size_shape(size, fname)
            if self.arrays and broadcast_shapes(self.shape, *(a.shape for a in self.arrays)) != self.shape:
                shapes = ", ".join(str(a.shape) for a in self.arrays)
                raise ShapeError(f"{fname}: parameters of shape {shapes} do not broadcast to size {self.shape}")

    @property
    def compute_dtype(self):
        """The dtype a composed draw is computed in: float32 for float16 and bfloat16."""
        return _dt.float32 if self.dtype.name in _HALF else self.dtype

    def finish(self, values):
        """The composed values in the draw's dtype (a given dtype wins over promotion)."""
        if values.dtype is not self.dtype and (self.given_dtype or values.dtype is self.compute_dtype):
            values = astype(values, self.dtype)
        return values


def uniform(stream, low, high, size, dtype, device, fname="uniform"):
    low, high = parameter(low, fname, "low"), parameter(high, fname, "high")
    draw = Draw(fname, size, dtype, device, (low, high))
    if not draw.arrays:
        if not high >= low:
            raise ArgumentValueError(f"{fname}: high ({high}) must be >= low ({low})")
        return stream.floats("rand_uniform", draw.shape, draw.dtype, draw.device, low, high, fname)
    u = stream.floats("rand_uniform", draw.shape, draw.compute_dtype, draw.device, 0.0, 1.0, fname)
    return draw.finish(low + (high - low) * u)


def normal(stream, loc, scale, size, dtype, device, fname="normal"):
    loc, scale = parameter(loc, fname, "loc"), parameter(scale, fname, "scale", nonnegative=True)
    draw = Draw(fname, size, dtype, device, (loc, scale))
    if not draw.arrays:
        return stream.floats("rand_normal", draw.shape, draw.dtype, draw.device, loc, scale, fname)
    z = stream.floats("rand_normal", draw.shape, draw.compute_dtype, draw.device, 0.0, 1.0, fname)
    return draw.finish(loc + scale * z)


def lognormal(stream, mean, sigma, size, dtype, device):
    fname = "lognormal"
    mean, sigma = parameter(mean, fname, "mean"), parameter(sigma, fname, "sigma", nonnegative=True)
    draw = Draw(fname, size, dtype, device, (mean, sigma))
    if not draw.arrays:
        z = stream.floats("rand_normal", draw.shape, draw.compute_dtype, draw.device, mean, sigma, fname)
        return draw.finish(exp(z))
    z = stream.floats("rand_normal", draw.shape, draw.compute_dtype, draw.device, 0.0, 1.0, fname)
    return draw.finish(exp(mean + sigma * z))


def exponential(stream, scale, size, dtype, device, fname="exponential"):
    """``-log(1 - u) * scale`` from uniforms u in [0, 1) of the compute precision (float32
    for float16/bfloat16, whose rounded u could reach 1)."""
    scale = parameter(scale, fname, "scale", nonnegative=True)
    draw = Draw(fname, size, dtype, device, (scale,))
    u = stream.floats("rand_uniform", draw.shape, draw.compute_dtype, draw.device, 0.0, 1.0, fname)
    return draw.finish(-log1p(-u) * scale)


def check_int(value, fname, argname):
    """A Python/NumPy integer as an int (bools and floats are refused, as NumPy's integers does)."""
    if not isinstance(value, bool):
        try:  # (operator.index: a class's __index__ is unbound, a NumPy array's may refuse)
            return operator.index(value)
        except TypeError:
            pass
    raise ArgumentTypeError(f"{fname}: {argname} must be an integer or an integer array, got {type(value).__name__}")
