"""[bindings] The few HIP runtime calls made through ctypes on the very runtime hip-python
loaded (``hip.py`` makes the others through hip-python): kernel launches and stream
synchronizes, memsets, and the look-up of an already loaded library's functions (hipblas.py's,
hipfft.py's).

hip-python converts each argument of ``hipModuleLaunchKernel`` into a
wrapper object and builds a ``hipError_t`` enum for the result on every call (about 5 µs
through the HIP-on-CUDA shim on a CPU-only machine), while a ctypes call with pre-built
``c_void_p`` arguments costs about 1.5 µs; a tiny element-wise op is one launch. The
ctypes handle is opened with ``RTLD_NOLOAD`` on the file hip-python already loaded (found
in ``/proc/self/maps``, or through hip-python's own path resolver), so both talk to one
runtime instance: same context, streams and function handles. Where that is impossible
(another OS, a stand-in runtime in tests) the calls go through hip-python.
``CANDLEWICK_ROCM_RAW_LAUNCH=0`` forces hip-python for launches and memsets.
"""

import ctypes
import os

from ..error import check
from . import hip


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
        from rocm.bindings.util.paths import get_library_path  # optional library, loaded lazily

        path = os.fsdecode(get_library_path("amdhip64"))
        return path if os.path.isabs(path) else None
    except Exception:
        return None


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


def raw_launch_function():
    """ctypes ``hipModuleLaunchKernel`` of the already-loaded runtime, or None.

    No ``argtypes``: callers pass ``c_void_p`` objects for the handles and the
    ``extra`` array and small Python ints (C ``int``) for the dimensions, which is the
    cheapest conversion ctypes offers. The call releases the GIL like hip-python's.
    """
    if os.environ.get("CANDLEWICK_ROCM_RAW_LAUNCH", "1") == "0":
        return None
    return loaded_function(loaded_runtime_path(), "hipModuleLaunchKernel")


def has_int(obj):
    """Whether a hip-python handle converts to its address (stand-ins may not)."""
    try:
        int(obj)
        return True
    except (TypeError, ValueError):
        return False


def stream_sync_function(stream):
    """hipStreamSynchronize of ``stream`` as a call: through ctypes on the runtime
    hip-python loaded when it can (hip-python's own call costs several microseconds
    more per synchronize), else through hip-python."""
    raw = loaded_function(loaded_runtime_path(), "hipStreamSynchronize")
    if raw is not None and has_int(stream):
        stream_arg = ctypes.c_void_p(int(stream))

        def sync():
            status = raw(stream_arg)
            if status:  # hip-python's enum, so the error names the status as check() does
                check("hipStreamSynchronize", hip.status_enum(status))
    else:
        def sync():
            hip.stream_synchronize(stream)
    return sync


_MEMSET_ARGS = (ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t, ctypes.c_void_p)  # (ptr, byte, bytes, stream)
#: [id of the hip-python api it was resolved beside, ctypes hipMemsetAsync or None]: the id, not
#: the api, so that a stand-in runtime of a test is not kept alive past its test
_raw_memset: list = [None, None]


def raw_function(symbol, argtypes):
    """ctypes ``symbol`` of the runtime hip-python loaded, its argument types set, or None
    (no such runtime loaded: a stand-in in tests; or ``CANDLEWICK_ROCM_RAW_LAUNCH=0``)."""
    if os.environ.get("CANDLEWICK_ROCM_RAW_LAUNCH", "1") == "0":
        return None
    fn = loaded_function(loaded_runtime_path(), symbol)
    if fn is not None:
        fn.argtypes = argtypes
    return fn


def memset_async(ptr, byte, nbytes, stream):
    """hipMemsetAsync through ctypes where the runtime is found and ``stream`` is an
    address (hip-python's call costs several microseconds more; an fft's zero padding
    makes one per padded transform), else ``hip.memset_async``."""
    api = hip.hip_api()
    if _raw_memset[0] != id(api):
        _raw_memset[:] = [id(api), raw_function("hipMemsetAsync", _MEMSET_ARGS)]
    raw = _raw_memset[1]
    if raw is not None and has_int(stream):
        status = raw(ptr, byte, nbytes, int(stream))
        if status:
            check("hipMemsetAsync", hip.status_enum(status))
        return
    hip.memset_async(ptr, byte, nbytes, stream)
