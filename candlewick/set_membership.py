"""``isin`` (Array API 2025.12): whether each element of x1 equals some element of x2.

Real and bool data: one ``isin`` primitive (value equality: NaN is in nothing, -0 is +0;
the cpu backend looks small integer ranges up in a table, as NumPy does, and sorts
otherwise). Complex numbers have no order in the protocol's sort, so they compare against
every element of x2 (an (n1, n2) equality table reduced by ``any``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import dtypes as _dt
from ._core import is_scalar, promote_pair, require_array, scalar_array, scalar_for
from .array import wrap
from .compaction import flatten
from .api_version import requires
from .docstrings import shared_doc
from .errors import ArgumentTypeError
from .creation import zeros
from .elementwise import equal, logical_not
from .manipulation import reshape
from .utility import any as _any

if TYPE_CHECKING:
    from ._types import Scalar
    from .array import Array


def _operands(x1, x2):
    """Both as arrays: a Python scalar takes the other operand's dtype by the standard's
    scalar rules (so ``isin(3, x)`` is a 0-d test)."""
    if is_scalar(x1) and is_scalar(x2):
        raise ArgumentTypeError("isin: at least one of x1 and x2 must be an array")
    if is_scalar(x1):
        require_array(x2, "isin", "x2")
        value, dtype = scalar_for(x1, x2._dtype, "isin")
        return scalar_array(x2, value, dtype, x2._device), x2
    require_array(x1, "isin", "x1")
    if is_scalar(x2):
        value, dtype = scalar_for(x2, x1._dtype, "isin")
        return x1, scalar_array(x1, value, dtype, x1._device)
    require_array(x2, "isin", "x2")
    return x1, x2


@requires("2025.12")
@shared_doc()
def isin(x1: Array | Scalar, x2: Array | Scalar, /, *, invert: bool = False) -> Array:
    """A bool array of x1's shape: True where the element of x1 is in x2 (not in x2
    with ``invert=True``), by value equality (``equal``) after type promotion (2025.12).

    Parameters
    ----------
    x1 : Array or Python scalar
        The elements to look up.
    x2 : Array or Python scalar
        The elements to look for.
    invert : bool
        True gives where x1's elements are not in x2.

    Returns
    -------
    Array
        A bool array of x1's shape.

    Raises
    ------
    ArgumentTypeError
        If invert is not a bool, or neither operand is a candlewick array.
    DTypeError
        If the operands' dtypes do not promote.
    {raises_devices}
    ApiVersionError
        If the namespace follows the 2024.12 revision.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.isin(cw.asarray([1, 2, 3]), cw.asarray([2, 5])).tolist()
    [False, True, False]
    """
    if not isinstance(invert, bool):
        raise ArgumentTypeError(f"isin: invert must be a bool, got {type(invert).__name__}")
    a1, a2 = _operands(x1, x2)
    a1, a2 = promote_pair(a1, a2, "isin")
    if not a1._dtype.is_complex:  # one primitive over both layouts as they are
        storage = a1._storage.isin(a1._layout, a2._storage, a2._layout, invert)
        return wrap(storage, a1.shape, _dt.bool_, a1._device)
    shape = a1.shape
    needles, haystack = flatten(a1), flatten(a2)
    m, n = needles._layout.shape[0], haystack._layout.shape[0]
    if n == 0 or m == 0:
        found = zeros((m,), dtype=_dt.bool_, device=a1._device)
    else:  # an (m, n) equality table reduced by any
        found = _any(equal(reshape(needles, (-1, 1)), reshape(haystack, (1, -1))), axis=1)
    found = reshape(found, shape)
    return logical_not(found) if invert else found


__all__ = ["isin"]
