"""Lazy mode's in-place operators on a result still pending (docs/fusion.md, "Lazy mode"):
``rebinds``, installed as ``lazy_gate.GATE.rebinds``.

``X = asarray(X, copy=True); X -= mean; X /= scale`` (scikit-learn's StandardScaler and
PCA) written eagerly makes three passes over X. In lazy mode the copy is recorded, and
``X -= mean`` may be recorded as ``X - mean``, whose result ``X`` holds from then on
(``array_operators``' in-place methods ask ``rebinds(X)`` first): the three then run as
one kernel, reading X once and writing once. An array that holds its storage alone sees
the same values either way, and nothing else can see the old storage change: no view of
it, no other array on it, no other reference at all. The old result stays in the graph
unchanged, so calls recorded before the update that read it still read the values
before it, as in eager mode. Any other in-place update runs what is pending first and
writes in place (``GATE.write_into``).
"""

from __future__ import annotations

import sys

from .lazy_storage import RECORDING, LazyStorage

__all__ = ["SOLE", "rebinds"]

_getrefcount = sys.getrefcount


def _references(x):
    # x's storage is read here, not held by a caller: the callers (an operator's method,
    # the interpreter's in-place instruction) hold x, so the count is x's slot, this
    # argument and whatever else holds the storage
    return _getrefcount(x._storage)


class _Holder:
    __slots__ = ("_storage",)


def _sole():
    holder = _Holder()
    holder._storage = object()
    return _references(holder)


#: ``_references`` of a storage its array holds alone, measured on this interpreter
SOLE = _sole()


def rebinds(x):
    """Whether ``x <op>= y`` may give ``x`` the result of ``x <op> y`` (recorded) instead
    of writing into it: lazy mode records here, ``x``'s storage is a result pending in
    this thread's graph or a copy this thread deferred, and ``x`` holds it alone (the
    caller still checks that the result keeps ``x``'s dtype and shape)."""
    if _references(x) != SOLE:  # a view, another array or anything else reads it: it must change
        return False
    storage = x._storage
    if type(storage) is not LazyStorage or storage.real is not None:
        return False
    if storage.node is None:  # deferred (lazy_defer): a copy, whose update reads its source
        deferral = storage.pending
        call = deferral.call
        return call is not None and call[0] == "copy" and RECORDING[0](x._device) is deferral.owner
    return RECORDING[0](x._device) is storage.pending
