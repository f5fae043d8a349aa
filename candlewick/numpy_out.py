"""NumPy's ufunc writes into candlewick arrays: ``out=`` (with ``where=`` and ``casting=``),
``ufunc.reduce`` and ``ufunc.accumulate`` with ``out``, and ``ufunc.at``; with ``store``
and ``numpy_on_shared``, the two steps ``numpy_writes`` (NumPy's functions) shares.
``array_ufunc`` is ``Array.__array_ufunc__``; a call that writes nothing goes on to
``numpy_protocols``.

The rule is NumPy's own: the values land in the candlewick array the caller named, on
its device, and the call returns that array. A ufunc that is an ``opdefs`` op writes
through the in-place primitives (``np.add(x, y, out=x)`` makes no temporary); one with
only a namespace equal (``matmul``) computes, then stores. Where candlewick has no equal
(another ufunc, an option such as ``dtype=``), NumPy itself runs on host views that share
the written arrays' memory (``Array.__array__(copy=False)``), which a device with host
memory (cpu) gives; elsewhere the call raises ``UnsupportedOperation`` naming the NumPy
function and what to call instead. Never a NumPy result beside an untouched ``out``.
"""

import functools

import numpy as np

from . import dtypes as _dt
from ._core import RESULT_BY_NAME, ArrayBase, contiguous_layout, new_array, scalar_array, scalar_for, view
from .arguments import CASTINGS, check_cast, one_of
from .basic_indexing import is_basic
from .elementwise_dispatch import binary, compare, unary
from .errors import (ArgumentTypeError, CopyRequiredError, DeviceMismatchError, DTypeError,
                     IndexKeyError, IndexOutOfBoundsError, ShapeError, short_repr,
                     UnsupportedOperation)
from .inplace import DTypeMismatch, updater, write
from .namespace_lookup import namespace_function as _candlewick
from .numpy_args import NOT_MINE
from .numpy_protocols import (
    _UFUNC_REDUCTIONS, _UFUNC_RENAMES, _as_operand, _is_default, _refuse_mixed, _to_host, _ufunc_function,
)
from .numpy_protocols import array_ufunc as _write_nothing
from .opdefs import BinaryOp, CompareOp, UnaryOp
from .shapes import broadcast_shapes
from .writes import check_writable
from .type_promotion import promote_types

_ACCUMULATIONS = {"add": "cumulative_sum", "multiply": "cumulative_prod"}
_DISPATCH = ((UnaryOp, unary), (BinaryOp, binary), (CompareOp, compare))
# ufunc.at that index_add does: the values added (negated first for subtract)
_AT_BY_INDEX_ADD = {"add": False, "subtract": True}
_PLAIN = frozenset({float, int, bool, complex})  # Python scalars: operands as they are


#: {ufunc: its ``inplace.updater``} of the BinaryOp ufuncs met so far (``_element_op``
#: fills it): ``Array.__array_ufunc__`` takes ``np.add(x, y, out=x)`` through it first
UPDATERS: dict = {}


@functools.cache
def _element_op(ufunc):
    """(op, dispatch function, "numpy.<name>", for a BinaryOp its ``inplace.updater`` else
    None) of a ufunc that is an ``opdefs`` op, else None."""
    name = _UFUNC_RENAMES.get(ufunc.__name__, ufunc.__name__)
    for enum, dispatch in _DISPATCH:
        if name in enum._value2member_map_:
            op = enum(name)
            update = None
            if enum is BinaryOp:
                update = UPDATERS[ufunc] = updater(op, RESULT_BY_NAME[op])
            return op, dispatch, f"numpy.{ufunc.__name__}", update
    return None


def _plain_operands(inputs, target):
    """Whether ``inputs`` are arrays of target's class and shape (one at least) or Python
    scalars."""
    cls = type(target)
    if not issubclass(cls, ArrayBase):
        return False
    shape, arrays = target._layout.shape, 0
    for v in inputs:
        if type(v) is cls and v._layout.shape == shape:
            arrays += 1
        elif type(v) not in _PLAIN:
            return False
    return arrays > 0


def array_ufunc(ufunc, method, inputs, kwargs):
    if method == "__call__" and len(kwargs) == 1:
        # the common case inline (np.add(x, y, out=x)): arrays of out's class and shape, or
        # Python scalars, and out alone: nothing foreign to refuse, nothing to broadcast
        out = kwargs.get("out")
        element = _element_op(ufunc)
        if out is not None and len(out) == 1 and element is not None:
            target = out[0]
            if element[3] is not None and len(inputs) == 2 and inputs[0] is target:
                # np.add(x, y, out=x): x op= y, through the operators' short path
                done = element[3](target, inputs[1])
                if done is not None:
                    return done
            if _plain_operands(inputs, target):
                try:
                    return element[1](element[0], *inputs, element[2], out=target)
                except DTypeMismatch:
                    pass  # (a result of another dtype: the general path casts it)
    if method == "at":
        return _at(ufunc, inputs, kwargs)
    out = kwargs.get("out")
    if out is None:
        return _write_nothing(ufunc, method, inputs, kwargs)
    name = f"numpy.{ufunc.__name__}" + ("" if method == "__call__" else f".{method}")
    for target in out:
        if target is not None and not isinstance(target, (ArrayBase, np.ndarray)):
            raise ArgumentTypeError(f"{name}: out must hold arrays (or None), got {type(target).__name__}")
    _refuse_mixed(ufunc.__name__, (*inputs, *out, *([kwargs["where"]] if "where" in kwargs else [])))
    if len(out) == 1 and isinstance(out[0], ArrayBase):
        options = {k: v for k, v in kwargs.items() if k != "out"}
        if method == "__call__":
            done = _call(ufunc, name, inputs, options, out[0])
        elif method in ("reduce", "accumulate"):
            done = _reduce(ufunc, method, name, inputs, options, out[0])
        else:
            done = NOT_MINE
        if done is not NOT_MINE:
            return done
    return numpy_on_shared(name, getattr(ufunc, method), inputs, kwargs, out)


def _call(ufunc, name, inputs, options, target):
    """``ufunc(*inputs, out=target, where=..., casting=...)`` through candlewick."""
    where = _as_operand(options.pop("where", True))
    casting = one_of(options.pop("casting", "same_kind"), CASTINGS, name, "casting")  # (before a write)
    if any(not _is_default(k, v) for k, v in options.items()) or ufunc.nout != 1:
        return NOT_MINE
    element = _element_op(ufunc)
    fn = _ufunc_function(ufunc)
    if element is None and fn is None:
        return NOT_MINE
    operands = [_as_operand(v) for v in inputs]
    if operands and not any(isinstance(v, ArrayBase) for v in operands):  # np.add(1, 2, out=o)
        operands[0] = _candlewick("asarray")(operands[0], device=target._device)
    if ufunc.signature is None:  # element-wise: the operands broadcast to out's shape, as NumPy's
        operands = [spread(v, target._layout.shape, name) for v in operands]
    if where is True and element is not None:
        try:
            return element[1](element[0], *operands, name, out=target)
        except DTypeMismatch:
            pass  # a result of another dtype: computed below, then cast by the casting rule
    result = element[1](element[0], *operands, name) if element is not None else fn(*operands)
    if where is True:
        return store(target, result, casting, name)
    return store_where(target, result, where, casting, name)


def spread(value, shape, name):
    """An array operand as a view of ``shape``."""
    if not isinstance(value, ArrayBase) or value._layout.shape == shape:
        return value
    try:
        fits = broadcast_shapes(value._layout.shape, shape) == shape
    except ShapeError:
        fits = False
    if not fits:
        raise ShapeError(f"{name}: an operand of shape {value._layout.shape} does not broadcast to "
                         f"out's shape {shape}")
    return view(value, value._layout.broadcast_to(shape))


def _reduce(ufunc, method, name, inputs, options, target):
    """``ufunc.reduce`` / ``ufunc.accumulate`` into ``target``; as NumPy's, the result is
    cast to out's dtype whatever it is."""
    fn = (_UFUNC_REDUCTIONS if method == "reduce" else _ACCUMULATIONS).get(ufunc.__name__)
    if fn is None or len(inputs) != 1 or not isinstance(inputs[0], ArrayBase):
        return NOT_MINE
    axis, dtype = options.pop("axis", 0), options.pop("dtype", None)
    keepdims = options.pop("keepdims", False)
    if any(not _is_default(k, v) for k, v in options.items()):
        return NOT_MINE  # initial=, where=: NumPy's
    if method == "reduce" and dtype is not None and fn not in ("sum", "prod"):
        return NOT_MINE
    extra = {} if dtype is None else {"dtype": dtype}
    if method == "reduce":
        result = _candlewick(fn)(inputs[0], axis=axis, keepdims=keepdims, **extra)
    else:
        result = _candlewick(fn)(inputs[0], axis=axis, **extra)
    return store(target, result, "unsafe", name)


def store(target, result, casting, name):
    """Write the candlewick array ``result`` into ``target`` as NumPy writes ``out``: the
    same shape, cast to target's dtype where ``casting`` allows (``np.can_cast``); return
    ``target``."""
    one_of(casting, CASTINGS, name, "casting")
    if not isinstance(result, ArrayBase):
        raise ArgumentTypeError(f"{name}: out= needs an array result, got {type(result).__name__}")
    if result._layout.shape != target._layout.shape:
        raise ShapeError(f"{name}: out has shape {target._layout.shape} but the result has shape "
                         f"{result._layout.shape}")
    if result._device is not target._device:
        raise DeviceMismatchError(f"{name}: the result is on {result._device.name} but out is on "
                                  f"{target._device.name}")
    result = _cast(target, result, casting, name)
    check_writable(target, name)
    target._storage.assign(target._layout, result._storage, result._layout)
    return target


def _cast(target, result, casting, name):
    if result._dtype is target._dtype:
        return result
    check_cast(result._dtype, target._dtype, casting, name, "the result (to out's dtype)")
    return result.astype(target._dtype)


def store_where(target, result, mask, casting, name):
    """``target`` where ``mask`` is True takes ``result`` (``where_into``), elsewhere keeps
    its elements (NumPy's ``where=`` with ``out``)."""
    one_of(casting, CASTINGS, name, "casting")
    if mask is False:
        return target
    if not isinstance(mask, ArrayBase) or mask._dtype is not _dt.bool_:
        raise DTypeError(f"{name}: where= must be a bool candlewick array or a Python bool, "
                         f"got {type(mask).__name__}")
    shape = target._layout.shape
    result, mask = _cast(target, spread(result, shape, name), casting, name), spread(mask, shape, name)
    write(target, target._dtype, shape, mask._device, name, "where", (), mask._storage, mask._layout,
          (result._storage, result._layout, target._storage, target._layout))
    return target


def _at(ufunc, inputs, kwargs):
    """``ufunc.at(a, indices[, b])``: unbuffered, each index applied as often as it comes:
    a basic key (a view: no repeats) as the in-place ufunc on the view, an integer-array key
    of ``add``/``subtract`` through the ``index_add`` primitive, anything else NumPy's."""
    name = f"numpy.{ufunc.__name__}.at"
    a, key, *rest = inputs
    if not isinstance(a, ArrayBase):  # NumPy's array written with candlewick operands: mixed
        _refuse_mixed(f"{ufunc.__name__}.at", inputs)
        raise ArgumentTypeError(f"{name}: the first operand is the array written in place and must be an array, "
                                f"got {short_repr(a)}")
    _refuse_mixed(f"{ufunc.__name__}.at", (a, *rest))
    rest = [_as_operand(v) for v in rest]
    if is_basic(key, type(a)):
        target = a[key]
        if _call(ufunc, name, (target, *rest), {}, target) is NOT_MINE:
            numpy_on_shared(name, ufunc.at, inputs, kwargs, (a,))
        return None
    negate = _AT_BY_INDEX_ADD.get(ufunc.__name__)
    index = None if negate is None or len(rest) != 1 or not a._layout.shape else _flat_index(a, key, name)
    if index is None:
        numpy_on_shared(name, ufunc.at, inputs, kwargs, (a,))
        return None
    k = index._layout.size
    values = rest[0]
    if not isinstance(values, ArrayBase):
        value, dtype = scalar_for(values, a._dtype, name)
        values = scalar_array(a, value, dtype, a._device)
    elif values._dtype is not a._dtype:
        values = values.astype(promote_types(a._dtype, values._dtype))
    if negate:
        values = unary(UnaryOp.NEGATIVE, values, name)
    rows = a._layout.shape[1:]
    values = spread(_cast(a, values, "same_kind", name), index._layout.shape + rows, name)
    layout = values._layout.reshape((k,) + rows)
    storage = values._storage
    if layout is None:  # (a broadcast value that no view reshapes: its k rows copied)
        storage, layout = storage.copy(values._layout), contiguous_layout((k,) + rows)
    check_writable(a, name)
    if a._device is not values._device:
        raise DeviceMismatchError(f"{name}: the values are on {values._device.name}, a on {a._device.name}")
    a._storage.index_add(a._layout, index._storage, index._layout, storage, layout, 0)
    return None


def _flat_index(a, key, name):
    """An integer key of ``ufunc.at`` on a's first axis as a contiguous 1-D int64 array on
    a's device (a list or NumPy array is copied there), or None for any other key."""
    if isinstance(key, tuple) and len(key) == 1:
        key = key[0]
    if isinstance(key, (list, np.ndarray)):
        try:
            host = np.asarray(key)
        except (ValueError, TypeError):  # ragged, or deeper than NumPy's dimension limit
            raise IndexKeyError(f"{name}: an index list must be rectangular (like an array), "
                                f"got {short_repr(key)}") from None
        if host.dtype.kind not in "iu" and host.size:
            return None
        n = a._layout.shape[0]
        if host.size and (host.min() < -n or host.max() >= n):
            # known here: raised at the call, as NumPy does, not at the next synchronization
            # (a deferred-check backend such as rocm would only report it there)
            raise IndexOutOfBoundsError(f"{name}: an index is outside the first axis of length {n} "
                                        f"(valid indices are {-n}..{n - 1})")
        key = _candlewick("asarray")(host.astype(np.int64).reshape(-1), device=a._device)
    if not isinstance(key, ArrayBase) or not key._dtype.is_integer:
        return None
    if key._device is not a._device:
        raise DeviceMismatchError(f"{name}: the indices are on {key._device.name}, a on {a._device.name}")
    if key._dtype is not _dt.int64:
        key = key.astype(_dt.int64)
    k = key._layout.size
    layout = key._layout.reshape((k,))
    if layout is None or not layout.is_contiguous:
        return new_array(type(key), key._storage.copy(key._layout), (k,), key._dtype, key._device)
    return view(key, layout)


def numpy_on_shared(name, fn, args, kwargs, written):
    """NumPy's ``fn`` run on host arrays: each candlewick array of ``written`` (the arrays
    the call writes) as a view sharing its memory, every other one as
    ``numpy_protocols._to_host`` gives it; the result with each shared view given back as
    its candlewick array. ``UnsupportedOperation`` naming ``name`` where a written array
    has no host view (device memory the host cannot read)."""
    shared = {id(w): (w, _shared(w, name)) for w in written if isinstance(w, ArrayBase)}

    def on_host(value):
        if isinstance(value, ArrayBase):
            hit = shared.get(id(value))
            return hit[1] if hit is not None else _to_host(value)
        if isinstance(value, (list, tuple)):
            return type(value)(on_host(v) for v in value)
        if isinstance(value, dict):
            return {k: on_host(v) for k, v in value.items()}
        return value

    result = fn(*on_host(tuple(args)), **on_host(dict(kwargs)))  # NumPy answers the call
    back = {id(v): w for w, v in shared.values()}
    if isinstance(result, tuple):
        return tuple(back.get(id(r), r) for r in result)
    return back.get(id(result), result)


def _shared(x, name):
    check_writable(x, name)
    try:
        return x.__array__(copy=False)
    except (CopyRequiredError, ArgumentTypeError):
        raise UnsupportedOperation(
            name, x._dtype.name, x._device.backend,
            f"NumPy writes only host memory and a {x._device.name} array's is not, and candlewick "
            f"has no equal of this call; compute it with candlewick's functions, or with NumPy on "
            f"candlewick.to_numpy copies and write the result back: "
            f"x[...] = candlewick.asarray(result, device=x.device)"
        ) from None
