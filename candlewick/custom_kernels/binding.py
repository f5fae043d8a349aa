"""One call of an ``ElementwiseKernel`` or ``ReductionKernel``: its arguments matched to
the parameters, checked, typed (placeholders bound), and the outputs made; then run on
the device, compiled by it (``custom_kernels`` capability) or as a C-subset graph.

Arguments are the in parameters' values, optionally followed by the out parameters'
arrays (CuPy's convention); an out parameter without one gets a new array.
"""

from __future__ import annotations

from collections import OrderedDict

from ..array import Array
from .._core import ArrayBase, check_dtype_on, contiguous_layout, new_array
from ..allocation import check_allocation
from ..errors import ArgumentTypeError, ShapeError, short_repr
from ..layout import Layout
from ..writes import check_writable
from .arguments import convert_scalar, is_scalar, one_device, require_contiguous
from .definition import BoundParam
from .params import bind_types, resolve, scalar_dtype
from .subset import Operand

__all__ = ["CAPABILITY", "Call", "PlanCache", "bind", "bound_params", "broadcast", "compiled_key", "compiled_operands",
           "output_array", "run_plan", "signature", "subset_operand"]

#: the optional group of a device that compiles custom kernels (backend.CustomKernelDevice)
CAPABILITY = "custom_kernels"
MAX_PLANS = 64  # signatures a kernel keeps on a device without the capability


class Call:
    """A call's arguments: ``device``; per parameter its ``dtype`` (this call's), its
    ``value`` (an array, a converted NumPy scalar, or None for an output to make); the
    bound placeholders ``types``; ``compiles``: whether the device compiles kernels."""

    __slots__ = ("device", "params", "dtypes", "values", "types", "compiles")


def bind(params, ins, outs, label, device=None):
    """The ``Call`` of in arguments ``ins`` and out arrays ``outs`` (possibly fewer than
    the out parameters: the rest are made later) on ``device`` (None: the arrays')."""
    values = list(ins) + list(outs) + [None] * (len(params) - len(ins) - len(outs))
    arrays, seen = [], []
    for p, v in zip(params, values):
        if v is None and p.output:
            seen.append(None)
        elif isinstance(v, ArrayBase):
            arrays.append((p.name, v))
            seen.append((v._dtype, True))
        elif p.output or p.raw:
            what = "an out parameter" if p.output else "a raw parameter"
            raise ArgumentTypeError(f"{label}: {p.describe()} takes a candlewick array ({what}), got {short_repr(v)}")
        elif is_scalar(v) and scalar_dtype(v) is not None:
            seen.append((scalar_dtype(v), False))
        else:
            raise ArgumentTypeError(f"{label}: {p.describe()} takes a candlewick array or a scalar, got "
                                    f"{short_repr(v)}")
    call = Call()
    call.device = device = one_device(arrays, label, device)
    bound = bind_types(params, seen, label)
    call.params = params
    call.dtypes = [resolve(p, bound, label) for p in params]
    for dtype in call.dtypes:
        check_dtype_on(device, dtype, label)
    call.values = [v if v is None or isinstance(v, ArrayBase) else convert_scalar(v, d, label, p.name)
                   for p, v, d in zip(params, values, call.dtypes)]
    for p, v in zip(params, call.values):
        if isinstance(v, ArrayBase):
            if p.raw:
                require_contiguous(v, label, p.name)
            if p.output:
                check_writable(v, f"{label}: parameter {p.name!r}")
    call.types = tuple(sorted(bound.items()))
    call.compiles = CAPABILITY in getattr(device, "capabilities", ())
    return call


def role(param, value):
    if param.raw:
        return "raw_out" if param.output else "raw_in"
    if param.output:
        return "out"
    return "in" if isinstance(value, ArrayBase) else "scalar"


def bound_params(call):
    return tuple(BoundParam(p.name, d, role(p, v)) for p, d, v in zip(call.params, call.dtypes, call.values))


def compiled_key(call, extra=None):
    """The key of a call's compiled kernel: the device, each parameter's role and dtype
    name (strings hash in C; the definition's dataclasses would hash through Python)."""
    return (call.device, tuple([role(p, v) for p, v in zip(call.params, call.values)]),
            tuple([d.name for d in call.dtypes]), extra)


def compiled_operands(call, shape, roles, out_layouts=None):
    """The operands of a compiled kernel's run: (storage, layout over ``shape``) of an
    element-wise array (an output's from ``out_layouts`` by parameter index, when given:
    a reduction's, over the kept shape), (storage, layout) of a raw one, the scalars."""
    out = []
    for k, (r, v) in enumerate(zip(roles, call.values)):
        if r == "out" and out_layouts is not None:
            out.append((v._storage, out_layouts[k]))
        elif r == "in" or r == "out":
            out.append((v._storage, v._layout.broadcast_to(shape)))
        elif r == "scalar":
            out.append(v)
        else:
            out.append((v._storage, v._layout))
    return out


def broadcast(named_shapes, label):
    """The broadcast shape of ``named_shapes`` ((parameter name, shape) pairs); ShapeError
    naming the parameter whose shape does not fit."""
    first = named_shapes[0][1]
    if all(s == first for _, s in named_shapes):  # the common case: one shape
        return tuple(first)
    shape = ()
    for name, s in named_shapes:
        ndim = max(len(shape), len(s))
        a, b = (1,) * (ndim - len(shape)) + tuple(shape), (1,) * (ndim - len(s)) + tuple(s)
        out = []
        for x, y in zip(a, b):
            if x != y and 1 not in (x, y):
                raise ShapeError(f"{label}: the array for parameter {name!r} has shape {tuple(s)}, which does not "
                                 f"broadcast with the other arguments' shape {tuple(shape)}")
            out.append(y if x == 1 else x)
        shape = tuple(out)
    return shape


def output_array(call, k, shape, label):
    """A new array for out parameter ``k`` of ``shape``."""
    dtype, device = call.dtypes[k], call.device
    check_allocation(label, shape, dtype, device)
    return _wrap(device.empty(shape, dtype), shape, dtype, device)


def _wrap(storage, shape, dtype, device):
    return new_array(Array, storage, shape, dtype, device)


def subset_operand(param, value, call, shape):
    """A C-subset plan's operand: an array seen over ``shape`` (outputs and broadcast
    inputs), or a scalar as a 0-d storage seen with zero strides."""
    if isinstance(value, ArrayBase):
        return Operand(param, value._storage, value._layout.broadcast_to(tuple(shape)))
    storage = call.device.full((), param.dtype, value)
    return Operand(param, storage, Layout(tuple(shape), (0,) * len(shape), 0))


class PlanCache:
    """The C-subset plans of one kernel, by signature (least recently used dropped)."""

    def __init__(self):
        self._plans = OrderedDict()

    def get(self, key, make):
        plan = self._plans.get(key)
        if plan is None:
            plan = self._plans[key] = make()
            while len(self._plans) > MAX_PLANS:
                self._plans.popitem(last=False)
        else:
            self._plans.move_to_end(key)
        return plan


def signature(call, shape, operands, extra=()):
    """A plan's key: the device, every operand's role, dtype and layout, the shape."""
    parts = [call.device, tuple(shape), extra]
    for op in operands:
        lay = op.layout
        parts.append((op.param.role, op.param.dtype.name, lay.shape, lay.strides, lay.offset, op.storage.size))
    return tuple(parts)


def run_plan(plan, operands, outputs, shape, call, label):
    """Run a C-subset plan; ``outputs``: per out parameter, (operand index, given array
    or None); returns the out arrays (a computed result becomes the array of an out
    parameter given none, else is written into the given one)."""
    storages = [operands[k].storage for k in plan.sources]
    results = plan.run(storages, ())
    arrays = []
    layout = contiguous_layout(tuple(shape))
    for (k, given), r in zip(outputs, plan.results):
        dtype = call.dtypes[k]
        if r is None:
            arrays.append(given if given is not None else _wrap(operands[k].storage, tuple(shape), dtype, call.device))
        elif given is not None:
            given._storage.assign(given._layout, results[r], layout)
            arrays.append(given)
        else:
            arrays.append(_wrap(results[r], tuple(shape), dtype, call.device))
    return arrays
