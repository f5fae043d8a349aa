"""Backend discovery and device selection.

Backends are found through the entry-point group ``candlewick.backends``; this
project's own ``cpu`` and ``rocm`` are also known by name so that a source checkout
works before it is installed. Nothing here imports a backend until it is asked for,
and a backend that fails to import or probe is reported, never raised at import.
"""

import contextlib
import contextvars
import importlib
import os
import threading
from dataclasses import dataclass, field

from .errors import ArgumentTypeError, BackendUnavailableError, DeviceError, short_repr

ENTRY_POINT_GROUP = "candlewick.backends"
_BUILTIN = {"cpu": "cpu_backend:BACKEND", "rocm": "rocm_backend:BACKEND"}

_lock = threading.RLock()
_specs = None  # name -> "module:attr" or an EntryPoint
_loaded = {}  # name -> Backend object, or the exception that loading raised
_probes = {}  # name -> (available, reason)
_devices = {}  # (name, ordinal) -> device


@dataclass(frozen=True)
class BackendInfo:
    """One row of ``candlewick.backends()``."""

    name: str
    available: bool
    reason: str
    device_count: int = 0
    source: str = ""
    details: dict = field(default_factory=dict)

    def __str__(self):
        state = f"available, {self.device_count} device(s)" if self.available else f"unavailable: {self.reason}"
        extra = "".join(f"; {k}: {v}" for k, v in self.details.items())
        return f"{self.name}: {state}{extra}"


def _discover():
    global _specs
    if _specs is not None:
        return _specs
    specs = dict(_BUILTIN)
    try:
        from importlib.metadata import entry_points

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
                raise DeviceError(
                    f"unknown backend {name!r}; registered backends: {sorted(_discover())}"
                )
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
                f"backend {name!r} could not be loaded: {type(obj).__name__}: {obj}"
            ) from obj
        return obj


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
                ok, reason = False, f"probe failed: {type(exc).__name__}: {exc}"
            _probes[name] = (ok, reason)
        return _probes[name]


def backends():
    """Every registered backend, available or not, with the reason it is not."""
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
    """The backend object, or BackendUnavailableError saying why it cannot run."""
    ok, reason = _probe(name)
    if not ok:
        raise BackendUnavailableError(f"backend {name!r} is unavailable: {reason}")
    return _load(name)


def parse_device_string(spec):
    name, sep, ordinal = spec.strip().partition(":")
    if not name or (sep and not ordinal.isdigit()):
        raise DeviceError(f"device must look like 'cpu', 'rocm' or 'rocm:1', got {short_repr(spec)}")
    return name, int(ordinal) if sep else 0


def get_device(spec):
    """Resolve ``"cpu"``, ``"rocm"``, ``"rocm:1"`` or a device object to the device object."""
    if spec is None:
        return default_device_now()
    if isinstance(spec, str):
        key = parse_device_string(spec)
        dev = _devices.get(key)
        if dev is not None:
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
            dev = _devices[key] = backend.device(key[1])
            return dev
    if hasattr(spec, "backend") and hasattr(spec, "ordinal") and hasattr(spec, "storage_from_host"):
        return spec
    raise DeviceError(f"device must be a string like 'cpu' or 'rocm:0' or a device object, got {short_repr(spec)}")


def all_devices():
    """Every device of every available backend."""
    out = []
    for info in backends():
        if info.available:
            for i in range(info.device_count):
                out.append(get_device(f"{info.name}:{i}" if info.name != "cpu" else "cpu"))
    return out


# --- default device ---------------------------------------------------------------

_context_device = contextvars.ContextVar("candlewick_default_device", default=None)
_global_default = None


def set_default_device(device):
    """Set the process-wide default device (a device string or object; None resets)."""
    global _global_default
    _global_default = None if device is None else get_device(device)


@contextlib.contextmanager
def default_device(device):
    """``with candlewick.default_device("rocm"):`` makes arrays there by default."""
    token = _context_device.set(get_device(device))
    try:
        yield _context_device.get()
    finally:
        _context_device.reset(token)


def default_device_now():
    dev = _context_device.get()
    if dev is not None:
        return dev
    if _global_default is not None:
        return _global_default
    env = os.environ.get("CANDLEWICK_DEVICE")
    if not env:
        return get_device("cpu")
    try:
        return get_device(env)
    except DeviceError as exc:  # name the variable: the user never passed this device
        raise type(exc)(f"the environment variable CANDLEWICK_DEVICE={short_repr(env)} names no usable "
                        f"device: {exc}") from exc
