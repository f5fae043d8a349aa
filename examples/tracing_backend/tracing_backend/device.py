"""The tracing backend and device: every call goes to a wrapped backend's device and
is recorded on the way (``recorder.Recorder``)."""

import os

import numpy as np

from candlewick import dtypes as dt
from candlewick import registry
from candlewick.backend import BackendDevice, protocol_methods
from candlewick.errors import CandlewickError, UnsupportedOperation

from .recorder import Recorder
from .storage import result_bytes, unwrap, wrap_result

#: which registered backend the tracing backend wraps (default: cpu)
WRAPS_ENV = "CANDLEWICK_TRACING_WRAPS"
#: comma list of dtypes, optional groups and optional hooks ("real_view") the tracing
#: device does not declare, even if the wrapped one does (e.g. "float64,complex128,fft":
#: a GPU without double precision; "real_view": real/imag copy their parts;
#: "host_memory": memory the host does not read, as a GPU's)
HIDE_ENV = "CANDLEWICK_TRACING_HIDE"
NAME = "tracing"


def _traced(name):
    def primitive(self, *args, **kwargs):
        every = list(args) + list(kwargs.values())
        self.require_declared(name, every)
        result = getattr(self.inner, name)(*map(unwrap, args),
                                           **{k: unwrap(v) for k, v in kwargs.items()})
        read = sum(a.nbytes for a in every if isinstance(a, np.ndarray))
        dtypes = [a for a in every if isinstance(a, dt.DType)] + [getattr(result, "dtype", None)]
        dtype = next((d.name for d in dtypes if isinstance(d, dt.DType)), "")
        self.recorder.record(name, "", dtype, read, result_bytes(result))
        return wrap_result(result, self)

    primitive.__name__ = name
    primitive.__doc__ = getattr(BackendDevice, name).__doc__
    return primitive


_NOT_FORWARDED = frozenset({"inner", "hidden", "storage_from_dlpack", "storage_from_host_async", "pinned_empty",
                            "new_stream", "current_stream", "set_current_stream", "new_event"})


class TracingDevice:
    """Device ``tracing:N`` over device N of the wrapped backend (``inner``)."""

    backend = NAME

    def __init__(self, inner, recorder, hidden=()):
        self.inner = inner
        self.recorder = recorder
        self.ordinal = inner.ordinal
        self.name = f"{NAME}:{inner.ordinal}"
        self.dtypes = tuple(d for d in inner.dtypes if d.name not in hidden)
        self.capabilities = tuple(g for g in inner.capabilities if g not in hidden)
        self.hidden = frozenset(hidden)  # (the storages read it for their optional hooks)

    def require_declared(self, name, values):
        """Withheld dtypes are refused as on a device without them: by name, never computed."""
        for value in values:
            dtype = dt.from_numpy(value.dtype) if isinstance(value, np.ndarray) else value
            if isinstance(dtype, dt.DType) and dtype not in self.dtypes:
                raise UnsupportedOperation(name, dtype.name, NAME, f"{self.name} does not declare {dtype.name}")

    def same_device(self, other):
        self.recorder.record("same_device", "", "", 0, 0)
        return other is self

    @property
    def storage_from_dlpack(self):
        """DLPack import, only where the wrapped device has it (``candlewick.backend.DLPackDevice``)."""
        inner_import = self.inner.storage_from_dlpack  # AttributeError: this device has none either

        def storage_from_dlpack(obj, copy):
            imported = inner_import(obj, copy)
            if imported is None:
                return None
            storage, layout = imported
            self.recorder.record("storage_from_dlpack", "", storage.dtype.name, 0, 0)
            return wrap_result(storage, self), layout

        return storage_from_dlpack

    def __getattr__(self, name):
        # other declarations of the wrapped device (host-readable memory, memory statistics,
        # ...) hold for the tracing device too: its storages are the wrapped device's own buffers
        if name in _NOT_FORWARDED or name in self.hidden or name.startswith(("__", "collective_")):
            # (collectives and non-blocking uploads would hand out the wrapped backend's
            # storages, untraced; streams and events would be the wrapped device's, whose
            # ``device`` is not this one: none here)
            raise AttributeError(name)
        return getattr(self.inner, name)

    def __repr__(self):
        return f"TracingDevice({self.name} over {self.inner.name})"


for _name in protocol_methods(BackendDevice):
    if _name != "same_device":
        setattr(TracingDevice, _name, _traced(_name))


class TracingBackend:
    """The ``candlewick.backends`` entry point: wraps the backend ``wraps`` names (default:
    ``$CANDLEWICK_TRACING_WRAPS``, else ``cpu``), read when first used."""

    name = NAME

    def __init__(self, wraps=None, hide=None):
        self._wraps = wraps
        self._hide = hide
        self.recorder = Recorder()

    @property
    def wraps(self):
        return self._wraps or os.environ.get(WRAPS_ENV, "cpu")

    @property
    def hidden(self):
        spec = self._hide if self._hide is not None else os.environ.get(HIDE_ENV, "")
        return frozenset(s.strip() for s in spec.split(",") if s.strip())

    def probe(self):
        if self.wraps == NAME:
            return False, f"{WRAPS_ENV} names the tracing backend itself"
        try:
            registry.get_backend(self.wraps)
        except CandlewickError as exc:
            return False, f"wrapped backend {self.wraps!r}: {exc}"
        return True, ""

    def device_count(self):
        return registry.get_backend(self.wraps).device_count()

    def device(self, ordinal):
        inner = registry.get_device(f"{self.wraps}:{ordinal}")
        return TracingDevice(inner, self.recorder, self.hidden)

    def details(self):
        hidden = ", ".join(sorted(self.hidden))
        return {"wraps": self.wraps, **({"hides": hidden} if hidden else {})}
