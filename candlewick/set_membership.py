"""``isin`` (Array API 2025.12): whether each element of x1 equals some element of x2.

Real and bool data: x2 is flattened, sorted once and cut to its distinct values (one
compress, whose count is the one read to the host), each x1 element's insertion point
among them is found by ``searchsorted`` and the element there compared with it by
``equal``, so the cost is O((n1 + n2) log n2) and only value equality decides (NaN is in
nothing, -0 is +0). Complex numbers have no order in the protocol's sort, so they compare against every
element of x2 (an (n1, n2) equality table reduced by ``any``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import dtypes as _dt
from ._core import contiguous_layout, is_scalar, promote_pair, require_array, scalar_array, scalar_for
from .array import wrap
from .compaction import flatten, run_starts
from .opdefs import BinaryOp, CompareOp, UnaryOp
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
    shape = a1.shape
    if a1._dtype.is_bool:  # ordered as 0 < 1 for the sort below
        a1, a2 = a1.astype(_dt.uint8), a2.astype(_dt.uint8)
    device = a1._device
    needles, haystack = flatten(a1), flatten(a2)
    m, n = needles._layout.shape[0], haystack._layout.shape[0]
    if n == 0 or m == 0:
        found = zeros((m,), dtype=_dt.bool_, device=device)
    elif a1._dtype.is_complex:
        found = _any(equal(reshape(needles, (-1, 1)), reshape(haystack, (1, -1))), axis=1)
    else:  # storage steps over 1-D layouts: sorted x2, insertion points, the element there
        keys = haystack._storage.sort_values(haystack._layout, 0, False, False)  # equal ones interchangeable
        keys, n = _distinct(keys, n, device)
        line_n, line_m = contiguous_layout((n,)), contiguous_layout((m,))
        at = keys.searchsorted(line_n, needles._storage, needles._layout, False)
        at = at.binary_scalar(BinaryOp.MINIMUM, line_m, n - 1, False)
        hit = keys.index_select(line_n, at, line_m, 0).compare(CompareOp.EQUAL, line_m, needles._storage,
                                                                needles._layout)
        if invert:
            hit = hit.unary(UnaryOp.LOGICAL_NOT, line_m)
        return wrap(hit, shape, _dt.bool_, device)
    found = reshape(found, shape)
    return logical_not(found) if invert else found


_DISTINCT_MIN = 4096


def _distinct(keys, n, device):
    """The sorted ``keys`` (n of them) without repeats, and their count: the first of each
    run. x1's searches then run over the distinct values only (a million x2 elements of six
    values: six), at the cost of one compare and one compress."""
    if n < _DISTINCT_MIN:  # a short x2 is searched as it is: the cut costs more than it saves
        return keys, n
    line = contiguous_layout((n,))
    return keys.compress(line, run_starts(keys, n, device), line)


__all__ = ["isin"]
