"""Dispatch helpers shared by the namespace: wrapping storages, scalars, promotion.

``ArrayBase`` is the data of an array (storage, layout, dtype, device);
``candlewick.array.Array`` subclasses it with the public API. Modules below
``candlewick.array`` (the ones its methods call: element-wise, indexing, matmul) never
import it: they check operands against ``ArrayBase`` and build results of their
operand's class (``new_array(type(x), ...)``), so the layers import one way only.

Hot paths (binary ops on arrays of one dtype and shape) are written to do as little
Python work as possible: the per-op dtype tables below are built once at import.
"""

from __future__ import annotations

import builtins
import math
import operator
from typing import TYPE_CHECKING

from . import dtypes as _dt
from .allocation import check_allocation
from .backend import holds_host_memory
from .errors import ArgumentTypeError, ArgumentValueError, BackendError, DeviceMismatchError, DTypeError, short_repr, UnsupportedOperation
from .layout import Layout
from .lazy_gate import GATE
from .shapes import MAX_NDIM, broadcast_shapes, check_ndim, contiguous_strides
from .opdefs import ALL_OP_ENUMS
from .scalars import scalar_for, scalar_into  # noqa: F401  (re-exported for the namespace)
from .type_promotion import promote_types

if TYPE_CHECKING:
    from .backend import BackendDevice, BackendStorage

# op -> {accepted dtype: result dtype}
RESULT = {op: {d: op.result_dtype(d) for d in op.dtypes()} for enum in ALL_OP_ENUMS for op in enum}
# op -> {accepted dtype's name: result dtype}: the hot paths' form (a str hashes in C, a
# DType through its Python __hash__)
RESULT_BY_NAME = {op: {d.name: r for d, r in table.items()} for op, table in RESULT.items()}

_CONTIG_CACHE: dict[tuple[int, ...], Layout] = {}
_ALL_DTYPES = _dt.ALL_DTYPES


def contiguous_layout(shape):
    """The offset-0 C-contiguous layout of ``shape`` (shared: layouts are immutable)."""
    lay = _CONTIG_CACHE.get(shape)
    if lay is None:
        # the last net of the dimension limit (the calls that could pass it check first):
        # on a cache miss only, so the hot path pays nothing
        check_ndim(len(shape))
        if len(_CONTIG_CACHE) > 4096:
            _CONTIG_CACHE.clear()
        lay = _CONTIG_CACHE[shape] = Layout(shape, contiguous_strides(shape), 0, True)
    return lay


#: ``cached_layout(shape)``: the cached contiguous layout of ``shape`` or None (the dict's
#: own ``get``, for hot paths that read the cache without a Python call)
cached_layout = _CONTIG_CACHE.get


class ArrayBase:
    """The data of a candlewick array; the public class is ``candlewick.array.Array``."""

    __slots__ = ("_storage", "_layout", "_dtype", "_device", "__weakref__")
    _storage: BackendStorage
    _layout: Layout
    _dtype: _dt.DType
    _device: BackendDevice


def check_accepts(op, dtype, fname):
    table = RESULT[op]
    if dtype not in table:
        kinds = {"B": "bool", "I": "integer", "F": "real floating", "C": "complex floating"}
        allowed = ", ".join(kinds[c] for c in op.domain)
        raise DTypeError(f"{fname} does not accept dtype {dtype.name}; expected {allowed}")
    return table[dtype]


_DECLARED: dict[int, tuple] = {}


def _declared_set(declared):
    """A device's declared dtypes as a set: a DType hashes in C-speed lookups, where a
    tuple's ``in`` calls DType.__eq__ on every element before the match."""
    hit = _DECLARED.get(id(declared))
    if hit is None or hit[0] is not declared:  # (the tuple is kept, so its id stays its own)
        if len(_DECLARED) > 64:
            _DECLARED.clear()
        hit = _DECLARED[id(declared)] = (declared, frozenset(declared))
    return hit[1]


def check_dtype_on(device, dtype, fname="create"):
    """A device may declare a subset of the dtypes (``BackendDevice.dtypes``: many GPUs
    lack float64); asking it for another is an error naming the backend and the dtype."""
    declared = device.dtypes
    # a device declaring the tuple of every dtype (cpu, rocm) holds any: no set lookup
    # on the creation path (a DType hashes through Python code)
    if declared is not _ALL_DTYPES and dtype not in _declared_set(declared):
        declared = ", ".join(d.name for d in device.dtypes)
        raise UnsupportedOperation(
            fname, dtype.name, device.backend,
            f"device {device.name} does not support dtype {dtype.name} (it declares {declared})",
        )
    return dtype


def same_device(a, b, fname):
    if a._device is not b._device:
        raise DeviceMismatchError(
            f"{fname}: operands are on different devices ({a._device.name} and {b._device.name}); "
            f"move one with .to_device(...) first"
        )


def _host_scalar(x):
    return not x._layout.shape and holds_host_memory(x._device)


def on_one_device(a, b, fname, keep_first=False):
    """(a, b) on one device for an element-wise operation. A 0-d array in host memory
    beside an array on another device acts as a Python scalar would there: it is copied
    to that device (as PyTorch takes 0-d CPU tensors with CUDA tensors; a fill value made
    on the cpu meets rocm arrays). Its dtype still counts as an array's. Any other mix
    of devices raises DeviceMismatchError. ``keep_first``: only b may move (clip's bounds
    follow x)."""
    if a._device is b._device:
        return a, b
    if _host_scalar(a) and not _host_scalar(b) and not keep_first:
        return a.to_device(b._device), b
    if _host_scalar(b) and not _host_scalar(a):
        return a, b.to_device(a._device)
    same_device(a, b, fname)
    return a, b


# --- Python scalars: the rules live in scalars.py ---------------------------------------

def is_scalar(value):
    return isinstance(value, (bool, int, float, complex))


# --- promotion and broadcasting --------------------------------------------------------

def promote_pair(x1, x2, fname):
    """Return (a, b) Arrays of one dtype and device (not yet broadcast)."""
    x1, x2 = on_one_device(x1, x2, fname)
    if x1._dtype is x2._dtype:
        return x1, x2
    dtype = promote_types(x1._dtype, x2._dtype)
    return x1.astype(dtype) if x1._dtype is not dtype else x1, x2.astype(dtype) if x2._dtype is not dtype else x2


def check_result(fname, shape, dtype, device):
    """``check_allocation`` of a result made now: a call lazy mode records allocates nothing
    now (a fused graph may never hold this intermediate): its device is not asked, the
    allocator refuses what the run cannot hold."""
    if not (GATE.on and GATE.records(device)):
        check_allocation(fname, shape, dtype, device)


def broadcast_layouts(*arrays, fname="broadcast"):
    layouts = [a._layout for a in arrays]
    shape = broadcast_shapes(*[lay.shape for lay in layouts])
    first = arrays[0]
    # the operands' sizes were checked when they were made; broadcasting can outgrow them
    check_result(fname, shape, first._dtype, first._device)
    return shape, [lay.broadcast_to(shape) for lay in layouts]


def scalar_array(like, value, dtype, device):
    """A 0-d array of ``like``'s class holding a Python scalar (where a primitive wants a
    storage)."""
    return new_array(type(like), device.full((), dtype, value), (), dtype, device)


def new_array(cls, storage, shape, dtype, device):
    """A new array of class ``cls`` over a contiguous ``storage`` (modules below
    ``candlewick.array`` pass their operand's class; ``candlewick.array.wrap`` passes Array).
    (sorting.sort makes its descending result with these steps inline, with the view's own
    layout: a new field here goes there too.)"""
    a = cls.__new__(cls)
    a._storage = storage
    a._layout = _CONTIG_CACHE.get(shape) or contiguous_layout(shape)  # (the cache read inline)
    a._dtype = dtype
    a._device = device
    return a


def permuted_array(cls, storage, layout, shape, dtype, device, fname):
    """A new array of class ``cls`` over a primitive's result that came with its own
    ``layout`` (``rfftn``; ``qr``'s Q): a dense permutation of ``shape`` over exactly the
    storage's elements, checked, since a wrong one would read memory the result does not own."""
    shape = tuple(shape)
    if tuple(layout.shape) != shape or not layout.is_dense_permutation() or storage.size != math.prod(shape):
        raise BackendError(f"{fname}: the backend returned a layout {layout} over {storage.size} elements, "
                           f"not a dense permutation of shape {shape}")
    a = cls.__new__(cls)
    a._storage, a._layout, a._dtype, a._device = storage, layout, dtype, device
    return a


def result_array(cls, result, shape, dtype, device, fname):
    """An array of class ``cls`` over a primitive's result that may come with its layout
    (qr's Q, svd's U and Vh: a ``(storage, layout)`` pair) or be a C-contiguous storage."""
    if isinstance(result, tuple):
        return permuted_array(cls, *result, shape, dtype, device, fname)
    return new_array(cls, result, tuple(shape), dtype, device)


def view(x, layout):
    """An Array sharing ``x``'s storage with a new layout."""
    Array = type(x)
    a = Array.__new__(Array)
    a._storage = x._storage
    a._layout = layout
    a._dtype = x._dtype
    a._device = x._device
    return a


def views(x, layouts):
    """``view(x, layout)`` for each of ``layouts``, as a tuple (one loop, no call per view)."""
    cls = type(x)
    new = cls.__new__
    storage, dtype, device = x._storage, x._dtype, x._device
    out = []
    for layout in layouts:
        a = new(cls)
        a._storage = storage
        a._layout = layout
        a._dtype = dtype
        a._device = device
        out.append(a)
    return tuple(out)


try:  # the optional C module (candlewick/_native*.c), where setup.py found a C compiler
    from . import _native
except ImportError:
    _native = None  # type: ignore[assignment]


def bind_native(cls):
    """Bind candlewick._native to the array class ``cls`` (``candlewick.array`` calls it
    once the class exists): its fast paths then take arrays of exactly ``cls``. Where the
    module is absent or cannot bind, those paths run in Python."""
    if _native is not None:
        try:
            _native.bind(Layout, cls, _CONTIG_CACHE, contiguous_layout)
        except TypeError:  # slots it cannot fill: the Python paths, from now on
            _native.unbind()


def native_lazy_blocks(var, gate, flush, live, lazy_type, process_on):
    """Lazy mode's blocks in C where candlewick._native is built: the class
    ``_native.LazyBlock`` (its ``__enter__`` and ``__exit__`` one call of C each: a loop
    may enter a ``lazy()`` block per call), its shared state given (see
    _native_lazy_block.c): the context variable that says lazy mode is on here, the gate
    (``lazy_gate.GATE``: ``on`` and, turned on, the C fast paths' switch with its hooks
    ``write_into`` and ``operand``: the in-place paths decline unless the set ``live`` is
    empty and neither storage is of ``lazy_type``, the element-wise functions' common case
    calls its primitive on ``operand(x)``, the C stores call ``write_into(x)`` first while
    ``live`` is non-empty or x's storage is of ``lazy_type``), ``flush`` (run at an exit
    while ``live`` is non-empty) and whether the environment turned lazy mode on. None
    where the module is not built: no C path to switch, the blocks in Python."""
    if _native is None:
        return None
    _native.lazy_blocks(var, gate, flush, live, lazy_type, process_on)
    return _native.LazyBlock


def native_lazy_call(general, block_type):
    """``candlewick.lazy`` in C where candlewick._native is built: a
    ``_native.LazyCall`` standing for ``general`` (lazy_mode's Python ``lazy``: its docs,
    signature and errors), ``lazy()`` and ``lazy(b)`` for a bool ``b`` one call of C
    (``block_type.take(b)``: a block per call pays no Python frame for it), any other call
    ``general``'s. ``general`` itself where the module is not built."""
    if _native is None:
        return general
    return _native.LazyCall(general, block_type)


def native_start_methods(start_type, policy):
    """Lazy mode's ``Start`` methods in C where candlewick._native is built: the class
    ``_native.StartMethod`` (``StartMethod(name, positions, pair, only, probe)``: the decision to run
    a call on a computed array at once or record it, one call of C, which the C
    element-wise path calls without a bound method), given what they share (see
    _native_lazy_start.c): ``start_type`` (``lazy_policy.Start``, its slots ``pending``
    and ``real``) and ``policy`` (lazy_policy's globals, read at each call). None where
    the module is not built: lazy_policy's methods in Python."""
    if _native is None:
        return None
    _native.lazy_starts(start_type, policy)
    return _native.StartMethod


def native_lazy_operand(mode, traced_type, lazy_type):
    """Lazy mode's ``_operand`` in C where candlewick._native is built: the function
    ``_native.lazy_operand`` (the storage an element-wise primitive is called on for an
    array in lazy mode, one call of C), given what it reads (see _native_lazy_mode.c):
    ``mode`` (lazy_mode's globals, read at each call) and the storage types of a trace and
    of a recorded result. None where the module is not built: lazy_mode's in Python."""
    if _native is None:
        return None
    _native.lazy_operands(mode, traced_type, lazy_type)
    return _native.lazy_operand


def native_lazy_hook(name):
    """One more of lazy mode's functions in C, reading what ``native_lazy_operand`` gave:
    ``lazy_copy_operand`` (lazy_mode's ``_copy_operand``: ``lazy_operand``'s answer, but
    a copy this thread deferred is itself; _native_lazy_operand.c) or ``lazy_recording``
    (its ``_recording``; _native_lazy_mode.c); None where the module is not built."""
    return None if _native is None else getattr(_native, name)


def row_views(x, axis):
    """``x``'s sub-arrays along ``axis`` (``unstack``), as a tuple of views: made in C
    by candlewick._native where it is bound to x's class, else by ``views``."""
    if _native is not None and _native.bound_class() is type(x):
        return _native.rows(x, *x._layout.selection_parts(axis))
    return views(x, x._layout.selections(axis))


def require_array(x, fname, argname="x"):
    if not isinstance(x, ArrayBase):
        raise ArgumentTypeError(f"{fname}: {argname} must be a candlewick array, got {type(x).__name__}")
    return x


def as_shape(shape, fname, argname="shape"):
    # the common spellings first: a tuple of non-negative ints (a plain loop: the
    # interpreter's specialized int tests beat set/min passes for a few sizes) or an int
    if type(shape) is tuple:
        for n in shape:
            if type(n) is not int or n < 0:
                break
        else:
            if len(shape) <= MAX_NDIM:
                return shape
    elif type(shape) is int and shape >= 0:
        return (shape,)
    if isinstance(shape, int) and not isinstance(shape, bool):
        shape = (shape,)
    try:
        shape = tuple(operator_index(n, fname, argname) for n in shape)
    except TypeError:
        raise ArgumentTypeError(f"{fname}: {argname} must be an int or a tuple of ints, got {short_repr(shape)}") from None
    for n in shape:
        if n < 0:
            raise ArgumentValueError(f"{fname}: {argname} must have non-negative sizes, got {short_repr(shape)}")
    check_ndim(len(shape))
    return shape


def operator_index(value, fname, argname):
    if isinstance(value, bool):
        raise ArgumentTypeError(f"{fname}: {argname} must be an integer, got bool")
    try:
        return operator.index(value)  # the type's __index__ (a class such as ``int`` has none)
    except TypeError:
        raise ArgumentTypeError(f"{fname}: {argname} must be an integer, got {type(value).__name__}") from None


builtins_sum = builtins.sum
