"""[bindings] hipSOLVER through hip-python's own binding (``hip.hipsolver``): the handle,
the routines by type letter, their workspace queries and the Jacobi parameter objects.
Every status goes through ``error.check``; pointers are passed as ints, enums as
hip-python's members.

hipSOLVER routines are named by a type letter (S/D/C/Z) and a routine; the complex
spellings of the symmetric routines (orgqr -> ungqr, syevd -> heevd, ...) are chosen
here so that callers name one routine for every dtype.
"""

from ..error import check
from .hip_python import opened

# routine -> its name for complex types
_COMPLEX_NAME = {"orgqr": "ungqr", "syevd": "heevd", "syevjBatched": "heevjBatched"}
_api = None
# (module, letter, routine) -> (name, function): each name built and looked up once per
# module (hip-python's modules do not change; a test that swaps a function does it before
# the first call)
_resolved = {}


def _hipsolver():
    global _api
    if _api is None:  # hip-python is optional: imported on first use
        _api = opened("hipsolver")
    return _api


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


def create_handle(stream):
    hs = _hipsolver()
    handle = check("hipsolverCreate", hs.hipsolverCreate())
    check("hipsolverSetStream", hs.hipsolverSetStream(handle, stream))
    return handle


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
