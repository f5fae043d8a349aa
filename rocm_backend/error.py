"""[error] Every error class of the ROCm backend, and the one helper that turns a
status into an exception.

hip-python returns every call's status first in a tuple: ``(err,)``, ``(err, value)`` or
``(err, v1, v2, ...)``. ``check`` is the only place that unpacks those tuples, for HIP,
hipRTC, hipBLAS and RCCL alike (each status enum has 0 for success and a ``.name``). MIOpen's C calls
(``bindings/miopen_c.py``) return a plain ``miopenStatus_t`` int: ``MIOpenError`` names it.
"""

from candlewick.errors import BackendError


class RocmError(BackendError):
    """A HIP / hipRTC / hipBLAS call returned a failure status."""

    def __init__(self, call, status, detail=""):
        self.call = call
        self.status = status
        self.detail = detail  # e.g. hipRTC's log of a failed compilation
        self.status_name = status_name(status)
        msg = f"{call} failed: {self.status_name}"
        super().__init__(msg + (f"\n{detail}" if detail else ""))


class RcclError(RocmError):
    """An RCCL call returned a failure status (``ncclResult_t``: ncclInvalidUsage, ...)."""


class RocmOutOfMemory(RocmError):
    """An allocation call reported out-of-memory (the allocator retries, then raises
    candlewick.errors.DeviceMemoryError)."""


class RocmDeviceFault(RocmError):
    """A kernel faulted on the device (an illegal address, a failed launch, a device-side
    assert). The HIP runtime keeps such an error for the rest of the process: every later
    call on the device returns it, so this class says so rather than leaving a bare
    status. On AMD GPUs the ROCm runtime usually ends the process itself at such a fault
    ("Memory access fault by GPU"); isolate work that may fault in a subprocess."""

    def __init__(self, call, status, detail=""):
        super().__init__(call, status, detail)
        self.args = (
            f"{self.args[0]}\na kernel faulted on the device ({self.status_name}); the HIP runtime keeps "
            f"this error for the rest of the process, so the GPU cannot be used again in it (every later "
            f"call on it raises this error). Other candlewick devices (cpu) still work; restart the "
            f"process to use the GPU again.",
        )


#: miopenStatus_t names by value
_MIOPEN_STATUS = ("miopenStatusSuccess", "miopenStatusNotInitialized", "miopenStatusInvalidValue",
                  "miopenStatusBadParm", "miopenStatusAllocFailed", "miopenStatusInternalError",
                  "miopenStatusNotImplemented", "miopenStatusUnknownError", "miopenStatusUnsupportedOp")


class MIOpenError(BackendError):
    """A MIOpen call failed."""

    def __init__(self, call, status):
        self.call, self.status = call, int(status)
        name = (_MIOPEN_STATUS[self.status] if 0 <= self.status < len(_MIOPEN_STATUS)
                else f"status {self.status}")
        super().__init__(f"{call} failed: {name}")


_OOM_NAMES = ("hipErrorOutOfMemory", "hipErrorMemoryAllocation")
# statuses the runtime keeps for the rest of the process (the context is lost)
_FAULT_NAMES = ("hipErrorIllegalAddress", "hipErrorLaunchFailure", "hipErrorAssert", "hipErrorLaunchTimeOut")


def error_for(call, status, detail=""):
    """The RocmError subclass instance for a failure ``status`` of ``call``."""
    name = status_name(status)
    cls = RocmOutOfMemory if name in _OOM_NAMES else RocmDeviceFault if name in _FAULT_NAMES else RocmError
    return cls(call, status, detail)


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
        raise error_for(call_name, status)
    if not values:
        return None
    if len(values) == 1:
        return values[0]
    return values
