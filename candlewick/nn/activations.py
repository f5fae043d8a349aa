"""Activations (the element-wise unary ops the namespace leaves out) and the softmaxes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._core import require_array
from ..array import Array
from ..docstrings import fill, shared_doc
from ..elementwise_dispatch import unary
from ..errors import DTypeError
from ..opdefs import UnaryOp
from ..statistical import max as amax, sum as asum
from ._docs import NN_DOCS

if TYPE_CHECKING:
    from collections.abc import Callable


def _activation(op: UnaryOp) -> Callable[[Array], Array]:
    def fn(x: Array, /) -> Array:
        return unary(op, x, op.value)

    fn.__name__ = fn.__qualname__ = op.value
    fn.__doc__ = fill(f"""Element-wise ``{op.value}`` activation.

    Parameters
    ----------
    x : Array
        Input array, real floating{" or integer" if "I" in op.domain else ""}.

    Returns
    -------
    Array
        The activation of each element, of x's shape and dtype.

    Raises
    ------
    {{raises_x_not_array}}
    DTypeError
        If x's dtype is not accepted.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.nn.{op.value}(cw.asarray([-1.0, 0.0, 2.0])).shape
    (3,)
    """)
    return fn


relu = _activation(UnaryOp.RELU)


gelu = _activation(UnaryOp.GELU)


sigmoid = _activation(UnaryOp.SIGMOID)


silu = _activation(UnaryOp.SILU)


erf = _activation(UnaryOp.ERF)


def _shifted_exponentials(x, axis, fname):
    """(x - max, exp(x - max), their sum) along ``axis``: the max shift keeps exp finite."""
    require_array(x, fname)
    if not x._dtype.is_floating:
        raise DTypeError(f"{fname}: x must be real floating, got {x._dtype.name}")
    shifted = x - amax(x, axis=axis, keepdims=True)
    e = unary(UnaryOp.EXP, shifted, fname)
    return shifted, e, asum(e, axis=axis, keepdims=True)


@shared_doc(NN_DOCS)
def softmax(x: Array, /, axis: int = -1) -> Array:
    """exp(x - max) / sum(exp(x - max)) along ``axis`` (max-shifted for stability).

    {nn_softmax_params}

    Returns
    -------
    Array
        Probabilities summing to 1 along axis.

    {nn_softmax_raises}

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.nn.softmax(cw.asarray([0.0, 0.0])).tolist()
    [0.5, 0.5]
    """
    _, e, total = _shifted_exponentials(x, axis, "softmax")
    return e / total


@shared_doc(NN_DOCS)
def log_softmax(x: Array, /, axis: int = -1) -> Array:
    """x - max - log(sum(exp(x - max))) along ``axis``.

    {nn_softmax_params}

    Returns
    -------
    Array
        Log-probabilities along axis.

    {nn_softmax_raises}

    Examples
    --------
    >>> import candlewick as cw
    >>> round(cw.nn.log_softmax(cw.asarray([0.0, 0.0]))[0].item(), 4)
    -0.6931
    """
    shifted, _, total = _shifted_exponentials(x, axis, "log_softmax")
    return shifted - unary(UnaryOp.LOG, total, "log_softmax")
