"""Backend discovery: which backends are registered, loading and probing them.

Backends are found through the entry-point group ``candlewick.backends``; this
project's own ``cpu`` and ``rocm`` are also known by name so that a source checkout
works before it is installed. Nothing here imports a backend until it is asked for,
and a backend that fails to import or probe is reported, never raised at import.
(``registry`` opens their devices and re-exports this module's public names.)
"""

from __future__ import annotations

import difflib
import importlib
import threading
from dataclasses import dataclass, field
from importlib.metadata import entry_points

from .errors import ArgumentTypeError, BackendUnavailableError, DeviceError

ENTRY_POINT_GROUP = "candlewick.backends"
_BUILTIN = {"cpu": "cpu_backend:BACKEND", "rocm": "rocm_backend:BACKEND"}

#: the one lock of the registry's state, this module's and the devices ``registry`` opens:
#: opening a device loads its backend, and a backend's ``device()`` may open another
#: backend's device (the tracing backend wraps one), so one reentrant lock serves both
LOCK = threading.RLock()
_specs = None  # name -> "module:attr" or an EntryPoint
_loaded: dict[str, object] = {}  # name -> Backend object, or the exception that loading raised
_probes: dict[str, tuple] = {}  # name -> (available, reason)


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
    with LOCK:
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
    with LOCK:
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
