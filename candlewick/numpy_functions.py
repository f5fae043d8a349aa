"""The NumPy functions candlewick answers through ``__array_function__`` (NEP 18): NumPy's
function -> its translation onto candlewick's, with NumPy's semantics (``np.where`` takes
any truthy condition and two scalars, ``np.cumsum`` flattens without an axis, ...).

Where candlewick has a function of NumPy's own name and signature (``cumsum``, the
``nan*`` functions, ``quantile``, ``pad``, ``einsum``...), the entry calls it with the
arguments as given. Other entries translate the arguments, and answer ``NOT_MINE`` for
options they do not take; numpy_protocols then runs NumPy's function on host copies where
the memory is host memory, and raises candlewick's error naming the function where not.
Functions of a dtype or a shape only (``np.shape``, ``np.ndim``) need no data at all.
The reductions' translations are ``numpy_reduction_calls``; the conventions every
translation shares (``NOT_MINE``, NumPy's no-value default) are ``numpy_args``.
"""

import functools
import inspect
import sys
from typing import Any

import numpy as np

from ._core import ArrayBase, is_scalar, operator_index, require_array
from .arguments import one_of
from .errors import ArgumentTypeError, DTypeError
from .namespace_lookup import cw, namespace_function
from .numpy_args import NO_VALUE, NOT_MINE, flag, python_scalar, shape_arg
from .numpy_reduction_calls import arg_reduction, cumulative, mean, reduction, spread
from .shapes import normalize_axis


def _direct(name):
    """NumPy's function answered by candlewick's of the same name and signature; a call
    with an option candlewick's does not take (``where=``) is not ours."""
    fn = namespace_function(name)

    @functools.cache
    def signature():
        return inspect.signature(getattr(sys.modules[__package__ or "candlewick"], name))

    def call(*args, **kwargs):
        try:
            signature().bind(*args, **kwargs)
        except TypeError:
            return NOT_MINE
        return fn(*args, **kwargs)
    return call


def _concatenate(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    if out is not None:
        return NOT_MINE
    arrays = list(arrays)
    if axis is None:  # NumPy joins the flattened arrays
        arrays, axis = [cw.reshape(x, (-1,)) for x in arrays], 0
    joined = cw.concat(arrays, axis=axis)
    return joined if dtype is None else cw.astype(joined, dtype)


def _stack(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    if out is not None:
        return NOT_MINE
    stacked = cw.stack(list(arrays), axis=axis)
    return stacked if dtype is None else cw.astype(stacked, dtype)


def _reshape(a, shape=None, order="C", *, newshape=None, copy=None):
    one_of(order, ("C", "F", "A"), "numpy.reshape", "order")
    shape = shape_arg(shape if shape is not None else newshape)
    if not isinstance(shape, tuple):
        return cw.reshape(a, shape)  # candlewick's error for the shape
    if order == "F":  # NumPy's Fortran order: the C-order reshape of the reversed axes
        flipped = cw.reshape(cw.permute_dims(a, tuple(range(a.ndim))[::-1]), shape[::-1], copy=copy)
        return cw.permute_dims(flipped, tuple(range(len(shape)))[::-1])
    return cw.reshape(a, shape, copy=copy)


def _ravel(a, order="C"):
    return _reshape(a, (-1,), order=order)


def _squeeze(a, axis=None):
    if axis is None:
        axis = tuple(i for i, n in enumerate(a.shape) if n == 1)
    return cw.squeeze(a, axis=axis)


def _where(condition, x=NO_VALUE, y=NO_VALUE):
    """NumPy's where: a condition of any dtype (its truth, nonzero), two scalars allowed
    (NumPy's dtype of them), and the one-argument form (``nonzero``)."""
    if not isinstance(condition, ArrayBase):
        return NOT_MINE
    if condition.dtype.category != "bool":
        condition = condition != 0
    if x is NO_VALUE and y is NO_VALUE:
        return cw.nonzero(condition)
    if x is NO_VALUE or y is NO_VALUE:
        return NOT_MINE  # NumPy's own error: x and y go together
    x, y = python_scalar(x), python_scalar(y)
    if not isinstance(x, ArrayBase) and not isinstance(y, ArrayBase):
        x = cw.asarray(x, dtype=np.result_type(x, y), device=condition.device)
    return cw.where(condition, x, y)


def _like(fn, make):
    """NumPy's ``zeros_like``/``ones_like``/``empty_like`` (``_fill`` unset) and
    ``full_like`` (``_fill`` the fill value, whatever it is: None is refused by ``full``)."""
    def call(a, dtype=None, order="K", subok=True, shape=None, *, device=None, _fill=_NO_FILL):
        filled = () if _fill is _NO_FILL else (_fill,)
        if shape is None:
            return fn(a, *filled, dtype=dtype, device=device)
        dtype = a.dtype if dtype is None else dtype
        device = a.device if device is None else device
        return make(shape_arg(shape), *filled, dtype=dtype, device=device)
    return call


_NO_FILL = object()


def _full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None, *, device=None):
    return _like(cw.full_like, cw.full)(a, dtype, order, subok, shape, device=device, _fill=fill_value)


def _sort(fn):
    def call(a, axis=-1, kind=None, order=None, *, stable=None):
        if order is not None:
            return NOT_MINE
        if axis is None:  # NumPy sorts the flattened array
            a, axis = cw.reshape(a, (-1,)), 0
        return fn(a, axis=axis, stable=True if stable is None else flag(stable, f"numpy.{fn.__name__}", "stable"))
    return call


def _take(a, indices, axis=None, out=None, mode="raise"):
    if out is not None or one_of(mode, ("raise", "wrap", "clip"), "numpy.take", "mode") != "raise":
        return NOT_MINE
    if axis is None:
        a, axis = cw.reshape(a, (-1,)), 0
    if is_scalar(indices):  # one index: the axis dropped
        return cw.take(a, indices, axis=axis)
    if not isinstance(indices, ArrayBase):
        try:  # NumPy's own reading of a nested sequence of indices (its errors, not a recursion)
            host = np.asarray(indices)
        except (TypeError, ValueError, RecursionError):
            raise ArgumentTypeError(f"take: indices must be integers or a sequence of them, got "
                                    f"{type(indices).__name__}") from None
        indices = cw.asarray(host, device=a.device)
    return cw.take(a, indices, axis=axis)


def _dot(a, b, out=None):
    if out is not None:
        return NOT_MINE
    if is_scalar(a) or is_scalar(b):  # NumPy's dot of a scalar: the product
        return a * b
    require_array(a, "dot", "a")
    require_array(b, "dot", "b")
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    if b.ndim == 1:
        return cw.tensordot(a, b, axes=([a.ndim - 1], [0]))
    return cw.tensordot(a, b, axes=([a.ndim - 1], [b.ndim - 2]))


def _round(a, decimals=0, out=None):
    """NumPy's round: half to even at ``decimals`` places (negative: tens, hundreds...);
    integers stay integers."""
    if out is not None:
        return NOT_MINE
    decimals = operator_index(decimals, "round", "decimals")
    integral = a.dtype.category in ("bool", "signed integer", "unsigned integer")
    if decimals == 0 or (integral and decimals > 0):
        return cw.round(a) if not integral else cw.asarray(a, copy=True)
    if decimals > 308:  # more places than a float holds: the values as they are
        return cw.asarray(a, copy=True)
    if decimals < -308:  # every finite value rounds to zero
        return cw.where(cw.isfinite(a), cw.zeros_like(a), a) if not integral else cw.zeros_like(a)
    work = cw.astype(a, "float64") if integral else a
    if decimals > 0:
        scale = 10.0 ** decimals
        rounded = cw.round(work * scale) / scale
    else:
        scale = 10.0 ** -decimals
        rounded = cw.round(work / scale) * scale
    return cw.astype(rounded, a.dtype) if integral else rounded


def _diff(a, n=1, axis=-1, prepend=NO_VALUE, append=NO_VALUE):
    options = {k: v for k, v in (("prepend", prepend), ("append", append)) if v is not NO_VALUE}
    return cw.diff(a, n=n, axis=axis, **options)


def _repeat(a, repeats, axis=None):
    return cw.repeat(a, repeats, axis=axis)


def _clip(a, a_min=NO_VALUE, a_max=NO_VALUE, out=None, *, min=NO_VALUE, max=NO_VALUE, **kwargs):
    if out is not None or kwargs:
        return NOT_MINE
    low = None if a_min is NO_VALUE else a_min
    high = None if a_max is NO_VALUE else a_max
    low = low if min is NO_VALUE else min
    high = high if max is NO_VALUE else max
    if any(isinstance(v, (complex, np.complexfloating)) or (isinstance(v, ArrayBase) and
                                                            v.dtype.category == "complex floating")
           for v in (low, high)):
        return NOT_MINE  # the standard's clip orders real numbers only
    return cw.clip(a, python_scalar(low), python_scalar(high))


def _atleast(ndim):
    def call(*arys):
        if not all(isinstance(x, ArrayBase) for x in arys):
            return NOT_MINE  # (NumPy's conversion of a list or a scalar among them)
        grown = []
        for x in arys:
            while x.ndim < ndim:
                # NumPy's places: 1-D -> (1, n); 2-D -> (m, n, 1)
                x = cw.expand_dims(x, axis=-1 if (ndim == 3 and x.ndim == 2) else 0)
            grown.append(x)
        return grown[0] if len(grown) == 1 else tuple(grown)
    return call


def _swapped(ndim, axis1, axis2):
    axis1, axis2 = normalize_axis(axis1, ndim, "axis1"), normalize_axis(axis2, ndim, "axis2")
    axes = list(range(ndim))
    axes[axis1], axes[axis2] = axes[axis2], axes[axis1]
    return tuple(axes)


def _result_type(*arrays_and_dtypes):
    try:
        return np.result_type(*(x._dtype.numpy if isinstance(x, ArrayBase) else x for x in arrays_and_dtypes))
    except (TypeError, ValueError) as exc:  # NumPy's refusal of the other operands (a bad dtype name)
        raise DTypeError(f"result_type: {exc}") from None


def _copy(a, order="K", subok=False):
    return cw.asarray(a, copy=True)


FUNCTIONS: dict[Any, Any] = {
    np.sum: reduction("sum", 0, lambda r, v: r + v), np.prod: reduction("prod", 1, lambda r, v: r * v),
    np.max: reduction("max", None, cw.maximum), np.min: reduction("min", None, cw.minimum),
    np.amax: reduction("max", None, cw.maximum), np.amin: reduction("min", None, cw.minimum),
    np.any: reduction("any", False, None), np.all: reduction("all", True, None),
    np.std: spread("std"), np.var: spread("var"), np.mean: mean,
    np.argmax: arg_reduction(cw.argmax), np.argmin: arg_reduction(cw.argmin),
    np.concatenate: _concatenate, np.stack: _stack, np.reshape: _reshape, np.ravel: _ravel,
    np.squeeze: _squeeze, np.where: _where,
    np.expand_dims: lambda a, axis: cw.expand_dims(a, axis=axis),
    np.broadcast_to: lambda array, shape, subok=False: cw.broadcast_to(array, shape_arg(shape)),
    np.broadcast_arrays: lambda *args, subok=False: tuple(cw.broadcast_arrays(*args)),
    np.moveaxis: lambda a, source, destination: cw.moveaxis(a, source, destination),
    np.swapaxes: lambda a, axis1, axis2: cw.permute_dims(a, _swapped(a.ndim, axis1, axis2)),
    np.flip: lambda m, axis=None: cw.flip(m, axis=axis),
    np.roll: lambda a, shift, axis=None: cw.roll(a, shift, axis=axis),
    np.repeat: _repeat, np.tile: lambda A, reps: cw.tile(A, shape_arg(reps)),
    np.clip: _clip, np.round: _round, np.around: _round,
    np.cumsum: cumulative("cumsum"), np.cumprod: cumulative("cumprod"),
    np.tensordot: lambda a, b, axes=2: cw.tensordot(a, b, axes=axes), np.dot: _dot,
    np.zeros_like: _like(cw.zeros_like, cw.zeros), np.ones_like: _like(cw.ones_like, cw.ones),
    np.empty_like: _like(cw.empty_like, cw.empty), np.full_like: _full_like,
    np.astype: lambda x, dtype, /, *, copy=True, device=None: cw.astype(x, dtype, copy=copy),
    np.copy: _copy,
    np.sort: _sort(cw.sort), np.argsort: _sort(cw.argsort),
    np.take: _take, np.take_along_axis: lambda arr, indices, axis=-1: cw.take_along_axis(arr, indices, axis=axis),
    np.nonzero: lambda a: cw.nonzero(a if a.dtype.category == "bool" else a != 0),
    np.count_nonzero: lambda a, axis=None, *, keepdims=False: cw.count_nonzero(a, axis=axis, keepdims=keepdims),
    np.searchsorted: lambda a, v, side="left", sorter=None: cw.searchsorted(a, v, side=side, sorter=sorter),
    np.diff: _diff, np.isin: lambda element, test_elements, assume_unique=False, invert=False, *, kind=None: (
        cw.isin(element, test_elements, invert=invert)),
    np.real: lambda val: cw.real(val), np.imag: lambda val: cw.imag(val),
    np.iscomplexobj: lambda x: x.dtype.category == "complex floating",
    np.atleast_1d: _atleast(1), np.atleast_2d: _atleast(2), np.atleast_3d: _atleast(3),
    np.shape: lambda a: a.shape, np.ndim: lambda a: a.ndim,
    np.size: lambda a, axis=None: a.size if axis is None else a.shape[normalize_axis(axis, a.ndim)],
    np.result_type: _result_type,
}
# candlewick's functions of NumPy's own name and signature
for _name in ("nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nanmax", "nanmin", "nanargmax", "nanargmin",
              "nancumsum", "nancumprod", "quantile", "percentile", "median", "nanquantile", "nanpercentile",
              "nanmedian", "einsum", "pad", "gradient", "transpose"):
    FUNCTIONS[getattr(np, _name)] = _direct(_name)
