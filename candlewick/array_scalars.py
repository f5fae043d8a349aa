"""Python objects from an array, as NumPy gives them: ``tolist``, ``item``, and the
conversions Python's built-ins call (``bool``, ``int``, ``float``, ``complex``,
``operator.index``, ``format``, ``round``). ``ScalarConversions`` is a declared base of
``candlewick.Array`` (which holds its members itself: ``array._one_level``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from . import dtypes as _dt
from ._core import ArrayBase, scalar_array, scalar_for
from .errors import ArgumentTypeError, ArgumentValueError, short_repr

if TYPE_CHECKING:
    from .array import Array


class ScalarConversions(ArrayBase):
    """The Python-object conversions of ``candlewick.Array``."""

    __slots__ = ()

    def _scalar(self, name):
        if self._layout.shape != ():
            raise ArgumentTypeError(f"{name}() needs a 0-d array, got shape {self._layout.shape}")
        return self._storage.to_host(self._layout)[()]

    def __bool__(self) -> bool:
        """The truth value of a 0-d array (TypeError for other shapes)."""
        layout = self._layout  # (_scalar inline: scikit-learn's `if xp.any(...)`, four a StandardScaler fit)
        if layout.shape != ():
            raise ArgumentTypeError(f"bool() needs a 0-d array, got shape {layout.shape}")
        return bool(self._storage.to_host(layout)[()])

    def _host_python(self):
        """The elements on the host in a NumPy dtype whose ``tolist`` gives Python
        scalars (ml_dtypes' bfloat16 would give its own scalar type)."""
        host = self._storage.to_host(self._layout)
        return host.astype(np.float32) if self._dtype is _dt.bfloat16 else host

    def tolist(self) -> Any:
        """The elements as nested Python lists of Python scalars (a scalar for 0-d).

        Returns
        -------
        list or Python scalar
            Nested lists of ``ndim`` levels; a 0-d array gives its one scalar.

        Examples
        --------
        >>> import candlewick as cw
        >>> cw.asarray([[1, 2], [3, 4]]).tolist()
        [[1, 2], [3, 4]]
        """
        return self._host_python().tolist()

    def item(self) -> bool | int | float | complex:
        """The one element of a size-1 array as a Python scalar.

        Returns
        -------
        bool, int, float or complex
            The element, as the Python scalar of the array's kind.

        Raises
        ------
        ValueError
            If the array's size is not 1.

        Examples
        --------
        >>> import candlewick as cw
        >>> cw.asarray([[2.5]]).item()
        2.5
        """
        if self._layout.size != 1:
            raise ArgumentValueError(f"item() needs an array of size 1, got shape {self._layout.shape}")
        return self._host_python().reshape(()).item()

    def __format__(self, spec: str) -> str:
        """``format(x, spec)``: a 0-d array formats as its scalar (``f"{x:.2f}"``)."""
        if not isinstance(spec, str):
            raise ArgumentTypeError(f"__format__: format spec must be a str, got {short_repr(spec)}")
        if not spec:
            return str(self)
        if self._layout.shape != ():
            raise ArgumentTypeError(
                f"format spec {spec!r} needs a 0-d array, got shape {self._layout.shape}; "
                f"format x.tolist() or its elements"
            )
        value = self.item()
        try:
            return format(value, spec)
        except ValueError as exc:  # a spec the scalar's type does not take ("d" for a float)
            raise ArgumentValueError(f"__format__: format spec {spec!r} does not apply to a {self._dtype.name} "
                                     f"value ({exc})") from None

    def __round__(self, ndigits: int | None = None) -> int | Array:
        """``round(x)``: a Python int (ties to even); ``round(x, n)``: a 0-d array of x's
        dtype rounded to n decimals, as for NumPy scalars."""
        if ndigits is not None and (isinstance(ndigits, bool) or not isinstance(ndigits, int)):
            raise ArgumentTypeError(f"round(): ndigits must be an int or None, got {short_repr(ndigits)}")
        if self._dtype.is_complex or self._dtype.is_bool:
            raise ArgumentTypeError(f"round() of a {self._dtype.name} array")
        if self._layout.shape != ():
            raise ArgumentTypeError(f"round() needs a 0-d array, got shape {self._layout.shape}; use candlewick.round")
        value = self.item()
        if ndigits is None:
            if value != value or value in (float("inf"), float("-inf")):
                raise ArgumentValueError(f"__round__: cannot round {value} to an integer")
            return round(value)  # type: ignore[arg-type]  # complex turned away above
        if isinstance(value, int):
            # Python's int rounding computes 10**-ndigits: past 21 digits every int64 and
            # uint64 rounds to 0; a rounded value past the dtype (round(int8 127, -1)) is
            # refused, where NumPy wraps it
            rounded = scalar_for(round(value, max(ndigits, -21)), self._dtype, "__round__")[0]
        else:
            rounded = round(value, ndigits)  # type: ignore[arg-type]  # complex turned away above
        return scalar_array(self, rounded, self._dtype, self._device)

    def __int__(self) -> int:
        """``int(x)`` of a 0-d real array (truncates floats)."""
        if self._dtype.is_complex:
            raise ArgumentTypeError("int() of a complex array; take real() first")
        value = self._scalar("int")
        if self._dtype.is_floating:
            value = float(value)
            if value != value or value in (float("inf"), float("-inf")):
                raise ArgumentValueError(f"__int__: cannot convert {value} to an integer")
        return int(value)

    def __float__(self) -> float:
        """``float(x)`` of a 0-d real array."""
        if self._dtype.is_complex:
            raise ArgumentTypeError("float() of a complex array; take real() first")
        return float(self._scalar("float"))

    def __complex__(self) -> complex:
        """``complex(x)`` of a 0-d array."""
        return complex(self._scalar("complex"))

    def __index__(self) -> int:
        """``operator.index(x)`` of a 0-d integer array."""
        if not (self._dtype.is_integer):
            raise ArgumentTypeError(f"__index__ needs an integer array, got {self._dtype.name}")
        return int(self._scalar("index"))
