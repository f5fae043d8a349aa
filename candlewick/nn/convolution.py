"""Convolutions and transposed convolutions (1-D and 2-D) on the backend's nn primitives."""

from __future__ import annotations

from .._core import require_array
from ..allocation import check_allocation
from ..array import Array, wrap
from ..docstrings import shared_doc
from ..errors import ArgumentValueError, DeviceMismatchError, DTypeError, ShapeError
from ..manipulation import reshape
from ._docs import NN_DOCS
from ._checks import check_nonnegative, check_positive, out_size, pair, single


def _floating_pair(x, weight, fname, ndim):
    if type(x) is not Array or type(weight) is not Array:  # the usual call skips two calls
        require_array(x, fname, "x")
        require_array(weight, fname, "weight")
    dtype = x._dtype
    if len(x._layout.shape) != ndim or len(weight._layout.shape) != ndim:
        raise ShapeError(f"{fname}: x and weight must be {ndim}-D, got {x.ndim}-D and {weight.ndim}-D")
    if not dtype.is_floating:
        raise DTypeError(f"{fname}: x must be real floating, got {dtype.name}")
    if weight._dtype is not dtype:
        raise DTypeError(f"{fname}: weight dtype {weight._dtype.name} differs from x dtype {dtype.name}")
    if weight._device is not x._device:
        raise DeviceMismatchError(f"{fname}: weight and x are on different devices")


def _conv2d_params(stride, padding, dilation) -> tuple[tuple[int, int], tuple[int, int], tuple[int, int]]:
    """(stride, padding, dilation) of conv2d as pairs, checked. Plain ints, the usual
    call, take the short way (``type(v) is int`` also turns bools away)."""
    if type(stride) is int and type(padding) is int and type(dilation) is int and stride > 0 \
            and padding >= 0 and dilation > 0:
        return (stride, stride), (padding, padding), (dilation, dilation)
    stride = pair(stride, "stride", "conv2d")
    padding = pair(padding, "padding", "conv2d")
    dilation = pair(dilation, "dilation", "conv2d")
    check_positive("conv2d", stride=stride, dilation=dilation)
    if min(padding) < 0:
        raise ArgumentValueError(f"conv2d: padding must be >= 0, got {padding}")
    return stride, padding, dilation


def _int_groups(groups, fname):
    if type(groups) is not int:
        groups = single(groups, "groups", fname)
    return groups


def _check_groups(fname, cin, weight_cin, groups, cout=None):
    groups = _int_groups(groups, fname)
    if groups < 1 or cin % groups:
        raise ArgumentValueError(f"{fname}: groups={groups} must be >= 1 and divide the {cin} input channels")
    if weight_cin != cin // groups:
        raise ShapeError(f"{fname}: weight expects {weight_cin * groups} input channels, x has {cin}")
    if cout is not None and cout % groups:
        raise ArgumentValueError(f"{fname}: groups={groups} must divide the {cout} output channels")
    return groups


def _add_bias(out, bias, fname):
    if bias is None:
        return out
    require_array(bias, fname, "bias")
    if bias.shape != (out.shape[1],):
        raise ShapeError(f"{fname}: bias must have shape ({out.shape[1]},), got {bias.shape}")
    return out + reshape(bias, (1, -1) + (1,) * (out.ndim - 2))


@shared_doc(NN_DOCS)
def conv1d(x: Array, weight: Array, bias: Array | None = None, *, stride: int = 1, padding: int = 0,
           dilation: int = 1, groups: int = 1) -> Array:
    """1-D cross-correlation: x (N, Cin, L), weight (Cout, Cin/groups, K).

    Parameters
    ----------
    x : Array
        Input ``(N, Cin, L)``.
    weight : Array
        Filters ``(Cout, Cin/groups, K)``.
    {nn_conv_window_1d}
    {nn_conv_dilation_groups_1d}

    {nn_conv_returns_raises_1d}

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.nn.conv1d(cw.ones((1, 2, 5)), cw.ones((3, 2, 3))).shape
    (1, 3, 3)
    """
    _floating_pair(x, weight, "conv1d", 3)
    stride, padding, dilation = (single(v, n, "conv1d") for v, n in ((stride, "stride"), (padding, "padding"), (dilation, "dilation")))
    check_positive("conv1d", stride=stride, dilation=dilation)
    if padding < 0:
        raise ArgumentValueError(f"conv1d: padding must be >= 0, got {padding}")
    groups = _check_groups("conv1d", x.shape[1], weight.shape[1], groups, weight.shape[0])
    lout = out_size(x.shape[2], weight.shape[2], stride, padding, dilation, "conv1d")
    check_allocation("conv1d", (x.shape[0], weight.shape[0], lout), x._dtype, x._device)
    st = x._storage.conv1d(x._layout, weight._storage, weight._layout, stride, padding, dilation, groups)
    return _add_bias(wrap(st, (x.shape[0], weight.shape[0], lout), x._dtype, x._device), bias, "conv1d")


@shared_doc(NN_DOCS)
def conv2d(x: Array, weight: Array, bias: Array | None = None, *, stride: int | tuple[int, int] = 1,
           padding: int | tuple[int, int] = 0, dilation: int | tuple[int, int] = 1,
           groups: int = 1) -> Array:
    """2-D cross-correlation: x (N, Cin, H, W), weight (Cout, Cin/groups, KH, KW).

    Parameters
    ----------
    x : Array
        Input ``(N, Cin, H, W)``.
    weight : Array
        Filters ``(Cout, Cin/groups, KH, KW)``.
    {nn_conv_window_2d}
    {nn_conv_dilation_groups_2d}

    {nn_conv_returns_raises_2d}

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.nn.conv2d(cw.ones((1, 2, 5, 5)), cw.ones((4, 2, 3, 3)), padding=1).shape
    (1, 4, 5, 5)
    """
    _floating_pair(x, weight, "conv2d", 4)
    stride, padding, dilation = _conv2d_params(stride, padding, dilation)
    xs, ws = x._layout.shape, weight._layout.shape
    groups = _check_groups("conv2d", xs[1], ws[1], groups, ws[0])
    ho = out_size(xs[2], ws[2], stride[0], padding[0], dilation[0], "conv2d")
    wo = out_size(xs[3], ws[3], stride[1], padding[1], dilation[1], "conv2d")
    check_allocation("conv2d", (xs[0], ws[0], ho, wo), x._dtype, x._device)
    st = x._storage.conv2d(x._layout, weight._storage, weight._layout, stride, padding, dilation, groups)
    out = wrap(st, (xs[0], ws[0], ho, wo), x._dtype, x._device)
    return out if bias is None else _add_bias(out, bias, "conv2d")


def _transpose_size(n, k, stride, padding, output_padding, dilation, fname):
    if output_padding >= stride and output_padding >= dilation:
        raise ArgumentValueError(f"{fname}: output_padding ({output_padding}) must be smaller than stride or dilation")
    size = (n - 1) * stride - 2 * padding + dilation * (k - 1) + output_padding + 1
    if size < 1:
        raise ShapeError(f"{fname}: the output would be empty (size {size})")
    return size


@shared_doc(NN_DOCS)
def conv_transpose1d(x: Array, weight: Array, bias: Array | None = None, *, stride: int = 1,
                     padding: int = 0, output_padding: int = 0, dilation: int = 1,
                     groups: int = 1) -> Array:
    """Transposed 1-D convolution: x (N, Cin, L), weight (Cin, Cout/groups, K).

    Parameters
    ----------
    x : Array
        Input ``(N, Cin, L)``.
    weight : Array
        Filters ``(Cin, Cout/groups, K)``.
    {nn_conv_window_1d}
    output_padding : int
        Extra size added to one side of the output.
    {nn_conv_dilation_groups_1d}

    {nn_conv_returns_raises_1d}

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.nn.conv_transpose1d(cw.ones((1, 2, 3)), cw.ones((2, 3, 3))).shape
    (1, 3, 5)
    """
    _floating_pair(x, weight, "conv_transpose1d", 3)
    vals = [single(v, n, "conv_transpose1d") for v, n in ((stride, "stride"), (padding, "padding"), (output_padding, "output_padding"), (dilation, "dilation"))]
    stride, padding, output_padding, dilation = vals
    check_positive("conv_transpose1d", stride=stride, dilation=dilation)
    check_nonnegative("conv_transpose1d", padding=padding, output_padding=output_padding)
    groups = _int_groups(groups, "conv_transpose1d")
    if x.shape[1] != weight.shape[0] or groups < 1 or x.shape[1] % groups:
        raise ShapeError(f"conv_transpose1d: weight's first dim ({weight.shape[0]}) must equal x's channels ({x.shape[1]}), divisible by groups={groups}")
    lout = _transpose_size(x.shape[2], weight.shape[2], stride, padding, output_padding, dilation, "conv_transpose1d")
    check_allocation("conv_transpose1d", (x.shape[0], weight.shape[1] * groups, lout), x._dtype, x._device)
    st = x._storage.conv_transpose1d(x._layout, weight._storage, weight._layout, stride, padding, output_padding, dilation, groups)
    out = wrap(st, (x.shape[0], weight.shape[1] * groups, lout), x._dtype, x._device)
    return _add_bias(out, bias, "conv_transpose1d")


@shared_doc(NN_DOCS)
def conv_transpose2d(x: Array, weight: Array, bias: Array | None = None, *,
                     stride: int | tuple[int, int] = 1, padding: int | tuple[int, int] = 0,
                     output_padding: int | tuple[int, int] = 0, dilation: int | tuple[int, int] = 1,
                     groups: int = 1) -> Array:
    """Transposed 2-D convolution: x (N, Cin, H, W), weight (Cin, Cout/groups, KH, KW).

    Parameters
    ----------
    x : Array
        Input ``(N, Cin, H, W)``.
    weight : Array
        Filters ``(Cin, Cout/groups, KH, KW)``.
    {nn_conv_window_2d}
    output_padding : int or pair of int
        Extra size added to one side of the output.
    {nn_conv_dilation_groups_2d}

    {nn_conv_returns_raises_2d}

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.nn.conv_transpose2d(cw.ones((1, 2, 3, 3)), cw.ones((2, 4, 2, 2)), stride=2).shape
    (1, 4, 6, 6)
    """
    _floating_pair(x, weight, "conv_transpose2d", 4)
    vals = [pair(v, n, "conv_transpose2d") for v, n in ((stride, "stride"), (padding, "padding"), (output_padding, "output_padding"), (dilation, "dilation"))]
    stride, padding, output_padding, dilation = vals
    check_positive("conv_transpose2d", stride=stride, dilation=dilation)
    check_nonnegative("conv_transpose2d", padding=padding, output_padding=output_padding)
    groups = _int_groups(groups, "conv_transpose2d")
    if x.shape[1] != weight.shape[0] or groups < 1 or x.shape[1] % groups:
        raise ShapeError(f"conv_transpose2d: weight's first dim ({weight.shape[0]}) must equal x's channels ({x.shape[1]}), divisible by groups={groups}")
    ho = _transpose_size(x.shape[2], weight.shape[2], stride[0], padding[0], output_padding[0], dilation[0], "conv_transpose2d")
    wo = _transpose_size(x.shape[3], weight.shape[3], stride[1], padding[1], output_padding[1], dilation[1], "conv_transpose2d")
    check_allocation("conv_transpose2d", (x.shape[0], weight.shape[1] * groups, ho, wo), x._dtype, x._device)
    st = x._storage.conv_transpose2d(x._layout, weight._storage, weight._layout, stride, padding, output_padding, dilation, groups)
    out = wrap(st, (x.shape[0], weight.shape[1] * groups, ho, wo), x._dtype, x._device)
    return _add_bias(out, bias, "conv_transpose2d")
