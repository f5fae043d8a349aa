"""hipSOLVER and hipFFT through hip-python's own bindings (``hip.hipsolver``,
``hip.hipfft``), and hipBLAS's batched LU: the only module that calls them. Every status goes through
``error.check``; pointers are passed as ints, enums as hip-python's members.

hipSOLVER routines are named by a type letter (S/D/C/Z) and a routine; the complex
spellings of the symmetric routines (orgqr -> ungqr, syevd -> heevd, ...) are chosen
here so that callers name one routine for every dtype.
"""

import numpy as np

from ..error import check

# routine -> its name for complex types
_COMPLEX_NAME = {"orgqr": "ungqr", "syevd": "heevd", "syevjBatched": "heevjBatched"}
_modules = {}
# (module, letter, routine) -> (name, function) of hipSOLVER, (module, kind) -> (name, function,
# directions or None) of hipFFT's exec: each name built and looked up once per module (hip-python's
# modules do not change; a test that swaps a function does it before the first call)
_resolved = {}


def _hipsolver():
    mod = _modules.get("hipsolver")
    if mod is None:  # hip-python is optional: imported on first use
        from hip import hipsolver

        mod = _modules["hipsolver"] = hipsolver
    return mod


def _hipfft():
    mod = _modules.get("hipfft")
    if mod is None:  # as above
        from hip import hipfft

        mod = _modules["hipfft"] = hipfft
    return mod


def routine_name(letter, routine):
    """'hipsolverZheevd' for ('Z', 'syevd'), 'hipsolverCungqr_bufferSize' for
    ('C', 'orgqr_bufferSize')."""
    base, _, suffix = routine.partition("_")  # e.g. "syevd_bufferSize"
    if letter in "CZ":
        base = _COMPLEX_NAME.get(base, base)
    return f"hipsolver{letter}{base}" + (f"_{suffix}" if suffix else "")


def solver(letter, routine, *args):
    """Call hipsolver<letter><routine>(*args); its value(s) (e.g. lwork), or None."""
    mod = _hipsolver()
    found = _resolved.get((mod, letter, routine))
    if found is None:
        name = routine_name(letter, routine)
        found = _resolved[(mod, letter, routine)] = (name, getattr(mod, name))
    name, fn = found
    return check(name, fn(*args))


def workspace_size(letter, routine, *args):
    """lwork of ``routine`` (its ``_bufferSize`` query), in elements of the type."""
    return int(solver(letter, routine + "_bufferSize", *args) or 0)


def create_solver_handle(stream):
    hs = _hipsolver()
    handle = check("hipsolverCreate", hs.hipsolverCreate())
    check("hipsolverSetStream", hs.hipsolverSetStream(handle, stream))
    return handle


def blas_lu(letter, routine, *args):
    """hipBLAS's batched LU: hipblas<letter><routine> (getrfBatched, getrsBatched)."""
    mod = _modules.get("hipblas")
    if mod is None:  # as above
        from hip import hipblas

        mod = _modules["hipblas"] = hipblas
    name = f"hipblas{letter}{routine}"
    return check(name, getattr(mod, name)(*args))


def create_gesvdj_info():
    return check("hipsolverCreateGesvdjInfo", _hipsolver().hipsolverCreateGesvdjInfo())


def create_syevj_info():
    return check("hipsolverCreateSyevjInfo", _hipsolver().hipsolverCreateSyevjInfo())


def fill_mode(upper):
    fill = _hipsolver().hipsolverFillMode_t
    return fill.HIPBLAS_FILL_MODE_UPPER if upper else fill.HIPBLAS_FILL_MODE_LOWER


def operation(transpose):
    ops = _hipsolver().hipsolverOperation_t
    return ops.HIPBLAS_OP_T if transpose else ops.HIPBLAS_OP_N


def eig_vectors():
    return _hipsolver().hipsolverEigMode_t.HIPSOLVER_EIG_MODE_VECTOR


# --- hipFFT ----------------------------------------------------------------------------

def fft_type(name):
    """The hipfftType_t member named 'C2C', 'R2C', 'C2R', 'Z2Z', 'D2Z' or 'Z2D'."""
    return getattr(_hipfft().hipfftType_t, "HIPFFT_" + name)


def fft_plan_many(n, inembed, istride, idist, onembed, ostride, odist, kind, batch, stream):
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


def fft_destroy(plan):
    check("hipfftDestroy", _hipfft().hipfftDestroy(plan))


def fft_exec(kind, plan, src, dst, inverse=False):
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
