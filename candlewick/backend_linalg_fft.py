"""The backend protocol's optional groups "linalg" and "fft" (``candlewick.backend`` assembles
them into ``BackendStorage``): a device implements a group's every method when it declares
the group in ``capabilities`` (``backend_groups.OPTIONAL_PRIMITIVES``). Each method's
docstring is its contract.
"""

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # (backend imports this module: the storage type only for checkers)
    from .backend import BackendStorage
    from .layout import Layout

__all__ = ["LinalgStorage", "FFTStorage"]


class LinalgStorage(Protocol):
    """The optional group "linalg": float32/64, complex64/128, batched over leading dims."""

    def cholesky(self, layout, upper) -> "BackendStorage":
        """Lower (or upper) Cholesky factor; LinAlgError if not positive definite."""

    def qr(self, layout, complete) -> "tuple[BackendStorage | tuple[BackendStorage, Layout], BackendStorage]":
        """(Q, R); reduced shapes (M,K),(K,N) with K=min(M,N), complete (M,M),(M,N). Q may
        be a ``(storage, layout)`` pair, the layout a dense permutation of Q's shape over
        exactly that storage (column-major matrices, as LAPACK's orgqr leaves them: no copy
        of Q, which PyTorch's Q does not make either)."""

    def svd(self, layout, full_matrices) -> "tuple[BackendStorage | tuple[BackendStorage, Layout], BackendStorage, BackendStorage | tuple[BackendStorage, Layout]]":
        """(U, S, Vh), S real and descending; U and Vh may each be a ``(storage, layout)``
        pair, as qr's Q."""

    def eigh(self, layout) -> "tuple[BackendStorage, BackendStorage]":
        """(eigenvalues ascending, real; eigenvectors as columns) of Hermitian matrices."""

    def eig(self, layout) -> "tuple[BackendStorage, BackendStorage]":
        """(eigenvalues ``(..., n)``, right eigenvectors ``(..., n, n)`` as columns) of
        general square matrices, both complex64 for float32/complex64 input and
        complex128 for float64/complex128; each eigenvector of unit 2-norm, as LAPACK's
        geev gives it (in geev's order; LinAlgError where geev fails to converge)."""

    def solve(self, layout, rhs, rhs_layout) -> "BackendStorage":
        """X with A X = B; A ``(*B, n, n)``, B ``(*B, n, k)`` (same batch shape);
        LinAlgError for a singular A."""

    def inv(self, layout) -> "BackendStorage":
        """Inverse; LinAlgError for a singular matrix."""

    def det(self, layout) -> "BackendStorage":
        """Determinants, shape ``B``."""

    def slogdet(self, layout) -> "tuple[BackendStorage, BackendStorage]":
        """(sign, log|det|); sign 0 and logabsdet -inf for a singular matrix; logabsdet real."""


class FFTStorage(Protocol):
    """The optional group "fft": complex64/128 in, unnormalized in both directions.

    A device that declares ``fft_norm = True`` (``FFTNormDevice``) is also given the
    keyword ``norm`` by each of them: NumPy's scaling, done in the transform.
    """

    def fft(self, layout, axis, inverse) -> "BackendStorage":
        """Complex-to-complex DFT along ``axis``; exponent sign + when ``inverse``; no scaling."""

    def rfft(self, layout, axis) -> "BackendStorage":
        """Real (float32/64) to complex along ``axis``; length n//2+1; no scaling."""

    def irfft(self, layout, axis, n) -> "BackendStorage":
        """Complex (Hermitian half) to real of length ``n`` along ``axis``; no scaling."""

    def fftn(self, layout, axes, inverse) -> "BackendStorage":
        """``fft`` along each of ``axes`` (distinct ints), as one call: a backend may
        transform them together (one multi-dimensional plan); no scaling."""

    def rfftn(self, layout, axes) -> "tuple[BackendStorage, Layout]":
        """``rfft`` along the last of ``axes`` (distinct ints), then ``fft`` along the
        others, as one call; no scaling. Returns the result and its layout in that storage:
        shape x's with the last of ``axes`` halved (n//2+1), over exactly that many elements,
        any order of its axes (a dense permutation; ``Layout.contiguous(shape)`` for a
        C-contiguous result). The order is the backend's because the fastest GPU libraries'
        complex passes after the real one write their transforms' elements together
        (PyTorch's rfft2 is such a permuted view)."""
