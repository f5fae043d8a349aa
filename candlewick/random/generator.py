"""``Generator``: NumPy's ``numpy.random.Generator`` draws on a Philox stream.

The key and counter are a ``streams.Stream``; the draws come from the two base classes,
``float_draws.FloatDraws`` and ``discrete_draws.DiscreteDraws``, each method with NumPy's
signature. Where NumPy returns a Python scalar (``size=None``) a 0-d array is returned,
as CuPy does.
"""

from __future__ import annotations

import types

from ..errors import name_code
from .discrete_draws import DiscreteDraws
from .float_draws import FloatDraws
from .streams import Stream


class Generator(FloatDraws, DiscreteDraws):
    """A Philox-4x32-10 stream with NumPy's draws: the same numbers on every device.

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
    >>> a = cw.random.Generator(1).uniform(size=3)
    >>> b = cw.random.Generator(1).uniform(size=3)
    >>> a.tolist() == b.tolist()
    True
    """

    def __init__(self, seed: int | None = None) -> None:
        self._stream = Stream(seed)

    @property
    def seed(self) -> int:
        """The key of the stream (``Generator(seed)``'s)."""
        return self._stream.seed

    @property
    def counter(self) -> int:
        """The Philox block the next draw starts at (each draw advances it by the blocks it
        used); set it to jump within the stream."""
        return self._stream.counter

    @counter.setter
    def counter(self, value: int) -> None:
        self._stream.move_to(value)

    def __repr__(self) -> str:
        return f"Generator(Philox4x32-10, seed={self.seed}, counter={self.counter})"


def _name_inherited_draws():
    """Messages, ``help()`` and the API reference name the method a user calls
    (``Generator.uniform``), not the base class that holds it."""
    for base in (FloatDraws, DiscreteDraws):
        for name, member in vars(base).items():
            if isinstance(member, types.FunctionType):
                member.__qualname__ = f"Generator.{name}"
                name_code(member, f"Generator.{name}")


_name_inherited_draws()
