"""The one step every element-wise write into an existing array ends in: ``write``.

The in-place operators (``x += y``), ``x[mask] = v`` and NumPy's ``out=`` compute an
element-wise result straight into the destination through the optional primitive group
"inplace" (``unary_into``, ``binary_into``, ..., ``where_into``; candlewick/backend.py),
so no temporary the size of the destination is made. A device that does not declare
the group (``"inplace"`` absent from ``device.capabilities``: the protocol says so, the
conformance report shows it) gets the documented fallback, the path every backend had
before the group existed: the out-of-place primitive of the same name, then ``assign``
(one temporary the size of the result), the two calls made under one lock so that
concurrent updates are not lost there either. The results are the same either way.

The mismatches raise ``DTypeMismatch`` / ``ShapeMismatch`` (``DTypeError`` /
``ShapeError``), which carry the result's dtype and shape: the callers turn them into
their own messages (the operators keep the left operand's dtype; NumPy's ``out=`` may
cast by its ``casting`` rule).
"""

from __future__ import annotations

import functools
import threading

from ._core import _native, contiguous_layout
from .errors import DeviceMismatchError, DTypeError, ShapeError, name_code
from .lazy_gate import GATE
from .writes import check_writable

#: the optional group's name in ``device.capabilities``
GROUP = "inplace"
# the fallback's compute and assign are two primitive calls: another thread's update of the
# destination between them would be lost, so fallback writes take turns (the group's
# primitives are one update each: the backend keeps them whole)
_FALLBACK_LOCK = threading.Lock()
_INTO = {"unary": "unary_into", "binary": "binary_into", "binary_scalar": "binary_scalar_into",
         "compare": "compare_into", "compare_scalar": "compare_scalar_into", "where": "where_into"}


class DTypeMismatch(DTypeError):
    """The result's dtype is not the destination's (``result_dtype``)."""

    def __init__(self, message, result_dtype):
        super().__init__(message)
        self.result_dtype = result_dtype


class ShapeMismatch(ShapeError):
    """The result's shape is not the destination's (``result_shape``)."""

    def __init__(self, message, result_shape):
        super().__init__(message)
        self.result_shape = result_shape


def declares_inplace(device):
    """Whether ``device`` declares the optional group "inplace"."""
    return GROUP in device.capabilities


def updater(op, results):
    """``update`` bound to ``op`` and its ``results`` (``RESULT_BY_NAME[op]``): a callable
    ``(x, other)``, in C where candlewick._native was built (``_native.Update``: the same
    case and primitive call without the interpreter's steps, each of which misses the
    caches after an update of 2^20 elements)."""
    if _native is not None:
        return _native.Update(op, _kept(results))
    return functools.partial(update, op, results)


def inplace_method(op, results, general, rebind=None):
    """The in-place operator's method: ``update``'s case, ``general(x, other)`` for every
    other. Where candlewick._native was built, ``_native.Update`` with ``general`` (a
    method descriptor: no Python frame before the C case; its name and docstring are
    general's), else a Python function named as ``general``. ``rebind``: lazy mode's
    ``x <op> y`` as general records it where ``x`` alone holds a pending result
    (``lazy_write.rebinds``), a C callable the Update calls for that case itself."""
    if _native is not None:
        return _native.Update(op, _kept(results), general, rebind)

    def method(self, other, /):
        done = update(op, results, self, other)
        return general(self, other) if done is None else done

    functools.update_wrapper(method, general)
    del method.__wrapped__  # (what runs is this function: no C form to point to)
    return name_code(method, getattr(general.__code__, "co_qualname", general.__qualname__))


def _kept(results):
    """{dtype: whether it is real floating} of the dtypes the op keeps (compared by
    identity in C)."""
    return {r: r.level == 2 for name, r in results.items() if r.name == name}


def update(op, results, x, other):
    """``x <op>= other`` for the common case, written into x and x returned: ``other`` an
    array of x's class, dtype and device whose shape broadcasts onto x's (x's own, or
    x -= x.mean(axis=0)'s), or a Python float or int with a real
    floating x, the op keeping x's dtype (``results``: ``RESULT_BY_NAME[op]``), x
    writable in the plain way (no stride 0, memory not read-only), the group declared,
    lazy mode off. Anything else returns None, for the general path (``write``), which
    gives this case the same result. Why a short path: after an update of 2^20 elements
    the caches hold the data, not the interpreter's objects, so each step of the general
    path's ~10 calls misses (bench/inplace.py, cpu: ~3.5 us of Python cost ~35 us there,
    11 % of NumPy's whole update; NumPy's own call touches a handful of objects)."""
    if GATE.on:
        return None
    dtype = x._dtype
    if results.get(dtype.name) is not dtype:
        return None
    layout = x._layout
    device = x._device
    storage = x._storage
    t = type(other)
    if t is type(x):
        if other._dtype is not dtype or other._device is not device:
            return None
        spread = other._layout
        if spread.shape != layout.shape:
            try:  # other broadcast onto x's shape (x -= x.mean(axis=0)), as broadcast_layouts does
                spread = spread.broadcast_to(layout.shape)
            except ShapeError:
                return None
        method, operands = "binary_into", (other._storage, spread)
    elif (t is float or t is int) and dtype.level == 2:
        method, operands = "binary_scalar_into", (float(other), False)
    else:
        return None
    if 0 in layout.strides or GROUP not in device.capabilities or getattr(storage, "read_only", False):
        return None
    getattr(storage, method)(op, layout, storage, layout, *operands)
    return x


def write(out, dtype, shape, device, fname, method, head, first, first_layout, rest):
    """Write the element-wise result that ``first.<method>(*head, first_layout, *rest)``
    computes (of ``dtype`` and ``shape``, its operands on ``device``) into the array
    ``out``, and return ``out``: ``out``'s storage's ``<method>_into(*head, out's layout,
    first, first_layout, *rest)`` where the device declares the group, else the
    out-of-place primitive and ``assign``."""
    if dtype is not out._dtype:
        raise DTypeMismatch(f"{fname}: the result has dtype {dtype.name}, the destination {out._dtype.name}", dtype)
    layout = out._layout
    if shape != layout.shape:
        raise ShapeMismatch(f"{fname}: the result has shape {shape}, the destination {layout.shape}", shape)
    target = out._device
    if device is not target:
        raise DeviceMismatchError(
            f"{fname}: the operands are on {device.name} but the destination is on {target.name}"
        )
    check_writable(out, fname)
    storage = out._storage
    if GROUP in target.capabilities:
        getattr(storage, _INTO[method])(*head, layout, first, first_layout, *rest)
    else:
        with _FALLBACK_LOCK:  # the read and the write as one update (docs/threads.md)
            result = getattr(first, method)(*head, first_layout, *rest)
            storage.assign(layout, result, contiguous_layout(shape))
    return out
