"""Candle's neural-network ops on candlewick arrays.

Convolutions, pooling and upsampling call the backend's nn primitives; softmax,
normalizations and embedding are composed from the Array API namespace.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import dtypes as _dt
from ._core import require_array
from .array import Array, wrap
from .elementwise import unary
from .allocation import check_allocation
from .arguments import real_number
from .errors import ArgumentTypeError, ArgumentValueError, DeviceMismatchError, DTypeError, ShapeError, short_repr
from .manipulation import reshape
from .opdefs import UnaryOp
from .statistical import max as amax, mean, sum as asum

if TYPE_CHECKING:
    from collections.abc import Callable


def _pair(value, name, fname) -> tuple[int, int]:
    if isinstance(value, int) and not isinstance(value, bool):
        return (value, value)
    if isinstance(value, (tuple, list)) and len(value) == 2 and all(isinstance(v, int) for v in value):
        return tuple(value)
    raise ArgumentTypeError(f"{fname}: {name} must be an int or a pair of ints, got {short_repr(value)}")


def _single(value, name, fname):
    if isinstance(value, (tuple, list)) and len(value) == 1:
        value = value[0]
    if not isinstance(value, int) or isinstance(value, bool):
        raise ArgumentTypeError(f"{fname}: {name} must be an int, got {short_repr(value)}")
    return value


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
    stride = _pair(stride, "stride", "conv2d")
    padding = _pair(padding, "padding", "conv2d")
    dilation = _pair(dilation, "dilation", "conv2d")
    _check_positive("conv2d", stride=stride, dilation=dilation)
    if min(padding) < 0:
        raise ArgumentValueError(f"conv2d: padding must be >= 0, got {padding}")
    return stride, padding, dilation


def _check_positive(fname, **values):
    for name, v in values.items():
        if (min(v) if isinstance(v, tuple) else v) < 1:
            raise ArgumentValueError(f"{fname}: {name} must be >= 1, got {v}")


def _int_groups(groups, fname):
    if type(groups) is not int:
        groups = _single(groups, "groups", fname)
    return groups


def _check_nonnegative(fname, **values):
    for name, v in values.items():
        if (min(v) if isinstance(v, tuple) else v) < 0:
            raise ArgumentValueError(f"{fname}: {name} must be >= 0, got {v}")


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


def _out_size(n, k, stride, padding, dilation, fname):
    size = (n + 2 * padding - dilation * (k - 1) - 1) // stride + 1
    if size < 1:
        raise ShapeError(f"{fname}: the kernel ({k}, dilation {dilation}) is larger than the padded input ({n} + 2*{padding})")
    return size


def conv1d(x: Array, weight: Array, bias: Array | None = None, *, stride: int = 1, padding: int = 0,
           dilation: int = 1, groups: int = 1) -> Array:
    """1-D cross-correlation: x (N, Cin, L), weight (Cout, Cin/groups, K).

    Parameters
    ----------
    x : Array
        Input ``(N, Cin, L)``.
    weight : Array
        Filters ``(Cout, Cin/groups, K)``.
    bias : Array or None
        Per-output-channel bias ``(Cout,)``.
    stride : int
        The step of the window.
    padding : int
        Zeros implicitly added on each side.
    dilation : int
        The spacing of the kernel's elements.
    groups : int
        The number of channel groups.

    Returns
    -------
    Array
        ``(N, Cout, Lout)``.

    Raises
    ------
    TypeError
        If x or weight is not a candlewick array, or an int parameter is not an int (pair).
    ShapeError
        If x or weight has the wrong number of dimensions.
    DTypeError
        If x is not real floating or weight's dtype differs.
    ValueError
        If stride/dilation is not positive, padding is negative, groups does not divide the
        channels, or the output would be empty.
    DeviceMismatchError
        If the operands are on different devices.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.nn.conv1d(cw.ones((1, 2, 5)), cw.ones((3, 2, 3))).shape
    (1, 3, 3)
    """
    _floating_pair(x, weight, "conv1d", 3)
    stride, padding, dilation = (_single(v, n, "conv1d") for v, n in ((stride, "stride"), (padding, "padding"), (dilation, "dilation")))
    _check_positive("conv1d", stride=stride, dilation=dilation)
    if padding < 0:
        raise ArgumentValueError(f"conv1d: padding must be >= 0, got {padding}")
    groups = _check_groups("conv1d", x.shape[1], weight.shape[1], groups, weight.shape[0])
    lout = _out_size(x.shape[2], weight.shape[2], stride, padding, dilation, "conv1d")
    check_allocation("conv1d", (x.shape[0], weight.shape[0], lout), x._dtype, x._device)
    st = x._storage.conv1d(x._layout, weight._storage, weight._layout, stride, padding, dilation, groups)
    return _add_bias(wrap(st, (x.shape[0], weight.shape[0], lout), x._dtype, x._device), bias, "conv1d")


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
    bias : Array or None
        Per-output-channel bias ``(Cout,)``.
    stride : int or pair of int
        The step of the window.
    padding : int or pair of int
        Zeros implicitly added on each side.
    dilation : int or pair of int
        The spacing of the kernel's elements.
    groups : int
        The number of channel groups.

    Returns
    -------
    Array
        ``(N, Cout, Hout, Wout)``.

    Raises
    ------
    TypeError
        If x or weight is not a candlewick array, or an int parameter is not an int (pair).
    ShapeError
        If x or weight has the wrong number of dimensions.
    DTypeError
        If x is not real floating or weight's dtype differs.
    ValueError
        If stride/dilation is not positive, padding is negative, groups does not divide the
        channels, or the output would be empty.
    DeviceMismatchError
        If the operands are on different devices.

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
    ho = _out_size(xs[2], ws[2], stride[0], padding[0], dilation[0], "conv2d")
    wo = _out_size(xs[3], ws[3], stride[1], padding[1], dilation[1], "conv2d")
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
    bias : Array or None
        Per-output-channel bias ``(Cout,)``.
    stride : int
        The step of the window.
    padding : int
        Zeros implicitly added on each side.
    output_padding : int
        Extra size added to one side of the output.
    dilation : int
        The spacing of the kernel's elements.
    groups : int
        The number of channel groups.

    Returns
    -------
    Array
        ``(N, Cout, Lout)``.

    Raises
    ------
    TypeError
        If x or weight is not a candlewick array, or an int parameter is not an int (pair).
    ShapeError
        If x or weight has the wrong number of dimensions.
    DTypeError
        If x is not real floating or weight's dtype differs.
    ValueError
        If stride/dilation is not positive, padding is negative, groups does not divide the
        channels, or the output would be empty.
    DeviceMismatchError
        If the operands are on different devices.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.nn.conv_transpose1d(cw.ones((1, 2, 3)), cw.ones((2, 3, 3))).shape
    (1, 3, 5)
    """
    _floating_pair(x, weight, "conv_transpose1d", 3)
    vals = [_single(v, n, "conv_transpose1d") for v, n in ((stride, "stride"), (padding, "padding"), (output_padding, "output_padding"), (dilation, "dilation"))]
    stride, padding, output_padding, dilation = vals
    _check_positive("conv_transpose1d", stride=stride, dilation=dilation)
    _check_nonnegative("conv_transpose1d", padding=padding, output_padding=output_padding)
    groups = _int_groups(groups, "conv_transpose1d")
    if x.shape[1] != weight.shape[0] or groups < 1 or x.shape[1] % groups:
        raise ShapeError(f"conv_transpose1d: weight's first dim ({weight.shape[0]}) must equal x's channels ({x.shape[1]}), divisible by groups={groups}")
    lout = _transpose_size(x.shape[2], weight.shape[2], stride, padding, output_padding, dilation, "conv_transpose1d")
    check_allocation("conv_transpose1d", (x.shape[0], weight.shape[1] * groups, lout), x._dtype, x._device)
    st = x._storage.conv_transpose1d(x._layout, weight._storage, weight._layout, stride, padding, output_padding, dilation, groups)
    out = wrap(st, (x.shape[0], weight.shape[1] * groups, lout), x._dtype, x._device)
    return _add_bias(out, bias, "conv_transpose1d")


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
    bias : Array or None
        Per-output-channel bias ``(Cout,)``.
    stride : int or pair of int
        The step of the window.
    padding : int or pair of int
        Zeros implicitly added on each side.
    output_padding : int or pair of int
        Extra size added to one side of the output.
    dilation : int or pair of int
        The spacing of the kernel's elements.
    groups : int
        The number of channel groups.

    Returns
    -------
    Array
        ``(N, Cout, Hout, Wout)``.

    Raises
    ------
    TypeError
        If x or weight is not a candlewick array, or an int parameter is not an int (pair).
    ShapeError
        If x or weight has the wrong number of dimensions.
    DTypeError
        If x is not real floating or weight's dtype differs.
    ValueError
        If stride/dilation is not positive, padding is negative, groups does not divide the
        channels, or the output would be empty.
    DeviceMismatchError
        If the operands are on different devices.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.nn.conv_transpose2d(cw.ones((1, 2, 3, 3)), cw.ones((2, 4, 2, 2)), stride=2).shape
    (1, 4, 6, 6)
    """
    _floating_pair(x, weight, "conv_transpose2d", 4)
    vals = [_pair(v, n, "conv_transpose2d") for v, n in ((stride, "stride"), (padding, "padding"), (output_padding, "output_padding"), (dilation, "dilation"))]
    stride, padding, output_padding, dilation = vals
    _check_positive("conv_transpose2d", stride=stride, dilation=dilation)
    _check_nonnegative("conv_transpose2d", padding=padding, output_padding=output_padding)
    groups = _int_groups(groups, "conv_transpose2d")
    if x.shape[1] != weight.shape[0] or groups < 1 or x.shape[1] % groups:
        raise ShapeError(f"conv_transpose2d: weight's first dim ({weight.shape[0]}) must equal x's channels ({x.shape[1]}), divisible by groups={groups}")
    ho = _transpose_size(x.shape[2], weight.shape[2], stride[0], padding[0], output_padding[0], dilation[0], "conv_transpose2d")
    wo = _transpose_size(x.shape[3], weight.shape[3], stride[1], padding[1], output_padding[1], dilation[1], "conv_transpose2d")
    check_allocation("conv_transpose2d", (x.shape[0], weight.shape[1] * groups, ho, wo), x._dtype, x._device)
    st = x._storage.conv_transpose2d(x._layout, weight._storage, weight._layout, stride, padding, output_padding, dilation, groups)
    out = wrap(st, (x.shape[0], weight.shape[1] * groups, ho, wo), x._dtype, x._device)
    return _add_bias(out, bias, "conv_transpose2d")


def _pool_args(x, kernel_size, stride, padding,
               fname) -> tuple[tuple[int, int], tuple[int, int], tuple[int, int]]:
    require_array(x, fname)
    if x.ndim != 4:
        raise ShapeError(f"{fname}: x must be 4-D (N, C, H, W), got shape {x.shape}")
    if not x._dtype.is_floating:
        raise DTypeError(f"{fname}: x must be real floating, got {x._dtype.name}")
    kernel = _pair(kernel_size, "kernel_size", fname)
    stride = kernel if stride is None else _pair(stride, "stride", fname)
    padding = _pair(padding, "padding", fname)
    _check_positive(fname, kernel_size=kernel, stride=stride)
    if not (0 <= padding[0] <= kernel[0] // 2 and 0 <= padding[1] <= kernel[1] // 2):
        raise ArgumentValueError(f"{fname}: padding {padding} must be between 0 and half the kernel {kernel}")
    return kernel, stride, padding


def avg_pool2d(x: Array, kernel_size: int | tuple[int, int], stride: int | tuple[int, int] | None = None,
               padding: int | tuple[int, int] = 0, *, count_include_pad: bool = True) -> Array:
    """Average pooling over (H, W) windows; ``stride`` defaults to ``kernel_size``.

    Parameters
    ----------
    x : Array
        Input ``(N, C, H, W)``, real floating.
    kernel_size : int or pair of int
        The window.
    stride : int, pair of int or None
        The step; None for kernel_size.
    padding : int or pair of int
        Implicit zero padding (at most half the window).
    count_include_pad : bool
        Count the padding in each average's divisor.

    Returns
    -------
    Array
        ``(N, C, Hout, Wout)``.

    Raises
    ------
    TypeError
        If x is not an array or a size is not an int (pair).
    ShapeError
        If x is not 4-D.
    DTypeError
        If x is not real floating.
    ValueError
        If a size is out of range.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.nn.avg_pool2d(cw.ones((1, 1, 4, 4)), 2).shape
    (1, 1, 2, 2)
    """
    kernel, stride, padding = _pool_args(x, kernel_size, stride, padding, "avg_pool2d")
    ho = _out_size(x.shape[2], kernel[0], stride[0], padding[0], 1, "avg_pool2d")
    wo = _out_size(x.shape[3], kernel[1], stride[1], padding[1], 1, "avg_pool2d")
    st = x._storage.avg_pool2d(x._layout, kernel, stride, padding, bool(count_include_pad))
    return wrap(st, x.shape[:2] + (ho, wo), x._dtype, x._device)


def max_pool2d(x: Array, kernel_size: int | tuple[int, int], stride: int | tuple[int, int] | None = None,
               padding: int | tuple[int, int] = 0, *, dilation: int | tuple[int, int] = 1) -> Array:
    """Max pooling over (H, W) windows; ``stride`` defaults to ``kernel_size``.

    Parameters
    ----------
    x : Array
        Input ``(N, C, H, W)``, real floating.
    kernel_size : int or pair of int
        The window.
    stride : int, pair of int or None
        The step; None for kernel_size.
    padding : int or pair of int
        Implicit -inf padding (at most half the window).
    dilation : int or pair of int
        The spacing of the window's elements.

    Returns
    -------
    Array
        ``(N, C, Hout, Wout)``.

    Raises
    ------
    TypeError
        If x is not an array or a size is not an int (pair).
    ShapeError
        If x is not 4-D.
    DTypeError
        If x is not real floating.
    ValueError
        If a size is out of range.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.nn.max_pool2d(cw.reshape(cw.arange(16.0), (1, 1, 4, 4)), 2).tolist()
    [[[[5.0, 7.0], [13.0, 15.0]]]]
    """
    kernel, stride, padding = _pool_args(x, kernel_size, stride, padding, "max_pool2d")
    dilation = _pair(dilation, "dilation", "max_pool2d")
    _check_positive("max_pool2d", dilation=dilation)
    ho = _out_size(x.shape[2], kernel[0], stride[0], padding[0], dilation[0], "max_pool2d")
    wo = _out_size(x.shape[3], kernel[1], stride[1], padding[1], dilation[1], "max_pool2d")
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
    out_h, out_w = _pair(size, "size", "upsample_nearest2d")
    _check_positive("upsample_nearest2d", size=(out_h, out_w))
    check_allocation("upsample_nearest2d", x.shape[:2] + (out_h, out_w), x._dtype, x._device)
    st = x._storage.upsample_nearest2d(x._layout, out_h, out_w)
    return wrap(st, x.shape[:2] + (out_h, out_w), x._dtype, x._device)


def _activation(op: UnaryOp) -> Callable[[Array], Array]:
    def fn(x: Array, /) -> Array:
        return unary(op, x, op.value)

    fn.__name__ = fn.__qualname__ = op.value
    fn.__doc__ = f"""Element-wise ``{op.value}`` activation.

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
    TypeError
        If x is not a candlewick array.
    DTypeError
        If x's dtype is not accepted.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.nn.{op.value}(cw.asarray([-1.0, 0.0, 2.0])).shape
    (3,)
    """
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


def softmax(x: Array, /, axis: int = -1) -> Array:
    """exp(x - max) / sum(exp(x - max)) along ``axis`` (max-shifted for stability).

    Parameters
    ----------
    x : Array
        Input, real floating.
    axis : int
        The axis normalized over.

    Returns
    -------
    Array
        Probabilities summing to 1 along axis.

    Raises
    ------
    TypeError
        If x is not a candlewick array.
    DTypeError
        If x is not real floating.
    AxisError
        If axis is out of range.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.nn.softmax(cw.asarray([0.0, 0.0])).tolist()
    [0.5, 0.5]
    """
    _, e, total = _shifted_exponentials(x, axis, "softmax")
    return e / total


def log_softmax(x: Array, /, axis: int = -1) -> Array:
    """x - max - log(sum(exp(x - max))) along ``axis``.

    Parameters
    ----------
    x : Array
        Input, real floating.
    axis : int
        The axis normalized over.

    Returns
    -------
    Array
        Log-probabilities along axis.

    Raises
    ------
    TypeError
        If x is not a candlewick array.
    DTypeError
        If x is not real floating.
    AxisError
        If axis is out of range.

    Examples
    --------
    >>> import candlewick as cw
    >>> round(cw.nn.log_softmax(cw.asarray([0.0, 0.0]))[0].item(), 4)
    -0.6931
    """
    shifted, _, total = _shifted_exponentials(x, axis, "log_softmax")
    return shifted - unary(UnaryOp.LOG, total, "log_softmax")


def _norm_params(x, weight, bias, fname):
    require_array(x, fname)
    if not x._dtype.is_floating:
        raise DTypeError(f"{fname}: x must be real floating, got {x._dtype.name}")
    for name, p in (("weight", weight), ("bias", bias)):
        if p is not None:
            require_array(p, fname, name)
            if p.shape != x.shape[-1:]:
                raise ShapeError(f"{fname}: {name} must have shape {x.shape[-1:]}, got {p.shape}")


def layer_norm(x: Array, /, weight: Array | None = None, bias: Array | None = None, *,
               eps: float = 1e-5) -> Array:
    """Normalize over the last axis to zero mean, unit variance; then scale and shift.

    Parameters
    ----------
    x : Array
        Input, real floating, at least 1-D.
    weight : Array or None
        Scale of the last axis' length.
    bias : Array or None
        Shift of the last axis' length.
    eps : float
        Added to the variance.

    Returns
    -------
    Array
        x normalized, of x's shape.

    Raises
    ------
    TypeError
        If an operand is not a candlewick array.
    DTypeError
        If x is not real floating or the dtypes differ.
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


def rms_norm(x: Array, /, weight: Array | None = None, *, eps: float = 1e-6) -> Array:
    """x / sqrt(mean(x^2) + eps) over the last axis, times ``weight``.

    Parameters
    ----------
    x : Array
        Input, real floating, at least 1-D.
    weight : Array or None
        Scale of the last axis' length.
    eps : float
        Added to the mean square.

    Returns
    -------
    Array
        x normalized, of x's shape.

    Raises
    ------
    TypeError
        If an operand is not a candlewick array.
    DTypeError
        If x is not real floating or the dtypes differ.
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


def embedding(ids: Array, table: Array, /) -> Array:
    """Rows of ``table`` (V, D) selected by integer ``ids`` of any shape -> ids.shape + (D,).

    Parameters
    ----------
    ids : Array
        Integer row indices, any shape.
    table : Array
        The rows ``(V, D)``.

    Returns
    -------
    Array
        ``ids.shape + (D,)``.

    Raises
    ------
    TypeError
        If an operand is not a candlewick array.
    DTypeError
        If ids is not integer.
    ShapeError
        If table is not 2-D.
    IndexOutOfBoundsError
        If an id is outside ``[0, V)``.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.nn.embedding(cw.asarray([1, 0]), cw.asarray([[1.0, 2.0], [3.0, 4.0]])).tolist()
    [[3.0, 4.0], [1.0, 2.0]]
    """
    require_array(ids, "embedding", "ids")
    require_array(table, "embedding", "table")
    if not ids._dtype.is_integer:
        raise DTypeError(f"embedding: ids must be integers, got {ids._dtype.name}")
    if table.ndim != 2:
        raise ShapeError(f"embedding: table must be 2-D (vocabulary, dim), got shape {table.shape}")
    if ids._device is not table._device:
        raise DeviceMismatchError("embedding: ids and table are on different devices")
    idx = ids if ids._dtype is _dt.int64 else ids.astype(_dt.int64)
    st = table._storage.index_select(table._layout, idx._storage, idx._layout, 0)
    return wrap(st, ids.shape + (table.shape[1],), table._dtype, table._device)


__all__ = [
    "conv1d", "conv2d", "conv_transpose1d", "conv_transpose2d", "avg_pool2d", "max_pool2d",
    "upsample_nearest2d", "relu", "gelu", "sigmoid", "silu", "erf", "softmax", "log_softmax",
    "layer_norm", "rms_norm", "embedding",
]


def __dir__() -> list[str]:
    """``dir()`` of the module: its public names (``__all__``), not its imports."""
    return sorted(__all__)
