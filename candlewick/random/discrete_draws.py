"""The discrete draws of ``Generator`` (``DiscreteDraws``, a base class of it): NumPy's
``integers``, ``choice``, ``permutation`` and ``shuffle``, each a thin call of ``sampling``
with NumPy's signature (``device=`` a keyword-only addition).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from .. import dtypes as _dt
from . import sampling

if TYPE_CHECKING:
    from ..array import Array
    from .._types import DTypeLike, DeviceLike, ShapeLike
    from .streams import Stream


class DiscreteDraws:
    """The integer draws, choices and permutations, on the generator's stream."""

    _stream: Stream

    def integers(self, low: int | Array, high: int | Array | None = None, size: ShapeLike | None = None,
                 dtype: DTypeLike = _dt.int64, endpoint: bool = False, *,
                 device: DeviceLike | None = None) -> Array:
        """Uniform integers in ``[low, high)`` (``[low, high]`` with ``endpoint``).

        Each value is ``low + bits % (high - low)`` of 64 random bits: exact and the same on
        every backend, with a bias below ``(high - low) / 2**64``.

        Parameters
        ----------
        low : int or Array
            The lowest value; with ``high`` None, the upper bound (and 0 the lowest).
        high : int, Array or None
            The upper bound (excluded unless ``endpoint``).
        size : int, tuple of int or None
            The shape of the result; None for one value (a 0-d array), or the bounds'
            broadcast shape when they are arrays.
        dtype : DType or str
            An integer dtype (or bool); the range must lie in it.
        endpoint : bool
            Include ``high``.
        device : str, device or None
            The device; None for the default device (or the bounds' device).

        Returns
        -------
        Array
            Integers of shape ``size`` and dtype ``dtype``.

        Raises
        ------
        ValueError
            If low >= high (low > high with endpoint), or the range passes the dtype's.
        TypeError
            If a bound is not an integer or an integer array.
        DTypeError
            If dtype is not an integer dtype or bool.

        Examples
        --------
        >>> import candlewick as cw
        >>> x = cw.random.default_rng(7).integers(0, 10, size=6)
        >>> x.dtype, bool(cw.all((x >= 0) & (x < 10)))
        (candlewick.int64, True)
        """
        return sampling.integers(self._stream, low, high, size, dtype, endpoint, device)

    def choice(self, a: int | Array | Sequence[Any], size: ShapeLike | None = None, replace: bool = True,
               p: Array | Sequence[float] | None = None, axis: int = 0, shuffle: bool = True, *,
               device: DeviceLike | None = None) -> Array:
        """Entries of ``a`` (or of ``arange(a)``) drawn at random, with or without replacement.

        Parameters
        ----------
        a : int, Array or sequence
            The population: its entries along ``axis``, or ``arange(a)`` for an int.
        size : int, tuple of int or None
            The shape of the draw; None for one entry.
        replace : bool
            Whether an entry may be drawn more than once.
        p : Array, sequence of float or None
            The probability of each entry (summing to 1); None for uniform.
        axis : int
            The axis of ``a`` whose entries are drawn.
        shuffle : bool
            Accepted for NumPy's signature: draws without replacement come in random
            order either way.
        device : str, device or None
            The device for an int or sequence ``a`` (an array's own device otherwise).

        Returns
        -------
        Array
            The drawn entries: ``a.shape[:axis] + size + a.shape[axis + 1:]`` (int64 indices
            of shape ``size`` for an int ``a``).

        Raises
        ------
        ValueError
            If a is empty while size is not, size exceeds the population without
            replacement, or p is not a probability vector (negative, not summing to 1, or
            with fewer non-zero entries than size without replacement).
        ShapeError
            If a is 0-d or p's shape is not ``(n,)``.
        TypeError
            If a is neither an int, an array nor a sequence.

        Examples
        --------
        >>> import candlewick as cw
        >>> g = cw.random.default_rng(7)
        >>> sorted(g.choice(5, size=5, replace=False).tolist())
        [0, 1, 2, 3, 4]
        >>> g.choice(cw.asarray([10, 20, 30]), size=4, p=[0.0, 0.0, 1.0]).tolist()
        [30, 30, 30, 30]
        """
        return sampling.choice(self._stream, a, size, replace, p, axis, shuffle, device)

    def permutation(self, x: int | Array, axis: int = 0, *, device: DeviceLike | None = None) -> Array:
        """A random permutation of ``arange(x)``, or a copy of ``x`` shuffled along ``axis``.

        Parameters
        ----------
        x : int or Array
            The length of the permutation, or the array whose entries to permute.
        axis : int
            The axis of ``x`` to permute along.
        device : str, device or None
            The device for an int ``x`` (an array's own device otherwise).

        Returns
        -------
        Array
            The permuted int64 ``arange(x)``, or the permuted copy of ``x``.

        Raises
        ------
        ValueError
            If x is a negative int.
        ShapeError
            If x is a 0-d array.

        Examples
        --------
        >>> import candlewick as cw
        >>> sorted(cw.random.default_rng(7).permutation(4).tolist())
        [0, 1, 2, 3]
        """
        return sampling.permutation(self._stream, x, axis, device)

    def shuffle(self, x: Array, axis: int = 0) -> None:
        """Shuffle the entries of ``x`` along ``axis`` in place.

        Parameters
        ----------
        x : Array
            The array to shuffle (written in place).
        axis : int
            The axis to shuffle along.

        Returns
        -------
        None

        Raises
        ------
        TypeError
            If x is not a candlewick array.
        ShapeError
            If x is 0-d.

        Examples
        --------
        >>> import candlewick as cw
        >>> x = cw.arange(5)
        >>> cw.random.default_rng(7).shuffle(x)
        >>> sorted(x.tolist())
        [0, 1, 2, 3, 4]
        """
        sampling.shuffle(self._stream, x, axis)
