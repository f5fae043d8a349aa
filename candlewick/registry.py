"""Device selection: the devices of the registered backends, opened by name, and the
default device.

``get_device("rocm:1")`` loads the backend through ``backend_discovery`` (which finds,
loads and probes backends; its public names are re-exported here) and opens each device
once; ``set_default_device``/``default_device`` choose where arrays go when no device is
given, else ``CANDLEWICK_DEVICE``, else ``FALLBACK_DEVICE``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import contextlib
import contextvars
import functools
import os

from .backend_discovery import ENTRY_POINT_GROUP, LOCK, BackendInfo, backends, get_backend, unknown_backend_message
from .errors import DeviceError, UnsupportedOperation, short_repr
from .named_device import named

if TYPE_CHECKING:
    from collections.abc import Iterator

    from ._types import DeviceLike
    from .backend import BackendDevice

__all__ = [
    "ENTRY_POINT_GROUP", "FALLBACK_DEVICE", "BackendInfo", "add_device_listener", "all_devices", "backends",
    "default_device", "default_device_now", "device_implementing", "get_backend", "get_device", "named",
    "opened_devices", "parse_device_string", "remove_device_listener", "set_default_device",
    "unknown_backend_message",
]

#: the device used when none is chosen (no default set, no CANDLEWICK_DEVICE)
FALLBACK_DEVICE = "cpu"

_device_types: dict[type, object] = {}  # classes whose instances pass get_device's device check -> the first seen
_devices: dict[tuple | str, BackendDevice] = {}  # (name, ordinal), and each spelling seen -> device
_listeners: list = []  # called with each device the registry opens, and each new device class seen


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
        with LOCK:
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

def opened_devices():
    """The devices opened so far through ``get_device`` and the first device object of each
    other class it was handed, without opening any."""
    with LOCK:
        return list({id(d): d for d in [*_devices.values(), *_device_types.values()]}.values())


def add_device_listener(listener):
    """Call ``listener(device)`` for each device the registry opens from now on, and for the
    first device object of each new class it is handed (``candlewick.profile`` wraps their
    classes)."""
    with LOCK:
        _listeners.append(listener)


def remove_device_listener(listener):
    with LOCK:
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
