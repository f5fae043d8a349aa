"""The kernel-launch hot path: hipModuleLaunchKernel through ctypes.

hip-python is the backend's binding to HIP for everything else. Only this one call is
made through ctypes: hip-python converts each argument of ``hipModuleLaunchKernel``
into a wrapper object and builds a ``hipError_t`` enum for the result on every call
(about 5 µs through the HIP-on-CUDA shim on a CPU-only machine), while a ctypes call
with pre-built ``c_void_p`` arguments costs about 1.5 µs. A tiny element-wise op is
one launch, so this is a large share of its host overhead.

The ctypes handle is opened with ``RTLD_NOLOAD`` on the very file hip-python already
loaded (found in ``/proc/self/maps``, or through hip-python's own path resolver), so
both talk to one runtime instance: same context, same streams, same function handles.
Where that is impossible (another OS, a stand-in runtime in tests) launches go through
hip-python. ``CANDLEWICK_ROCM_RAW_LAUNCH=0`` forces hip-python too.
"""

import ctypes
import os

from .error import RocmError

_c_void_p = ctypes.c_void_p


def loaded_library_path(name):
    """The file of a shared library (``name``: e.g. "libamdhip64") this process has
    loaded, from /proc/self/maps; None when none is (or on another OS)."""
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                if name in line:
                    path = line.split(None, 5)[-1].strip()
                    if os.path.exists(path):
                        return path
    except OSError:
        pass
    return None


def loaded_runtime_path():
    """The libamdhip64 file this process has loaded (None when none is loaded)."""
    path = loaded_library_path("libamdhip64")
    if path is not None:
        return path
    try:  # hip-python's own resolver gives the path it dlopen()s
        from rocm.bindings.util.paths import get_library_path

        path = os.fsdecode(get_library_path("amdhip64"))
        return path if os.path.isabs(path) else None
    except Exception:
        return None


def raw_launch_function():
    """ctypes ``hipModuleLaunchKernel`` of the already-loaded runtime, or None.

    No ``argtypes``: callers pass ``c_void_p`` objects for the handles and the
    ``extra`` array and small Python ints (C ``int``) for the dimensions, which is the
    cheapest conversion ctypes offers. The call releases the GIL like hip-python's.
    """
    if os.environ.get("CANDLEWICK_ROCM_RAW_LAUNCH", "1") == "0":
        return None
    return loaded_function(loaded_runtime_path(), "hipModuleLaunchKernel")


def loaded_function(path, symbol):
    """ctypes ``symbol`` (returning a C int) of the library at ``path`` that this process
    already loaded (``RTLD_NOLOAD``: the very instance hip-python talks to); None when
    ``path`` is None or the library or symbol is not there."""
    if path is None:
        return None
    try:
        fn = getattr(ctypes.CDLL(path, mode=os.RTLD_NOLOAD | os.RTLD_NOW), symbol)
    except (OSError, AttributeError):
        return None
    fn.restype = ctypes.c_int
    return fn


def _status_name(code):
    try:
        from hip import hip

        return hip.hipError_t(code)
    except Exception:
        return code


class BoundKernel:
    """One loaded kernel of one device, with everything a launch needs pre-converted."""

    __slots__ = ("spec", "name", "fn", "fn_arg", "block")

    def __init__(self, spec, fn):
        self.spec = spec
        self.name = spec.name
        self.fn = fn  # hip-python's handle (the fallback path and other callers use it)
        self.fn_arg = _c_void_p(int(fn)) if _has_int(fn) else None
        self.block = spec.block


def _has_int(obj):
    try:
        int(obj)
        return True
    except (TypeError, ValueError):
        return False


class Launcher:
    """Launches on one device's stream: ``launch(kernel, grid, block, layout)``."""

    def __init__(self, device):
        from .device import hip_api

        self.device = device
        self.stream = device.stream
        self._hip_launch = hip_api().hip.hipModuleLaunchKernel
        self.raw = raw_launch_function()
        self.stream_arg = None
        if self.raw is not None and _has_int(device.stream):
            self.stream_arg = _c_void_p(int(device.stream))
        else:
            self.raw = None

    def launch(self, kernel, gx, gy, gz, bx, by, bz, layout, values):
        """Pack ``values`` into ``layout``'s launch buffer and queue the kernel."""
        with layout.lock:
            layout.struct.pack_into(layout.buffer, 0, *values)
            self.launch_packed(kernel, gx, gy, gz, bx, by, bz, layout)

    def launch_packed(self, kernel, gx, gy, gz, bx, by, bz, layout):
        """Queue ``kernel`` with the arguments already in ``layout``'s buffer (the
        caller holds ``layout.lock``: hipModuleLaunchKernel copies them before it
        returns, so the buffer is free again afterwards)."""
        raw = self.raw
        if raw is not None and kernel.fn_arg is not None:
            status = raw(kernel.fn_arg, gx, gy, gz, bx, by, bz, 0, self.stream_arg, None, layout.extra_arg)
            if status:
                self.fail(kernel, status)
            return
        (status,) = self._hip_launch(kernel.fn, gx, gy, gz, bx, by, bz, 0, self.stream, None,
                                     layout.extra_address)
        if int(status):
            raise RocmError(f"hipModuleLaunchKernel({kernel.name})", status)

    def fail(self, kernel, status):
        """Raise for a failed raw launch, naming the status as hip-python would."""
        raise RocmError(f"hipModuleLaunchKernel({kernel.name})", _status_name(status))
