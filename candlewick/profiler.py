"""A profiler of the primitives a program runs: ``with cw.profile() as p:`` records each
storage and device primitive any backend is asked for (docs/gpu.md)::

    with cw.profile() as p:
        y = cw.exp(x) @ w
    print(p.table())          # per primitive, op and dtype: calls, host and device time
    p.plot()                  # a timeline (matplotlib)

A record holds the primitive, its op (``exp``, ``add``, ``sum``...), the dtype, the shapes
of its operands, the host time of the call, and the device time between two timing
events recorded on the device's current stream around it (devices with streams,
``candlewick.backend.StreamDevice``; on the cpu that is the host's time of the work).
Device times are read when the block ends, after the devices drain. Only the outermost
primitive of a call is recorded (a backend composing one primitive of others counts once).

It works the same for every backend: entering the block wraps the primitive methods of
each device class and storage class in use (the classes of the devices opened so far,
and of those opened inside the block), and leaving it puts them back. Recording costs two
event records per call on a GPU, so the host times of tiny ops grow while profiling.
Every thread's calls are recorded, each with its thread. A device with the optional hook
``candlewick.backend.ProfilerRangeDevice`` also sees a named range per call (the rocm
backend: roctx ranges for rocprof, where libroctx64 is found; else none).
"""

from __future__ import annotations

import collections
import enum
import threading
import time
from dataclasses import dataclass
from typing import Any

from . import dtypes as _dt
from . import registry
from .backend import BackendDevice, BackendStorage
from .backend_optional import ProfilerRangeDevice, StreamDevice
from .errors import CandlewickError
from .layout import Layout

__all__ = ["Profile", "Record", "profile"]

#: optional hooks that run work, wrapped beside the protocol's primitives
_STORAGE_HOOKS = ("to_device", "to_host_async")
_DEVICE_HOOKS = ("storage_from_dlpack", "storage_from_host_async")
_NOT_WRAPPED = frozenset({"same_device", "memory_info"})
_MISSING = object()


@dataclass(frozen=True)
class Record:
    """One primitive call. Times in milliseconds; ``start_ms`` on the host clock from the
    profile's start, ``device_start_ms`` on the device's clock from its first record in the
    profile (None where the device has no streams or the call could not be timed)."""

    primitive: str
    op: str
    dtype: str
    shapes: tuple
    device: str
    stream: str
    thread: int
    start_ms: float
    host_ms: float
    device_ms: float | None
    device_start_ms: float | None


class _Local(threading.local):
    depth = 0  # primitive calls in progress on this thread (only the outermost is recorded)


_local = _Local()
_lock = threading.RLock()
_active: list[Profile] = []
_patched: dict[type, dict[str, Any]] = {}  # class -> {method name: its own attribute or _MISSING}
_event_pools: dict[Any, list] = {}  # device -> timing events free for reuse


def _primitive_names(protocol, hooks):
    names = [n for n, v in vars(protocol).items() if callable(v) and not n.startswith("_")]
    return [n for n in names + list(hooks) if n not in _NOT_WRAPPED]


_STORAGE_NAMES = _primitive_names(BackendStorage, _STORAGE_HOOKS)
_DEVICE_NAMES = _primitive_names(BackendDevice, _DEVICE_HOOKS)


def _storage_class(device):
    cls = getattr(device, "storage_type", None)
    if isinstance(cls, type):
        return cls
    return type(device.empty((0,), _dt.int64))


def _patch(cls, names, kind):
    if cls in _patched:
        return
    saved = {}
    _patched[cls] = saved  # (what is set below is put back by _unpatch_all, even on a failure)
    for name in names:
        original = getattr(cls, name, None)
        if original is None or not callable(original):
            continue
        own = cls.__dict__.get(name, _MISSING)
        try:
            setattr(cls, name, _wrapped(name, original, kind))
        except (TypeError, AttributeError):  # a class that takes no attributes (a C type): not wrapped
            return
        saved[name] = own


def _patch_device(device):
    with _lock:
        if not _active:
            return
        _local.depth += 1  # finding the storage class may call the device: not the program's call
        try:
            try:
                storage_class = _storage_class(device)
            except Exception:  # noqa: BLE001 - a device that cannot make an empty storage (a
                storage_class = None  # stand-in, a runtime gone): its device calls only
            _patch(type(device), _DEVICE_NAMES, "device")
            if storage_class is not None:
                _patch(storage_class, _STORAGE_NAMES, "storage")
        finally:
            _local.depth -= 1


def _unpatch_all():
    for cls, saved in _patched.items():
        for name, own in saved.items():
            if own is _MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, own)
    _patched.clear()


def _wrapped(name, original, kind):
    def traced(self, *args, **kwargs):
        if not _active or _local.depth:
            return original(self, *args, **kwargs)
        _local.depth += 1
        try:
            return _call(name, original, kind, self, args, kwargs)
        finally:
            _local.depth -= 1

    traced.__name__ = getattr(original, "__name__", name)
    traced.__doc__ = getattr(original, "__doc__", None)
    traced.__wrapped__ = original
    return traced


def _describe(name, kind, obj, args, kwargs):
    values = list(args) + list(kwargs.values())
    op = values[0] if values and isinstance(values[0], enum.Enum) else None
    dtype = getattr(obj, "dtype", None) if kind == "storage" else None
    if not isinstance(dtype, _dt.DType):
        dtype = next((v for v in values if isinstance(v, _dt.DType)), None)
    shapes = tuple(v.shape for v in values if isinstance(v, Layout))
    if kind == "device" and not shapes and values and isinstance(values[0], tuple):
        shapes = (values[0],)
    return (str(op.value) if op is not None else "", dtype.name if dtype is not None else "", shapes)


def _take_events(device):
    with _lock:
        pool = _event_pools.setdefault(device, [])
        if len(pool) >= 2:
            return pool.pop(), pool.pop()
    return device.new_event(True), device.new_event(True)


def _call(name, original, kind, obj, args, kwargs):
    device = obj if kind == "device" else obj.device
    op, dtype, shapes = _describe(name, kind, obj, args, kwargs)
    label = f"{name}:{op}" if op else name
    ranges = isinstance(device, ProfilerRangeDevice)
    stream = events = None
    if isinstance(device, StreamDevice):
        try:
            stream = device.current_stream()
            events = _take_events(device)
            events[0].record(stream)
        except CandlewickError:  # a graph capture, which cannot hold an event record
            stream = events = None
    if ranges:
        device.range_push(label)
    start = time.perf_counter()
    try:
        return original(obj, *args, **kwargs)
    finally:
        stop = time.perf_counter()
        if events is not None:
            try:
                events[1].record(stream)
            except CandlewickError:
                events = None
        if ranges:
            device.range_pop()
        pending = (name, op, dtype, shapes, device, stream, threading.get_ident(), start, stop, events)
        with _lock:
            for p in _active:
                p._pending.append(pending)


class Profile:
    """What ``profile()`` recorded: ``records`` (a list of ``Record``), ``table()``,
    ``plot()``. Filled when the ``with`` block ends."""

    def __init__(self) -> None:
        self.records: list[Record] = []
        self._pending: list = []
        self._start = 0.0

    def __enter__(self) -> Profile:
        with _lock:
            self._start = time.perf_counter()
            _active.append(self)
            if len(_active) == 1:
                try:
                    registry.add_device_listener(_patch_device)
                    for device in registry.opened_devices():
                        _patch_device(device)
                except BaseException:
                    self.__exit__(None, None, None)
                    raise
        return self

    def __exit__(self, *exc: object) -> None:
        with _lock:
            _active.remove(self)
            if not _active:
                registry.remove_device_listener(_patch_device)
                _unpatch_all()
            pending, self._pending = self._pending, []
        self.records = self._resolve(pending)

    def _resolve(self, pending):
        """Records from the calls: device times once every device involved has drained."""
        devices = {item[4] for item in pending if item[9] is not None}
        zero = {}
        _local.depth += 1  # (an enclosing profile does not record these waits)
        try:
            for device in devices:
                device.synchronize()
        finally:
            _local.depth -= 1
        records = []
        for name, op, dtype, shapes, device, stream, thread, start, stop, events in pending:
            device_ms = device_start = None
            if events is not None:
                first = zero.setdefault(device, events[0])
                device_ms = events[0].elapsed_ms(events[1])
                device_start = first.elapsed_ms(events[0])
            records.append(Record(name, op, dtype, shapes, device.name, _stream_name(stream), thread,
                                  (start - self._start) * 1e3, (stop - start) * 1e3, device_ms, device_start))
        with _lock:
            if not _active:  # events an enclosing profile has yet to read are not reused
                for *_, device, _s, _t, _a, _b, events in pending:
                    if events is not None:
                        _event_pools.setdefault(device, []).extend(events)
        return records

    # --- reports ----------------------------------------------------------------------
    def totals(self) -> list[dict]:
        """Per (primitive, op, dtype): calls, host and device milliseconds (total), the
        most frequent operand shapes; the most device time first (host time without it)."""
        groups: dict = collections.OrderedDict()
        for r in self.records:
            g = groups.setdefault((r.primitive, r.op, r.dtype),
                                  {"primitive": r.primitive, "op": r.op, "dtype": r.dtype, "calls": 0,
                                   "host_ms": 0.0, "device_ms": None, "shapes": collections.Counter()})
            g["calls"] += 1
            g["host_ms"] += r.host_ms
            if r.device_ms is not None:
                g["device_ms"] = (g["device_ms"] or 0.0) + r.device_ms
            g["shapes"][r.shapes] += 1
        rows = []
        for g in groups.values():
            g["shapes"] = g["shapes"].most_common(1)[0][0]
            rows.append(g)
        rows.sort(key=lambda g: (-(g["device_ms"] if g["device_ms"] is not None else -1), -g["host_ms"]))
        return rows

    def table(self, limit: int | None = None) -> str:
        """The totals as a text table (``limit`` rows at most), with a total line."""
        rows = self.totals()[:limit]
        head = ("primitive", "op", "dtype", "calls", "host ms", "host us/call", "device ms", "device us/call",
                "shapes")
        body = []
        for g in rows:
            dev = g["device_ms"]
            body.append((g["primitive"], g["op"], g["dtype"], str(g["calls"]), f"{g['host_ms']:.3f}",
                         f"{1e3 * g['host_ms'] / g['calls']:.1f}", "-" if dev is None else f"{dev:.3f}",
                         "-" if dev is None else f"{1e3 * dev / g['calls']:.1f}",
                         ", ".join(str(s) for s in g["shapes"]) or "-"))
        host = sum(r.host_ms for r in self.records)
        device = [r.device_ms for r in self.records if r.device_ms is not None]
        body.append(("total", "", "", str(len(self.records)), f"{host:.3f}", "", f"{sum(device):.3f}" if device
                     else "-", "", ""))
        widths = [max(len(row[i]) for row in [head] + body) for i in range(len(head))]

        def line(row):
            return "  ".join(c.ljust(w) if i in (0, 1, 2, 8) else c.rjust(w)
                             for i, (c, w) in enumerate(zip(row, widths))).rstrip()

        return "\n".join([line(head), line(tuple("-" * w for w in widths))] + [line(r) for r in body])

    def __str__(self) -> str:
        return self.table()

    def plot(self, ax: Any = None) -> Any:
        """A timeline: each call as a bar on its thread's host lane and its stream's device
        lane, colored by primitive; returns the matplotlib Figure (matplotlib is imported
        here: it is needed for the plot only)."""
        import matplotlib.pyplot as plt  # optional library, loaded lazily (the plot only)

        lanes: list[tuple[str, float, float, str]] = []
        for r in self.records:
            lanes.append((f"host {r.thread:x}", r.start_ms, r.host_ms, r.primitive))
            if r.device_ms is not None and r.device_start_ms is not None:
                lanes.append((f"{r.device} {r.stream}", r.device_start_ms, r.device_ms, r.primitive))
        names = list(dict.fromkeys(lane for lane, *_ in lanes))
        prims = list(dict.fromkeys(p for *_, p in lanes))
        colors = {p: plt.cm.tab20(i % 20) for i, p in enumerate(prims)}
        if ax is None:
            fig, ax = plt.subplots(figsize=(10, 1 + 0.5 * max(len(names), 1)))
        else:
            fig = ax.figure
        for lane, start, width, prim in lanes:
            ax.broken_barh([(start, max(width, 1e-4))], (names.index(lane) - 0.4, 0.8), color=colors[prim])
        ax.set_yticks(range(len(names)), names)
        ax.set_xlabel("ms (host lanes: host clock from the profile's start; device lanes: device clock "
                      "from its first call)")
        handles = [plt.Rectangle((0, 0), 1, 1, color=colors[p]) for p in prims]
        if handles:
            ax.legend(handles, prims, loc="upper left", bbox_to_anchor=(1.01, 1), fontsize="small")
        ax.invert_yaxis()
        fig.tight_layout()
        return fig


def _stream_name(stream):
    if stream is None:
        return ""
    ptr = getattr(stream, "ptr", None)
    return f"stream 0x{ptr:x}" if isinstance(ptr, int) else f"stream {id(stream) & 0xFFFF:04x}"


def profile() -> Profile:
    """Record every primitive call made inside a ``with`` block, on every device.

    Parameters
    ----------

    Returns
    -------
    Profile
        A context manager; after the block, ``records``, ``table()`` and ``plot()``.

    Raises
    ------

    Examples
    --------
    >>> import candlewick as cw
    >>> x = cw.ones(1000)
    >>> with cw.profile() as p:
    ...     y = cw.exp(x) + 1
    >>> [(r.primitive, r.op) for r in p.records]
    [('unary', 'exp'), ('binary_scalar', 'add')]
    """
    return Profile()
