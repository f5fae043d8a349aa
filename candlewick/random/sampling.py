"""The discrete draws from a ``Stream``: integers, choice, permutation, shuffle.

All are made from the stream's 64 random bits per element (``Stream.bits64``), exact
on every backend, and the namespace's integer arithmetic, sort and take:

* an integer in ``[0, n)`` is ``bits % n`` (integer arithmetic wraps, the remainder takes
  the divisor's sign: the result is in range for any bits). Its bias is below
  ``n / 2**64`` (NumPy rejects and redraws instead: exact, but data-dependent on a device);
* a permutation of n is the stable ``argsort`` of n random 64-bit keys (ties, about
  ``n**2 / 2**65`` likely, keep index order, the same on every backend);
* a weighted draw with replacement inverts the cumulative sum of ``p`` (``searchsorted``);
  without replacement it keeps the k smallest ``E / p`` (E standard exponential), which
  draws as successive weighted draws without replacement do.
"""

from __future__ import annotations

import math

import numpy as np

from .. import dtypes as _dt
from .._core import ArrayBase, operator_index
from ..arguments import flag
from ..conversion import asarray
from ..creation import full
from ..cumulative import cumulative_sum
from ..data_types import astype, finfo
from ..elementwise import minimum
from ..errors import ArgumentTypeError, ArgumentValueError, DTypeError, ShapeError
from ..indexing_functions import take
from ..manipulation import reshape
from ..registry import get_device
from ..searching import searchsorted
from ..selection import where
from ..shapes import broadcast_shapes, normalize_axis, shape_size
from ..sorting import argsort
from ..statistical import max as _max, min as _min
from .continuous import check_int, exponential, size_shape

_INT64_MAX = 2**63 - 1


def _bounds(dtype):
    if dtype is _dt.bool_:
        return 0, 1
    info = np.iinfo(dtype.numpy)
    return int(info.min), int(info.max)


def below(stream, n, shape, device, fname):
    """int64 integers in ``[0, n)`` (``0 < n <= 2**63 - 1``) of ``shape``."""
    bits = stream.bits64(shape, device, _dt.int64, fname)
    return bits % n


def integers(stream, low, high, size, dtype, endpoint, device):
    fname = "integers"
    dtype = _dt.as_dtype(dtype, fname=fname)
    if not (dtype.is_integer or dtype.is_bool):
        raise DTypeError(f"{fname}: dtype must be an integer dtype (or bool), got {dtype.name}")
    endpoint = flag(endpoint, fname, "endpoint")
    if high is None:
        low, high = 0, low
    if isinstance(low, ArrayBase) or isinstance(high, ArrayBase):
        return _integers_between_arrays(stream, low, high, size, dtype, endpoint, device)
    low, high = check_int(low, fname, "low"), check_int(high, fname, "high") + endpoint
    lo, hi = _bounds(dtype)
    if low >= high:
        bound = "high" if not endpoint else "high + 1"
        raise ArgumentValueError(f"{fname}: low ({low}) must be < {bound} ({high})")
    if low < lo or high - 1 > hi:
        raise ArgumentValueError(f"{fname}: the range [{low}, {high}) is outside {dtype.name}'s [{lo}, {hi}]")
    shape, device = size_shape(size, fname), get_device(device)
    span = high - low
    if -_INT64_MAX - 1 <= low and high - 1 <= _INT64_MAX and span <= _INT64_MAX:
        values = below(stream, span, shape, device, fname) + low  # in [low, high): no wrap
    else:  # bounds or a span only uint64 holds: uint64 arithmetic, low added modulo 2**64
        bits = stream.bits64(shape, device, _dt.uint64, fname)
        values = (bits if span == 2**64 else bits % span) + low % 2**64
    return astype(values, dtype)


def _integers_between_arrays(stream, low, high, size, dtype, endpoint, device):
    """NumPy's broadcast bounds: int64 arithmetic (bounds within int64's range)."""
    fname = "integers"
    arrays = [v for v in (low, high) if isinstance(v, ArrayBase)]
    device = get_device(device if device is not None else arrays[0].device)
    low, high = (v if isinstance(v, ArrayBase) else asarray(check_int(v, fname, "low/high"), device=device)
                 for v in (low, high))
    for name, v in (("low", low), ("high", high)):
        if not (v.dtype.is_integer or v.dtype.is_bool):
            raise DTypeError(f"{fname}: {name} must be an integer array, got dtype {v.dtype.name}")
    low, high = astype(low, _dt.int64), astype(high, _dt.int64)
    span = high - low + int(endpoint)
    bounds_shape = broadcast_shapes(low.shape, high.shape)
    shape = bounds_shape if size is None else size_shape(size, fname)
    if broadcast_shapes(shape, bounds_shape) != shape:
        raise ShapeError(f"{fname}: bounds of shape {bounds_shape} do not broadcast to size {shape}")
    if span.size and not int(_min(span)) > 0:
        raise ArgumentValueError(f"{fname}: low must be < high everywhere" + (" + 1" if endpoint else ""))
    lo, hi = _bounds(dtype)
    if low.size and high.size and (int(_min(low)) < lo or int(_max(high)) - 1 + endpoint > hi):
        raise ArgumentValueError(f"{fname}: the bounds pass {dtype.name}'s range [{lo}, {hi}]")
    bits = stream.bits64(shape, device, _dt.int64, fname)
    return astype(bits % span + low, dtype)


def _population(a, device, fname):
    """(population array or None, n) of choice's ``a``: an int, an array or a sequence."""
    if isinstance(a, ArrayBase):
        return a, None
    if isinstance(a, (list, tuple)):
        return asarray(a, device=device), None
    if isinstance(a, bool) or not hasattr(a, "__index__"):
        raise ArgumentTypeError(f"{fname}: a must be an int, a candlewick array or a sequence, got {type(a).__name__}")
    n = operator_index(a, fname, "a")
    if n < 0:
        raise ArgumentValueError(f"{fname}: a must be >= 0, got {n}")
    return None, n


def _probabilities(p, n, device, fname):
    """p as a float array on the device, checked on the host (NumPy's checks and
    tolerance), with the index of its last non-zero entry and its non-zero count."""
    p = p if isinstance(p, ArrayBase) else asarray(p, device=device)
    if not p.dtype.is_floating:
        p = astype(p, _dt.DEFAULT_FLOAT)
    if p.ndim != 1 or p.shape[0] != n:
        raise ShapeError(f"{fname}: p must be 1-D of the population's length {n}, got shape {p.shape}")
    host = p._storage.to_host(p._layout).astype(np.float64)
    if not (np.isfinite(host).all() and (host >= 0).all()):
        raise ArgumentValueError(f"{fname}: p must hold finite probabilities >= 0")
    atol = max(math.sqrt(np.finfo(np.float64).eps), math.sqrt(float(finfo(p.dtype).eps)))  # bfloat16 too
    if abs(math.fsum(host) - 1.0) > atol:
        raise ArgumentValueError(f"{fname}: probabilities do not sum to 1 (sum {math.fsum(host)!r})")
    nonzero = np.flatnonzero(host)
    return p, (int(nonzero[-1]) if nonzero.size else -1), int(nonzero.size)


def choice(stream, a, size, replace, p, axis, shuffle, device):
    fname = "choice"
    replace, _ = flag(replace, fname, "replace"), flag(shuffle, fname, "shuffle")
    population, n = _population(a, device, fname)
    device = get_device(device if population is None else population.device)
    if population is not None:
        if population.ndim == 0:
            raise ShapeError(f"{fname}: a must be at least 1-D, got a 0-d array")
        axis = normalize_axis(operator_index(axis, fname, "axis"), population.ndim)
        n = population.shape[axis]
    shape = size_shape(size, fname)
    k = shape_size(shape)
    if n == 0 and k:
        raise ArgumentValueError(f"{fname}: a cannot be empty unless no samples are taken")
    if not replace and k > n:
        raise ArgumentValueError(f"{fname}: cannot take a larger sample ({k}) than the population ({n}) "
                                 f"when replace=False")
    if p is not None:
        p, last, nonzero = _probabilities(p, n, device, fname)
        if not replace and k > nonzero:
            raise ArgumentValueError(f"{fname}: fewer non-zero entries in p ({nonzero}) than size ({k})")
    if k == 0:
        idx = full(shape, 0, dtype=_dt.int64, device=device)
    elif replace and p is None:
        idx = below(stream, n, shape, device, fname)
    elif replace:
        cdf = cumulative_sum(p)
        u = stream.floats("rand_uniform", shape, p.dtype, device, 0.0, 1.0, fname) * cdf[-1]
        idx = minimum(searchsorted(cdf, u, side="right"), last)  # (u * total may round up to it)
    else:
        if p is None:
            keys = stream.bits64((n,), device, _dt.int64, fname)
        else:
            e = exponential(stream, 1.0, (n,), p.dtype, device, fname)
            keys = where(p > 0, e / p, math.inf)
        idx = reshape(argsort(keys, stable=True)[:k], shape)
    if population is None:
        return idx
    picked = take(population, reshape(idx, (k,)), axis=axis)
    return reshape(picked, population.shape[:axis] + shape + population.shape[axis + 1:])


def permutation(stream, x, axis, device):
    fname = "permutation"
    if isinstance(x, ArrayBase):
        if x.ndim == 0:
            raise ShapeError(f"{fname}: x must be an integer or at least 1-D, got a 0-d array")
        axis = normalize_axis(operator_index(axis, fname, "axis"), x.ndim)
        keys = stream.bits64((x.shape[axis],), x.device, _dt.int64, fname)
        return take(x, argsort(keys, stable=True), axis=axis)
    n = check_int(x, fname, "x")
    if n < 0:
        raise ArgumentValueError(f"{fname}: x must be >= 0, got {n}")
    return argsort(stream.bits64((n,), get_device(device), _dt.int64, fname), stable=True)


def shuffle(stream, x, axis):
    if not isinstance(x, ArrayBase):
        raise ArgumentTypeError(f"shuffle: x must be a candlewick array (shuffled in place), got {type(x).__name__}")
    x[...] = permutation(stream, x, axis, None)
