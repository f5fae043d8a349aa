"""Error types raised by candlewick and its backends.

Every class derives from the built-in exception a NumPy user would catch
(TypeError, ValueError, IndexError, MemoryError, RuntimeError), so code written
against NumPy's exceptions keeps working.
"""

from __future__ import annotations


class CandlewickError(Exception):
    """Base of every error raised by candlewick itself."""


class DTypeError(CandlewickError, TypeError):
    """A dtype that the operation does not accept, or that cannot be promoted."""


class ShapeError(CandlewickError, ValueError):
    """Shapes that do not broadcast or do not fit the operation."""


class AxisError(CandlewickError, IndexError, ValueError):
    """An axis outside ``[-ndim, ndim)`` (IndexError and ValueError, like NumPy's)."""


class IndexOutOfBoundsError(CandlewickError, IndexError):
    """An index outside the dimension it indexes."""


class DeviceError(CandlewickError, ValueError):
    """A device string or object that names no device, or devices that are mixed."""


class DeviceMismatchError(DeviceError):
    """Operands on different devices: candlewick never copies between devices silently."""


class BackendUnavailableError(DeviceError, RuntimeError):
    """The backend is registered but cannot run here; the message says why."""

    @classmethod
    def of(cls, name: str, reason: str) -> BackendUnavailableError:
        """The error for backend ``name`` that cannot run, with its reason: one wording for
        the registry and for a backend's own entry points (``rocm_backend.precompile``)."""
        return cls(f"backend {name!r} is unavailable: {reason}")


class UnsupportedOperation(CandlewickError, NotImplementedError):
    """A backend lacks a primitive for this op/dtype; it never falls back to another device."""

    def __init__(self, op: object, dtype: object = None, backend: str | None = None,
                 detail: str = "") -> None:
        self.op, self.dtype, self.backend = op, dtype, backend
        where = f" on backend {backend!r}" if backend else ""
        of = f" for dtype {dtype}" if dtype is not None else ""
        msg = f"operation {op!r}{of} is not supported{where}"
        super().__init__(msg + (f": {detail}" if detail else ""))


class DeviceMemoryError(CandlewickError, MemoryError):
    """A device allocation failed even after the allocator released its cache."""

    def __init__(self, device: object, requested: int, free: int | None = None, detail: str = "") -> None:
        self.device, self.requested, self.free = device, requested, free
        free_s = f", {free} bytes free" if free is not None else ""
        super().__init__(
            f"out of memory on {device}: asked for {requested} bytes{free_s}"
            + (f" ({detail})" if detail else "")
        )


class LinAlgError(CandlewickError, ValueError):
    """A matrix for which the decomposition or solve does not exist (singular, not positive definite)."""


class BackendError(CandlewickError, RuntimeError):
    """A failure inside a backend's runtime (driver call, compiler, library)."""


class ApiVersionError(CandlewickError, RuntimeError):
    """A function of a newer Array API revision than the one selected
    (``candlewick.set_array_api_version``, ``CANDLEWICK_ARRAY_API_VERSION``)."""
