"""The promotion mode: how operands of different kinds combine (docs/promotion.md).

``"default"``: what NumPy, PyTorch and JAX users expect where the Array API standard
leaves mixed kinds open (a Python float with an integer array gives the default floating
dtype; int32 + float32 gives float32; ``sqrt`` of an integer array runs in the default
floating dtype; a float stored into an integer array is truncated).
``"strict"``: array-api-strict's behaviour: every mixed-kind operation the standard
leaves undefined raises ``DTypeError``.

The mode is read from ``CANDLEWICK_PROMOTION`` at import, set for the process with
``set_promotion_mode`` and for a block (and its thread or task) with
``with promotion_mode(...)``. Only operations that mix kinds read it, so it costs the
same-kind hot paths nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import contextlib
import contextvars
import os
import warnings

from .errors import ArgumentTypeError, ArgumentValueError, short_repr

if TYPE_CHECKING:
    from collections.abc import Iterator

ENV = "CANDLEWICK_PROMOTION"
MODES = ("default", "strict")


def _check(mode, where):
    # the type first: ``in`` on an array would ask for its truth value
    if not isinstance(mode, str):
        raise ArgumentTypeError(f"{where}: mode must be a str, one of {MODES}; got {type(mode).__name__} "
                                f"{short_repr(mode)}")
    if mode not in MODES:
        raise ArgumentValueError(f"{where}: mode must be one of {MODES}, got {short_repr(mode)}")
    return mode


def _mode_from_environment():
    value = os.environ.get(ENV, "").strip().lower() or "default"
    if value not in MODES:
        # importing candlewick must not fail over a setting: say so and keep the default
        warnings.warn(f"{ENV}={value!r} is not one of {MODES}; using 'default'", stacklevel=2)
        return "default"
    return value


_process_mode = _mode_from_environment()
_block_mode = contextvars.ContextVar("candlewick_promotion_mode", default=None)


def get_promotion_mode() -> str:
    """The promotion mode in force here: ``"default"`` or ``"strict"``.

    Parameters
    ----------


    Returns
    -------
    str
        ``"default"`` or ``"strict"``.

    Raises
    ------


    Examples
    --------
    >>> import candlewick as cw
    >>> cw.get_promotion_mode()
    'default'
    """
    return _block_mode.get() or _process_mode


def set_promotion_mode(mode: str) -> None:
    """Set the process-wide promotion mode (``"default"`` or ``"strict"``); a
    ``with promotion_mode(...)`` block still overrides it inside the block.

    Parameters
    ----------
    mode : {'default', 'strict'}
        The mode (docs/promotion.md).

    Returns
    -------
    None

    Raises
    ------
    ArgumentTypeError
        If mode is not a str.
    ArgumentValueError
        If mode is neither 'default' nor 'strict'.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.set_promotion_mode("strict")
    >>> cw.get_promotion_mode()
    'strict'
    >>> cw.set_promotion_mode("default")
    """
    global _process_mode
    _process_mode = _check(mode, "set_promotion_mode")


@contextlib.contextmanager
def promotion_mode(mode: str) -> Iterator[str]:
    """``with candlewick.promotion_mode("strict"):`` raises on mixed kinds inside the block.

    Parameters
    ----------
    mode : {'default', 'strict'}
        The mode inside the block (this thread and task only).

    Returns
    -------
    context manager
        Yields mode.

    Raises
    ------
    ArgumentTypeError
        If mode is not a str.
    ArgumentValueError
        If mode is neither 'default' nor 'strict'.

    Examples
    --------
    >>> import candlewick as cw
    >>> with cw.promotion_mode("strict"):
    ...     cw.get_promotion_mode()
    'strict'
    """
    token = _block_mode.set(_check(mode, "promotion_mode"))
    try:
        yield mode
    finally:
        _block_mode.reset(token)


def is_strict():
    return (_block_mode.get() or _process_mode) == "strict"
