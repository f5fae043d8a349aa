"""[bindings] hipFFT through hip-python's own binding (``hip.hipfft``): plans, their
destruction and execution. Every status goes through ``error.check``; pointers are passed
as ints, enums as hip-python's members."""

import ctypes
import os

import numpy as np

from ..error import check
from .hip_ctypes import has_int, loaded_function, loaded_library_path
from .hip_python import opened

_api = None
# kind -> (name, function, directions or None) of hipFFT's exec: each looked up once per
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


def execute(kind, plan, src, dst, inverse=False):
    """hipfftExec<kind>: C2C/Z2Z take a direction (exponent sign + when ``inverse``)."""
    hf = _hipfft()
    found = _resolved.get((hf, kind))
    if found is None:
        directions = (hf.HIPFFT_FORWARD, hf.HIPFFT_BACKWARD) if kind in ("C2C", "Z2Z") else None
        name = "hipfftExec" + kind
        found = _resolved[(hf, kind)] = (name, getattr(hf, name), directions, _raw_exec(hf, name, directions))
    name, fn, directions, raw = found
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
