"""[bindings] hipFFT through hip-python's own binding (``hip.hipfft``): plans, their
destruction and execution. Every status goes through ``error.check``; pointers are passed
as ints, enums as hip-python's members."""

import ctypes
import functools
import os

import numpy as np

from ..error import check
from .hip_ctypes import has_int, loaded_function, loaded_library_path
from .hip_python import opened

try:  # candlewick's optional compiled module: the exec of a prepared plan from C (``runner``)
    from candlewick._native import fft_exec as _c_fft_exec
except ImportError:
    _c_fft_exec = None

_api = None
# (module, kind) -> (name, function, directions or None, ctypes function or None) of hipFFT's exec: each looked up once per
# module (hip-python's modules do not change; a test that swaps a function does it before
# the first call)
_resolved = {}


def _hipfft():
    global _api
    if _api is None:  # hip-python is optional: imported on first use
        _api = opened("hipfft")
    return _api


def fft_type(name):
    """The hipfftType_t member named 'C2C', 'R2C', 'C2R', 'Z2Z', 'D2Z' or 'Z2D'."""
    return getattr(_hipfft().hipfftType_t, "HIPFFT_" + name)


def plan_many(n, inembed, istride, idist, onembed, ostride, odist, kind, batch, stream):
    """A plan (hipfftPlanMany) of rank len(n) bound to ``stream``; ``n``, ``inembed``,
    ``onembed``: sequences of that length, or both embeddings None for the basic layout
    (NULL: contiguous data, the strides and distances are then ignored)."""
    hf = _hipfft()
    # hip-python takes a list only for a single int (``PointerTo*``); arrays of C ints go as
    # buffers, None as NULL
    n, inembed, onembed = (None if v is None else np.ascontiguousarray(v, dtype=np.intc) for v in (n, inembed, onembed))
    plan = check("hipfftPlanMany", hf.hipfftPlanMany(len(n), n, inembed, istride, idist,
                                                     onembed, ostride, odist, fft_type(kind), batch))
    try:
        check("hipfftSetStream", hf.hipfftSetStream(plan, stream))
    except Exception:
        hf.hipfftDestroy(plan)
        raise
    return plan


def destroy(plan):
    check("hipfftDestroy", _hipfft().hipfftDestroy(plan))


def _raw_exec(hf, name, directions):
    """ctypes ``name`` (hipfftExec<kind>) of the hipFFT library hip-python loaded, with its
    argument types set (pointers, and the direction as an int), or None: hip-python's
    own call converts each pointer argument in Python, several microseconds a transform,
    the cost ``stream_sync_function`` avoids for synchronizations.
    ``CANDLEWICK_ROCM_RAW_FFT=0`` keeps hip-python's call."""
    if os.environ.get("CANDLEWICK_ROCM_RAW_FFT", "1") == "0" or getattr(hf, "__file__", None) is None:
        return None  # (a stand-in module, made in memory, has no file: its library is not the one loaded)
    fn = loaded_function(loaded_library_path("libhipfft"), name)
    if fn is not None:
        fn.argtypes = [ctypes.c_void_p] * 3 + ([ctypes.c_int] if directions is not None else [])
    return fn


def _failed(hf, name, status):
    """Raise the RocmError of a raw call's ``status``, named as hip-python's enum names it."""
    kind = getattr(hf, "hipfftResult_t", None) or getattr(hf, "hipfftResult", None)
    try:
        status = kind(status) if kind is not None else status
    except (TypeError, ValueError):
        pass
    check(name, status)


def _exec_function(kind):
    """(hipFFT's module, (name, hip-python's function, directions or None, the ctypes
    function or None)) of hipfftExec<kind>, looked up once per module."""
    hf = _hipfft()
    found = _resolved.get((hf, kind))
    if found is None:
        directions = (hf.HIPFFT_FORWARD, hf.HIPFFT_BACKWARD) if kind in ("C2C", "Z2Z") else None
        name = "hipfftExec" + kind
        found = _resolved[(hf, kind)] = (name, getattr(hf, name), directions, _raw_exec(hf, name, directions))
    return hf, found


def execute(kind, plan, src, dst, inverse=False):
    """hipfftExec<kind>: C2C/Z2Z take a direction (exponent sign + when ``inverse``)."""
    hf, (name, fn, directions, raw) = _exec_function(kind)
    if raw is not None and has_int(plan):
        handle = int(plan)
        status = raw(handle, src, dst) if directions is None else raw(handle, src, dst,
                                                                      int(directions[1 if inverse else 0]))
        if status:
            _failed(hf, name, status)
        return
    if directions is not None:
        check(name, fn(plan, src, dst, directions[1 if inverse else 0]))
    else:
        check(name, fn(plan, src, dst))


def runner(kind, plan, inverse=False):
    """``run(src, dst)``: ``execute(kind, plan, src, dst, inverse)`` returning a status
    (0: done; else the caller raises with ``raise_failed``). Where candlewick._native was
    built and both the library's function and the plan have addresses, a partial of
    ``candlewick._native.fft_exec``: no Python frame and no ctypes conversion a transform
    (``families/fft.py`` keeps one per plan); else a closure of ``execute``, which raises."""
    _, (_, _, directions, raw) = _exec_function(kind)
    if raw is not None and _c_fft_exec is not None and has_int(plan):
        direction = None if directions is None else int(directions[1 if inverse else 0])
        return functools.partial(_c_fft_exec, ctypes.cast(raw, ctypes.c_void_p).value, int(plan), direction)

    def run(src, dst):
        execute(kind, plan, src, dst, inverse)
        return 0

    return run


def raise_failed(kind, status):
    """Raise the RocmError of a ``runner``'s nonzero ``status``."""
    hf, (name, *_) = _exec_function(kind)
    _failed(hf, name, status)
