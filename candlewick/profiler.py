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

import enum
import threading
import time
from typing import Any

from . import dtypes as _dt
from . import registry
from .backend import BackendDevice, BackendStorage, protocol_methods
from .backend_runtime import ProfilerRangeDevice, StreamDevice
from .errors import CandlewickError
from .layout import Layout
from .profile_report import ProfileReport, Record

__all__ = ["Profile", "Record", "profile"]

#: optional hooks that run work, wrapped beside the protocol's primitives
_STORAGE_HOOKS = ("to_device", "to_host_async")
_DEVICE_HOOKS = ("storage_from_dlpack", "storage_from_host_async")
_NOT_WRAPPED = frozenset({"same_device", "memory_info"})
_MISSING = object()


class _Local(threading.local):
    depth = 0  # primitive calls in progress on this thread (only the outermost is recorded)


_local = _Local()
_lock = threading.RLock()
_active: list[Profile] = []
_patched: dict[type, dict[str, Any]] = {}  # class -> {method name: its own attribute or _MISSING}
_event_pools: dict[Any, list] = {}  # device -> timing events free for reuse


def _primitive_names(protocol, hooks):
    return [n for n in protocol_methods(protocol) + list(hooks) if n not in _NOT_WRAPPED]


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


class Profile(ProfileReport):
    """What ``profile()`` recorded: ``records`` (a list of ``Record``), ``table()``,
    ``plot()`` (``profile_report``). Filled when the ``with`` block ends."""

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
