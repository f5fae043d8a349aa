"""``TracingStorage``: a wrapped backend's storage whose every primitive is recorded,
then forwarded unchanged."""

import enum

import numpy as np

from candlewick.backend import OPTIONAL_PRIMITIVES, BackendStorage, protocol_methods
from candlewick.layout import Layout

#: primitives that write into ``self`` through their first layout instead of returning
#: (with the optional group "inplace": unary_into, binary_into, ...)
IN_PLACE = frozenset({"assign", "fill", "scatter", "scatter_add", "index_add",
                      *OPTIONAL_PRIMITIVES["inplace"]})


def unwrap(value):
    """The wrapped storage; in a list or tuple argument (``concat``'s ``rest`` of
    (storage, layout) pairs) each element unwrapped."""
    if isinstance(value, (list, tuple)):
        return type(value)(unwrap(v) for v in value)
    return value.inner if isinstance(value, TracingStorage) else value


def flattened(values):
    """The arguments with list and tuple arguments spread out, in order."""
    out = []
    for v in values:
        if isinstance(v, (list, tuple)):
            out.extend(flattened(v))
        else:
            out.append(v)
    return out


def _is_storage(value):
    return hasattr(value, "to_host") and hasattr(value, "dtype")


def wrap_result(result, device):
    """Wrap every storage in a primitive's result (a storage, a tuple of them, an ndarray,
    numbers such as memory_info's, None)."""
    if isinstance(result, tuple):
        return tuple(wrap_result(r, device) for r in result)
    return TracingStorage(result, device) if _is_storage(result) else result


def result_bytes(result):
    if isinstance(result, tuple):
        return sum(result_bytes(r) for r in result)
    if isinstance(result, np.ndarray):
        return result.nbytes
    return result.size * result.dtype.itemsize if _is_storage(result) else 0


def viewed_bytes(storages, layouts):
    """Bytes the layouts view; the n-th layout argument views the n-th storage (self first)."""
    return sum(layout.size * storage.dtype.itemsize for storage, layout in zip(storages, layouts))


def op_name(args):
    """The op enum member among the arguments (unary/binary/compare/reduce/scan), or ""."""
    return next((a.value for a in args if isinstance(a, enum.Enum)), "")


def _traced(name):
    def primitive(self, *args, **kwargs):
        if name == "astype":
            self.device.require_declared(name, args[1:2] + tuple(kwargs.values()))
        result = getattr(self.inner, name)(*map(unwrap, args),
                                           **{k: unwrap(v) for k, v in kwargs.items()})
        every = flattened(list(args) + list(kwargs.values()))
        storages = [self] + [a for a in every if isinstance(a, TracingStorage)]
        layouts = [a for a in every if isinstance(a, Layout)]
        read = viewed_bytes(storages, layouts)
        written = viewed_bytes(storages[:1], layouts[:1]) if name in IN_PLACE else result_bytes(result)
        self.device.recorder.record(name, op_name(every), self.dtype.name, read, written)
        return wrap_result(result, self.device)

    primitive.__name__ = name
    primitive.__doc__ = getattr(BackendStorage, name).__doc__
    return primitive


class TracingStorage:
    """Holds the wrapped storage (``inner``) and the tracing device that owns it."""

    __slots__ = ("inner", "device")

    def __init__(self, inner, device):
        self.inner = inner
        self.device = device

    @property
    def dtype(self):
        return self.inner.dtype

    @property
    def size(self):
        return self.inner.size

    def __getattr__(self, name):
        # hooks outside the primitive set (DLPack export, host-memory access) are the
        # wrapped backend's own and take no storage: forwarded as they are, untraced
        if name == "inner" or name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.inner, name)

    def real_view(self):
        """The optional hook ``candlewick.backend.ComplexViewStorage`` of the wrapped
        storage's class, its result wrapped (the hook hands out a storage, so the
        ``__getattr__`` above must not forward it); None where the wrapped storage has no
        such view or ``CANDLEWICK_TRACING_HIDE`` names it. Recorded with no bytes: a view
        moves none."""
        hook = None if "real_view" in self.device.hidden else getattr(type(self.inner), "real_view", None)
        parts = None if hook is None else hook(self.inner)
        if parts is None:
            return None
        self.device.recorder.record("real_view", "", self.dtype.name, 0, 0)
        return TracingStorage(parts, self.device)

    def host_view(self, layout):
        """The optional hook ``candlewick.backend.HostViewStorage`` of the wrapped storage's
        class: NumPy's view of the wrapped buffer (the front end looks for the hook on the
        class, so the ``__getattr__`` above does not reach it; a device forwarding
        ``host_memory`` must share as its wrapped one does). None where the wrapped storage
        has no such view or ``CANDLEWICK_TRACING_HIDE`` names it. Untraced, as the other
        host-memory access: no primitive, no bytes moved."""
        hook = None if "host_view" in self.device.hidden else getattr(type(self.inner), "host_view", None)
        return None if hook is None else hook(self.inner, layout)

    def __repr__(self):
        return f"TracingStorage({self.inner!r})"


for _name in protocol_methods(BackendStorage):
    setattr(TracingStorage, _name, _traced(_name))
