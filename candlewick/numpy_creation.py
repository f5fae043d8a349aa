"""NEP 35: NumPy's creation functions called with ``like=`` a candlewick array make a
candlewick array on that array's device (Dask and cubed make their chunks' companions
so: ``np.asarray(data, like=chunk)``, ``np.empty(shape, like=meta)``).

NumPy hands such a call to the ``like`` array's ``__array_function__`` with ``like``
itself removed; ``CREATION`` maps the function to a maker taking the ``like`` array
first. Functions candlewick has an equal of make the array there (ones, arange, eye...);
the readers of host data (frombuffer, loadtxt, fromiter...) run NumPy's function on that
host data and copy the result to the device explicitly."""

from typing import Any

import numpy as np

from .arguments import leaves
from ._core import ArrayBase
from .errors import ArgumentTypeError, ArgumentValueError, CandlewickError
from .namespace_lookup import cw


def _device(like):
    return like.device


def _dtype(dtype):
    return None if dtype is None else np.dtype(dtype)


def _holds_candlewick(obj):
    return any(isinstance(v, ArrayBase) for v in leaves(obj))


def _array(like, obj, dtype=None, *, copy=True, order="K", subok=False, ndmin=0, device=None):
    if _holds_candlewick(obj):  # candlewick data stays where it is (no host round trip)
        result = cw.asarray(obj, dtype=_dtype(dtype), copy=copy, device=device or _device(like))
    else:
        host = np.array(obj, dtype=dtype, copy=copy is not False, ndmin=ndmin)
        result = cw.asarray(host, device=device or _device(like))
    while result.ndim < ndmin:
        result = cw.expand_dims(result, axis=0)
    return result


def _asarray(like, a, dtype=None, order=None, *, device=None, copy=None):
    return _array(like, a, dtype, copy=copy, device=device)


def _ascontiguous(like, a, dtype=None):
    return _array(like, a, dtype, copy=None, ndmin=1)


def _require(like, a, dtype=None, requirements=None):
    return _array(like, a, dtype, copy=None)


def _arange(like, start_or_stop, /, stop=None, step=None, *, dtype=None, device=None):
    return cw.arange(start_or_stop, stop, 1 if step is None else step, dtype=_dtype(dtype),
                     device=device or _device(like))


def _shape(shape):
    """NumPy's shape argument: one int or a sequence (candlewick's functions check them)."""
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        return (int(shape),)
    return tuple(shape) if isinstance(shape, (tuple, list)) else shape


def _filled(make):
    def call(like, shape, dtype=float, order="C", *, device=None):
        return make(_shape(shape), dtype=_dtype(dtype), device=device or _device(like))
    return call


def _full(like, shape, fill_value, dtype=None, order="C", *, device=None):
    if dtype is None:  # NumPy's dtype of the fill value
        dtype = fill_value.dtype if isinstance(fill_value, ArrayBase) else np.array(fill_value).dtype
    return cw.full(_shape(shape), fill_value, dtype=_dtype(dtype), device=device or _device(like))


def _eye(like, N, M=None, k=0, dtype=float, order="C", *, device=None):
    return cw.eye(N, M, k=k, dtype=_dtype(dtype), device=device or _device(like))


def _identity(like, n, dtype=None):
    return cw.eye(n, dtype=_dtype(float if dtype is None else dtype), device=_device(like))


def _tri(like, N, M=None, k=0, dtype=float):
    ones = cw.ones((N, N if M is None else M), dtype=_dtype(dtype), device=_device(like))
    return cw.tril(ones, k=k)


def _fromfunction(like, function, shape, *, dtype=float, **kwargs):
    device = _device(like)
    axes = [cw.arange(n, dtype=_dtype(dtype), device=device) for n in _shape(shape)]
    return function(*cw.meshgrid(*axes, indexing="ij"), **kwargs)


def _from_host(reader):
    """A reader of host data (a buffer, a file, an iterable): NumPy's own reader, then the
    result copied to the like array's device."""
    def call(like, *args, **kwargs):
        return cw.asarray(reader(*args, **kwargs), device=_device(like))
    return call


def _refusing(name, make):
    """``make`` with NumPy's refusal of the caller's data or options (a ragged or too deep
    nest, a dtype NumPy does not know, a buffer of the wrong size) raised as candlewick's
    error naming ``name``; for the calls whose NumPy step only reads data (fromfunction
    and fromiter run the caller's own code, whose errors pass as they are)."""
    def call(*args, **kwargs):
        try:
            return make(*args, **kwargs)
        except CandlewickError:
            raise
        except TypeError as exc:
            raise ArgumentTypeError(f"{name}: {exc}") from None
        except ValueError as exc:
            raise ArgumentValueError(f"{name}: {exc}") from None
    return call


_READS = {
    np.array: _array, np.asarray: _asarray, np.asanyarray: _asarray,
    np.ascontiguousarray: _ascontiguous, np.asfortranarray: _ascontiguous, np.require: _require,
    np.frombuffer: _from_host(np.frombuffer), np.fromstring: _from_host(np.fromstring),
    np.fromfile: _from_host(np.fromfile), np.loadtxt: _from_host(np.loadtxt),
    np.genfromtxt: _from_host(np.genfromtxt),
}
CREATION: dict[Any, Any] = {
    **{func: _refusing(f"numpy.{func.__name__}", make) for func, make in _READS.items()},
    np.arange: _arange, np.zeros: _filled(cw.zeros), np.ones: _filled(cw.ones), np.empty: _filled(cw.empty),
    np.full: _full, np.eye: _eye, np.identity: _identity, np.tri: _tri, np.fromfunction: _fromfunction,
    np.fromiter: _from_host(np.fromiter),
}
