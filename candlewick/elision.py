"""Temporary elision: ``-2 * (a @ b)`` and ``(a @ b) / n`` write their result into the
product's memory, as NumPy does, instead of a new buffer (the operators of
``array_operators`` with a Python scalar call ``scalar_into`` first).

An operand may be written only where nothing can read it again: it is a temporary of the
expression being evaluated, proven by candlewick._native's ``temporary`` (the C call path
from the interpreter's operator instruction to this module is the one recorded for the
operator, and the array's reference count is what that path holds; see
candlewick/_native_temporary.c), nothing else shares its memory (the storage's optional
hook ``unshared``, ``backend.UnsharedStorage``: no view, export or other storage), it
has no weak reference (a pending lazy graph that reads it holds it, its storage or its
buffer, or it is a lazy result whose storage has no ``unshared``: lazy mode needs no
check of its own). The result
is the one the new buffer would hold: the same primitive family (``binary_scalar_into``,
the group "inplace"), the operand's dtype and shape.

Why: a new buffer of a large expression is memory the process has not touched since it
was last given back, and its first write costs a page fault every 4 KiB; scikit-learn's
pairwise distances of 2048 rows made three 9 MB products a call, ``-2 *`` each (1.5x
NumPy's time for those steps, and 8 MiB more at the peak). Below ``FROM_BYTES`` (NumPy's
threshold) a new buffer costs less than the check.
"""

from __future__ import annotations

import sys
from _weakref import getweakrefcount

from ._core import _native, new_array
from .inplace import GROUP
from .opdefs import BinaryOp

#: the least bytes an operand has for its operator to check it (NumPy's NPY_MIN_ELIDE_BYTES)
FROM_BYTES = 1 << 18
#: the references to the operand on each recorded path, and the interpreter frames between
#: the operator method's and the expression's: reflected (``2.0 * t``: the slot calls the
#: method) the value stack's operand, the method's parameter, scalar_into's (the call
#: moves the argument into it) and its argument to temporary, the expression's frame the
#: next one up; forward (``t * 2.0``: the slot calls the C wrapper's Python frame,
#: ``elementwise_dispatch.in_c``'s, whose C case hands scalars to the method) two more,
#: the wrapper's parameter and its argument, and the wrapper's frame between
PATHS = {True: (4, 1), False: (6, 2)}
_getrefcount = sys.getrefcount
#: the ops whose reflected form is the forward one: IEEE's sum and product commute, and a
#: NaN result carries x's NaN where the scalar is not one (compared by identity: an Enum
#: member hashes through Python code)
_ADD, _MULTIPLY = BinaryOp.ADD, BinaryOp.MULTIPLY
_temporary = getattr(_native, "temporary", None)
#: the operator methods given a key, (symbol, reflected), in order (key = index)
_KEYS: list[tuple[str, bool]] = []


def key_for(symbol, reflected):
    """A key for ``temporary``: one per operator method (``symbol``, ``reflected``)."""
    _KEYS.append((symbol, reflected))
    return len(_KEYS) - 1


def scalar_into(op, results, x, value, reflected, key):
    """``x <op> value`` (``value <op> x`` where ``reflected``) written into x and x returned,
    where x is a temporary whose memory nothing else shares, of a real floating dtype the
    op keeps, ``value`` a Python float or int; else None (the caller computes a new
    array). Called straight from the operator method (the recorded path: no other frame
    between); the forward method is reached through ``in_c``'s wrapper only (PATHS)."""
    if _temporary is None:
        return None
    dtype = x._dtype
    layout = x._layout
    if (dtype.level != 2 or results.get(dtype.name) is not dtype
            or layout.dense_size * dtype.itemsize < FROM_BYTES):
        return None
    storage = x._storage
    # the hook looked up on the class: a storage that answers any attribute (cw.fuse's
    # tracer refuses every primitive it does not trace) has none
    if (getattr(type(storage), "unshared", None) is None or layout.dense_size != storage.size
            or GROUP not in x._device.capabilities):
        return None
    unshared = storage.unshared
    temporary = _temporary(x, key)
    if temporary is None:  # (the first large operand of this method: record its path)
        _calibrate(key, x)
        temporary = _temporary(x, key)
    # storage's references: x's slot, the local and the argument here, the bound method's
    if not temporary or getweakrefcount(x) or _getrefcount(storage) != 4 or not unshared():
        return None
    value = float(value)
    if reflected and (op is _MULTIPLY or op is _ADD) and value == value:
        # -2 * (a @ b) as (a @ b) * -2.0: the same values, and the primitive's C path takes
        # the forward form only (the reflected one ran its Python general path, ~10 frames
        # after the product had evicted them: pairwise_distances' and a KMeans step's)
        reflected = False
    storage.binary_scalar_into(op, layout, storage, layout, value, reflected)
    return x


def _calibrate(key, x):
    """Record ``key``'s path: a controlled ``2.0 <symbol> make()`` (or ``make() <symbol>
    2.0``) through the operator, ``make()`` a new temporary (a copy of x through its
    storage's ``copy``: no operator, whose own call would be the one recorded); where the
    count there is not the path's (``PATHS``), the key stays off."""
    symbol, reflected = _KEYS[key]
    expression = f"2.0 {symbol} make()" if reflected else f"make() {symbol} 2.0"
    probe = eval(f"lambda make: {expression}")  # noqa: S307 - a fixed operator symbol
    refs, evals = PATHS[reflected]
    layout = x._layout

    def run():
        probe(lambda: new_array(type(x), x._storage.copy(layout), layout.shape, x._dtype, x._device))

    _native.calibrate_temporary(key, evals, refs, run)
