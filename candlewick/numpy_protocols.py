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
"""

import functools
import sys

import numpy as np

from ._core import ArrayBase, is_scalar
from .errors import ArgumentTypeError


@functools.cache
def _candlewick(path):
    """The candlewick function at ``path`` ("sum", "nan_reductions.nansum"), one caller per
    path, made once. The function itself is looked up on the caller's first call: the
    namespace modules import array.py, which imports this module, so they are found
    through ``sys.modules`` (loaded by the package before any array exists) rather than
    imported here, which would be an import cycle."""
    module, _, name = path.rpartition(".")
    target = None

    def call(*args, **kwargs):
        nonlocal target
        if target is None:
            owner = sys.modules[f"{__package__}.{module}" if module else __package__]
            target = getattr(owner, name)
        return target(*args, **kwargs)

    call.__name__ = name
    return call


class _Namespace:
    """``_cw.sum`` is ``_candlewick("sum")``: the same cached caller at every access."""

    def __getattr__(self, name):
        return _candlewick(name)


_cw = _Namespace()

# NumPy ufunc name -> candlewick function name where the two differ
_UFUNC_RENAMES = {
    "true_divide": "divide", "power": "pow", "absolute": "abs", "arcsin": "asin",
    "arccos": "acos", "arctan": "atan", "arctan2": "atan2", "arcsinh": "asinh",
    "arccosh": "acosh", "arctanh": "atanh", "rint": "round", "conjugate": "conj",
    "invert": "bitwise_invert", "left_shift": "bitwise_left_shift",
    "right_shift": "bitwise_right_shift", "mod": "remainder",
}
# ufunc.reduce -> the reduction it is
_UFUNC_REDUCTIONS = {
    "add": "sum", "multiply": "prod", "maximum": "max", "minimum": "min",
    "logical_and": "all", "logical_or": "any",
}
_NO_VALUE = np._NoValue
_UFUNC_DEFAULTS = {"dtype": None, "casting": "same_kind", "order": "K", "subok": True, "signature": None}


@functools.cache
def _ufunc_function(ufunc):
    """The candlewick function a NumPy ufunc maps onto, or None; decided once per ufunc."""
    name = _UFUNC_RENAMES.get(ufunc.__name__, ufunc.__name__)
    if name == "matmul":
        return _cw.matmul
    return _candlewick(name) if callable(getattr(sys.modules[__package__], name, None)) else None


def _as_operand(value):
    """NumPy scalars become Python scalars, so they keep the weak-scalar rules."""
    return value.item() if isinstance(value, np.generic) else value


#: how deep operands' lists are looked into: NumPy's dimension limit (a deeper list is no array)
_NESTING = 64


def _leaves(values):
    """The items of ``values`` that are not lists or tuples, and those of the lists and
    tuples in it, to ``_NESTING`` levels, each list once (one that holds itself ends)."""
    stack, seen = [(values, 0)], set()
    while stack:
        value, depth = stack.pop()
        if isinstance(value, (list, tuple)):
            if depth <= _NESTING and id(value) not in seen:
                seen.add(id(value))
                stack.extend((v, depth + 1) for v in reversed(value))
        else:
            yield value


def _holds_numpy_array(values):
    return any(isinstance(v, np.ndarray) for v in _leaves(values))


def _foreign(value):
    """A NumPy array or another library's object: neither a candlewick array nor a scalar."""
    for leaf in _leaves(value):
        if not (isinstance(leaf, ArrayBase) or is_scalar(leaf) or isinstance(leaf, np.generic) or leaf is None):
            return leaf
    return None


def _refuse_mixed(name, values):
    other = _foreign(list(values))
    if other is not None:
        raise ArgumentTypeError(
            f"numpy.{name}: candlewick arrays do not mix with {type(other).__module__}."
            f"{type(other).__qualname__} operands; convert with candlewick.asarray (or "
            f"candlewick.to_numpy for the other way) first"
        )


def _to_host(value, depth=0):
    """``value`` with its candlewick arrays as host arrays, through lists, tuples and dicts
    (to ``_NESTING`` levels: deeper, or a list holding itself, is left for NumPy to refuse)."""
    if isinstance(value, ArrayBase):
        return np.asarray(value)  # refused where the device does not convert implicitly
    if depth > _NESTING:
        return value
    if isinstance(value, (list, tuple)):
        return type(value)(_to_host(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return {k: _to_host(v, depth + 1) for k, v in value.items()}
    return value


def array_ufunc(ufunc, method, inputs, kwargs):
    out = kwargs.get("out") or ()
    _refuse_mixed(ufunc.__name__, (*inputs, *(out if isinstance(out, tuple) else (out,)),
                                   *([kwargs["where"]] if "where" in kwargs else [])))
    plain = not kwargs.get("out") and kwargs.get("where", True) is True
    # options left at NumPy's defaults change nothing
    extra = {k: v for k, v in kwargs.items()
             if k not in ("out", "where") and not _is_default(k, v)}
    if plain and method == "__call__" and not extra:
        fn = _ufunc_function(ufunc)
        if fn is not None:
            return fn(*(_as_operand(v) for v in inputs))
    if plain and method == "reduce" and len(inputs) == 1 and isinstance(inputs[0], ArrayBase):
        reduction = _UFUNC_REDUCTIONS.get(ufunc.__name__)
        axis, keepdims = extra.pop("axis", 0), extra.pop("keepdims", False)
        dtype = extra.pop("dtype", None)
        if reduction is not None and not extra and (dtype is None or reduction in ("sum", "prod")):
            options = {"dtype": dtype} if dtype is not None else {}
            return _candlewick(reduction)(inputs[0], axis=axis, keepdims=keepdims, **options)
    return getattr(ufunc, method)(*_to_host(inputs), **_to_host(kwargs))


def _is_default(name, value):
    default = _UFUNC_DEFAULTS.get(name, _NO_VALUE)
    return value is default or (isinstance(value, str) and value == default)


def _flag(value):
    return False if value is _NO_VALUE else bool(value)


def _unset(*values):
    return all(v is None or v is _NO_VALUE for v in values)


def _reduction(fn, takes_dtype):
    def call(a, axis=None, dtype=None, out=None, keepdims=False, initial=_NO_VALUE, where=_NO_VALUE):
        if not _unset(out, initial, where) or (dtype is not None and not takes_dtype):
            return _NOT_MINE
        options = {"dtype": dtype} if dtype is not None else {}
        return fn(a, axis=axis, keepdims=_flag(keepdims), **options)
    return call


def _spread(fn):
    def call(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=_NO_VALUE,
             mean=_NO_VALUE, correction=_NO_VALUE):
        if not _unset(out, where, mean) or dtype is not None:
            return _NOT_MINE
        correction = ddof if correction is _NO_VALUE else correction
        return fn(a, axis=axis, correction=correction, keepdims=_flag(keepdims))
    return call


def _mean(a, axis=None, dtype=None, out=None, keepdims=False, where=_NO_VALUE):
    if not _unset(out, where) or dtype is not None:
        return _NOT_MINE
    return _cw.mean(a, axis=axis, keepdims=_flag(keepdims))


def _arg(fn):
    def call(a, axis=None, out=None, *, keepdims=False):
        if out is not None:
            return _NOT_MINE
        return fn(a, axis=axis, keepdims=_flag(keepdims))
    return call


def _transpose(a, axes=None):
    return _cw.permute_dims(a, tuple(range(a.ndim))[::-1] if axes is None else tuple(axes))


def _concatenate(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    if out is not None or dtype is not None:
        return _NOT_MINE
    return _cw.concat(list(arrays), axis=axis)


def _stack(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    if out is not None or dtype is not None:
        return _NOT_MINE
    return _cw.stack(list(arrays), axis=axis)


def _reshape(a, shape=None, order="C", *, newshape=None, copy=None):
    if order != "C":
        return _NOT_MINE
    return _cw.reshape(a, tuple(np.atleast_1d(shape if shape is not None else newshape)), copy=copy)


def _squeeze(a, axis=None):
    if axis is None:
        axis = tuple(i for i, n in enumerate(a.shape) if n == 1)
    return _cw.squeeze(a, axis=axis)


def _where(condition, x=_NO_VALUE, y=_NO_VALUE):
    if x is _NO_VALUE or y is _NO_VALUE:
        return _NOT_MINE
    return _cw.where(condition, x, y)


def _cumulative(fn):
    def call(a, axis=None, dtype=None, out=None):
        if out is not None:
            return _NOT_MINE
        if axis is None:  # NumPy flattens first
            a, axis = _cw.reshape(a, (-1,)), 0
        return fn(a, axis=axis, dtype=dtype)
    return call


def _like(fn, make):
    def call(a, dtype=None, order="K", subok=True, shape=None, *args, device=None, **kwargs):
        fill = args[0] if args else kwargs.get("fill_value")
        if shape is None:
            return fn(a, dtype=dtype, device=device) if fill is None else fn(a, fill, dtype=dtype, device=device)
        dtype = a.dtype if dtype is None else dtype
        device = a.device if device is None else device
        shape = tuple(np.atleast_1d(shape))
        return make(shape, dtype=dtype, device=device) if fill is None else make(shape, fill, dtype=dtype, device=device)
    return call


def _full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None, *, device=None):
    return _like(_cw.full_like, _cw.full)(a, dtype, order, subok, shape, fill_value, device=device)


def _sort(fn):
    def call(a, axis=-1, kind=None, order=None, *, stable=None):
        if order is not None or axis is None:
            return _NOT_MINE
        return fn(a, axis=axis, stable=True if stable is None else bool(stable))
    return call


def _nan_floating(a, *unset):
    # integer and bool arrays hold no NaN: those go to NumPy's own function
    return _unset(*unset) and (a.dtype.is_floating or a.dtype.is_complex)


def _nan_reduction(fn):
    def call(a, axis=None, dtype=None, out=None, keepdims=False, initial=_NO_VALUE, where=_NO_VALUE):
        if not _nan_floating(a, dtype, out, initial, where):
            return _NOT_MINE
        return fn(a, axis=axis, keepdims=_flag(keepdims))
    return call


def _nan_spread(fn):
    def call(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=_NO_VALUE,
             mean=_NO_VALUE, correction=_NO_VALUE):
        if not _nan_floating(a, dtype, out, where, mean):
            return _NOT_MINE
        return fn(a, axis=axis, keepdims=_flag(keepdims), ddof=ddof if correction is _NO_VALUE else correction)
    return call


_NOT_MINE = object()
# questions about memory, not operations on elements: they compute nothing from the
# operands, so a NumPy array beside a candlewick one is no mixed operation (scikit-learn
# asks whether its input and output share memory)
_FUNCTIONS = {
    np.nansum: _nan_reduction(_candlewick("nan_reductions.nansum")), np.nanmean: _nan_reduction(_candlewick("nan_reductions.nanmean")),
    np.nanvar: _nan_spread(_candlewick("nan_reductions.nanvar")), np.nanstd: _nan_spread(_candlewick("nan_reductions.nanstd")),
    np.nanmax: _nan_reduction(_candlewick("nan_reductions.nanmax")), np.nanmin: _nan_reduction(_candlewick("nan_reductions.nanmin")),
    np.sum: _reduction(_cw.sum, True), np.prod: _reduction(_cw.prod, True),
    np.max: _reduction(_cw.max, False), np.min: _reduction(_cw.min, False),
    np.any: _reduction(_cw.any, False), np.all: _reduction(_cw.all, False),
    np.std: _spread(_cw.std), np.var: _spread(_cw.var), np.mean: _mean,
    np.argmax: _arg(_cw.argmax), np.argmin: _arg(_cw.argmin),
    np.transpose: _transpose, np.concatenate: _concatenate, np.stack: _stack,
    np.reshape: _reshape, np.squeeze: _squeeze, np.where: _where,
    np.expand_dims: lambda a, axis: _cw.expand_dims(a, axis=axis),
    np.broadcast_to: lambda array, shape, subok=False: _cw.broadcast_to(array, tuple(np.atleast_1d(shape))),
    np.clip: lambda a, a_min=None, a_max=None, out=None, **kw: (
        _NOT_MINE if out is not None or kw else _cw.clip(a, a_min, a_max)),
    np.cumsum: _cumulative(_cw.cumulative_sum), np.cumprod: _cumulative(_cw.cumulative_prod),
    np.tensordot: lambda a, b, axes=2: _cw.tensordot(a, b, axes=axes),
    np.zeros_like: _like(_cw.zeros_like, _cw.zeros),
    np.ones_like: _like(_cw.ones_like, _cw.ones),
    np.empty_like: _like(_cw.empty_like, _cw.empty),
    np.full_like: _full_like,
    np.astype: lambda x, dtype, /, *, copy=True, device=None: _cw.astype(x, dtype, copy=copy),
    np.sort: _sort(_cw.sort), np.argsort: _sort(_cw.argsort),
    np.shape: lambda a: a.shape, np.ndim: lambda a: a.ndim,
    np.size: lambda a, axis=None: a.size if axis is None else a.shape[axis],
}


def array_function(func, types, args, kwargs):
    if not all(issubclass(t, (ArrayBase, np.ndarray)) for t in types):
        return NotImplemented
    # A NumPy *function* given candlewick and NumPy arrays together (scikit-learn's
    # np.average(x, weights=w)) runs as NumPy on host copies, as NumPy runs it on lists;
    # where the memory is not host-readable (rocm) _to_host refuses it with candlewick's
    # TypeError. Operators and ufuncs keep the strict rule (array_ufunc).
    mixed = _holds_numpy_array(args) or _holds_numpy_array(kwargs.values())
    translate = None if mixed else _FUNCTIONS.get(func)
    if translate is not None:
        result = translate(*args, **kwargs)
        if result is not _NOT_MINE:
            return result
    return func._implementation(*_to_host(args), **_to_host(kwargs))
