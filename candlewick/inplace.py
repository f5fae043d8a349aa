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

import threading

from ._core import contiguous_layout
from .errors import DeviceMismatchError, DTypeError, ShapeError
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
