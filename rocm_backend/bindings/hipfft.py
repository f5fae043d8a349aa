"""[bindings] hipFFT through hip-python's own binding (``hip.hipfft``): plans, their
destruction and execution. Every status goes through ``error.check``; pointers are passed
as ints, enums as hip-python's members."""

import numpy as np

from ..error import check

_api = None
# kind -> (name, function, directions or None) of hipFFT's exec: each looked up once per
# module (hip-python's modules do not change; a test that swaps a function does it before
# the first call)
_resolved = {}


def _hipfft():
    global _api
    if _api is None:  # hip-python is optional: imported on first use
        from hip import hipfft

        _api = hipfft
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


def execute(kind, plan, src, dst, inverse=False):
    """hipfftExec<kind>: C2C/Z2Z take a direction (exponent sign + when ``inverse``)."""
    hf = _hipfft()
    found = _resolved.get((hf, kind))
    if found is None:
        directions = (hf.HIPFFT_FORWARD, hf.HIPFFT_BACKWARD) if kind in ("C2C", "Z2Z") else None
        found = _resolved[(hf, kind)] = ("hipfftExec" + kind, getattr(hf, "hipfftExec" + kind), directions)
    name, fn, directions = found
    if directions is not None:
        check(name, fn(plan, src, dst, directions[1 if inverse else 0]))
    else:
        check(name, fn(plan, src, dst))
