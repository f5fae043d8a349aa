"""var (and std, its square root), composed of this backend's own reductions and
element-wise kernels (called as the storage's methods): the two-pass formula, as
``np.var`` computes it. The sum over the axes, kept as 1s, divided into the mean; the
deviations from the mean broadcast back, squared (the magnitudes first, for complex) and
summed; that sum divided by ``N - correction``, or NaN where that is not positive.
"""

from candlewick.layout import Layout, reduced_shape
from candlewick.opdefs import BinaryOp, ReduceOp, UnaryOp


def var(x, layout, axes, correction, root):
    """``BackendStorage.var`` (see the module docstring)."""
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
