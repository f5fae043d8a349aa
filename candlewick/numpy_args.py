"""NumPy's argument conventions that the translations of its functions onto candlewick's
share (``numpy_functions``, ``numpy_reduction_calls``): ``NOT_MINE``, a translation's
answer for a call it does not take (numpy_protocols then runs NumPy's own function on
host copies, or raises naming it), NumPy's "no value given" default, and NumPy's readings
of a flag, a shape and a scalar."""

import numpy as np

from .errors import ArgumentTypeError, short_repr

NOT_MINE = object()
NO_VALUE = np._NoValue


def unset(*values):
    return all(v is None or v is NO_VALUE for v in values)


def flag(value, fname, argname="keepdims"):
    """NumPy's reading of a flag: any value's truth (NumPy's ``keepdims=1`` is True)."""
    if value is NO_VALUE:
        return False
    try:
        return bool(value)
    except (ValueError, TypeError):  # an array of several elements has no one truth value
        raise ArgumentTypeError(f"{fname}: {argname} must be True or False, got {short_repr(value)}") from None


def shape_arg(shape):
    """NumPy's shape argument: one int or a sequence (candlewick's functions check them)."""
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        return (int(shape),)
    return tuple(shape) if isinstance(shape, (tuple, list)) else shape


def python_scalar(value):
    return value.item() if isinstance(value, np.generic) else value
