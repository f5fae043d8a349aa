"""NumPy's dispatch protocols for candlewick arrays: ``__array_ufunc__`` (NEP 13) and
``__array_function__`` (NEP 18), as CuPy implements them.

Libraries written against NumPy (Dask's chunk functions, xarray's helpers) call NumPy
functions on the arrays they hold. With these protocols a NumPy ufunc or function that
candlewick has an equal of runs candlewick's function, so the result stays a candlewick
array on its device. Everything else runs NumPy on host copies, which is what NumPy did
before these protocols existed: a call with no candlewick equal, one with NumPy-only
options (``out=``, ``where=``, ``order=``), and one that mixes candlewick arrays with NumPy
arrays (candlewick never moves data between host and device behind the caller's back).
That works where ``__array__`` does (cpu) and is refused on a device whose arrays do not
convert implicitly.

The functions reach candlewick only through the namespace (``xp``) and the array class
(``cls``) that ``Array``'s methods pass in, as any Array API consumer does: this module
imports nothing of candlewick, so ``Array`` can import it.
"""

import numpy as np

from . import nan_reductions as _nan

# NumPy ufunc name -> candlewick function name where the two differ
_UFUNC_RENAMES = {
    "true_divide": "divide", "power": "pow", "absolute": "abs", "arcsin": "asin",
    "arccos": "acos", "arctan": "atan", "arctan2": "atan2", "arcsinh": "asinh",
    "arccosh": "acosh", "arctanh": "atanh", "rint": "round", "conjugate": "conj",
    "invert": "bitwise_invert", "left_shift": "bitwise_left_shift",
    "right_shift": "bitwise_right_shift", "mod": "remainder",
}
# ufunc.reduce -> the reduction it is (name in the namespace, whether it takes dtype)
_UFUNC_REDUCTIONS = {
    "add": ("sum", True), "multiply": ("prod", True), "maximum": ("max", False),
    "minimum": ("min", False), "logical_and": ("all", False), "logical_or": ("any", False),
}
_NO_VALUE = np._NoValue
_UFUNC_DEFAULTS = {"dtype": None, "casting": "same_kind", "order": "K", "subok": True, "signature": None}
_NOT_MINE = object()


def _is_default(name, value):
    default = _UFUNC_DEFAULTS.get(name, _NO_VALUE)
    return value is default or (isinstance(value, str) and value == default)


def _flag(value):
    return False if value is _NO_VALUE else bool(value)


def _unset(*values):
    return all(v is None or v is _NO_VALUE for v in values)


def _as_operand(value):
    """NumPy scalars become Python scalars, so they keep the weak-scalar rules."""
    return value.item() if isinstance(value, np.generic) else value


def _holds_numpy_array(values):
    return any(isinstance(v, np.ndarray) or (isinstance(v, (list, tuple)) and _holds_numpy_array(v))
               for v in values)


def _to_host(cls, value):
    if isinstance(value, cls):
        return np.asarray(value)  # refused where the device does not convert implicitly
    if isinstance(value, (list, tuple)):
        return type(value)(_to_host(cls, v) for v in value)
    if isinstance(value, dict):
        return {k: _to_host(cls, v) for k, v in value.items()}
    return value


def array_ufunc(xp, cls, ufunc, method, inputs, kwargs):
    """``Array.__array_ufunc__``: ``xp`` is the candlewick namespace, ``cls`` the array class."""
    plain = not kwargs.get("out") and kwargs.get("where", True) is True and not _holds_numpy_array(inputs)
    # options left at NumPy's defaults change nothing
    extra = {k: v for k, v in kwargs.items() if k not in ("out", "where") and not _is_default(k, v)}
    if plain and method == "__call__" and not extra:
        fn = getattr(xp, _UFUNC_RENAMES.get(ufunc.__name__, ufunc.__name__), None)
        if callable(fn):
            return fn(*(_as_operand(v) for v in inputs))
    if plain and method == "reduce" and len(inputs) == 1 and ufunc.__name__ in _UFUNC_REDUCTIONS:
        name, takes_dtype = _UFUNC_REDUCTIONS[ufunc.__name__]
        axis, keepdims = extra.pop("axis", 0), _flag(extra.pop("keepdims", False))
        dtype = extra.pop("dtype", None)
        if not extra and (dtype is None or takes_dtype):
            options = {"dtype": dtype} if dtype is not None else {}
            return getattr(xp, name)(inputs[0], axis=axis, keepdims=keepdims, **options)
    return getattr(ufunc, method)(*_to_host(cls, inputs), **_to_host(cls, kwargs))


# --- NumPy functions: each adapter takes NumPy's signature and returns _NOT_MINE for an
# option candlewick's function has no equal of (the call then runs NumPy on host copies)

def _reduction(name, takes_dtype):
    def call(xp, a, axis=None, dtype=None, out=None, keepdims=False, initial=_NO_VALUE, where=_NO_VALUE):
        if not _unset(out, initial, where) or (dtype is not None and not takes_dtype):
            return _NOT_MINE
        options = {"dtype": dtype} if dtype is not None else {}
        return getattr(xp, name)(a, axis=axis, keepdims=_flag(keepdims), **options)
    return call


def _spread(name):
    def call(xp, a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=_NO_VALUE,
             mean=_NO_VALUE, correction=_NO_VALUE):
        if not _unset(out, where, mean) or dtype is not None:
            return _NOT_MINE
        correction = ddof if correction is _NO_VALUE else correction
        return getattr(xp, name)(a, axis=axis, correction=correction, keepdims=_flag(keepdims))
    return call


def _mean(xp, a, axis=None, dtype=None, out=None, keepdims=False, where=_NO_VALUE):
    if not _unset(out, where) or dtype is not None:
        return _NOT_MINE
    return xp.mean(a, axis=axis, keepdims=_flag(keepdims))


def _arg(name):
    def call(xp, a, axis=None, out=None, *, keepdims=False):
        if out is not None:
            return _NOT_MINE
        return getattr(xp, name)(a, axis=axis, keepdims=_flag(keepdims))
    return call


def _joined(name):
    def call(xp, arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
        if out is not None or dtype is not None:
            return _NOT_MINE
        return getattr(xp, name)(list(arrays), axis=axis)
    return call


def _shape(value):
    return tuple(np.atleast_1d(value).tolist())


def _reshape(xp, a, shape=None, order="C", *, newshape=None, copy=None):
    if order != "C":
        return _NOT_MINE
    return xp.reshape(a, _shape(shape if shape is not None else newshape), copy=copy)


def _squeeze(xp, a, axis=None):
    if axis is None:
        axis = tuple(i for i, n in enumerate(a.shape) if n == 1)
    return xp.squeeze(a, axis=axis)


def _where(xp, condition, x=_NO_VALUE, y=_NO_VALUE):
    if x is _NO_VALUE or y is _NO_VALUE:
        return _NOT_MINE
    return xp.where(condition, x, y)


def _clip(xp, a, a_min=None, a_max=None, out=None, **options):
    if out is not None or options:
        return _NOT_MINE
    return xp.clip(a, a_min, a_max)


def _cumulative(name):
    def call(xp, a, axis=None, dtype=None, out=None):
        if out is not None:
            return _NOT_MINE
        if axis is None:  # NumPy flattens first
            a, axis = xp.reshape(a, (-1,)), 0
        return getattr(xp, name)(a, axis=axis, dtype=dtype)
    return call


def _like(name, fill_arg=False):
    def call(xp, a, *args, dtype=None, order="K", subok=True, shape=None, device=None, **kwargs):
        fill = ()
        if fill_arg:
            fill, args = (kwargs.pop("fill_value", None),) if not args else args[:1], args[1:]
        # NumPy's positional order after the fill value: dtype, order, subok, shape
        dtype, order, subok, shape = (list(args) + [dtype, order, subok, shape][len(args):])[:4]
        if order not in ("K", "C", "A") or kwargs:
            return _NOT_MINE
        if shape is None:
            return getattr(xp, f"{name}_like")(a, *fill, dtype=dtype, device=device)
        return getattr(xp, name)(_shape(shape), *fill, dtype=a.dtype if dtype is None else dtype,
                                 device=a.device if device is None else device)
    return call


def _sort(name):
    def call(xp, a, axis=-1, kind=None, order=None, *, stable=None):
        if order is not None or axis is None:
            return _NOT_MINE
        return getattr(xp, name)(a, axis=axis, stable=True if stable is None else bool(stable))
    return call


def _nan_floating(xp, a, *unset):
    # integer and bool arrays hold no NaN: those go to NumPy's own function
    return _unset(*unset) and xp.isdtype(a.dtype, ("real floating", "complex floating"))


def _nan_reduction(fn):
    def call(xp, a, axis=None, dtype=None, out=None, keepdims=False, initial=_NO_VALUE, where=_NO_VALUE):
        if not _nan_floating(xp, a, dtype, out, initial, where):
            return _NOT_MINE
        return fn(xp, a, axis=axis, keepdims=_flag(keepdims))
    return call


def _nan_spread(fn):
    def call(xp, a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=_NO_VALUE,
             mean=_NO_VALUE, correction=_NO_VALUE):
        if not _nan_floating(xp, a, dtype, out, where, mean):
            return _NOT_MINE
        return fn(xp, a, axis=axis, keepdims=_flag(keepdims), ddof=ddof if correction is _NO_VALUE else correction)
    return call


_FUNCTIONS = {
    np.sum: _reduction("sum", True), np.prod: _reduction("prod", True),
    np.max: _reduction("max", False), np.min: _reduction("min", False),
    np.any: _reduction("any", False), np.all: _reduction("all", False),
    np.std: _spread("std"), np.var: _spread("var"), np.mean: _mean,
    np.argmax: _arg("argmax"), np.argmin: _arg("argmin"),
    np.transpose: lambda xp, a, axes=None: xp.permute_dims(a, tuple(range(a.ndim))[::-1] if axes is None else tuple(axes)),
    np.concatenate: _joined("concat"), np.stack: _joined("stack"),
    np.reshape: _reshape, np.squeeze: _squeeze, np.where: _where, np.clip: _clip,
    np.expand_dims: lambda xp, a, axis: xp.expand_dims(a, axis=axis),
    np.broadcast_to: lambda xp, array, shape, subok=False: xp.broadcast_to(array, _shape(shape)),
    np.cumsum: _cumulative("cumulative_sum"), np.cumprod: _cumulative("cumulative_prod"),
    np.tensordot: lambda xp, a, b, axes=2: xp.tensordot(a, b, axes=axes),
    np.zeros_like: _like("zeros"), np.ones_like: _like("ones"), np.empty_like: _like("empty"),
    np.full_like: _like("full", fill_arg=True),
    np.astype: lambda xp, x, dtype, /, *, copy=True, device=None: xp.astype(x, dtype, copy=copy),
    np.sort: _sort("sort"), np.argsort: _sort("argsort"),
    np.shape: lambda xp, a: a.shape, np.ndim: lambda xp, a: a.ndim,
    np.size: lambda xp, a, axis=None: a.size if axis is None else a.shape[axis],
    np.nansum: _nan_reduction(_nan.nansum), np.nanmean: _nan_reduction(_nan.nanmean),
    np.nanvar: _nan_spread(_nan.nanvar), np.nanstd: _nan_spread(_nan.nanstd),
    np.nanmax: _nan_reduction(_nan.nanmax), np.nanmin: _nan_reduction(_nan.nanmin),
}


def array_function(xp, cls, func, types, args, kwargs):
    """``Array.__array_function__``: ``xp`` is the candlewick namespace, ``cls`` the array class."""
    if not all(issubclass(t, (cls, np.ndarray)) for t in types):
        return NotImplemented
    adapter = _FUNCTIONS.get(func)
    if adapter is not None and not _holds_numpy_array(args) and not _holds_numpy_array(kwargs.values()):
        result = adapter(xp, *args, **kwargs)
        if result is not _NOT_MINE:
            return result
    return func._implementation(*_to_host(cls, args), **_to_host(cls, kwargs))
