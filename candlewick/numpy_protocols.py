"""NumPy's dispatch protocols for candlewick arrays: ``__array_ufunc__`` (NEP 13) and
``__array_function__`` (NEP 18), as CuPy implements them.

Libraries written against NumPy (Dask's chunk functions, xarray's helpers) call NumPy
functions on the arrays they hold. With these protocols a NumPy ufunc or function that
candlewick has an equal of runs candlewick's function, so the result stays a candlewick
array on its device. Everything else runs NumPy on the arrays ``__array__`` gives, which
is what NumPy did before these protocols existed: a call with no candlewick equal, one
with NumPy-only options (``where=``, ``order=``), and one that mixes candlewick arrays
with NumPy arrays (candlewick never moves data between host and device behind the
caller's back). That works where ``__array__`` does (cpu, whose memory it shares) and is
refused on a device whose arrays do not convert implicitly, with candlewick's error
naming the NumPy function. Calls that write into a candlewick array (``out=``,
``ufunc.at``, ``np.copyto``...) are ``numpy_out``'s and ``numpy_writes``'s, which sit
above this module.

The functions' table is ``numpy_functions.FUNCTIONS``; NEP 35's ``like=`` calls of the
creation functions are ``numpy_creation.CREATION``'s.
"""

import functools

import numpy as np

from .arguments import NESTING, leaves
from ._core import ArrayBase, is_scalar
from .errors import ArgumentTypeError
from .namespace_lookup import cw as _cw
from .namespace_lookup import has_function, namespace_function
from .numpy_creation import CREATION
from .numpy_args import NOT_MINE
from .numpy_functions import FUNCTIONS

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
    return namespace_function(name) if has_function(name) else None


# NumPy's loops for bool operands ('??->?'), which the standard's numeric functions lack:
# abs of a bool is the bool, a sum is ``or``, a product ``and``
_BOOL_UFUNCS = {
    "absolute": lambda x: _cw.asarray(x, copy=True), "fabs": None, "add": _cw.logical_or,
    "multiply": _cw.logical_and, "maximum": _cw.logical_or, "minimum": _cw.logical_and,
    "fmax": _cw.logical_or, "fmin": _cw.logical_and,
}


def _bool_ufunc(ufunc, inputs):
    """NumPy's bool loop of ``ufunc`` where every array operand is bool, else None."""
    if ufunc.__name__ not in _BOOL_UFUNCS:
        return None
    arrays = [v for v in inputs if isinstance(v, ArrayBase)]
    scalars_bool = all(isinstance(v, (bool, np.bool_)) for v in inputs if not isinstance(v, ArrayBase))
    if arrays and scalars_bool and all(a.dtype.category == "bool" for a in arrays):
        return _BOOL_UFUNCS[ufunc.__name__]
    return None


def _is_numpy_scalar(value):
    # NumPy hands its scalar to a ufunc as a 0-d ndarray (np.float64(1) == x calls
    # np.equal(array(1.), x)): it is the scalar the user wrote, not an array of theirs
    return isinstance(value, np.generic) or (type(value) is np.ndarray and value.ndim == 0)


def _as_operand(value):
    """NumPy scalars (and the 0-d arrays NumPy makes of them) become Python scalars, so
    they keep the weak-scalar rules."""
    return value.item() if _is_numpy_scalar(value) else value


def _holds_numpy_array(values):
    return any(isinstance(v, np.ndarray) for v in leaves(values))


def _foreign(value):
    """A NumPy array or another library's object: neither a candlewick array nor a scalar."""
    for leaf in leaves(value):
        if not (isinstance(leaf, ArrayBase) or is_scalar(leaf) or _is_numpy_scalar(leaf) or leaf is None):
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
    (to ``NESTING`` levels: deeper, or a list holding itself, is left for NumPy to refuse)."""
    if isinstance(value, ArrayBase):
        return np.asarray(value)  # refused where the device does not convert implicitly
    if depth > NESTING:
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
    if plain and method == "__call__" and set(extra) <= {"dtype"}:
        fn = _bool_ufunc(ufunc, inputs) or _ufunc_function(ufunc)
        if fn is not None:
            if "dtype" in extra:  # NumPy's loop dtype: the array operands cast to it first
                inputs = tuple(_cw.astype(v, extra["dtype"]) if isinstance(v, ArrayBase) else v for v in inputs)
            return fn(*(_as_operand(v) for v in inputs))
    if plain and method == "reduce" and len(inputs) == 1 and isinstance(inputs[0], ArrayBase):
        reduction = _UFUNC_REDUCTIONS.get(ufunc.__name__)
        axis, keepdims = extra.pop("axis", 0), extra.pop("keepdims", False)
        dtype = extra.pop("dtype", None)
        if reduction is not None and not extra and (dtype is None or reduction in ("sum", "prod")):
            options = {"dtype": dtype} if dtype is not None else {}
            return namespace_function(reduction)(inputs[0], axis=axis, keepdims=keepdims, **options)
    return getattr(ufunc, method)(*_to_host(inputs), **_to_host(kwargs))


def _is_default(name, value):
    default = _UFUNC_DEFAULTS.get(name, _NO_VALUE)
    return value is default or (isinstance(value, str) and value == default)


def candlewick_equal(func, args, kwargs):
    """What candlewick's equal of the NumPy function ``func`` returns for these arguments,
    or ``NOT_MINE`` where there is none (no entry, options it does not take, or NumPy
    arrays among the arguments)."""
    # A NumPy *function* given candlewick and NumPy arrays together (scikit-learn's
    # np.average(x, weights=w)) runs as NumPy on host copies, as NumPy runs it on lists;
    # where the memory is not host-readable (rocm) _to_host refuses it with candlewick's
    # TypeError. Operators and ufuncs keep the strict rule (array_ufunc).
    mixed = _holds_numpy_array(args) or _holds_numpy_array(list(kwargs.values()))
    translate = None if mixed else FUNCTIONS.get(func)
    return NOT_MINE if translate is None else translate(*args, **kwargs)


def array_function(like, func, types, args, kwargs):
    """NEP 18 for ``like`` (the array whose ``__array_function__`` NumPy called)."""
    if not all(issubclass(t, (ArrayBase, np.ndarray)) for t in types):
        return NotImplemented
    make = CREATION.get(func)
    if make is not None:  # NEP 35: NumPy hands ``like=`` calls over without the argument
        return make(like, *args, **kwargs)
    result = candlewick_equal(func, args, kwargs)
    if result is not NOT_MINE:
        return result
    try:
        host_args, host_kwargs = _to_host(args), _to_host(kwargs)
    except ArgumentTypeError as error:  # device memory: name what asked for the copy
        raise ArgumentTypeError(f"numpy.{func.__name__}: candlewick has no equal of this call for its "
                                f"arguments; it would run NumPy on a host copy: {error}") from None
    return func._implementation(*host_args, **host_kwargs)
