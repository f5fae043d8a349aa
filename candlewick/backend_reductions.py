"""The backend protocol's reductions and products (``candlewick.backend`` assembles them into
``BackendStorage``): reductions and scans, the optional group "reduce_dtype" (into a
requested dtype), the matrix product and the neural-network ops (each element a sum of
products). Each method's docstring is its contract.
"""

from typing import TYPE_CHECKING, Protocol

from .opdefs import ReduceOp, ScanOp

if TYPE_CHECKING:  # (backend imports this module: the storage type only for checkers)
    from .backend import BackendStorage

__all__ = ["ReductionStorage", "ReduceDtypeStorage", "ProductStorage"]


class ReductionStorage(Protocol):
    """Reductions and scans."""

    def reduce(self, op: ReduceOp, layout, axes) -> "BackendStorage":
        """Reduce over ``axes`` (sorted, unique, non-negative). Output shape is the input
        shape with those axes removed. ``argmin``/``argmax`` take exactly one axis and give
        the first index of the extreme (the first NaN if any). Empty reductions give 0 for
        sum, 1 for prod, False for any, True for all; the front end never asks
        min/max/argmin/argmax of an empty set. sum/prod keep the input dtype (float16 and
        bfloat16 accumulate in float32)."""

    def var(self, layout, axes, correction, root) -> "BackendStorage":
        """The variance over ``axes`` (sorted, unique, non-negative; possibly none):
        ``sum(|x - mean|**2) / (N - correction)``, N the number of elements reduced, or with
        ``root`` its square root (the standard deviation). float32, float64, complex64 and
        complex128 (the front end computes float16/bfloat16 in float32); the result has the
        real dtype (float32 for complex64). Output shape as ``reduce``'s. NaN where
        ``N - correction <= 0``, and where the set holds a NaN or an infinity;
        ``correction`` is an int or float."""

    def scan(self, op: ScanOp, layout, axis) -> "BackendStorage":
        """Inclusive cumulative ``op`` along ``axis``; same shape and dtype."""


class ReduceDtypeStorage(Protocol):
    """The optional group "reduce_dtype": sums and products into a requested dtype.

    ``sum(x, dtype=float64)`` of a float32 x (scikit-learn's accumulators, NumPy's
    ``np.add.reduce(x, dtype=...)``): each element is converted to ``dtype`` as it is
    read, as ``astype`` converts it, and the sum or product runs in ``dtype`` (its
    ``reduce``/``scan`` accumulation), with no converted copy of the input. ``dtype`` is
    numeric, never bool, float16 or bfloat16, complex when ``self.dtype`` is, and
    differs from ``self.dtype``; ``op`` is SUM or PROD. A device that does not declare
    the group gets the front end's path: ``astype`` to ``dtype``, then
    ``reduce``/``scan`` (a temporary the size of the input in ``dtype``, and a pass more
    over memory).
    """

    def reduce_as(self, op: ReduceOp, layout, axes, dtype) -> "BackendStorage":
        """``reduce(op, ...)`` of ``self[layout]`` converted to ``dtype``: a storage of
        ``dtype``, shape as ``reduce``'s (empty reductions give 0 for sum, 1 for prod)."""

    def scan_as(self, op: ScanOp, layout, axis, dtype) -> "BackendStorage":
        """``scan(op, ...)`` of ``self[layout]`` converted to ``dtype``: a storage of
        ``dtype`` and ``layout``'s shape."""


class ProductStorage(Protocol):
    """The matrix product (every numeric dtype) and the neural-network ops (input and weight of
    one floating dtype)."""

    def matmul(self, rhs, lhs_layout, rhs_layout) -> "BackendStorage":
        """Batched matrix product: lhs ``(*B, M, K)``, rhs ``(*B, K, N)`` with identical
        batch shape ``B`` (broadcast batch dims arrive with stride 0); output ``(*B, M, N)``.
        Every numeric dtype; integers wrap; float16/bfloat16 accumulate in float32."""

    def conv1d(self, layout, weight, w_layout, stride, padding, dilation, groups) -> "BackendStorage":
        """x ``(N, Cin, L)``, weight ``(Cout, Cin/groups, K)`` -> ``(N, Cout, Lout)`` with
        ``Lout = (L + 2*padding - dilation*(K-1) - 1)//stride + 1`` (cross-correlation)."""

    def conv2d(self, layout, weight, w_layout, stride, padding, dilation, groups) -> "BackendStorage":
        """As conv1d in two dims; ``stride``, ``padding``, ``dilation`` are (h, w) pairs."""

    def conv_transpose1d(self, layout, weight, w_layout, stride, padding, output_padding,
                         dilation, groups) -> "BackendStorage":
        """x ``(N, Cin, L)``, weight ``(Cin, Cout/groups, K)``; the gradient of conv1d
        w.r.t. its input: ``Lout = (L-1)*stride - 2*padding + dilation*(K-1) + output_padding + 1``."""

    def conv_transpose2d(self, layout, weight, w_layout, stride, padding, output_padding,
                         dilation, groups) -> "BackendStorage":
        """As conv_transpose1d in two dims (all parameters are (h, w) pairs)."""

    def avg_pool2d(self, layout, kernel, stride, padding, count_include_pad) -> "BackendStorage":
        """x ``(N, C, H, W)``; mean over each window (pairs for kernel/stride/padding);
        padded cells are zeros counted in the divisor iff ``count_include_pad``."""

    def max_pool2d(self, layout, kernel, stride, padding, dilation) -> "BackendStorage":
        """x ``(N, C, H, W)``; max over each window, padding is -inf; NaN propagates."""

    def upsample_nearest2d(self, layout, out_h, out_w) -> "BackendStorage":
        """x ``(N, C, H, W)`` -> ``(N, C, out_h, out_w)``, source index ``floor(dst*in/out)``."""
