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
shuffle); ``float_draws`` and ``discrete_draws`` (``Generator``'s methods, NumPy's
signatures over those two), ``generator`` (the ``Generator`` class). The module's draws
are the bound methods of one default generator.
"""

from __future__ import annotations

from .generator import Generator
from .streams import Stream

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
    _default._stream = Stream(value)


def default_generator() -> Generator:
    """The generator behind this module's draws (``candlewick.random.uniform``, ...), restarted
    by ``seed``.

    Parameters
    ----------


    Returns
    -------
    Generator
        The default generator (``seed`` restarts its stream).

    Raises
    ------


    Examples
    --------
    >>> import candlewick as cw
    >>> isinstance(cw.random.default_generator(), cw.random.Generator)
    True
    """
    return _default


# the module's draws are the default generator's bound methods: NumPy's signatures and
# docstrings as they are (a call that does not bind fails before any candlewick code),
# and ``seed`` restarts that one generator in place, as ``numpy.random.seed`` does
random = _default.random
uniform = _default.uniform
normal = _default.normal
standard_normal = _default.standard_normal
lognormal = _default.lognormal
exponential = _default.exponential
standard_exponential = _default.standard_exponential
integers = _default.integers
choice = _default.choice
permutation = _default.permutation
shuffle = _default.shuffle

#: the draws, each a method of ``Generator`` and a function of this module
_DRAWS = ("random", "uniform", "normal", "standard_normal", "lognormal", "exponential", "standard_exponential",
         "integers", "choice", "permutation", "shuffle")

__all__ = ["Generator", "default_rng", "seed", "default_generator", *_DRAWS]


def __dir__() -> list[str]:
    """``dir()`` of the module: its public names (``__all__``), not its imports."""
    return sorted(__all__)
