"""The lazy mode's gate: the one flag the eager paths read, and the hooks behind it.

Lazy mode (``candlewick.lazy``, ``candlewick/fusion/lazy_mode.py``) records element-wise calls
instead of running them. The eager paths must not pay for that: they read ``GATE.on``,
False unless some block or the environment turned lazy mode on somewhere in the process,
and only then call the hooks ``fusion/lazy_mode.py`` installs: ``operand`` (the storage an
element-wise primitive is called on: a recording one where lazy mode is on in this
context), ``copy_operand`` (the same for a copy or cast of ``x``: a copy lazy mode deferred
stays itself, whose copy is deferred again), ``records`` (whether a call on a device is recorded here: it allocates
nothing now), ``before_write`` (run what is pending before an array is written) and
``write_into`` (the same before ``x`` is written, and ``x`` given the real storage of its
recorded one: a loop of stores then reaches the real storage's attributes directly) and
``idle`` (whether a write into ``x`` reading ``y`` runs as eager mode runs it: nothing
pending anywhere, neither storage a recorded one) and ``rebinds`` (whether ``x <op>= y``
may give ``x`` the recorded result of ``x <op> y`` instead of writing: ``x`` alone holds
a result still pending, so ``X = asarray(X, copy=True); X -= mean; X /= scale`` runs as
one kernel; fusion/lazy_write.py).
"""

from __future__ import annotations

from typing import Any, Callable

__all__ = ["GATE", "before_write", "copy_operand", "operand"]


class Gate:
    """``on``: lazy mode may be on somewhere; ``operand``/``copy_operand``/``records``/``before_write``/``write_into``/``idle``/
    ``rebinds``: its hooks.

    ``on`` is written only by lazy mode's blocks (fusion/lazy_mode.py; where candlewick._native
    is built, its LazyBlock, which keeps a copy of ``on`` in C with the fast paths' switch).
    Code that sets ``on`` by hand (a test) sets it back before any block enters or exits, or
    calls ``_native.lazy_blocks`` again with lazy_mode's arguments, which rereads it
    (candlewick/_native_lazy_block.c)."""

    __slots__ = ("on", "operand", "copy_operand", "records", "before_write", "write_into", "idle", "rebinds")

    def __init__(self) -> None:
        self.on = False
        self.operand: Callable[[Any], Any] = _storage_of
        self.copy_operand: Callable[[Any], Any] = _storage_of
        self.records: Callable[[Any], bool] = _never
        self.before_write: Callable[[], None] = _nothing
        self.write_into: Callable[[Any], None] = _leave
        self.idle: Callable[[Any, Any], bool] = _always
        self.rebinds: Callable[[Any], bool] = _never


def _storage_of(x):
    return x._storage


def _nothing():
    return None


def _leave(x):
    return None


def _never(x):
    return False


def _always(x, y):
    return True


GATE = Gate()


def operand(x):
    """The storage to call an element-wise primitive of ``x`` on: ``x._storage``, or in
    lazy mode the one that records the call."""
    return x._storage if not GATE.on else GATE.operand(x)


def copy_operand(x):
    """The storage to call ``copy`` or ``astype`` of ``x`` on: ``operand(x)``'s, but in lazy
    mode a copy deferred here is itself (its copy is deferred again: fusion/lazy_copy.py)."""
    return x._storage if not GATE.on else GATE.copy_operand(x)


def before_write():
    """Run the calls lazy mode holds pending, before an array is written in place (one
    of them may read it)."""
    if GATE.on:
        GATE.before_write()
