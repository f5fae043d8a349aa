"""Random numbers from a counter-based generator (Philox-4x32-10).

Every backend implements the same stream (see ``candlewick.backend.PHILOX``), so one
seed gives the same numbers on every device. A ``Generator`` is a (seed, counter)
pair: each draw advances the counter by the Philox blocks it consumed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import os
import threading

from . import dtypes as _dt
from ._core import as_shape, check_dtype_on
from .allocation import check_allocation
from .array import wrap
from .arguments import real_number
from .docstrings import shared_doc
from .errors import ArgumentValueError, DTypeError, short_repr
from .shapes import shape_size
from .registry import get_device

if TYPE_CHECKING:
    from .array import Array
    from ._types import DTypeLike, DeviceLike, ShapeLike


_DTYPE_DEVICE = (
    "dtype : DType or None\n    A real floating dtype; None for the default (float64).\n"
    "device : str, device or None\n    The device; None for the default device."
)
#: the sections the draws (methods and module functions) share (filled in by ``docstrings.shared_doc``)
_DOCS = {
    "random_params_uniform": (
        "Parameters\n----------\nshape : int or tuple of int\n    The shape of the result.\n"
        "low : float\n    The lower bound (included).\nhigh : float\n    The upper bound (excluded).\n" + _DTYPE_DEVICE
    ),
    "random_params_normal": (
        "Parameters\n----------\nshape : int or tuple of int\n    The shape of the result.\n"
        "mean : float\n    The mean.\nstd : float\n    The standard deviation (>= 0).\n" + _DTYPE_DEVICE
    ),
    "random_returns_raises": (
        "Returns\n-------\nArray\n    A new array of shape, dtype and device.\n\n"
        "Raises\n------\nValueError\n    If the bounds are invalid (high < low, std < 0).\n"
        "DTypeError\n    If dtype is not real floating.\nTypeError\n    If shape is not an int or a tuple of ints."
    ),
}


def _blocks_used(n, dtype, normal):
    elements = 2 * ((n + 1) // 2) if normal else n
    words = elements * (2 if dtype is _dt.float64 else 1)
    return (words + 3) // 4


class Generator:
    """A Philox-4x32-10 stream: ``Generator(seed)``; draws are reproducible on any device.

    Parameters
    ----------
    seed : int or None
        The key, in ``[0, 2**64)``; None for a random one from the operating system.

    Raises
    ------
    ValueError
        If seed is not an int in ``[0, 2**64)``.

    Examples
    --------
    >>> import candlewick as cw
    >>> a = cw.random.Generator(1).uniform(3)
    >>> b = cw.random.Generator(1).uniform(3)
    >>> a.tolist() == b.tolist()
    True
    """

    def __init__(self, seed: int | None = None) -> None:
        if seed is None:
            seed = int.from_bytes(os.urandom(8), "little")
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
            raise ArgumentValueError(f"seed must be an int in [0, 2**64), got {short_repr(seed)}")
        self.seed = seed
        self.counter = 0
        self._lock = threading.Lock()

    def _take(self, n, dtype, normal):
        with self._lock:
            counter = self.counter
            self.counter = (counter + _blocks_used(n, dtype, normal)) % 2**64
        return counter

    def _draw(self, method, shape, dtype, device, a, b, normal, fname):
        shape = as_shape(shape, fname)
        dtype = _dt.DEFAULT_FLOAT if dtype is None else _dt.as_dtype(dtype)
        if not dtype.is_floating:
            raise DTypeError(f"{fname}: dtype must be real floating, got {dtype.name}")
        device = get_device(device)
        check_dtype_on(device, dtype, fname)
        # before the counter moves: a refused draw consumes nothing
        check_allocation(fname, shape, dtype, device)
        counter = self._take(shape_size(shape), dtype, normal)
        storage = getattr(device, method)(shape, dtype, self.seed, counter, float(a), float(b))
        return wrap(storage, shape, dtype, device)

    @shared_doc(_DOCS)
    def uniform(self, shape: ShapeLike, *, low: float = 0.0, high: float = 1.0, dtype: DTypeLike | None = None,
                device: DeviceLike | None = None) -> Array:
        """Uniform numbers in ``[low, high)``.

        {random_params_uniform}

        {random_returns_raises}

        Examples
        --------
        >>> import candlewick as cw
        >>> g = cw.random.Generator(7)
        >>> g.uniform((2, 3)).shape
        (2, 3)
        """
        low = real_number(low, "uniform", "low")
        high = real_number(high, "uniform", "high")
        if not high >= low:
            raise ArgumentValueError(f"uniform: high ({high}) must be >= low ({low})")
        return self._draw("rand_uniform", shape, dtype, device, low, high, False, "uniform")

    @shared_doc(_DOCS)
    def normal(self, shape: ShapeLike, *, mean: float = 0.0, std: float = 1.0, dtype: DTypeLike | None = None,
               device: DeviceLike | None = None) -> Array:
        """Normal numbers with the given mean and standard deviation.

        {random_params_normal}

        {random_returns_raises}

        Examples
        --------
        >>> import candlewick as cw
        >>> g = cw.random.Generator(7)
        >>> g.normal(4, std=2.0).shape
        (4,)
        """
        mean = real_number(mean, "normal", "mean")
        std = real_number(std, "normal", "std", nonnegative=True)
        return self._draw("rand_normal", shape, dtype, device, mean, std, True, "normal")


_default = Generator(0)


def seed(value: int) -> None:
    """Reset the default generator to ``value``.

    Parameters
    ----------
    value : int
        The new key, in ``[0, 2**64)``.

    Returns
    -------
    None

    Raises
    ------
    ValueError
        If value is not an int in ``[0, 2**64)``.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.random.seed(3)
    >>> a = cw.random.uniform(2)
    >>> cw.random.seed(3)
    >>> cw.random.uniform(2).tolist() == a.tolist()
    True
    """
    global _default
    _default = Generator(value)


def default_generator() -> Generator:
    """The generator behind ``candlewick.random.uniform`` and ``normal``.

    Parameters
    ----------


    Returns
    -------
    Generator
        The default generator (replaced by ``seed``).

    Raises
    ------


    Examples
    --------
    >>> import candlewick as cw
    >>> isinstance(cw.random.default_generator(), cw.random.Generator)
    True
    """
    return _default


@shared_doc(_DOCS)
def uniform(shape: ShapeLike, *, low: float = 0.0, high: float = 1.0, dtype: DTypeLike | None = None,
            device: DeviceLike | None = None) -> Array:
    """Uniform numbers in ``[low, high)`` from the default generator.

    {random_params_uniform}

    {random_returns_raises}

    Examples
    --------
    >>> import candlewick as cw
    >>> x = cw.random.uniform((2, 2), low=-1.0, high=1.0)
    >>> bool(cw.all((x >= -1) & (x < 1)))
    True
    """
    return _default.uniform(shape, low=low, high=high, dtype=dtype, device=device)


@shared_doc(_DOCS)
def normal(shape: ShapeLike, *, mean: float = 0.0, std: float = 1.0, dtype: DTypeLike | None = None,
           device: DeviceLike | None = None) -> Array:
    """Normal numbers with the given mean and standard deviation from the default generator.

    {random_params_normal}

    {random_returns_raises}

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.random.normal((3,), dtype=cw.float32).dtype
    candlewick.float32
    """
    return _default.normal(shape, mean=mean, std=std, dtype=dtype, device=device)


__all__ = ["Generator", "seed", "default_generator", "uniform", "normal"]


def __dir__() -> list[str]:
    """``dir()`` of the module: its public names (``__all__``), not its imports."""
    return sorted(__all__)
