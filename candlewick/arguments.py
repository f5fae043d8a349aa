"""Checks of plain Python arguments (numbers, integers, flags, sequences) shared by the
namespace functions.

Each returns the value converted, or raises candlewick's error naming the function, the
argument and what was expected; none lets a foreign exception (ZeroDivisionError,
OverflowError, NumPy's casting errors) out of a later computation.
"""

import math
import operator

import numpy as np

from .errors import ArgumentTypeError, ArgumentValueError, DTypeError, short_repr
from .shapes import MAX_NDIM

#: how deep nested lists are looked into: a deeper list is no array
NESTING = MAX_NDIM
#: NumPy's casting rules (``np.can_cast``'s) and memory orders, in NumPy's words
CASTINGS = ("no", "equiv", "safe", "same_kind", "unsafe")
ORDERS = ("C", "F", "A", "K")


def real_number(value, fname, argname, *, finite=True, nonzero=False, nonnegative=False):
    """A real Python/NumPy number (not bool) as a float, checked for the stated range."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) and not _is_numpy_real(value):
        raise ArgumentTypeError(f"{fname}: {argname} must be a real number, got {short_repr(value)}")
    try:
        number = float(value)
    except OverflowError:  # an int past float's range
        raise ArgumentValueError(f"{fname}: {argname} must fit a float, got {short_repr(value)}") from None
    if finite and not math.isfinite(number):
        raise ArgumentValueError(f"{fname}: {argname} must be finite, got {number}")
    if nonzero and number == 0:
        raise ArgumentValueError(f"{fname}: {argname} must not be zero")
    if nonnegative and not number >= 0:
        raise ArgumentValueError(f"{fname}: {argname} must be >= 0, got {number}")
    return number


def integer(value, fname, argname, minimum=None):
    """An integer (anything with ``__index__`` but bool) as an int, at least ``minimum``."""
    if isinstance(value, bool):
        raise ArgumentTypeError(f"{fname}: {argname} must be an integer, got bool")
    try:
        value = operator.index(value)
    except TypeError:
        raise ArgumentTypeError(f"{fname}: {argname} must be an integer, got {type(value).__name__}") from None
    if minimum is not None and value < minimum:
        raise ArgumentValueError(f"{fname}: {argname} must be >= {minimum}, got {value}")
    return value


def _is_numpy_real(value):
    """A NumPy integer or floating scalar, or a 0-d NumPy array of one."""
    if not isinstance(value, (np.generic, np.ndarray)):
        return False
    return value.dtype.kind in ("i", "u", "f") and value.shape == ()


def python_number(value):
    """A NumPy scalar or a 0-d array (NumPy's or candlewick's) of a number as the Python
    number it holds, for the functions that take Python numbers (arange, linspace) the
    way NumPy's take them; anything else unchanged (their checks refuse it)."""
    if getattr(value, "shape", None) == () and hasattr(value, "item") and not isinstance(value, (bool, int, float,
                                                                                             complex)):
        item = value.item()
        return item if isinstance(item, (bool, int, float, complex)) else value
    return value


def flag(value, fname, argname):
    """A bool flag (``keepdims``, ``stable``...): only True or False."""
    if value is True or value is False:
        return value
    if isinstance(value, np.bool_):  # NumPy's bool scalar (its class is named "bool" in NumPy 2)
        return bool(value)
    raise ArgumentTypeError(f"{fname}: {argname} must be True or False, got {short_repr(value)}")


def copy_flag(value, fname):
    """The standard's ``copy`` (asarray, reshape, from_dlpack, __dlpack__): None, True or False."""
    if value is None:
        return None
    if value is True or value is False:
        return value
    if isinstance(value, np.bool_):
        return bool(value)
    raise ArgumentTypeError(f"{fname}: copy must be None, True or False, got {short_repr(value)}")


def sequence(value, fname, argname):
    """A tuple or list argument (``axes``, ``s``...) as a tuple; nothing else is iterated."""
    if isinstance(value, (tuple, list)):
        return tuple(value)
    raise ArgumentTypeError(f"{fname}: {argname} must be a tuple of ints, got {short_repr(value)}")


def one_of(value, choices, fname, argname):
    """A string argument that must be one of ``choices`` (NumPy's ``casting=``, ``order=``)."""
    if not isinstance(value, str):
        raise ArgumentTypeError(f"{fname}: {argname} must be a str, one of {choices}, got {short_repr(value)}")
    if value not in choices:
        raise ArgumentValueError(f"{fname}: {argname} must be one of {choices}, got {short_repr(value)}")
    return value


def check_cast(source, target, casting, fname, what):
    """Raise unless NumPy's ``casting`` rule lets ``what`` (an operand, the result) go
    from the candlewick dtype ``source`` to ``target``."""
    if source is not target and not np.can_cast(source.numpy, target.numpy, casting):
        raise DTypeError(f"{fname}: cannot cast {what} from {source.name} to {target.name} with casting={casting!r}")


def leaves(values):
    """The items of ``values`` that are not lists or tuples (``values`` itself if it is
    not one), and those of the lists and tuples in it, to ``NESTING`` levels, each list
    once: walked with a stack, since a nest may be deeper than Python's stack or hold
    itself."""
    stack, seen = [(values, 0)], set()
    while stack:
        value, depth = stack.pop()
        if isinstance(value, (list, tuple)):
            if depth <= NESTING and id(value) not in seen:
                seen.add(id(value))
                stack.extend((v, depth + 1) for v in reversed(value))
        else:
            yield value
