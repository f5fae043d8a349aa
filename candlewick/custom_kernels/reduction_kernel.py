"""``candlewick.ReductionKernel``: CuPy's reduction kernel from a map, a reduce and a
post-map expression (docs/custom_kernels.md)."""

from __future__ import annotations

import threading
from typing import Any

from .. import dtypes as _dt
from ..array import Array
from .._core import view
from ..errors import ArgumentTypeError, ArgumentValueError, short_repr
from ..layout import Layout
from ..shapes import normalize_axes, shape_size
from .binding import (PlanCache, bind, bound_params, broadcast, compiled_key, compiled_operands, output_array,
                      run_plan, signature, subset_operand)
from .c_types import type_from_words
from .definition import KernelDefinition
from .elementwise_kernel import check_name, check_options, check_text
from .params import REDUCTION_RESERVED, check_unique, parse_params
from .subset import Operand, reduction_plan, refuse_raw

__all__ = ["ReductionKernel"]


class ReductionKernel:
    """A reduction kernel written in C, as CuPy's ``ReductionKernel``.

    For each output element, ``map_expr`` is evaluated at every element of the in
    arguments' broadcast shape that reduces into it, converted to the reduce type, and
    the values are combined with ``reduce_expr`` (over ``a`` and ``b``; it must be
    associative and commutative: the order is the device's) starting from ``identity``
    (its neutral element); ``post_map_expr`` then sets the outputs from the result
    ``a``. On cpu the expressions are in the C subset of docs/custom_kernels.md and
    ``reduce_expr`` is one of ``a + b``, ``a * b``, ``max(a, b)``, ``min(a, b)``,
    ``a && b``, ``a || b``.

    Parameters
    ----------
    in_params : str
        The in parameters (``"T x, float32 w"``: CuPy's syntax, see ElementwiseKernel).
    out_params : str
        The out parameters.
    map_expr : str
        The value each element contributes (a C expression of the in parameters).
    reduce_expr : str
        How two values combine (a C expression of ``a`` and ``b``).
    post_map_expr : str
        Statements setting the out parameters from ``a``, e.g. ``"y = sqrt(a);"``.
    identity : str
        The neutral element of ``reduce_expr`` (a C expression, e.g. ``"0"``).
    name : str
        The kernel's name (a C identifier).
    reduce_type : str or None
        The type values are reduced in: a dtype name, a C type name or a placeholder;
        None: the first out parameter's type.
    preamble : str
        Code placed before the kernel; compiled devices only.
    options : tuple of str
        Extra compiler options (hipRTC).

    Raises
    ------
    ArgumentValueError
        For a malformed parameter list, name or reduce type.

    Examples
    --------
    >>> import candlewick as cw
    >>> l2norm = cw.ReductionKernel("T x", "T y", "x * x", "a + b", "y = sqrt(a);", "0", "l2norm")
    >>> cw.to_numpy(l2norm(cw.asarray([[3.0, 4.0], [6.0, 8.0]]), axis=1)).tolist()
    [5.0, 10.0]
    """

    def __init__(self, in_params: str, out_params: str, map_expr: str, reduce_expr: str, post_map_expr: str,
                 identity: str, name: str = "reduce_kernel", reduce_type: str | None = None, preamble: str = "",
                 options: tuple[str, ...] = ()) -> None:
        self.name = check_name(name)
        self._label = f"ReductionKernel {name!r}"  # as ElementwiseKernel's two labels
        self._arg_label = f"kernel {name!r}"
        self.in_params = parse_params(in_params, False, "in_params", REDUCTION_RESERVED)
        self.out_params = parse_params(out_params, True, "out_params", REDUCTION_RESERVED)
        if not self.in_params or not self.out_params:
            raise ArgumentValueError("a reduction needs at least one in and one out parameter")
        self.params = self.in_params + self.out_params
        check_unique(self.params)
        for p in self.out_params:
            if p.raw:
                raise ArgumentValueError(f"out parameter {p.name!r} cannot be raw")
        self.map_expr = check_text(map_expr, "map_expr")
        self.reduce_expr = check_text(reduce_expr, "reduce_expr")
        self.post_map_expr = check_text(post_map_expr, "post_map_expr")
        self.identity = check_text(identity, "identity")
        self.reduce_type = self._reduce_type(reduce_type)
        self.preamble = check_text(preamble, "preamble")
        self.options = check_options(options)
        self._compiled: dict[Any, Any] = {}
        self._plans = PlanCache()
        self._lock = threading.Lock()

    def _reduce_type(self, reduce_type):
        """(dtype, None) or (None, placeholder) of ``reduce_type``."""
        if reduce_type is None:
            p = self.out_params[0]
            return p.dtype, p.placeholder
        if not isinstance(reduce_type, str):
            raise ArgumentTypeError(f"reduce_type must be a type name, got {short_repr(reduce_type)}")
        if len(reduce_type) == 1 and reduce_type.isalpha():
            return None, reduce_type
        dtype = _dt._BY_NAME.get(reduce_type) or type_from_words(reduce_type.split())
        if dtype is None:
            raise ArgumentValueError(f"reduce_type {reduce_type!r} is neither a dtype name, a C type name "
                                     f"nor a one-letter placeholder")
        return dtype, None

    def __repr__(self) -> str:
        return f"<ReductionKernel {self.name!r}>"

    def __call__(self, *args: Any, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> Any:
        """Run the kernel over ``axis`` (None: every axis) of the in arguments'
        broadcast shape: ``kernel(*ins)`` or ``kernel(*ins, *outs)``. Returns the
        output (a tuple for several)."""
        label = self._arg_label
        n_in, n_out = len(self.in_params), len(self.out_params)
        if len(args) not in (n_in, n_in + n_out):
            names = ", ".join(p.name for p in self.in_params)
            raise ArgumentTypeError(f"{label}: takes {n_in} arguments ({names}), or {n_in + n_out} with the outputs; "
                                    f"got {len(args)}")
        call = bind(self.params, args[:n_in], args[n_in:], label)
        shapes = [(p.name, v.shape) for p, v in zip(self.in_params, call.values) if isinstance(v, Array) and not p.raw]
        if not shapes:
            raise ArgumentValueError(f"{label}: a reduction needs a (non-raw) array argument")
        shape = broadcast(shapes, label)
        axes = tuple(sorted(normalize_axes(axis, len(shape)))) if axis is not None else tuple(range(len(shape)))
        kept = tuple(n for i, n in enumerate(shape) if i not in axes)
        shown = tuple(1 if i in axes else n for i, n in enumerate(shape)) if keepdims else kept
        reduce_dtype = self._resolved_reduce_type(call, label)
        outputs = []
        for k, p in enumerate(self.params):
            if not p.output:
                continue
            given = call.values[k]
            if given is not None and given.shape != shown:
                raise ArgumentValueError(f"{label}: the output for parameter {p.name!r} has shape {given.shape}, the "
                                         f"reduction gives {shown}")
            outputs.append((k, given))
            call.values[k] = output_array(call, k, shown, label) if given is None else given
        kept_view = [(k, _kept(call.values[k], axes, keepdims)) for k, _ in outputs]
        if call.compiles:
            self._run_compiled(call, shape, axes, kept_view, reduce_dtype)
            results = [call.values[k] for k, _ in outputs]
        else:
            results = self._run_subset(call, shape, axes, kept, kept_view, outputs, reduce_dtype, shown)
        return results[0] if len(results) == 1 else tuple(results)

    def _resolved_reduce_type(self, call, label):
        dtype, placeholder = self.reduce_type
        if dtype is not None:
            return dtype
        got = dict(call.types).get(placeholder)
        if got is None:
            raise ArgumentValueError(f"{label}: reduce type {placeholder} is not bound by the arguments")
        return got

    def definition_for(self, *args: Any) -> KernelDefinition:
        """The ``KernelDefinition`` a device that compiles kernels is given for a call with
        ``args`` (the in arguments, optionally the outputs): see
        ``ElementwiseKernel.definition_for``."""
        n_in = len(self.in_params)
        call = bind(self.params, args[:n_in], args[n_in:], self._arg_label)
        return self._definition(call, self._resolved_reduce_type(call, self._arg_label))

    def _definition(self, call, reduce_dtype):
        return KernelDefinition("reduction", self.name, bound_params(call), call.types, self.preamble, self.options,
                                map_expr=self.map_expr, reduce_expr=self.reduce_expr,
                                post_map_expr=self.post_map_expr, identity=self.identity, reduce_type=reduce_dtype)

    def _run_compiled(self, call, shape, axes, kept_view, reduce_dtype):
        key = compiled_key(call, reduce_dtype.name)
        run = self._compiled.get(key)
        if run is None:
            with self._lock:
                run = self._compiled.get(key)
                if run is None:
                    run = self._compiled[key] = call.device.reduction_kernel(self._definition(call, reduce_dtype))
        operands = compiled_operands(call, shape, key[1], dict(kept_view))
        if shape_size(kept_view[0][1].shape):
            run(shape, axes, operands)

    def _run_subset(self, call, shape, axes, kept, kept_view, outputs, reduce_dtype, shown):
        refuse_raw(self.params, call.device, self._arg_label)
        defn = self._definition(call, reduce_dtype)
        views = dict(kept_view)
        operands = []
        for k, (p, v) in enumerate(zip(defn.params, call.values)):
            operands.append(Operand(p, v._storage, views[k]) if p.role == "out" else subset_operand(p, v, call, shape))
        key = signature(call, shape, operands, axes)
        with self._lock:
            plan = self._plans.get(key, lambda: reduction_plan(defn, call.device, shape, axes, operands,
                                                               self._label))
        given_views = [(k, None if given is None else view(given, views[k])) for k, given in outputs]
        arrays = run_plan(plan, operands, given_views, kept, call, self._label)
        return [given if given is not None else view(a, a._layout.reshape(shown))
                for (_, given), a in zip(outputs, arrays)]


def _kept(array, axes, keepdims):
    """An output's layout over the kept shape (keepdims' size-1 axes dropped)."""
    lay = array._layout
    if not keepdims:
        return lay
    return Layout(tuple(n for i, n in enumerate(lay.shape) if i not in axes),
                  tuple(s for i, s in enumerate(lay.strides) if i not in axes), lay.offset)
