"""``Generator``: NumPy's ``numpy.random.Generator`` draws on a Philox stream.

Each method has NumPy's signature (``device=``, and ``dtype=`` where NumPy has none, are
keyword-only additions) and is a thin call of ``continuous`` or ``sampling``. Where NumPy
returns a Python scalar (``size=None``) a 0-d array is returned, as CuPy does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from .. import dtypes as _dt
from ..docstrings import shared_doc
from . import continuous, sampling
from .streams import Stream

if TYPE_CHECKING:
    from ..array import Array
    from .._types import DTypeLike, DeviceLike, ShapeLike

#: the numpydoc entries the draws share (filled in by ``docstrings.shared_doc``)
DOCS = {
    "size": ("size : int, tuple of int or None\n    The shape of the result; None for one value (a 0-d array, "
             "where NumPy returns a Python scalar)."),
    "dtype_float": "dtype : DType, str or None\n    A real floating dtype; None for the default (float64).",
    "device": ("device : str, device or None\n    The device; None for the default device (or the device of "
               "the arrays among the arguments)."),
    "returns_floats": ("Returns\n-------\nArray\n    The draws, of shape ``size`` (or the parameters' broadcast "
                       "shape), dtype ``dtype``."),
    "raises_floats": (
        "Raises\n------\nValueError\n    If a parameter is out of its range or not finite.\n"
        "TypeError\n    If size is not an int or a tuple of ints, or a parameter is neither a real number "
        "nor an array.\nDTypeError\n    If dtype is not real floating.\n"
        "ShapeError\n    If array parameters do not broadcast to ``size``."
    ),
    "array_params": ("Parameters may be real numbers (passed to the backend's random primitive: one "
                     "rounding) or arrays\n(broadcast, as NumPy does; the standard draw is then scaled)."),
}


class Generator:
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

    @shared_doc(DOCS)
    def random(self, size: ShapeLike | None = None, dtype: DTypeLike | None = None, *,
               device: DeviceLike | None = None) -> Array:
        """Uniform floats in ``[0, 1)`` (float16 and bfloat16 round, so may give 1.0).

        Parameters
        ----------
        {size}
        {dtype_float}
        {device}

        {returns_floats}

        {raises_floats}

        Examples
        --------
        >>> import candlewick as cw
        >>> x = cw.random.default_rng(7).random((2, 3))
        >>> x.shape, bool(cw.all((x >= 0) & (x < 1)))
        ((2, 3), True)
        """
        return continuous.uniform(self._stream, 0.0, 1.0, size, dtype, device, "random")

    @shared_doc(DOCS)
    def uniform(self, low: float | Array = 0.0, high: float | Array = 1.0, size: ShapeLike | None = None, *,
                dtype: DTypeLike | None = None, device: DeviceLike | None = None) -> Array:
        """Uniform floats in ``[low, high)``.

        {array_params}

        Parameters
        ----------
        low : float or Array
            The lower bound (included).
        high : float or Array
            The upper bound (excluded); ``high >= low``.
        {size}
        {dtype_float}
        {device}

        {returns_floats}

        {raises_floats}

        Examples
        --------
        >>> import candlewick as cw
        >>> g = cw.random.default_rng(7)
        >>> g.uniform(-1.0, 1.0, size=(2, 3)).shape
        (2, 3)
        """
        return continuous.uniform(self._stream, low, high, size, dtype, device)

    @shared_doc(DOCS)
    def normal(self, loc: float | Array = 0.0, scale: float | Array = 1.0, size: ShapeLike | None = None, *,
               dtype: DTypeLike | None = None, device: DeviceLike | None = None) -> Array:
        """Normal (Gaussian) floats of mean ``loc`` and standard deviation ``scale``.

        {array_params}

        Parameters
        ----------
        loc : float or Array
            The mean.
        scale : float or Array
            The standard deviation (>= 0).
        {size}
        {dtype_float}
        {device}

        {returns_floats}

        {raises_floats}

        Examples
        --------
        >>> import candlewick as cw
        >>> g = cw.random.default_rng(7)
        >>> g.normal(2.0, 0.5, size=4, dtype=cw.float32).dtype
        candlewick.float32
        """
        return continuous.normal(self._stream, loc, scale, size, dtype, device)

    @shared_doc(DOCS)
    def standard_normal(self, size: ShapeLike | None = None, dtype: DTypeLike | None = None, *,
                        device: DeviceLike | None = None) -> Array:
        """Normal floats of mean 0 and standard deviation 1.

        Parameters
        ----------
        {size}
        {dtype_float}
        {device}

        {returns_floats}

        {raises_floats}

        Examples
        --------
        >>> import candlewick as cw
        >>> cw.random.default_rng(7).standard_normal((2, 2)).shape
        (2, 2)
        """
        return continuous.normal(self._stream, 0.0, 1.0, size, dtype, device, "standard_normal")

    @shared_doc(DOCS)
    def lognormal(self, mean: float | Array = 0.0, sigma: float | Array = 1.0, size: ShapeLike | None = None, *,
                  dtype: DTypeLike | None = None, device: DeviceLike | None = None) -> Array:
        """``exp`` of normal floats of mean ``mean`` and standard deviation ``sigma``.

        Parameters
        ----------
        mean : float or Array
            The mean of the underlying normal distribution.
        sigma : float or Array
            Its standard deviation (>= 0).
        {size}
        {dtype_float}
        {device}

        {returns_floats}

        {raises_floats}

        Examples
        --------
        >>> import candlewick as cw
        >>> x = cw.random.default_rng(7).lognormal(0.0, 0.5, size=5)
        >>> bool(cw.all(x > 0))
        True
        """
        return continuous.lognormal(self._stream, mean, sigma, size, dtype, device)

    @shared_doc(DOCS)
    def exponential(self, scale: float | Array = 1.0, size: ShapeLike | None = None, *,
                    dtype: DTypeLike | None = None, device: DeviceLike | None = None) -> Array:
        """Exponential floats of mean ``scale`` (``-scale * log(1 - u)``, u uniform in [0, 1)).

        Parameters
        ----------
        scale : float or Array
            The mean, ``1 / rate`` (>= 0).
        {size}
        {dtype_float}
        {device}

        {returns_floats}

        {raises_floats}

        Examples
        --------
        >>> import candlewick as cw
        >>> x = cw.random.default_rng(7).exponential(2.0, size=1000)
        >>> 1.5 < float(cw.mean(x)) < 2.5
        True
        """
        return continuous.exponential(self._stream, scale, size, dtype, device)

    @shared_doc(DOCS)
    def standard_exponential(self, size: ShapeLike | None = None, dtype: DTypeLike | None = None, *,
                             device: DeviceLike | None = None) -> Array:
        """Exponential floats of mean 1.

        Parameters
        ----------
        {size}
        {dtype_float}
        {device}

        {returns_floats}

        {raises_floats}

        Examples
        --------
        >>> import candlewick as cw
        >>> bool(cw.all(cw.random.default_rng(7).standard_exponential(10) >= 0))
        True
        """
        return continuous.exponential(self._stream, 1.0, size, dtype, device, "standard_exponential")

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
