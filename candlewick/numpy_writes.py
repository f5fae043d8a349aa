"""NumPy functions that write into candlewick arrays: ``out=`` of any function, and the
functions that change an argument (``copyto``, ``put``, ``putmask``, ``fill_diagonal``),
for ``Array.__array_function__``; a call that writes nothing goes on to
``numpy_protocols``.

``out=``: the function's candlewick equal (``numpy_protocols``' table) runs without it and
its result is stored into ``out`` (``numpy_out.store``: NumPy's shape rule, cast "if
necessary" as NumPy's reductions and ``cumsum`` do, by ``casting`` where the function
takes one). The functions that change an argument write it on its device. Anything else
runs NumPy on views sharing the written arrays' memory where the device has host memory,
else raises ``UnsupportedOperation`` naming the function (``numpy_out.numpy_on_shared``).
"""

import functools
import inspect
import math

import numpy as np

from . import dtypes as _dt
from ._core import ArrayBase, scalar_array, scalar_for, view
from .errors import ArgumentValueError, ShapeError
from .layout import Layout
from .numpy_out import numpy_on_shared, spread, store, store_where
from .namespace_lookup import namespace_function as _candlewick
from .numpy_args import NOT_MINE
from .numpy_protocols import _as_operand, candlewick_equal
from .numpy_protocols import array_function as _write_nothing
from .writes import check_writable

# the casting rule of out= for functions taking no ``casting``: NumPy's reductions,
# cumsum and mean cast their result "if necessary"; clip is a ufunc (same_kind)
_OUT_CASTING = {np.clip: "same_kind"}


@functools.cache
def _out_parameter(func):
    """The signature of a NumPy function with an ``out`` parameter, else None."""
    try:
        signature = inspect.signature(func)
    except (TypeError, ValueError):
        return None
    return signature if "out" in signature.parameters else None


def array_function(like, func, types, args, kwargs):
    if not all(issubclass(t, (ArrayBase, np.ndarray)) for t in types):
        return NotImplemented
    writer = _WRITERS.get(func)
    if writer is not None:
        name = f"numpy.{func.__name__}"
        target = args[0] if args else next(iter(kwargs.values()), None)
        done = writer(name, *args, **kwargs) if isinstance(target, ArrayBase) else NOT_MINE
        if done is not NOT_MINE:
            return None
        return numpy_on_shared(name, func._implementation, args, kwargs, (target,))
    signature = _out_parameter(func)
    if signature is None:
        return _write_nothing(like, func, types, args, kwargs)
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError:
        return _write_nothing(like, func, types, args, kwargs)  # NumPy's own error for its own call
    out = bound.arguments.get("out")
    if not isinstance(out, ArrayBase):
        return _write_nothing(like, func, types, args, kwargs)
    name = f"numpy.{func.__name__}"
    del bound.arguments["out"]
    result = candlewick_equal(func, bound.args, bound.kwargs)
    if result is NOT_MINE:
        return numpy_on_shared(name, func._implementation, args, kwargs, (out,))
    casting = bound.arguments.get("casting", _OUT_CASTING.get(func, "unsafe"))
    return store(out, result, casting, name)


def _copyto(name, dst, src, casting="same_kind", where=True):
    src = _on_device(_as_operand(src), dst)
    if not isinstance(src, ArrayBase):
        value, dtype = scalar_for(src, dst._dtype, name)
        src = scalar_array(dst, value, dtype, dst._device)
    src = spread(src, dst._layout.shape, name)
    where = _as_operand(where)
    if where is True:
        store(dst, src, casting, name)
    else:
        store_where(dst, src, _on_device(where, dst), casting, name)


def _put(name, a, ind, v, mode="raise"):
    n = a._layout.size
    flat = a._layout.reshape((n,))  # a.flat: C order
    if flat is None or mode not in ("raise", "wrap", "clip"):
        return NOT_MINE
    index = _on_device(_as_operand(ind), a)
    index = _candlewick("reshape")(_candlewick("asarray")(index, dtype=_dt.int64, device=a._device), (-1,))
    if mode != "raise" and index._layout.size:
        if not n:
            raise IndexError(f"{name}: cannot put into an empty array with mode={mode!r}")
        index = (_candlewick("remainder")(index, n) if mode == "wrap"
                 else _candlewick("clip")(index, 0, n - 1))
    values = _cycled(name, a, v, index._layout.size)
    if values is not None:
        check_writable(a, name)
        view(a, flat)[index] = values


def _putmask(name, a, mask, values):
    mask = _on_device(_as_operand(mask), a)
    if not isinstance(mask, ArrayBase) or mask._layout.shape != a._layout.shape:
        raise ShapeError(f"{name}: mask must be a candlewick bool array of a's shape {a._layout.shape}")
    values = _cycled(name, a, values, a._layout.size)
    if values is not None:
        store_where(a, _candlewick("reshape")(values, a._layout.shape), mask, "unsafe", name)


def _fill_diagonal(name, a, val, wrap=False):
    layout = a._layout
    shape, strides = layout.shape, layout.strides
    if len(shape) < 2:
        raise ArgumentValueError(f"{name}: the array must be at least 2-d, got {len(shape)}-d")
    if len(shape) > 2 and len(set(shape)) != 1:
        raise ArgumentValueError(f"{name}: all dimensions of the input must be of equal length, got {shape}")
    count = min(shape)
    if wrap and len(shape) == 2 and shape[0] > shape[1] + 1:
        if not layout.is_contiguous:
            return NOT_MINE  # NumPy's wrap walks a's C-order memory
        count = len(range(0, shape[0] * shape[1], shape[1] + 1))
    values = _cycled(name, a, val, count)
    if values is not None:
        check_writable(a, name)
        view(a, Layout((count,), (sum(strides),), layout.offset))[...] = values


def _cycled(name, a, values, count):
    """``values`` flattened and repeated to ``count`` elements of a's dtype (NumPy's
    ``put``/``putmask``/``fill_diagonal`` take values cyclically, cast as assignment does),
    or None when there is nothing to write."""
    values = _on_device(_as_operand(values), a)
    cw = _candlewick
    values = cw("reshape")(cw("asarray")(values, device=a._device), (-1,))
    if not count or not values._layout.size:
        return None
    size = values._layout.size
    if size != count:
        values = cw("tile")(values, (math.ceil(count / size),))[:count]
    return values if values._dtype is a._dtype else values.astype(a._dtype)


def _on_device(value, like):
    """A list or NumPy array that the call writes from: copied to the destination's device
    (the call asks for that copy: it writes the values there)."""
    if isinstance(value, (list, tuple, np.ndarray)):
        return _candlewick("asarray")(value, device=like._device)
    if isinstance(value, np.generic):
        return value.item()
    return value


# the NumPy functions that write into their first argument, and candlewick's way to
# (NOT_MINE: the shared-memory NumPy path, or its error)
_WRITERS = {np.copyto: _copyto, np.put: _put, np.putmask: _putmask, np.fill_diagonal: _fill_diagonal,
            np.place: lambda name, *args, **kwargs: NOT_MINE,
            np.put_along_axis: lambda name, *args, **kwargs: NOT_MINE}
