"""What lazy mode counts a primitive call as (docs/fusion.md, "Recording only what
fuses"): its key, the primitive, its operands' dtypes and layouts and its scalars by value,
not its storages, so that code run again (a loop's iterations, an estimator fitted again)
makes the same keys. ``lazy_policy`` counts and marks them; the C decision
(_native_lazy_key.c) builds ``pair_key``'s keys itself and calls ``call_key_of`` for the
others, so that both count the same keys.
"""

from __future__ import annotations

from ..dtypes import DType
from ..layout import Layout
from .lazy_run import attr_key

__all__ = ["STORAGE_ARGS", "call_key", "call_key_of", "pair_key", "plain"]

#: the positions of storage arguments in the primitives recorded (the protocol's
#: signatures, candlewick/backend.py; the others take layouts, ops, dtypes and scalars)
STORAGE_ARGS = {"binary": (2,), "binary_as": (2,), "compare": (2,), "where": (1, 3)}


def plain(name, args):
    """``args`` of a call of primitive ``name`` with each storage given as its dtype
    (what a call's key reads of it; a pending graph's list of calls must not keep its
    results alive)."""
    positions = STORAGE_ARGS.get(name)
    if positions is None:
        return args
    args = list(args)
    for i in positions:
        args[i] = args[i].dtype
    return tuple(args)


def call_key(device, name, dtype, args):
    """The key of the primitive call ``name(storage of dtype, *args)`` on ``device``
    (``args`` as ``plain`` gives them; an unhashable argument makes an unhashable key,
    which the callers count as never seen)."""
    # the device by id and dtypes by name: their own hashes run Python code, and a key is
    # made for each call lazy mode may run at once (a reused id only shares counts)
    key = [id(device), name, dtype.name]
    for a in args:
        kind = type(a)
        if kind is Layout:
            key.append((a.shape, a.strides, a.offset))
        elif kind is float or kind is int or kind is bool or kind is complex:
            key.append(attr_key(a))
        elif kind is DType:
            key.append(a.name)
        elif kind is list:
            key.append(tuple(a))
        else:
            key.append(a)
    return tuple(key)


def call_key_of(device, name, dtype, args):
    """``call_key`` of a call given ``args`` as its primitive takes them (storages, not
    their dtypes): the key maker of a call lazy mode may run at once."""
    return call_key(device, name, dtype, plain(name, args))


def pair_key(device, name, dtype, args):
    """``call_key_of`` for a binary or compare call, built in one step where its four
    arguments are (op kept as it is, Layout, storage, Layout): each element-wise call in
    lazy mode that may run at once asks (``x * y`` in a loop)."""
    if len(args) == 4:
        op, layout1, other, layout2 = args
        if type(layout1) is Layout and type(layout2) is Layout and type(op) not in _NOT_AS_IS:
            return (id(device), name, dtype.name, op, (layout1.shape, layout1.strides, layout1.offset),
                    other.dtype.name, (layout2.shape, layout2.strides, layout2.offset))
    return call_key_of(device, name, dtype, args)


#: the argument types call_key does not keep as they are
_NOT_AS_IS = frozenset({Layout, DType, float, int, bool, complex, list})
