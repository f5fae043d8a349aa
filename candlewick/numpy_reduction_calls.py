"""NumPy's reductions translated onto candlewick's (``numpy_functions``' table): sum,
prod, max, min, any and all with ``initial=`` and ``where=``, std and var with ``ddof``,
mean, argmax and argmin, cumsum and cumprod; a call with an option candlewick's do not
take (``out=``, a ``where=`` without the identity NumPy asks for) is ``NOT_MINE``."""

from .namespace_lookup import cw, namespace_function
from .numpy_args import NO_VALUE, NOT_MINE, flag, unset


def _masked(a, where, fill):
    return a if where is NO_VALUE or where is True else cw.where(where, a, fill)


def reduction(name, identity, combine):
    """sum, prod, max, min, any, all with NumPy's signatures, ``initial`` and ``where``;
    ``identity`` fills the masked-out elements (max and min take ``initial`` for it, as
    NumPy asks)."""
    fn = namespace_function(name)

    def reduce(a, axis, dtype, out, keepdims, initial, where):
        if out is not None:
            return NOT_MINE
        fill = identity if identity is not None else initial
        if fill is NO_VALUE and where is not NO_VALUE and where is not True:
            return NOT_MINE  # NumPy's own error: max/min with where= need initial=
        options = {"dtype": dtype} if dtype is not None else {}
        result = fn(_masked(a, where, fill), axis=axis, keepdims=flag(keepdims, f"numpy.{name}"), **options)
        if initial is not NO_VALUE and combine is not None:
            result = combine(result, initial)
        return result

    def sum_like(a, axis=None, dtype=None, out=None, keepdims=False, initial=NO_VALUE, where=NO_VALUE):
        return reduce(a, axis, dtype, out, keepdims, initial, where)

    def max_like(a, axis=None, out=None, keepdims=False, initial=NO_VALUE, where=NO_VALUE):
        return reduce(a, axis, None, out, keepdims, initial, where)

    def any_like(a, axis=None, out=None, keepdims=False, *, where=NO_VALUE):
        return reduce(a, axis, None, out, keepdims, NO_VALUE, where)

    # NumPy's three signatures of these reductions
    return sum_like if name in ("sum", "prod") else max_like if name in ("max", "min") else any_like


def spread(name):
    fn = namespace_function(name)

    def call(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=NO_VALUE,
             mean=NO_VALUE, correction=NO_VALUE):
        if not unset(out, where, mean):
            return NOT_MINE
        correction = ddof if correction is NO_VALUE else correction
        return fn(a, axis=axis, correction=correction, keepdims=flag(keepdims, f"numpy.{name}"), dtype=dtype)
    return call


def mean(a, axis=None, dtype=None, out=None, keepdims=False, where=NO_VALUE):
    if not unset(out, where):
        return NOT_MINE
    return cw.mean(a, axis=axis, keepdims=flag(keepdims, "numpy.mean"), dtype=dtype)


def arg_reduction(fn):
    def call(a, axis=None, out=None, *, keepdims=False):
        if out is not None:
            return NOT_MINE
        return fn(a, axis=axis, keepdims=flag(keepdims, f"numpy.{fn.__name__}"))
    return call


def cumulative(name):
    fn = namespace_function(name)

    def call(a, axis=None, dtype=None, out=None):
        if out is not None:
            return NOT_MINE
        return fn(a, axis, dtype)
    return call
