"""The backend protocol's element-wise primitives (``candlewick.backend`` assembles them into
``BackendStorage``): the out-of-place ones every backend implements, and the optional groups
"inplace" (results written into an existing storage) and "binary_dtype" (operands of two
dtypes). Each method's docstring is its contract.
"""

from typing import TYPE_CHECKING, Protocol

from .opdefs import BinaryOp, CompareOp, UnaryOp

if TYPE_CHECKING:  # (backend imports this module: the storage type only for checkers)
    from .backend import BackendStorage

__all__ = ["ElementwiseStorage", "InplaceStorage", "BinaryDtypeStorage"]


class ElementwiseStorage(Protocol):
    """Element-wise primitives: each returns a new storage."""

    def copy(self, layout) -> "BackendStorage":
        """A contiguous copy of the viewed elements."""

    def unary(self, op: UnaryOp, layout) -> "BackendStorage":
        """``op`` applied to each element; result dtype ``op.result_dtype(dtype)``.
        Rounding: ``round`` is half-to-even; ``sign`` of complex z is z/|z| (0 for 0).
        ``gelu`` is the erf form x*(1+erf(x/sqrt 2))/2; ``silu`` is x*sigmoid(x)."""

    def binary(self, op: BinaryOp, lhs_layout, rhs, rhs_layout) -> "BackendStorage":
        """``op(self[lhs_layout], rhs[rhs_layout])`` elementwise; same dtype and shape."""

    def binary_scalar(self, op: BinaryOp, layout, scalar, reflected) -> "BackendStorage":
        """``op(x, scalar)``, or ``op(scalar, x)`` when ``reflected``; result dtype is x's."""

    def compare(self, op: CompareOp, lhs_layout, rhs, rhs_layout) -> "BackendStorage":
        """Elementwise comparison; bool result. NaN compares unequal to everything."""

    def compare_scalar(self, op: CompareOp, layout, scalar, reflected) -> "BackendStorage":
        """``op(x, scalar)``, or ``op(scalar, x)`` when ``reflected``; bool result. The
        Python ``scalar`` is first converted to x's dtype (the front end only passes one
        that fits), so the result equals ``compare`` against a full array of it."""

    def where(self, cond_layout, x, x_layout, y, y_layout) -> "BackendStorage":
        """``self`` is a bool condition; ``x``/``y`` share a dtype; all three one shape."""

    def astype(self, layout, dtype) -> "BackendStorage":
        """Convert to ``dtype`` with NumPy's casting rules (floats to ints truncate toward
        zero; NaN/inf/out-of-range floats to ints are unspecified but must not fault;
        anything to bool is ``!= 0``; complex to real is never asked)."""

    def affine(self, layout, mul, add) -> "BackendStorage":
        """``x * mul + add`` in the storage's dtype (float16/bfloat16 computed in f32)."""

    def clip(self, layout, lo, hi) -> "BackendStorage":
        """``min(max(x, lo), hi)`` with ``lo``/``hi`` scalars or None; NaN stays NaN."""


class InplaceStorage(Protocol):
    """The optional group "inplace": element-wise results written into ``self``.

    Each writes ``self`` viewed by ``dst_layout`` and nothing else: any strides and
    offset, never a stride-0 axis longer than 1 (the front end refuses to write through
    broadcast views). Operands have ``dst_layout.shape`` (broadcast ones with stride 0)
    and the dtype ``op`` takes; ``self.dtype`` is ``op.result_dtype`` of it (bool for
    the comparisons). An operand may be ``self`` itself, through the same or any other
    layout: the result is NumPy's, as if every operand were read whole before the first
    write (``x[1:] += x[:-1]``, ``x += x.T``). Values are those of the out-of-place
    primitive of the same name, element for element. One call is one update of the
    destination: calls into one storage from several threads must not lose each other's
    writes (cpu: a lock per storage; a GPU backend: its calls run in order on one
    stream). A device that does not declare the group gets the front end's path: the
    out-of-place primitive, then ``assign`` (a temporary the size of the result).
    """

    def unary_into(self, op: UnaryOp, dst_layout, src, src_layout) -> None:
        """*In-place*: ``self[dst_layout] = op(src[src_layout])`` (``unary``'s values)."""

    def binary_into(self, op: BinaryOp, dst_layout, lhs, lhs_layout, rhs, rhs_layout) -> None:
        """*In-place*: ``self[dst_layout] = op(lhs[lhs_layout], rhs[rhs_layout])``; lhs and
        rhs share a dtype (``binary``'s values)."""

    def binary_scalar_into(self, op: BinaryOp, dst_layout, src, src_layout, scalar, reflected) -> None:
        """*In-place*: ``op(x, scalar)``, or ``op(scalar, x)`` when ``reflected``, of
        ``x = src[src_layout]`` into ``self[dst_layout]`` (``binary_scalar``'s values)."""

    def compare_into(self, op: CompareOp, dst_layout, lhs, lhs_layout, rhs, rhs_layout) -> None:
        """*In-place*: the comparison of lhs and rhs (one dtype) into the bool ``self``."""

    def compare_scalar_into(self, op: CompareOp, dst_layout, src, src_layout, scalar, reflected) -> None:
        """*In-place*: ``compare_scalar``'s result of ``src[src_layout]`` into the bool ``self``."""

    def where_into(self, dst_layout, cond, cond_layout, x, x_layout, y, y_layout) -> None:
        """*In-place*: ``self[dst_layout] = where(cond, x, y)``; ``cond`` bool, ``x`` and
        ``y`` of ``self``'s dtype (``x[mask] = v`` is this with ``y`` the destination).
        ``x`` may be a Python scalar with ``x_layout`` None (``x[mask] = 0.5``): the value
        is stored as ``full`` stores it, with no device array made for it."""


class BinaryDtypeStorage(Protocol):
    """The optional group "binary_dtype": operands of two dtypes.

    ``x - mean`` with x float32 and the mean float64 (scikit-learn's StandardScaler):
    NumPy's ufunc casts x a buffer at a time. Each operand is converted to ``dtype`` as
    it is read, as ``astype`` converts it, and the op runs in ``dtype`` with
    ``binary``'s values, with no converted copy of either operand. ``dtype`` is float32,
    float64, complex64 or complex128 and differs from at least one operand's dtype;
    ``op`` accepts it. A device that does not declare the group gets the front end's
    path: ``astype`` of the narrower operand, then ``binary`` (a temporary of its size).
    """

    def binary_as(self, op: BinaryOp, lhs_layout, rhs, rhs_layout, dtype) -> "BackendStorage":
        """``binary(op, ...)`` of ``self[lhs_layout]`` and ``rhs[rhs_layout]`` (one shape,
        any dtypes) converted to ``dtype``: a storage of ``op.result_dtype(dtype)``."""
