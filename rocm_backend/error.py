"""Errors of the ROCm backend and the one helper that turns a status into an exception.

hip-python returns every call's status first in a tuple: ``(err,)``, ``(err, value)`` or
``(err, v1, v2, ...)``. ``check`` is the only place that unpacks those tuples, for HIP,
hipRTC, hipBLAS and RCCL alike (each status enum has 0 for success and a ``.name``).
"""

from candlewick.errors import BackendError


class RocmError(BackendError):
    """A HIP / hipRTC / hipBLAS call returned a failure status."""

    def __init__(self, call, status, detail=""):
        self.call = call
        self.status = status
        self.status_name = status_name(status)
        msg = f"{call} failed: {self.status_name}"
        super().__init__(msg + (f"\n{detail}" if detail else ""))


class RcclError(RocmError):
    """An RCCL call returned a failure status (``ncclResult_t``: ncclInvalidUsage, ...)."""


class RocmOutOfMemory(RocmError):
    """An allocation call reported out-of-memory (the allocator retries, then raises
    candlewick.errors.DeviceMemoryError)."""


_OOM_NAMES = ("hipErrorOutOfMemory", "hipErrorMemoryAllocation")


def status_name(status):
    name = getattr(status, "name", None)
    return name if name else f"status {int(status)}"


def check(call_name, result):
    """Unpack a hip-python result tuple: raise RocmError on failure, else return the
    value (None for a status-only call, a tuple when the call returns several)."""
    if isinstance(result, tuple):
        status, values = result[0], result[1:]
    else:
        status, values = result, ()
    if int(status) != 0:
        cls = RocmOutOfMemory if status_name(status) in _OOM_NAMES else RocmError
        raise cls(call_name, status)
    if not values:
        return None
    if len(values) == 1:
        return values[0]
    return values
