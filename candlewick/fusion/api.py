"""``candlewick.fuse``: trace a function once per input signature, then run the traced
graph: compiled by the device when it declares the ``fusion`` capability
(``candlewick.backend.FusionDevice.compile_fused``), else by replaying the recorded primitive calls
(docs/fusion.md)."""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from typing import Any, Callable

from .._core import ArrayBase
from ..errors import ArgumentTypeError, DeviceMismatchError, FusionTraceError, short_repr
from ..promotion_mode import get_promotion_mode
from .graph import Graph
from .params import TracedFloat, parametrize, probe_values
from .replay import replayer
from .trace import TracedStorage, TracingDevice, input_storage, record_output

__all__ = ["FusedFunction", "fuse"]

#: traced signatures kept per fused function (least recently used dropped first)
MAX_SIGNATURES = 64
_SCALARS = (bool, int, float, complex)


def fuse(fn: Callable[..., Any] | None = None) -> Any:
    """Fuse the array operations of ``fn`` (element-wise functions, reductions, views).

    ``fn`` is written with the namespace and called with candlewick arrays (and Python
    scalars or other static values). The first call with a new signature (each array's
    shape, strides, dtype and device; each scalar's type, and its value unless it is a
    float used only as a scalar operand; the promotion mode) traces ``fn`` into a graph of
    primitive calls; later calls with that signature run the graph without running
    ``fn``'s Python (docs/fusion.md). A device that declares the ``fusion``
    capability compiles the graph into few kernels (on rocm one per reduction, plus one for
    the element-wise outputs); any other device replays the recorded primitive calls,
    which gives the eager results bit for bit.

    Parameters
    ----------
    fn : callable
        Returns a candlewick array or a tuple/list of them, computed from its arguments.

    Returns
    -------
    FusedFunction
        A callable with ``fn``'s signature; ``cache_info()`` reports traces and hits.

    Raises
    ------
    FusionTraceError
        (when called) if ``fn`` reads traced values on the host (``if x > 0``,
        ``float(x)``: data-dependent control flow) or calls an operation that cannot be
        fused (sorting, matmul, array indexing, random numbers, ...).

    Examples
    --------
    >>> import candlewick as cw
    >>> @cw.fuse
    ... def scaled_exp(x, a):
    ...     return cw.exp(x) * a
    >>> scaled_exp(cw.asarray([0.0, 1.0]), 2.0).shape
    (2,)
    """
    if fn is None:
        return fuse
    if not callable(fn):
        raise ArgumentTypeError(f"candlewick.fuse: expected a function, got {short_repr(fn)}")
    return FusedFunction(fn)


class _Entry:
    """One traced signature: its graph and how it runs on the device."""

    __slots__ = ("graph", "run", "wrap")

    def __init__(self, graph, run, wrap):
        self.graph, self.run, self.wrap = graph, run, wrap


class _Family:
    """The entries of one signature up to its float arguments' values: one entry for
    every value when they are graph parameters, else one per tuple of values."""

    __slots__ = ("parametric", "entries")

    def __init__(self, parametric):
        self.parametric, self.entries = parametric, {}


class FusedFunction:
    """The callable ``fuse`` returns."""

    def __init__(self, fn):
        self._fn = fn
        self._families = OrderedDict()
        self._lock = threading.Lock()
        self._stats = {"traces": 0, "hits": 0}
        functools.update_wrapper(self, fn)

    def cache_info(self):
        """``{"traces": ..., "hits": ..., "signatures": ...}`` of this function (a trace
        with float arguments runs the function twice, counted as one)."""
        with self._lock:
            return dict(self._stats, signatures=sum(len(f.entries) for f in self._families.values()))

    def __get__(self, obj, objtype=None):
        # a fused method: the instance is one more (static, hashable) argument
        return self if obj is None else functools.partial(self.__call__, obj)

    def graph_for(self, *args, **kwargs):
        """The traced ``Graph`` for these arguments (tracing them if new)."""
        return self._entry(args, kwargs)[0].graph

    def __call__(self, *args, **kwargs):
        entry, arrays, floats = self._entry(args, kwargs)
        if entry is None:  # called while tracing an enclosing fused function: inline
            return self._fn(*args, **kwargs)
        outs = entry.run([a._storage for a in arrays], [v for _, v in floats])
        return entry.wrap(outs)

    def _entry(self, args, kwargs):
        key, arrays, floats = _signature(args, kwargs)
        if key is None:
            return None, arrays, floats
        values = tuple(repr(v) for _, v in floats)
        with self._lock:
            family = self._families.get(key)
            if family is not None:
                entry = family.entries.get(None if family.parametric else values)
                if entry is not None:
                    self._families.move_to_end(key)
                    self._stats["hits"] += 1
                    return entry, arrays, floats
        entry, parametric = self._trace_signature(args, kwargs, arrays, floats, family is None)
        with self._lock:
            self._stats["traces"] += 1
            family = self._families.setdefault(key, _Family(parametric))
            family.entries[None if family.parametric else values] = entry
            while len(family.entries) > MAX_SIGNATURES:
                family.entries.pop(next(iter(family.entries)))
            while len(self._families) > MAX_SIGNATURES:
                self._families.popitem(last=False)
        return entry, arrays, floats

    def _trace_signature(self, args, kwargs, arrays, floats, new_family):
        """(entry, whether the float arguments are graph parameters)."""
        reals = [v for _, v in floats]
        uses = []
        graph, finish = self._trace(args, kwargs, arrays, floats, reals, uses)
        if new_family and floats and not uses:
            probes = probe_values(reals)
            try:
                probe_graph, _ = self._trace(args, kwargs, arrays, floats, probes, uses)
            except Exception:  # noqa: BLE001 - the probe values took another path: keep values
                probe_graph = None
            params = None if uses else parametrize(graph, probe_graph, reals, probes)
            if params is not None:
                return finish(params), True
        return finish(graph), False

    def _trace(self, args, kwargs, arrays, floats, values, uses):
        """Trace with the float arguments set to ``values``: (graph, finish) where
        ``finish(graph)`` makes the entry that runs it."""
        device = arrays[0]._device
        graph = Graph(device)
        tracing = TracingDevice(device, graph)
        tracers = {}
        for position, a in enumerate(arrays):
            t = type(a).__new__(type(a))
            t._storage = input_storage(graph, device, position, a._storage, tracing)
            t._layout, t._dtype, t._device = a._layout, a._dtype, tracing
            tracers[id(a)] = t
        t_args, t_kwargs = list(args), dict(kwargs)
        for (where, _), v in zip(floats, values):
            if isinstance(where, int):
                t_args[where] = TracedFloat(v, uses)
            else:
                t_kwargs[where] = TracedFloat(v, uses)
        t_args = [tracers.get(id(a), a) for a in t_args]
        t_kwargs = {k: tracers.get(id(v), v) for k, v in t_kwargs.items()}
        result = self._fn(*t_args, **t_kwargs)
        if isinstance(result, ArrayBase):
            outs, kind = [result], None
        elif isinstance(result, (tuple, list)) and result and all(isinstance(r, ArrayBase) for r in result):
            outs, kind = list(result), type(result)
        else:
            raise FusionTraceError(
                f"candlewick.fuse: {getattr(self._fn, '__name__', 'the function')} must return a candlewick "
                f"array or a tuple/list of them, got {short_repr(result)}")
        for o in outs:
            record_output(graph, o)
        meta = [(o._layout, o._dtype) for o in outs]
        arr_type = type(arrays[0])

        def finish(final):
            run = device.compile_fused(final) if "fusion" in device.capabilities else None
            if run is None:
                run = replayer(final)
            return _Entry(final, run, functools.partial(_wrap, arr_type, device, meta, kind))

        return graph, finish


def _wrap(arr_type, device, meta, kind, storages):
    outs = []
    for storage, (layout, dtype) in zip(storages, meta):
        a = arr_type.__new__(arr_type)
        a._storage, a._layout, a._dtype, a._device = storage, layout, dtype, device
        outs.append(a)
    return outs[0] if kind is None else kind(outs)


def _signature(args, kwargs):
    """(cache key, the array arguments in order, the float arguments as (position or
    keyword, value)); key None while an enclosing fused function is being traced. Float
    arguments enter the key by type only (``_Family`` keeps their values when needed)."""
    arrays, floats, parts = [], [], [get_promotion_mode()]
    seen = {}
    items = list(enumerate(args)) + sorted(kwargs.items(), key=lambda kv: kv[0])
    for name, value in items:
        parts.append(name)
        if type(value) is float:
            floats.append((name, value))
            parts.append("float")
        elif isinstance(value, ArrayBase):
            if isinstance(value._storage, TracedStorage):
                return None, arrays, floats
            if id(value) in seen:  # the same array twice: one input
                parts.append(("same", seen[id(value)]))
                continue
            seen[id(value)] = len(arrays)
            lay = value._layout
            parts.append(("array", value._dtype.name, value._device, lay.shape, lay.strides, lay.offset,
                          value._storage.size))
            arrays.append(value)
        elif type(value) in _SCALARS:
            # repr: 0.0 and -0.0 are equal keys, NaN never equals itself
            parts.append(("scalar", type(value), repr(value)))
        else:
            try:
                hash(value)
            except TypeError:
                raise FusionTraceError(
                    f"candlewick.fuse: argument {name} must be a candlewick array, a Python "
                    f"scalar or a hashable static value, got {short_repr(value)}") from None
            parts.append(("static", type(value), value))
    if not arrays:
        raise FusionTraceError("candlewick.fuse: a fused function needs at least one candlewick array argument")
    device = arrays[0]._device
    for a in arrays[1:]:
        if a._device is not device:
            raise DeviceMismatchError(
                f"candlewick.fuse: array arguments are on different devices ({device.name} and "
                f"{a._device.name}); move one with .to_device(...) first")
    return tuple(parts), arrays, floats
