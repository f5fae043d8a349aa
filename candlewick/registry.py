"""Backend discovery and device selection.

Backends are found through the entry-point group ``candlewick.backends``; this
project's own ``cpu`` and ``rocm`` are also known by name so that a source checkout
works before it is installed. Nothing here imports a backend until it is asked for,
and a backend that fails to import or probe is reported, never raised at import.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import contextlib
import difflib
import contextvars
import importlib
import functools
import os
import threading
from dataclasses import dataclass, field
from importlib.metadata import entry_points

from .errors import ArgumentTypeError, BackendUnavailableError, DeviceError, UnsupportedOperation, short_repr
from .named_device import NamedDevice

if TYPE_CHECKING:
    from collections.abc import Iterator

    from ._types import DeviceLike
    from .backend import BackendDevice

ENTRY_POINT_GROUP = "candlewick.backends"
_BUILTIN = {"cpu": "cpu_backend:BACKEND", "rocm": "rocm_backend:BACKEND"}
#: the device used when none is chosen (no default set, no CANDLEWICK_DEVICE)
FALLBACK_DEVICE = "cpu"

_lock = threading.RLock()
_specs = None  # name -> "module:attr" or an EntryPoint
_loaded: dict[str, object] = {}  # name -> Backend object, or the exception that loading raised
_probes: dict[str, tuple] = {}  # name -> (available, reason)
_device_types: dict[type, object] = {}  # classes whose instances pass get_device's device check -> the first seen
_devices: dict[tuple | str, BackendDevice] = {}  # (name, ordinal), and each spelling seen -> device
_listeners: list = []  # called with each device the registry opens, and each new device class seen


@dataclass(frozen=True)
class BackendInfo:
    """One row of ``candlewick.backends()``."""

    name: str
    available: bool
    reason: str
    device_count: int = 0
    source: str = ""
    details: dict = field(default_factory=dict)

    def __str__(self) -> str:
        state = f"available, {self.device_count} device(s)" if self.available else f"unavailable: {self.reason}"
        extra = "".join(f"; {k}: {v}" for k, v in self.details.items())
        return f"{self.name}: {state}{extra}"


def _discover():
    global _specs
    if _specs is not None:
        return _specs
    specs = dict(_BUILTIN)
    try:
        for ep in entry_points(group=ENTRY_POINT_GROUP):
            specs[ep.name] = ep
    except Exception:  # a broken distribution must not break candlewick
        pass
    _specs = specs
    return specs


def _load(name):
    with _lock:
        if name in _loaded:
            obj = _loaded[name]
        else:
            spec = _discover().get(name)
            if spec is None:
                raise DeviceError(unknown_backend_message(name, sorted(_discover())))
            try:
                if isinstance(spec, str):
                    module, _, attr = spec.partition(":")
                    obj = getattr(importlib.import_module(module), attr)
                else:
                    obj = spec.load()
                for required in ("probe", "device_count", "device"):
                    if not callable(getattr(obj, required, None)):
                        raise ArgumentTypeError(f"backend object has no callable {required!r}")
            except Exception as exc:
                obj = exc
            _loaded[name] = obj
        if isinstance(obj, Exception):
            raise BackendUnavailableError(
                f"backend {name!r} could not be loaded: {type(obj).__name__}: {obj}; "
                f"reinstall the package that provides it"
            ) from obj
        return obj


# names people from other GPU libraries try first, and the backend that serves them here
_GPU_ALIASES = {"cuda": "rocm", "gpu": "rocm", "hip": "rocm", "amd": "rocm", "mps": None}


def unknown_backend_message(name, registered):
    """'unknown backend' with the registered names and, where one is close, a suggestion."""
    message = f"unknown backend {name!r}; registered backends: {registered}"
    guess = _GPU_ALIASES.get(name.lower())
    if guess in registered:
        return message + f"; did you mean {guess!r}? (GPUs run through the {guess!r} backend)"
    close = difflib.get_close_matches(name.lower(), registered, n=2, cutoff=0.6)
    if close:
        return message + f"; did you mean {' or '.join(map(repr, close))}?"
    return message


def _probe(name):
    with _lock:
        if name not in _probes:
            try:
                backend = _load(name)
                ok, reason = backend.probe()
                ok, reason = bool(ok), str(reason or "")
            except BackendUnavailableError as exc:
                ok, reason = False, str(exc)
            except Exception as exc:
                ok, reason = False, (f"probe failed: {type(exc).__name__}: {exc}; reinstall the "
                                     f"package that provides the backend")
            _probes[name] = (ok, reason)
        return _probes[name]


def backends() -> list[BackendInfo]:
    """Every registered backend, available or not, with the reason it is not.

    Parameters
    ----------


    Returns
    -------
    list of BackendInfo
        One row per backend: ``name``, ``available``, ``reason`` (what to install or set
        when unavailable), ``device_count``, ``source`` and ``details``.

    Raises
    ------


    Examples
    --------
    >>> import candlewick as cw
    >>> any(b.name == "cpu" and b.available for b in cw.backends())
    True
    """
    rows = []
    for name, spec in sorted(_discover().items()):
        source = spec if isinstance(spec, str) else f"{spec.value} (entry point)"
        ok, reason = _probe(name)
        count, details = 0, {}
        if ok:
            try:
                backend = _load(name)
                count = int(backend.device_count())
                details = dict(getattr(backend, "details", dict)() or {})
            except Exception as exc:
                ok, reason = False, f"{type(exc).__name__}: {exc}"
        rows.append(BackendInfo(name, ok, reason, count, source, details))
    return rows


def get_backend(name):
    """The backend object, or BackendUnavailableError saying why it cannot run
    (DeviceError, with a suggestion, for a name no backend is registered under)."""
    registered = _discover()
    if name not in registered:
        raise DeviceError(unknown_backend_message(name, sorted(registered)))
    ok, reason = _probe(name)
    if not ok:
        raise BackendUnavailableError.of(name, reason)
    return _load(name)


def parse_device_string(spec):
    name, sep, ordinal = spec.strip().partition(":")
    if not name or (sep and not ordinal.isdigit()):
        raise DeviceError(f"device must look like 'cpu', 'rocm' or 'rocm:1', got {short_repr(spec)}")
    return name, int(ordinal) if sep else 0


def get_device(spec: DeviceLike | None) -> BackendDevice:
    """Resolve ``"cpu"``, ``"rocm"``, ``"rocm:1"`` or a device object to the device object.

    Parameters
    ----------
    spec : str, device or None
        The device; None for the default device.

    Returns
    -------
    device
        The device object (it compares equal to its name).

    Raises
    ------
    DeviceError
        If spec names no registered backend (the message suggests the registered ones) or no such device.
    BackendUnavailableError
        If the backend cannot run here; the message says what to install or set.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.get_device("cpu") == "cpu"
    True
    """
    if spec is None:
        return default_device_now()
    if isinstance(spec, str):
        dev = _devices.get(spec)  # the spelling seen before (every array creation asks)
        if dev is not None:
            return dev
        key = parse_device_string(spec)
        dev = _devices.get(key)
        if dev is not None:
            _devices[spec] = dev
            return dev
        with _lock:
            if key in _devices:
                return _devices[key]
            backend = get_backend(key[0])
            count = backend.device_count()
            if not 0 <= key[1] < count:
                raise DeviceError(
                    f"device {spec!r} does not exist: backend {key[0]!r} has {count} device(s)"
                )
            dev = _devices[key] = _devices[spec] = named(backend.device(key[1]))
            for listener in list(_listeners):
                listener(dev)
            return dev
    if type(spec) in _device_types:  # a class already seen to be a device class
        return spec
    if hasattr(spec, "backend") and hasattr(spec, "ordinal") and hasattr(spec, "storage_from_host"):
        if hasattr(type(spec), "storage_from_host"):  # a method of the class: every instance has it
            _device_types[type(spec)] = spec
            for listener in list(_listeners):
                listener(spec)
        return spec
    raise DeviceError(f"device must be a string like 'cpu' or 'rocm:0' or a device object, got {short_repr(spec)}")


def device_implementing(spec, protocol, what, lacking):
    """The device of ``spec`` (None: the default device), which must implement the optional
    ``protocol`` of candlewick.backend; else ``UnsupportedOperation`` naming ``what`` was
    asked and what the device ``lacking`` (e.g. "has no streams")."""
    dev = get_device(spec)
    if not isinstance(dev, protocol):
        raise UnsupportedOperation(what, None, dev.backend, f"device {dev.name} {lacking} (it does not implement "
                                                            f"candlewick.backend.{protocol.__name__})")
    return dev


def named(device):
    """``device``, comparing equal to its name (``x.device == "tracing:0"``) on every
    backend: a device class that defines no equality of its own is given
    ``NamedDevice``'s (the instance moves to a subclass of its class that mixes it in,
    made once per class; its identity, attributes and ``isinstance`` stay). A class
    defining ``__eq__`` or ``__hash__`` keeps them; one whose instances cannot change class (a C type,
    ``__slots__`` that differ) keeps identity equality, which the conformance suite reports."""
    cls = type(device)
    if cls.__eq__ is not object.__eq__ or cls.__hash__ is not object.__hash__ \
            or not isinstance(getattr(device, "name", None), str):
        return device
    mixed = _NAMED_CLASSES.get(cls)
    try:
        if mixed is None:
            # (cls first: its layout is the instance's; nothing in its MRO defines __eq__)
            mixed = _NAMED_CLASSES[cls] = type(cls.__name__, (cls, NamedDevice), {
                "__slots__": (), "__module__": cls.__module__, "__qualname__": cls.__qualname__,
                "__doc__": cls.__doc__})
        device.__class__ = mixed
    except TypeError:
        pass
    return device


_NAMED_CLASSES: dict[type, type] = {}


def opened_devices():
    """The devices opened so far through ``get_device`` and the first device object of each
    other class it was handed, without opening any."""
    with _lock:
        return list({id(d): d for d in [*_devices.values(), *_device_types.values()]}.values())


def add_device_listener(listener):
    """Call ``listener(device)`` for each device the registry opens from now on, and for the
    first device object of each new class it is handed (``candlewick.profile`` wraps their
    classes)."""
    with _lock:
        _listeners.append(listener)


def remove_device_listener(listener):
    with _lock:
        if listener in _listeners:
            _listeners.remove(listener)


def all_devices():
    """Every device of every available backend."""
    out = []
    for info in backends():
        if info.available:
            for i in range(info.device_count):
                out.append(get_device(f"{info.name}:{i}"))
    return out


# --- default device ---------------------------------------------------------------

_context_device: contextvars.ContextVar[BackendDevice | None] = contextvars.ContextVar("candlewick_default_device", default=None)
_global_default = None


def set_default_device(device: DeviceLike | None) -> None:
    """Set the process-wide default device (a device string or object; None resets).

    Parameters
    ----------
    device : str, device or None
        The new default; None returns to CANDLEWICK_DEVICE or cpu.

    Returns
    -------
    None

    Raises
    ------
    DeviceError
        If device names no device.
    BackendUnavailableError
        If its backend cannot run here.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.set_default_device("cpu")
    >>> cw.asarray([1]).device == "cpu"
    True
    >>> cw.set_default_device(None)
    """
    global _global_default
    _global_default = None if device is None else get_device(device)


@contextlib.contextmanager
def default_device(device: DeviceLike) -> Iterator[BackendDevice]:
    """``with candlewick.default_device("rocm"):`` makes arrays there by default.

    Parameters
    ----------
    device : str or device
        The default device inside the block (this thread and task only).

    Returns
    -------
    context manager
        Yields the device object.

    Raises
    ------
    DeviceError
        If device names no device.
    BackendUnavailableError
        If its backend cannot run here.

    Examples
    --------
    >>> import candlewick as cw
    >>> with cw.default_device("cpu"):
    ...     x = cw.zeros(2)
    >>> x.device == "cpu"
    True
    """
    token = _context_device.set(get_device(device))
    try:
        yield _context_device.get()  # type: ignore[misc]  # just set to a device
    finally:
        _context_device.reset(token)


def _env_reader(name):
    """A function returning the environment variable ``name`` now (None when unset, str or
    bytes). Every array creation without a device asks: ``os.environ.get`` of an unset
    name costs about a microsecond (a KeyError inside); on POSIX ``os.environ`` keeps its
    encoded entries in the dict ``_data``, which every ``os.environ`` write updates, so a
    lookup there sees the same values in ~50 ns (rocm_backend's nn path settings do the same)."""
    data = getattr(os.environ, "_data", None)
    if os.name == "posix" and isinstance(data, dict):
        return functools.partial(data.get, os.fsencode(name))
    return functools.partial(os.environ.get, name)


_device_setting = _env_reader("CANDLEWICK_DEVICE")


def default_device_now():
    dev = _context_device.get()
    if dev is not None:
        return dev
    if _global_default is not None:
        return _global_default
    raw = _device_setting()
    if not raw:  # (every array creation without a device comes here: the cache read inline)
        return _devices.get(FALLBACK_DEVICE) or get_device(FALLBACK_DEVICE)
    env = os.fsdecode(raw)
    try:
        return get_device(env)
    except DeviceError as exc:  # name the variable: the user never passed this device
        raise type(exc)(f"the environment variable CANDLEWICK_DEVICE={short_repr(env)} names no usable "
                        f"device: {exc}") from exc
