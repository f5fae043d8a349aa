"""Errors of the CPU backend, and its floating-point error policy.

The backend raises candlewick's own error classes (``candlewick.errors``) so that code
catching them does not care which backend ran. ``failure`` is the one helper that turns a
NumPy failure into one of them.

NumPy warns (RuntimeWarning) when an operation sets an IEEE flag: overflow to inf,
0/0, inf-inf, integer division by zero, NaN cast to an integer. For candlewick these
are defined results, never noise for the user, so every computing kernel runs under
``quiet`` (or, on the hot paths, ``set_fp_state(QUIET)`` / ``reset_fp_state`` inline):
``candlewick.fp_state`` switches NumPy's error state without ``np.errstate``'s cost.

A kernel whose result NumPy cannot allocate (MemoryError: the machine's memory or the
process's limits) raises ``DeviceMemoryError`` (``out_of_memory``): every primitive
reports it so (``reports_out_of_memory`` decorates them; the hottest catch it inline).
"""

import functools


import numpy as np

from candlewick.fp_state import QUIET, reset_fp_state, set_fp_state
from candlewick.host_memory import available_memory
from candlewick.errors import (
    BackendError,
    DeviceMemoryError,
    DTypeError,
    IndexOutOfBoundsError,
    LinAlgError,
    ShapeError,
    UnsupportedOperation,
)

BACKEND_NAME = "cpu"

def quiet(fn):
    """``fn`` wrapped so that NumPy's IEEE warnings are not emitted while it runs."""

    def quiet_call(*args):
        token = set_fp_state(QUIET)
        try:
            return fn(*args)
        finally:
            reset_fp_state(token)

    quiet_call.__name__ = getattr(fn, "__name__", "kernel")
    quiet_call.__wrapped__ = fn
    return quiet_call


class QuietBlock:
    """``with QuietBlock():`` - the same policy for a block of statements."""

    __slots__ = ("_token",)

    def __enter__(self):
        self._token = set_fp_state(QUIET)

    def __exit__(self, *exc):
        reset_fp_state(self._token)


def op_name(op):
    """'sin' for UnaryOp.SIN, the string itself for a primitive's name."""
    return getattr(op, "value", op)


def unsupported(op, dtype=None, detail=""):
    """The exception for an op (or dtype of it) this backend does not implement."""
    return UnsupportedOperation(op_name(op), dtype, BACKEND_NAME, detail)


def check_indices(op, idx, size, axis):
    """Raise IndexOutOfBoundsError naming ``op`` if any of ``idx`` lies outside [-size, size)."""
    if idx.size == 0:
        return
    lo, hi = idx.min(), idx.max()
    if lo >= -size and hi < size:
        return
    bad = lo if lo < -size else hi
    raise IndexOutOfBoundsError(
        f"{op}: index {int(bad)} is out of bounds for axis {axis} with size {size} "
        f"(expected values in [{-size}, {size}))"
    )


def failure(op, exc, dtype=None):
    """The candlewick exception for a NumPy failure ``exc`` inside primitive ``op``.

    Callers ``raise failure(op, exc) from exc``. LinAlgError keeps its meaning
    (singular or not positive-definite matrix); a shape NumPy rejects is a ShapeError;
    anything else is a BackendError naming the op, so nothing escapes as a bare
    NumPy exception with no context.
    """
    name = op_name(op)
    of = f" ({dtype})" if dtype is not None else ""
    if isinstance(exc, np.linalg.LinAlgError):
        return LinAlgError(f"{name}{of}: {exc}")
    if isinstance(exc, (UnsupportedOperation, IndexOutOfBoundsError, LinAlgError, ShapeError)):
        return exc
    if isinstance(exc, ValueError):
        return ShapeError(f"{name}{of}: {exc}")
    return BackendError(f"{name}{of} failed on backend {BACKEND_NAME!r}: {type(exc).__name__}: {exc}")


def out_of_memory(op, exc):
    """The DeviceMemoryError for NumPy's MemoryError ``exc`` inside primitive ``op``
    (callers let a DeviceMemoryError pass as it is)."""
    requested = getattr(exc, "_total_size", None)  # NumPy's _ArrayMemoryError knows the request
    try:
        free = available_memory()[0]
    except (OSError, ValueError):
        free = None
    return DeviceMemoryError(BACKEND_NAME, requested if isinstance(requested, int) else 0, free,
                             f"{op_name(op)}: {exc}")


def reports_out_of_memory(method):
    """``method`` (a storage primitive, named as the protocol names it) raising
    DeviceMemoryError where NumPy raised MemoryError. (storage_groups' rfft and irfft do
    these steps inline, for their frames: a change here goes there too.)"""
    name = method.__name__

    @functools.wraps(method)
    def primitive(*args, **kwargs):
        try:
            return method(*args, **kwargs)
        except DeviceMemoryError:
            raise
        except MemoryError as exc:
            raise out_of_memory(name, exc) from exc

    return primitive


def same_dtype(storage, other, argname, op):
    """DTypeError unless storage ``other`` (the argument ``argname`` of primitive ``op``)
    has ``storage``'s dtype."""
    if other.dtype is not storage.dtype:
        raise DTypeError(f"{op}: {argname} has dtype {other.dtype}, expected {storage.dtype}")
