"""The floating draws of ``Generator`` (``FloatDraws``, a base class of it): NumPy's
``random``, ``uniform``, ``normal``, ``standard_normal``, ``lognormal``, ``exponential`` and
``standard_exponential``, each a thin call of ``continuous`` with NumPy's signature
(``dtype=`` where NumPy has none and ``device=`` keyword-only additions).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..docstrings import shared_doc
from . import continuous

if TYPE_CHECKING:
    from ..array import Array
    from .._types import DTypeLike, DeviceLike, ShapeLike
    from .streams import Stream

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


class FloatDraws:
    """The floating draws, on the generator's stream."""

    _stream: Stream

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
