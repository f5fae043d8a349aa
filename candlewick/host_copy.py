"""Whether NumPy's implicit conversion (``numpy.asarray(x)``, ``x.__array__()``) may copy an
array off a device whose memory is not host memory.

Off by default, as in CuPy and PyTorch: an implicit device-to-host copy is a slow path a
user should ask for (``candlewick.to_numpy(x)``), and SciPy functions that need host data
say so instead of copying behind the caller's back. Libraries that store chunks through
``numpy.asarray`` need it on: cubed writes every chunk of its intermediates to Zarr that
way. ``CANDLEWICK_IMPLICIT_HOST_COPY=1`` turns it on at import (worker processes inherit
it), ``set_implicit_host_copy(True)`` for the running process. The setting is the
process's, not a thread's: Dask's and cubed's thread pools run tasks in threads of their own.
"""

from __future__ import annotations

import os
import warnings

from .errors import ArgumentTypeError, short_repr

ENV = "CANDLEWICK_IMPLICIT_HOST_COPY"
_ON, _OFF = ("1", "true", "yes", "on"), ("", "0", "false", "no", "off")


def _from_environment():
    value = os.environ.get(ENV, "").strip().lower()
    if value in _ON:
        return True
    if value not in _OFF:
        # importing candlewick must not fail over a setting: say so and keep the default
        warnings.warn(f"{ENV}={value!r} is neither on (1) nor off (0); implicit host copies stay off",
                      stacklevel=2)
    return False


_allowed = _from_environment()


def get_implicit_host_copy() -> bool:
    """Whether ``numpy.asarray`` of an array on a device without host memory copies it to
    the host (True) or raises ``ArgumentTypeError`` (False, the default).

    Parameters
    ----------


    Returns
    -------
    bool
        The process's setting.

    Raises
    ------


    Examples
    --------
    >>> import candlewick as cw
    >>> cw.get_implicit_host_copy()
    False
    """
    return _allowed


def set_implicit_host_copy(allowed: bool) -> None:
    """Let ``numpy.asarray`` copy arrays of a device without host memory to the host
    (``True``), or refuse, naming ``candlewick.to_numpy`` (``False``); for the whole process.

    Parameters
    ----------
    allowed : bool
        The new setting (``CANDLEWICK_IMPLICIT_HOST_COPY`` gives the one at import).

    Returns
    -------
    None

    Raises
    ------
    ArgumentTypeError
        If allowed is not a bool.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.set_implicit_host_copy(True)
    >>> cw.get_implicit_host_copy()
    True
    >>> cw.set_implicit_host_copy(False)
    """
    global _allowed
    if not isinstance(allowed, bool):
        raise ArgumentTypeError(f"set_implicit_host_copy: allowed must be a bool, got {short_repr(allowed)}")
    _allowed = allowed
