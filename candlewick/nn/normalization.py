"""Layer and RMS normalization over the last axis, composed from the namespace."""

from __future__ import annotations

from .._core import require_array
from ..array import Array
from ..arguments import real_number
from ..docstrings import shared_doc
from ..elementwise_dispatch import unary
from ..errors import DTypeError, ShapeError
from ..moments import mean
from ..opdefs import UnaryOp
from ._docs import NN_DOCS


def _norm_params(x, weight, bias, fname):
    require_array(x, fname)
    if not x._dtype.is_floating:
        raise DTypeError(f"{fname}: x must be real floating, got {x._dtype.name}")
    for name, p in (("weight", weight), ("bias", bias)):
        if p is not None:
            require_array(p, fname, name)
            if p.shape != x.shape[-1:]:
                raise ShapeError(f"{fname}: {name} must have shape {x.shape[-1:]}, got {p.shape}")


@shared_doc(NN_DOCS)
def layer_norm(x: Array, /, weight: Array | None = None, bias: Array | None = None, *,
               eps: float = 1e-5) -> Array:
    """Normalize over the last axis to zero mean, unit variance; then scale and shift.

    Parameters
    ----------
    {nn_norm_x_weight}
    bias : Array or None
        Shift of the last axis' length.
    eps : float
        Added to the variance.

    {nn_norm_returns_raises}
    ShapeError
        If weight or bias does not match the last axis.

    Examples
    --------
    >>> import candlewick as cw
    >>> [round(v, 3) for v in cw.nn.layer_norm(cw.asarray([1.0, 3.0])).tolist()]
    [-1.0, 1.0]
    """
    _norm_params(x, weight, bias, "layer_norm")
    eps = real_number(eps, "layer_norm", "eps", nonnegative=True)
    centered = x - mean(x, axis=-1, keepdims=True)
    var = mean(centered * centered, axis=-1, keepdims=True)
    out = centered / unary(UnaryOp.SQRT, var + eps, "layer_norm")
    if weight is not None:
        out = out * weight
    if bias is not None:
        out = out + bias
    return out


@shared_doc(NN_DOCS)
def rms_norm(x: Array, /, weight: Array | None = None, *, eps: float = 1e-6) -> Array:
    """x / sqrt(mean(x^2) + eps) over the last axis, times ``weight``.

    Parameters
    ----------
    {nn_norm_x_weight}
    eps : float
        Added to the mean square.

    {nn_norm_returns_raises}
    ShapeError
        If weight does not match the last axis.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.nn.rms_norm(cw.asarray([3.0, 4.0])).shape
    (2,)
    """
    _norm_params(x, weight, None, "rms_norm")
    eps = real_number(eps, "rms_norm", "eps", nonnegative=True)
    rms = unary(UnaryOp.SQRT, mean(x * x, axis=-1, keepdims=True) + eps, "rms_norm")
    out = x / rms
    return out * weight if weight is not None else out
