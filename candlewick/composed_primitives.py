"""Primitives written in other primitives, for a backend without a kernel of its own and
for the fusion tracer, which records them as the steps the fused kernels know.

``var_in_steps`` is ``BackendStorage.var`` as ``np.var`` computes it, in two passes: the
sum over the axes, kept as 1s, divided into the mean; the deviations from the mean
broadcast back, squared (the magnitudes first, for complex) and summed; that sum divided
by ``N - correction``, or NaN where that is not positive; with ``root``, its square root.
It calls only the storage's own ``reduce``, ``binary``, ``binary_scalar``, ``unary`` and
``affine``.
"""

from .layout import Layout
from .shapes import reduced_shape
from .opdefs import BinaryOp, ReduceOp, UnaryOp

__all__ = ["var_in_steps"]


def var_in_steps(x, layout, axes, correction, root):
    """``x.var(layout, axes, correction, root)`` composed of ``x``'s other primitives."""
    axes = tuple(axes)
    shape = tuple(layout.shape)
    count = 1
    for a in axes:
        count *= shape[a]
    complex_ = x.dtype.is_complex
    kept = Layout.contiguous(reduced_shape(shape, axes, True))
    mean = x.reduce(ReduceOp.SUM, layout, axes).binary_scalar(
        BinaryOp.DIVIDE, kept, complex(count) if complex_ else float(count), False)
    line = Layout.contiguous(shape)
    deviation = x.binary(BinaryOp.SUBTRACT, layout, mean, kept.broadcast_to(shape))
    if complex_:
        deviation = deviation.unary(UnaryOp.ABS, line)
    total = deviation.unary(UnaryOp.SQUARE, line).reduce(ReduceOp.SUM, line, axes)
    out = Layout.contiguous(reduced_shape(shape, axes, False))
    dof = count - correction
    if dof > 0:
        result = total.binary_scalar(BinaryOp.DIVIDE, out, float(dof), False)
    else:
        result = total.affine(out, float("nan"), 0.0)
    return result.unary(UnaryOp.SQRT, out) if root else result
