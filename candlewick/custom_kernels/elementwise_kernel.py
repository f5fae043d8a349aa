"""``candlewick.ElementwiseKernel``: CuPy's element-wise kernel from a parameter list and
a loop body (docs/custom_kernels.md)."""

from __future__ import annotations

import re
import threading
from typing import Any

from ..array import Array
from ..errors import ArgumentTypeError, ArgumentValueError, short_repr
from ..shapes import shape_size
from .binding import (PlanCache, bind, bound_params, broadcast, compiled_key, compiled_operands, output_array,
                      run_plan, signature, subset_operand)
from .definition import KernelDefinition
from .params import check_unique, parse_params
from .subset import elementwise_plan, refuse_raw

__all__ = ["ElementwiseKernel"]

_NAME = re.compile(r"[A-Za-z_]\w*\Z")


def check_name(name):
    if not isinstance(name, str) or not _NAME.match(name):
        raise ArgumentValueError(f"name must be a C identifier, got {short_repr(name)}")
    return name


def check_text(value, argname):
    if not isinstance(value, str):
        raise ArgumentTypeError(f"{argname} must be a string of C code, got {short_repr(value)}")
    return value


def check_options(options):
    if isinstance(options, str) or not isinstance(options, (tuple, list)) \
            or not all(isinstance(o, str) for o in options):
        raise ArgumentTypeError(f"options must be a tuple of compiler option strings, got {short_repr(options)}")
    return tuple(options)


class ElementwiseKernel:
    """An element-wise kernel written in C, as CuPy's ``ElementwiseKernel``.

    ``operation`` runs once per element of the arguments' broadcast shape, with each
    in parameter holding that element of its argument (or the scalar given for it) and
    each out parameter naming that element of its output. On a device that compiles
    kernels (capability ``"custom_kernels"``: rocm) the body is pasted into a generated
    HIP kernel, compiled by hipRTC and cached on disk; elsewhere (cpu) a body written in
    the C subset of docs/custom_kernels.md runs as a graph of the device's primitives, with C++'s
    types and conversions, so one kernel gives the same results on both.

    Parameters
    ----------
    in_params : str
        The in parameters, ``"float32 x, T y, raw T table"``: a dtype name or a
        one-letter type placeholder (``T``, bound by the arguments' dtypes), then a name;
        ``raw`` passes a C-contiguous array as a pointer to its first element.
    out_params : str
        The out parameters, in the same syntax.
    operation : str
        The loop body (C++). ``i`` is the flat index of the element.
    name : str
        The kernel's name (a C identifier).
    preamble : str
        Code placed before the kernel (device functions); compiled devices only.
    options : tuple of str
        Extra compiler options (hipRTC).
    no_return : bool
        Return None instead of the outputs.
    return_tuple : bool
        Return a tuple even for one output.

    Raises
    ------
    ArgumentValueError
        For a malformed parameter list or name.

    Examples
    --------
    >>> import candlewick as cw
    >>> squared_diff = cw.ElementwiseKernel("T x, T y", "T z", "z = (x - y) * (x - y);", "squared_diff")
    >>> cw.to_numpy(squared_diff(cw.asarray([1.0, 2.0]), 0.5)).tolist()
    [0.25, 2.25]
    """

    def __init__(self, in_params: str, out_params: str, operation: str, name: str = "kernel",
                 preamble: str = "", options: tuple[str, ...] = (), no_return: bool = False,
                 return_tuple: bool = False) -> None:
        self.name = check_name(name)
        self._label = f"ElementwiseKernel {name!r}"  # compile errors name the class; argument errors
        self._arg_label = f"kernel {name!r}"  # get it from the call (CandlewickError's prefix)
        self.in_params = parse_params(in_params, False, "in_params")
        self.out_params = parse_params(out_params, True, "out_params")
        if not self.out_params:
            raise ArgumentValueError("out_params must name at least one out parameter")
        self.params = self.in_params + self.out_params
        check_unique(self.params)
        self.operation = check_text(operation, "operation")
        self.preamble = check_text(preamble, "preamble")
        self.options = check_options(options)
        self.no_return, self.return_tuple = bool(no_return), bool(return_tuple)
        self._compiled: dict[Any, Any] = {}
        self._plans = PlanCache()
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"<ElementwiseKernel {self.name!r}>"

    def __call__(self, *args: Any, size: int | None = None, device: Any = None) -> Any:
        """Run the kernel: ``kernel(*ins)`` or ``kernel(*ins, *outs)``; ``size`` gives the
        number of elements when no argument is a (non-raw) array; ``device`` where it runs
        when no argument is an array (default: the default device). Returns the outputs."""
        label = self._arg_label
        n_in, n_out = len(self.in_params), len(self.out_params)
        if len(args) not in (n_in, n_in + n_out):
            names = ", ".join(p.name for p in self.in_params)
            outs = ", ".join(p.name for p in self.out_params)
            raise ArgumentTypeError(f"{label}: takes {n_in} arguments ({names}), or {n_in + n_out} with the outputs "
                                    f"({outs}); got {len(args)}")
        call = bind(self.params, args[:n_in], args[n_in:], label, device)
        shapes = [(p.name, v.shape) for p, v in zip(self.params, call.values)
                  if isinstance(v, Array) and not p.raw]
        if size is not None:
            if shapes:
                raise ArgumentValueError(f"{label}: size is given only when no argument is a (non-raw) array")
            if not isinstance(size, int) or isinstance(size, bool) or size < 0:
                raise ArgumentValueError(f"{label}: size must be a non-negative int, got {short_repr(size)}")
            shape = (size,)
        elif not shapes:
            raise ArgumentValueError(f"{label}: no argument is a (non-raw) array: pass size=")
        else:
            shape = broadcast(shapes, label)
        for p, v in zip(self.params, call.values):
            if p.output and not p.raw and v is not None and v.shape != shape:
                raise ArgumentValueError(f"{label}: the output for parameter {p.name!r} has shape {v.shape}, the "
                                         f"arguments broadcast to {shape}")
        outputs = [(k, call.values[k]) for k, p in enumerate(self.params) if p.output]
        for k, given in outputs:
            if given is None:
                call.values[k] = output_array(call, k, shape, label)
        if call.compiles:
            self._run_compiled(call, shape)
            results = [call.values[k] for k, _ in outputs]
        else:
            results = self._run_subset(call, shape, outputs)
        if self.no_return:
            return None
        return results[0] if len(results) == 1 and not self.return_tuple else tuple(results)

    def definition_for(self, *args: Any) -> KernelDefinition:
        """The ``KernelDefinition`` a device that compiles kernels is given for a call with
        ``args`` (the in arguments, optionally the outputs), from which rocm generates
        the kernel's source (tools/amd_compile_gate.py compiles the tests' kernels so)."""
        n_in = len(self.in_params)
        return self._definition(bind(self.params, args[:n_in], args[n_in:], self._arg_label))

    def _definition(self, call):
        return KernelDefinition("elementwise", self.name, bound_params(call), call.types, self.preamble,
                                self.options, body=self.operation)

    def _run_compiled(self, call, shape):
        key = compiled_key(call)
        run = self._compiled.get(key)
        if run is None:
            with self._lock:
                run = self._compiled.get(key)
                if run is None:
                    run = self._compiled[key] = call.device.elementwise_kernel(self._definition(call))
        if shape_size(shape):
            run(shape, compiled_operands(call, shape, key[1]))

    def _run_subset(self, call, shape, outputs):
        refuse_raw(self.params, call.device, self._arg_label)
        defn = self._definition(call)
        operands = [subset_operand(p, v, call, shape) for p, v in zip(defn.params, call.values)]
        key = signature(call, shape, operands)
        with self._lock:
            plan = self._plans.get(key, lambda: elementwise_plan(defn, call.device, shape, operands, self._label))
        return run_plan(plan, operands, outputs, shape, call, self._label)
