"""[bindings] roctx, ROCm's markers for profilers (rocprof, Omnitrace, rocprofiler-sdk),
through ctypes: ``candlewick.profile`` opens a named range around each primitive
(``RocmDevice.range_push``/``range_pop``).

``libroctx64.so`` is looked for once, under ``$ROCM_PATH/lib``, then ``/opt/rocm/lib``,
then the loader's path; where none loads (a machine without ROCm's tracer, the
HIP-on-CUDA shim) the ranges are silently none: a profile works the same without them.
"""

import ctypes
import ctypes.util
import os
import threading

_lock = threading.Lock()
_lib = None  # the loaded library, False when none is found, None before the first look


def library():
    """The loaded libroctx64 (ctypes), or None where there is none."""
    global _lib
    if _lib is None:
        with _lock:
            if _lib is None:
                _lib = _load() or False
    return _lib or None


def _load():
    candidates = [os.path.join(root, "lib", "libroctx64.so")
                  for root in (os.environ.get("ROCM_PATH"), "/opt/rocm") if root]
    found = ctypes.util.find_library("roctx64")
    if found:
        candidates.append(found)
    for path in candidates:
        try:
            lib = ctypes.CDLL(path)
            push, pop = lib.roctxRangePushA, lib.roctxRangePop
        except (OSError, AttributeError):
            continue
        push.argtypes, push.restype = [ctypes.c_char_p], ctypes.c_int
        pop.argtypes, pop.restype = [], ctypes.c_int
        return lib
    return None


def push(name):
    """Open a range named ``name`` on the calling thread (nothing without roctx)."""
    lib = library()
    if lib is not None:
        lib.roctxRangePushA(name.encode("utf-8", "replace"))


def pop():
    """Close the calling thread's innermost range (nothing without roctx)."""
    lib = library()
    if lib is not None:
        lib.roctxRangePop()
