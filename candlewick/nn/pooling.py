"""2-D average and max pooling and nearest-neighbour upsampling on the backend's nn primitives."""

from __future__ import annotations

from .._core import require_array
from ..allocation import check_allocation
from ..array import Array, wrap
from ..docstrings import shared_doc
from ..errors import ArgumentValueError, DTypeError, ShapeError
from ._docs import NN_DOCS
from ._checks import check_positive, out_size, pair


def _pool_args(x, kernel_size, stride, padding,
               fname) -> tuple[tuple[int, int], tuple[int, int], tuple[int, int]]:
    require_array(x, fname)
    if x.ndim != 4:
        raise ShapeError(f"{fname}: x must be 4-D (N, C, H, W), got shape {x.shape}")
    if not x._dtype.is_floating:
        raise DTypeError(f"{fname}: x must be real floating, got {x._dtype.name}")
    kernel = pair(kernel_size, "kernel_size", fname)
    stride = kernel if stride is None else pair(stride, "stride", fname)
    padding = pair(padding, "padding", fname)
    check_positive(fname, kernel_size=kernel, stride=stride)
    if not (0 <= padding[0] <= kernel[0] // 2 and 0 <= padding[1] <= kernel[1] // 2):
        raise ArgumentValueError(f"{fname}: padding {padding} must be between 0 and half the kernel {kernel}")
    return kernel, stride, padding


@shared_doc(NN_DOCS)
def avg_pool2d(x: Array, kernel_size: int | tuple[int, int], stride: int | tuple[int, int] | None = None,
               padding: int | tuple[int, int] = 0, *, count_include_pad: bool = True) -> Array:
    """Average pooling over (H, W) windows; ``stride`` defaults to ``kernel_size``.

    {nn_pool_window}
    padding : int or pair of int
        Implicit zero padding (at most half the window).
    count_include_pad : bool
        Count the padding in each average's divisor.

    {nn_pool_returns_raises}

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.nn.avg_pool2d(cw.ones((1, 1, 4, 4)), 2).shape
    (1, 1, 2, 2)
    """
    kernel, stride, padding = _pool_args(x, kernel_size, stride, padding, "avg_pool2d")
    ho = out_size(x.shape[2], kernel[0], stride[0], padding[0], 1, "avg_pool2d")
    wo = out_size(x.shape[3], kernel[1], stride[1], padding[1], 1, "avg_pool2d")
    st = x._storage.avg_pool2d(x._layout, kernel, stride, padding, bool(count_include_pad))
    return wrap(st, x.shape[:2] + (ho, wo), x._dtype, x._device)


@shared_doc(NN_DOCS)
def max_pool2d(x: Array, kernel_size: int | tuple[int, int], stride: int | tuple[int, int] | None = None,
               padding: int | tuple[int, int] = 0, *, dilation: int | tuple[int, int] = 1) -> Array:
    """Max pooling over (H, W) windows; ``stride`` defaults to ``kernel_size``.

    {nn_pool_window}
    padding : int or pair of int
        Implicit -inf padding (at most half the window).
    dilation : int or pair of int
        The spacing of the window's elements.

    {nn_pool_returns_raises}

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.nn.max_pool2d(cw.reshape(cw.arange(16.0), (1, 1, 4, 4)), 2).tolist()
    [[[[5.0, 7.0], [13.0, 15.0]]]]
    """
    kernel, stride, padding = _pool_args(x, kernel_size, stride, padding, "max_pool2d")
    dilation = pair(dilation, "dilation", "max_pool2d")
    check_positive("max_pool2d", dilation=dilation)
    ho = out_size(x.shape[2], kernel[0], stride[0], padding[0], dilation[0], "max_pool2d")
    wo = out_size(x.shape[3], kernel[1], stride[1], padding[1], dilation[1], "max_pool2d")
    st = x._storage.max_pool2d(x._layout, kernel, stride, padding, dilation)
    return wrap(st, x.shape[:2] + (ho, wo), x._dtype, x._device)


def upsample_nearest2d(x: Array, size: int | tuple[int, int]) -> Array:
    """Nearest-neighbour resize of (N, C, H, W) to ``size = (out_h, out_w)``.

    Parameters
    ----------
    x : Array
        Input ``(N, C, H, W)``.
    size : int or pair of int
        The output ``(out_h, out_w)``.

    Returns
    -------
    Array
        ``(N, C, out_h, out_w)``.

    Raises
    ------
    TypeError
        If x is not an array or size is not an int (pair).
    ShapeError
        If x is not 4-D.
    ValueError
        If a size is not positive.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.nn.upsample_nearest2d(cw.ones((1, 1, 2, 2)), (4, 4)).shape
    (1, 1, 4, 4)
    """
    require_array(x, "upsample_nearest2d")
    if x.ndim != 4:
        raise ShapeError(f"upsample_nearest2d: x must be 4-D (N, C, H, W), got shape {x.shape}")
    out_h, out_w = pair(size, "size", "upsample_nearest2d")
    check_positive("upsample_nearest2d", size=(out_h, out_w))
    check_allocation("upsample_nearest2d", x.shape[:2] + (out_h, out_w), x._dtype, x._device)
    st = x._storage.upsample_nearest2d(x._layout, out_h, out_w)
    return wrap(st, x.shape[:2] + (out_h, out_w), x._dtype, x._device)
