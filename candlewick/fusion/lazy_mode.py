"""Lazy mode: ``with candlewick.lazy():`` and ``CANDLEWICK_LAZY=1`` (docs/fusion.md).

In lazy mode the element-wise primitives, the reductions ``cw.fuse`` fuses and ``var``
are recorded (``lazy_storage``) instead of run; what is recorded runs as one graph,
compiled by a device with the ``fusion`` capability, when a value is needed. A device
without the capability runs lazy mode eagerly (``RECORD_EVERYWHERE``). The front
end runs unchanged, so every check (dtypes, shapes, devices, Python scalars) raises at
the call that fails, as in eager mode.

The mode is on for a block (and its thread or task) inside ``with lazy():`` and off
inside ``with lazy(False):``; ``CANDLEWICK_LAZY`` sets it for the process. Recorded
calls are kept per thread and device; leaving a block runs them. ``lazy_gate.GATE.on``
(what the eager paths read) is True while any block is open or the variable is set, and
meanwhile the C in-place paths decline, the C element-wise path calls its primitive
on ``_operand(x)`` as the Python path does, and the C stores run what is pending first.
Where candlewick._native is built a block is its ``LazyBlock`` (``_core.native_lazy_blocks``:
entry and exit one call of C each, the gate and that switch flipped inside them),
``lazy`` its ``LazyCall`` (``_core.native_lazy_call``: ``lazy()`` one call of C) and
``_operand`` is its ``lazy_operand`` (``_core.native_lazy_operand``: the same answer, one
call of C; the Python function is the path where the module is not built).
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import threading
import warnings
from typing import Callable, Protocol, TypeVar

from .._core import native_lazy_blocks, native_lazy_call, native_lazy_hook, native_lazy_operand
from ..errors import ArgumentTypeError
from ..lazy_gate import GATE
from . import lazy_policy, lazy_storage
from .lazy_write import rebinds
from .lazy_policy import Start
from .lazy_split import copied_input
from .lazy_storage import LIVE, RECORDED, LazyStorage, Pending
from .trace import TracedStorage

__all__ = ["ENV", "flush", "is_lazy", "lazy"]

ENV = "CANDLEWICK_LAZY"


def _from_environment():
    value = os.environ.get(ENV, "").strip().lower()
    if value in ("", "0", "false", "no", "off"):
        return False
    if value in ("1", "true", "yes", "on"):
        return True
    # importing candlewick must not fail over a setting: say so and stay eager
    warnings.warn(f"{ENV}={value!r} is not one of 1/0, true/false, yes/no, on/off; lazy mode stays off",
                  stacklevel=2)
    return False


#: record on devices without the ``fusion`` capability too (replayed there, call by call):
#: the tests set it to run the recording on every backend. Off, such a device runs lazy
#: mode eagerly: a replay makes the very calls eager mode makes, later, and the recording
#: costs its own work and allocations (8-10 % of StandardScaler's time on cpu)
RECORD_EVERYWHERE = False

_process_on = _from_environment()
_new = object.__new__
_fuses: dict = {}  # device -> whether it declares "fusion"
_block: contextvars.ContextVar[bool | None] = contextvars.ContextVar("candlewick_lazy", default=None)
# .pending: {device: Pending} of this thread; .last: _recording's last answer (the C
# lazy_operand keeps its own in the thread's dict, with this object's identity)
_local = threading.local()
_open_blocks = 0
_gate_lock = threading.Lock()


def is_lazy() -> bool:
    """Whether lazy mode is on here (this thread or task): inside ``with lazy():`` or
    with ``CANDLEWICK_LAZY=1``, and not inside ``with lazy(False):``. (A ``lazy()``
    statement whose block fuses nothing may run eagerly, where that ran it faster,
    ``lazy_policy.SITE_RUNS``: the mode is still on there, its context value ``()``,
    which records nothing.)"""
    on = _block.get()
    return _process_on if on is None else on is not False


def _pendings():
    pendings = getattr(_local, "pending", None)
    if pendings is None:
        pendings = _local.pending = {}
    return pendings


def _recording(device):
    """This thread's pending graph on ``device`` where lazy mode is on here, else None
    (``lazy_storage.RECORDING[0]``: ``_native.lazy_recording`` where built, the same answer).
    Each recorded call asks this once or twice: the thread's last answer is kept (with
    the ``RECORD_EVERYWHERE`` it was given under) so that a chain on one device asks no
    dict or device hash."""
    on = _block.get()
    if not (_process_on if on is None else on):
        return None
    last = getattr(_local, "last", None)  # (device, RECORD_EVERYWHERE, answer): one read, not three
    if last is not None and last[0] is device and last[1] is RECORD_EVERYWHERE:
        return last[2]
    fuses = _fuses.get(device)
    if fuses is None:
        fuses = _fuses[device] = "fusion" in device.capabilities
    pending = None
    if fuses or RECORD_EVERYWHERE:
        pendings = _pendings()
        pending = pendings.get(device)
        if pending is None:
            pending = pendings[device] = Pending(device)
    _local.last = (device, RECORD_EVERYWHERE, pending)
    return pending


def _operand(x):
    storage = x._storage
    kind = type(storage)
    if kind is TracedStorage:  # tracing a fused function: its own recording
        return storage
    if kind is LazyStorage and storage.graph is None:  # a result that has run: x holds it from now on
        storage = x._storage = storage.real
        kind = type(storage)
    if not RECORDED and kind is not LazyStorage and storage.size * storage.dtype.itemsize < lazy_policy.RECORD_BYTES:
        # no graph recorded anywhere: no operand joins one (a kept result is computed where it
        # is read), and x is too small for fusing to pay (lazy_policy.RECORD_BYTES): x's own
        # primitive, at once
        return storage
    # _recording(x._device), its common answers inline (every element-wise call in lazy
    # mode asks, on a device that records or not)
    on = _block.get()
    if not (_process_on if on is None else on):
        return storage
    last = getattr(_local, "last", None)
    if last is not None and last[0] is x._device and last[1] is RECORD_EVERYWHERE:
        pending = last[2]
    else:
        pending = _recording(x._device)
    if pending is None or (kind is LazyStorage and storage.graph is pending.graph):
        return storage
    if kind is LazyStorage:
        if storage.node is None and storage.pending.owner is pending:
            # deferred here (lazy_defer): a copy read through its plain view is read from its
            # source, whose Start this is (lazy_copy.on_source's answer where no probe is
            # held), so that no method of the copy runs; else its own methods read it
            source = None if pending.probing else copied_input(storage, x._layout)
            if source is None:
                return storage
            storage = source
        else:
            return pending.tracer(storage)  # pending in another graph (another device's, another thread's)
    start = _new(Start)  # recorded, or run at once where recording cannot pay (lazy_policy)
    start.pending, start.real = pending, storage
    return start


def _copy_operand(x):
    """``GATE.copy_operand`` (``_native.lazy_copy_operand`` where built: the same answer, one
    call of C): ``GATE.operand(x)``, but a copy this thread deferred (lazy_defer)
    is itself: its copy, or a cast to its dtype, is deferred again, and another cast reads
    its source (lazy_storage's ``copy`` and ``astype``: lazy_copy.deferred_source), where
    the source's Start that ``operand`` gives it would count the copy as its own call
    (scikit-learn's ``_average`` casts Ridge's copy of X before its mean)."""
    storage = x._storage
    if (type(storage) is LazyStorage and storage.node is None and storage.real is None
            and storage.pending.owner is _recording(x._device)):
        return storage
    return GATE.operand(x)


def flush() -> None:
    """Run every call lazy mode holds pending in this thread, on every device (what a
    host read, a write or the end of a ``lazy()`` block does by itself)."""
    pendings = getattr(_local, "pending", None) if LIVE else None
    if pendings:
        for pending in list(pendings.values()):
            pending.flush()


def _write_into(x):
    """Before ``x`` is written: ``flush`` (one of the pending calls may read ``x``), then
    ``x`` given the real storage of its recorded one once that has run (its checks and
    the backend's store then read the real storage's attributes, not through
    ``LazyStorage.__getattr__``, as in eager mode; scikit-learn's fill_diagonal writes
    one element 2048 times). One call: every write in lazy mode makes it."""
    if LIVE:
        pendings = getattr(_local, "pending", None)
        if pendings:
            for pending in list(pendings.values()):
                if pending.graph.nodes or pending.kept:
                    pending.flush()
    storage = x._storage
    if type(storage) is LazyStorage and storage.graph is None:
        x._storage = storage.real


def _idle(x, y):
    """Whether a write into ``x`` reading ``y`` runs as eager mode runs it: no graph pending
    anywhere and neither storage a recorded one (the C in-place operators' test,
    _native_inplace_run.c's lazy_idle; scikit-learn's StandardScaler stores
    ``scale[scale < eps] = 1.0`` once a call, ~3 us more on the general path)."""
    return not LIVE and type(x._storage) is not LazyStorage and type(y._storage) is not LazyStorage


def _set_gate():
    """``GATE.on`` made what the open blocks and the environment say (under
    ``_gate_lock``; the blocks in Python, where candlewick._native is not built: no C
    path to switch)."""
    GATE.on = _process_on or _open_blocks > 0


_F = TypeVar("_F", bound=Callable)


class Block(Protocol):
    """What ``lazy()`` gives: a context manager that is also a decorator (each call of the
    decorated function in a block of its own), as a ``contextlib.ContextDecorator``."""

    def __enter__(self) -> None: ...

    def __exit__(self, kind, error, traceback) -> bool: ...

    def __call__(self, func: _F) -> _F: ...


def lazy(enabled: bool = True) -> Block:
    """Record element-wise chains and run each as one fused graph when a value is needed.

    Inside the block (and its thread or task) the element-wise functions and operators,
    ``where``, ``clip``, ``astype`` and the reductions ``sum``, ``prod``, ``min``,
    ``max``, ``mean``, ``var``, ``std``, ``any``, ``all`` are recorded instead of run.
    What is recorded runs at the first operation that needs a value (any other
    function, a host read such as ``float(x)`` or ``to_numpy``, an in-place write), when
    the graph reaches 128 operations, or when the block ends, compiled into few kernels
    as ``candlewick.fuse`` compiles them. Only results still referenced are written to
    memory. A device without the ``fusion`` capability (cpu) runs the block eagerly: a
    replay of the recorded calls would be the eager calls, made later. Errors of dtypes,
    shapes and devices raise at the call that causes them, as in eager mode.
    ``CANDLEWICK_LAZY=1`` turns the mode on for the process; ``lazy(False)`` turns it off
    inside a block.

    Parameters
    ----------
    enabled : bool
        True: lazy mode inside the block; False: eager inside it.

    Returns
    -------
    Block
        A context manager, also usable as a decorator (``@lazy()``: each call in a block
        of its own).

    Raises
    ------
    TypeError
        If enabled is not a bool.

    Examples
    --------
    >>> import candlewick as cw
    >>> x = cw.asarray([0.0, 1.0, 2.0])
    >>> with cw.lazy():
    ...     y = 0.5 * x * (1.0 + cw.tanh(0.8 * x))   # recorded: nothing runs yet
    ...     total = float(cw.sum(y))                  # runs, as one graph
    >>> round(total, 4)
    2.7537
    """
    if type(enabled) is not bool:  # (bool has no subclasses)
        raise ArgumentTypeError(f"candlewick.lazy: enabled must be a bool, got {type(enabled).__name__}")
    return _take(enabled)


class _PyBlock(contextlib.ContextDecorator):
    """One ``lazy()`` block where candlewick._native is not built (a class, not a
    generator: a loop enters one on every call, and a generator's context manager costs
    twice as much); else ``_Block``, the C one's (_native_lazy_block.c)."""

    def __init__(self, enabled):
        self.enabled = enabled
        self.tokens = []  # a stack: the same block may be entered again inside itself

    def _recreate_cm(self):
        return _Block(self.enabled)  # each call of a decorated function: a block of its own

    # (acquire/release, not `with`: half the cost, and a block per call pays it twice)
    def __enter__(self):
        global _open_blocks
        self.tokens.append(_block.set(self.enabled))
        _gate_lock.acquire()
        try:
            _open_blocks += 1
            _set_gate()
        finally:
            _gate_lock.release()

    def __exit__(self, kind, error, traceback):
        global _open_blocks
        _block.reset(self.tokens.pop())
        try:
            if LIVE:  # (flush's own first test: nothing pending anywhere, no call)
                flush()  # what the block recorded runs before its arrays are used outside it
        except Exception:
            if kind is None:
                raise
            # the block's own error goes on; what is pending runs when it is needed
        finally:
            _gate_lock.acquire()
            try:
                _open_blocks -= 1
                _set_gate()
            finally:
                _gate_lock.release()
        return False


GATE.operand = native_lazy_operand(globals(), TracedStorage, LazyStorage) or _operand
GATE.copy_operand = native_lazy_hook("lazy_copy_operand") or _copy_operand
# (each recorded call asks it first: in C where built, the thread's last answer kept there)
lazy_storage.RECORDING[0] = native_lazy_hook("lazy_recording") or _recording
GATE.records = lambda device: lazy_storage.RECORDING[0](device) is not None
GATE.before_write = flush
GATE.write_into = _write_into
GATE.idle = _idle
GATE.rebinds = rebinds
_LazyBlock = native_lazy_blocks(_block, GATE, flush, LIVE, LazyStorage, _process_on)
if _LazyBlock is None:
    _Block = _take = _PyBlock
    with _gate_lock:
        _set_gate()
else:
    # _LazyBlock is a class the C module makes at import: mypy sees only a variable
    class _Block(_LazyBlock):  # type: ignore[no-redef,valid-type,misc]
        """One ``lazy()`` block: entry and exit in C (a loop may enter one per call). Not a
        ContextDecorator subclass, whose instances carry a ``__dict__``: without one (nor
        weak references) a block no one holds any more is as good as a new one, and
        ``_take`` gives it again instead of making one (a loop's ``with cw.lazy():`` per
        call makes no block); the decorator is ContextDecorator's own ``__call__``."""

        __slots__ = ()
        __call__ = contextlib.ContextDecorator.__call__

        def _recreate_cm(self):
            # each call of a decorated function: a block of its own, made by the class (not
            # take's: every decorated function's block would be entered at one place, in
            # contextlib's wrapper, so they would learn as one lazy() statement: they
            # always record, _native_lazy_sites.c)
            return type(self)(self.enabled)

    _take = _Block.take  # type: ignore[attr-defined]
    # lazy() and lazy(b) in C (a block per call then pays no Python frame for lazy
    # itself); the function above is its general path (docs, signature, errors)
    lazy = native_lazy_call(lazy, _Block)
