"""``candlewick.random``: NumPy's random draws on a counter-based generator (Philox-4x32-10).

Every backend implements the same stream (``candlewick.backend.PHILOX``), so one seed
gives the same numbers on every device: the uniform words bit for bit, the integer
draws, choices and permutations exactly, the transformed floats within the rounding of
the transcendental functions. ``default_rng(seed)`` returns a ``Generator`` with the
methods and signatures of ``numpy.random.Generator`` (``random``, ``uniform``,
``normal``, ``standard_normal``, ``lognormal``, ``exponential``,
``standard_exponential``, ``integers``, ``choice``, ``permutation``, ``shuffle``), each
also taking ``device=`` (and ``dtype=`` for the floating draws); this module's functions
of the same names draw from one default generator, which ``seed`` resets.

Modules: ``streams`` (the key and counter, and the draws everything is made of),
``continuous`` (the floating draws), ``sampling`` (integers, choice, permutation,
shuffle), ``generator`` (the ``Generator`` class: NumPy's signatures over those two).
"""

from __future__ import annotations

import functools
import inspect
from typing import TYPE_CHECKING, Callable, TypeVar

from ..errors import name_code
from .generator import Generator

if TYPE_CHECKING:
    from typing import Concatenate, ParamSpec

    P = ParamSpec("P")
R = TypeVar("R")

_default = Generator(0)


def default_rng(seed: int | None = None) -> Generator:
    """A new ``Generator`` (NumPy's ``numpy.random.default_rng``).

    Parameters
    ----------
    seed : int or None
        The key, in ``[0, 2**64)``; None for a random one from the operating system.

    Returns
    -------
    Generator
        A generator at the start of the stream of ``seed``.

    Raises
    ------
    ValueError
        If seed is not an int in ``[0, 2**64)``.

    Examples
    --------
    >>> import candlewick as cw
    >>> rng = cw.random.default_rng(42)
    >>> rng.integers(0, 100, size=3).tolist() == cw.random.default_rng(42).integers(0, 100, size=3).tolist()
    True
    """
    return Generator(seed)


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
    >>> a = cw.random.uniform(size=2)
    >>> cw.random.seed(3)
    >>> cw.random.uniform(size=2).tolist() == a.tolist()
    True
    """
    global _default
    _default = Generator(value)


def default_generator() -> Generator:
    """The generator behind this module's draws (``candlewick.random.uniform``, ...).

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


def _on_default(method: Callable[Concatenate[Generator, P], R]) -> Callable[P, R]:
    """The module function of a ``Generator`` method: the same draw from the default
    generator (looked up at each call: ``seed`` replaces it), the same signature and doc."""

    def draw(*args: P.args, **kwargs: P.kwargs) -> R:
        return method(_default, *args, **kwargs)

    functools.update_wrapper(draw, method)
    signature = inspect.signature(method)
    setattr(draw, "__signature__", signature.replace(parameters=list(signature.parameters.values())[1:]))
    draw.__module__, draw.__qualname__ = __name__, method.__name__
    return name_code(draw, method.__name__)  # errors and capture messages name random.<draw>


random = _on_default(Generator.random)
uniform = _on_default(Generator.uniform)
normal = _on_default(Generator.normal)
standard_normal = _on_default(Generator.standard_normal)
lognormal = _on_default(Generator.lognormal)
exponential = _on_default(Generator.exponential)
standard_exponential = _on_default(Generator.standard_exponential)
integers = _on_default(Generator.integers)
choice = _on_default(Generator.choice)
permutation = _on_default(Generator.permutation)
shuffle = _on_default(Generator.shuffle)

#: the draws, each a method of ``Generator`` and a function of this module
_DRAWS = ("random", "uniform", "normal", "standard_normal", "lognormal", "exponential", "standard_exponential",
         "integers", "choice", "permutation", "shuffle")

__all__ = ["Generator", "default_rng", "seed", "default_generator", *_DRAWS]


def __dir__() -> list[str]:
    """``dir()`` of the module: its public names (``__all__``), not its imports."""
    return sorted(__all__)
