"""Checks and small compositions shared by the functions of ``candlewick.linalg``."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from .. import dtypes as _dt
from .._core import broadcast_layouts, require_array
from ..array import wrap
from ..errors import DTypeError, ShapeError, UnsupportedOperation

if TYPE_CHECKING:
    from ..array import Array


class EigResult(NamedTuple):
    """``eig``'s result: complex eigenvalues and right eigenvectors (columns)."""

    eigenvalues: Array
    eigenvectors: Array


class EighResult(NamedTuple):
    """``eigh``'s result: real ascending eigenvalues and the eigenvectors (columns)."""

    eigenvalues: Array
    eigenvectors: Array


class QRResult(NamedTuple):
    """``qr``'s result: ``x = Q R``."""

    Q: Array
    R: Array


class SlogdetResult(NamedTuple):
    """``slogdet``'s result: ``det = sign * exp(logabsdet)``."""

    sign: Array
    logabsdet: Array


class SVDResult(NamedTuple):
    """``svd``'s result: ``x = U diag(S) Vh``."""

    U: Array
    S: Array
    Vh: Array


#: the dtypes the optional "linalg" primitives compute in (see backend.py)
DECOMPOSITION_DTYPES = (_dt.float32, _dt.float64, _dt.complex64, _dt.complex128)


def require_floating(x, fname, argname="x"):
    """x must be a float32/float64/complex64/complex128 array (what the primitives take)."""
    require_array(x, f"linalg.{fname}", argname)
    if x._dtype not in DECOMPOSITION_DTYPES:
        raise DTypeError(
            f"linalg.{fname}: {argname} must have a floating-point dtype "
            f"(float32, float64, complex64, complex128), got {x._dtype.name}"
        )
    return x


def require_numeric(x, fname, argname="x"):
    require_array(x, f"linalg.{fname}", argname)
    if x._dtype.is_bool:
        raise DTypeError(f"linalg.{fname}: {argname} must have a numeric dtype, got bool")
    return x


def require_matrices(x, fname, square=False):
    """x must be a stack of matrices ``(..., M, N)``; with ``square``, M == N."""
    if x.ndim < 2:
        raise ShapeError(f"linalg.{fname}: x must have at least 2 dimensions (..., M, N), got shape {x.shape}")
    if square and x.shape[-1] != x.shape[-2]:
        raise ShapeError(f"linalg.{fname}: x must hold square matrices, got shape {x.shape}")
    return x


def require_capability(x, group, fname):
    """The optional primitive group must be declared by x's device; never falls back."""
    device = x._device
    if group not in device.capabilities:
        raise UnsupportedOperation(
            f"{group}.{fname}", x._dtype, device.name,
            f"device {device.name} does not declare the optional {group!r} capability",
        )


def require_linalg_input(x, fname, square=False):
    """x as a "linalg" primitive takes it: a float32/64 or complex64/128 stack of matrices
    (square with ``square``) on a device that declares the capability."""
    require_floating(x, fname)
    require_matrices(x, fname, square=square)
    require_capability(x, "linalg", fname)
    return x


def select(cond, a, b):
    """``where(cond, a, b)`` for arrays of one dtype and device, broadcasting all three."""
    shape, (lc, la, lb) = broadcast_layouts(cond, a, b)
    return wrap(cond._storage.where(lc, a._storage, la, b._storage, lb), shape, a._dtype, a._device)


#: numpydoc entries the linalg functions share (filled in by ``docstrings.shared_doc``)
LINALG_DOCS = {
    "linalg_param_square": "x : Array\n    Input array of square matrices ``(..., M, M)``.",
    "linalg_param_matrices": "x : Array\n    Input array of matrices ``(..., M, N)``.",
    "linalg_raises_input": (
        "TypeError\n"
        "    If x is not a candlewick array.\n"
        "DTypeError\n"
        "    If x is not floating point.\n"
        "ShapeError\n"
        "    If x has fewer than 2 dimensions (or the matrices are not square)."
    ),
    "linalg_raises_shape": "ShapeError\n    If x has fewer than 2 dimensions (or the matrices are not square).",
    "linalg_raises_unsupported": "UnsupportedOperation\n    If the device lacks the linalg primitives.",
}
# whole sections (their headers included)
LINALG_DOCS["linalg_params_square"] = "Parameters\n----------\n" + LINALG_DOCS["linalg_param_square"]
LINALG_DOCS["linalg_params_matrices"] = "Parameters\n----------\n" + LINALG_DOCS["linalg_param_matrices"]
LINALG_DOCS["linalg_params_rtol"] = (  # pinv's and matrix_rank's
    LINALG_DOCS["linalg_params_matrices"] + "\nrtol : float, Array or None\n"
    "    Relative cutoff for small singular values; None for ``max(M, N) * eps``."
)
LINALG_DOCS["linalg_raises_head"] = "Raises\n------\n" + LINALG_DOCS["linalg_raises_input"]
LINALG_DOCS["linalg_raises"] = LINALG_DOCS["linalg_raises_head"] + "\n" + LINALG_DOCS["linalg_raises_unsupported"]
