"""Argument checks and the output-size rule shared by the convolutions and the pools."""

from ..errors import ArgumentTypeError, ArgumentValueError, ShapeError, short_repr


def pair(value, name, fname) -> tuple[int, int]:
    if isinstance(value, int) and not isinstance(value, bool):
        return (value, value)
    if isinstance(value, (tuple, list)) and len(value) == 2 and all(isinstance(v, int) for v in value):
        return tuple(value)
    raise ArgumentTypeError(f"{fname}: {name} must be an int or a pair of ints, got {short_repr(value)}")


def single(value, name, fname):
    if isinstance(value, (tuple, list)) and len(value) == 1:
        value = value[0]
    if not isinstance(value, int) or isinstance(value, bool):
        raise ArgumentTypeError(f"{fname}: {name} must be an int, got {short_repr(value)}")
    return value


def check_positive(fname, **values):
    for name, v in values.items():
        if (min(v) if isinstance(v, tuple) else v) < 1:
            raise ArgumentValueError(f"{fname}: {name} must be >= 1, got {v}")


def check_nonnegative(fname, **values):
    for name, v in values.items():
        if (min(v) if isinstance(v, tuple) else v) < 0:
            raise ArgumentValueError(f"{fname}: {name} must be >= 0, got {v}")


def out_size(n, k, stride, padding, dilation, fname):
    size = (n + 2 * padding - dilation * (k - 1) - 1) // stride + 1
    if size < 1:
        raise ShapeError(f"{fname}: the kernel ({k}, dilation {dilation}) is larger than the padded input ({n} + 2*{padding})")
    return size
