"""A lazy() block's entry and exit in C (candlewick._native.LazyBlock, where built): the
mode in its context as the Python block sets it, the gate and the C fast paths' switch
on while any block is open (in any thread) and off after the last, what is pending run
at the exit, its error raised unless the block raised its own."""

import contextlib
import contextvars
import copy
import inspect
import pickle
import sys
import threading

import pytest

import candlewick as cw
from candlewick import _core
from candlewick.errors import ArgumentTypeError
from candlewick.fusion import lazy_mode
from candlewick.fusion.lazy_storage import LIVE, LazyStorage
from candlewick.lazy_gate import GATE

pytestmark = pytest.mark.skipif(_core._native is None, reason="candlewick._native was not built here")


def test_a_block_is_the_c_one():
    assert isinstance(cw.lazy(), _core._native.LazyBlock)
    assert GATE.on is lazy_mode._process_on


def test_a_block_entered_inside_itself_and_lazy_false_inside():
    block = cw.lazy()
    with block:
        assert GATE.on and lazy_mode.is_lazy()
        with block:
            with cw.lazy(False):
                assert not lazy_mode.is_lazy() and GATE.on
            assert lazy_mode.is_lazy()
        assert lazy_mode.is_lazy()
    assert lazy_mode.is_lazy() is lazy_mode._process_on
    assert GATE.on is lazy_mode._process_on


def test_a_decorated_function_enters_a_block_per_call():
    @cw.lazy()
    def inside(depth):
        return [lazy_mode.is_lazy()] + (inside(depth - 1) if depth else [])

    assert inside(2) == [True, True, True]
    assert GATE.on is lazy_mode._process_on


def test_the_gate_stays_on_while_another_thread_holds_a_block():
    opened, release = threading.Event(), threading.Event()

    def other():
        with cw.lazy():
            opened.set()
            release.wait(10)

    thread = threading.Thread(target=other)
    thread.start()
    try:
        assert opened.wait(10)
        with cw.lazy():
            pass
        assert GATE.on  # the other thread's block is still open
        assert lazy_mode.is_lazy() is lazy_mode._process_on  # its mode is its own context's
    finally:
        release.set()
        thread.join()
    assert GATE.on is lazy_mode._process_on


@pytest.fixture
def own_blocks():
    """LazyBlock's shared state given a context variable, gate, flush and live set of the
    test's own (no block open meanwhile), lazy mode's given back after."""
    class Gate:
        __slots__ = ("on", "operand", "records", "before_write", "write_into")

    gate, live, runs = Gate(), set(), []
    gate.on, gate.operand, gate.write_into = False, lambda x: x._storage, lambda x: None
    var = contextvars.ContextVar("test_lazy", default=None)

    def flush():
        runs.append(1)
        if "fail" in live:
            raise RuntimeError("flush failed")

    _core._native.lazy_blocks(var, gate, flush, live, LazyStorage, False)
    try:
        yield _core._native.LazyBlock, var, gate, live, runs
    finally:
        _core._native.lazy_blocks(lazy_mode._block, GATE, lazy_mode.flush, LIVE, LazyStorage,
                                  lazy_mode._process_on)


def test_the_exit_flushes_only_while_a_graph_holds_nodes(own_blocks):
    block, var, gate, live, runs = own_blocks
    with block(True):
        assert var.get() is True and gate.on is True
    assert runs == [] and var.get() is None and gate.on is False
    live.add("graph")
    with block(True):
        pass
    assert runs == [1]


def test_a_failed_flush_raises_at_the_exit_unless_the_block_raised(own_blocks):
    block, var, gate, live, runs = own_blocks
    live.add("fail")
    with pytest.raises(RuntimeError, match="flush failed"):
        with block(True):
            pass
    assert gate.on is False and var.get() is None  # the count and the mode back all the same
    with pytest.raises(ZeroDivisionError):  # the block's own error goes on
        with block(True):
            1 / 0
    assert runs == [1, 1] and gate.on is False


def test_a_block_takes_a_bool():
    with pytest.raises(TypeError):
        _core._native.LazyBlock(1)
    with pytest.raises(TypeError, match="enabled must be a bool"):
        cw.lazy(1)


def test_lazy_itself_is_one_call_of_c():
    """lazy() and lazy(b) for a bool b are LazyBlock.take's (the kept block: a loop's
    ``with cw.lazy():`` pays no Python frame for lazy); any other call is the Python
    function's, whose docs, signature and errors lazy keeps."""
    assert isinstance(cw.lazy, _core._native.LazyCall)
    take = lazy_mode._Block.take
    for args, enabled in (((), True), ((True,), True), ((False,), False)):
        block = cw.lazy(*args)
        assert type(block) is lazy_mode._Block and block.enabled is enabled
        kept_id = id(block)
        del block
        assert id(take(enabled)) == kept_id  # the block take keeps, given again
    block = cw.lazy(enabled=False)  # a keyword: the Python function's path, the same block
    assert type(block) is lazy_mode._Block and block.enabled is False
    with pytest.raises(ArgumentTypeError, match="candlewick.lazy: enabled must be a bool, got int"):
        cw.lazy(1)
    with pytest.raises(TypeError):
        cw.lazy(True, False)
    general = cw.lazy.general
    assert cw.lazy.__wrapped__ is general and cw.lazy.__doc__ == general.__doc__
    assert cw.lazy.__name__ == "lazy" and str(inspect.signature(cw.lazy)) == str(inspect.signature(general))
    with pytest.raises(TypeError, match="LazyBlock subclass"):
        _core._native.LazyCall(general, object)
    assert pickle.loads(pickle.dumps(cw.lazy)) is cw.lazy and copy.deepcopy(cw.lazy) is cw.lazy

    @cw.lazy()
    def f():
        return lazy_mode.is_lazy()

    assert f() is True and lazy_mode.is_lazy() is lazy_mode._process_on


def test_a_hook_set_on_the_gate_is_the_one_an_entry_switches_on(own_blocks):
    """The entry reads the gate's hooks from their slots at each entry: a hook set on the
    gate after lazy_blocks (a test's wrapper) is the one the C store calls."""
    block, var, gate, live, runs = own_blocks
    calls = []
    gate.write_into = calls.append
    live.add("graph")  # (a graph pending: the C store calls the hook before it writes)
    x = cw.asarray([1.0, 2.0])
    with block(True):
        x[0] = 3.0
    assert calls == [x] and runs == [1]
    gate.write_into = lambda x: calls.append("again")
    with block(True):
        x[1] = 4.0
    assert calls == [x, "again"]


def test_a_hook_read_from_its_slot_answers_as_getattr():
    """The entry reads the gate's hooks from their slots in C (cw_member) only where getattr
    would: a member descriptor of an unrelated class set on the gate's class (its offset
    another slot of this layout) is refused by getattr, and so by the entry."""
    class Foreign:
        __slots__ = ("a", "b", "write_into")

    class Gate:
        __slots__ = ("hook", "on", "operand")

    Gate.write_into = Foreign.__dict__["write_into"]
    gate = Gate()
    gate.hook, gate.on, gate.operand = (lambda x: None), False, (lambda x: x._storage)
    with pytest.raises(TypeError, match="write_into"):
        gate.write_into
    var = contextvars.ContextVar("test_lazy_foreign", default=None)
    _core._native.lazy_blocks(var, gate, lambda: None, set(), LazyStorage, False)
    try:
        with pytest.raises(TypeError, match="write_into"):
            with _core._native.LazyBlock(True):
                pass
        assert gate.on is False and var.get() is None
    finally:
        _core._native.lazy_blocks(lazy_mode._block, GATE, lazy_mode.flush, LIVE, LazyStorage,
                                  lazy_mode._process_on)


def test_a_block_no_one_holds_is_given_again():
    """lazy() gives the block it last made for `enabled` again once no one else holds it
    (a loop's `with cw.lazy():` per call makes none), never one that is held."""
    first = cw.lazy()
    held = cw.lazy()
    assert held is not first and held.enabled is True
    kept, kept_id = held, id(held)
    del first, held
    assert sys.getrefcount(kept) == 3  # kept by take, by `kept`, and getrefcount's argument
    del kept
    again = cw.lazy()
    assert id(again) == kept_id and sys.getrefcount(again) == 3  # the same block, still kept
    with again:
        assert cw.lazy() is not again and lazy_mode.is_lazy()
    off = cw.lazy(False)
    assert off.enabled is False and off is not again
    with off:
        assert not lazy_mode.is_lazy()


def test_a_block_of_a_class_with_a_dict_is_always_new():
    """A class whose blocks carry a __dict__ (or weak references, a finalizer) gets a new
    block at each take: what a holder left on one is not seen by the next."""
    class WithDict(_core._native.LazyBlock):
        pass

    first = WithDict.take(True)
    first.left = 1
    del first
    again = WithDict.take(True)
    assert type(again) is WithDict and not hasattr(again, "left")
    with pytest.raises(TypeError, match="enabled must be a bool"):
        WithDict.take(1)


def test_a_block_of_a_class_with_slots_of_its_own_is_always_new():
    """Slots a subclass adds widen its blocks: a block given again would show what its
    last holder set in them."""
    class WithSlots(_core._native.LazyBlock):
        __slots__ = ("left",)

    first = WithSlots.take(True)
    first.left = 1
    del first
    again = WithSlots.take(True)
    assert type(again) is WithSlots and not hasattr(again, "left")


def test_a_kept_blocks_entry_and_exit_are_made_once():
    """The kept block's __enter__ and __exit__ are bound once and given again (with looks
    both up at every entry); another block's are bound at each lookup; on the class they
    are the methods, as contextlib.ExitStack calls them."""
    with cw.lazy():
        pass
    kept = cw.lazy()
    assert kept.__enter__ is kept.__enter__ and kept.__exit__ is kept.__exit__
    other = _core._native.LazyBlock(True)
    assert other.__enter__ is not other.__enter__
    entry, kept_id = kept.__enter__, id(kept)
    del kept
    assert id(cw.lazy()) != kept_id  # its bound entry held (and the block by it): not given again
    del entry
    with contextlib.ExitStack() as stack:
        stack.enter_context(cw.lazy())
        assert lazy_mode.is_lazy()
    assert lazy_mode.is_lazy() is lazy_mode._process_on


def test_a_block_entered_by_a_bare_with_is_not_given_again_inside_it():
    """`with cw.lazy():` holds its block by nothing but the bound __exit__ the frame keeps
    and the block's own token: lazy() asked inside must make another block, and leaving
    the inner one must leave the outer one open."""
    with cw.lazy():
        pass
    free = id(cw.lazy())  # the kept block, held by no one: the next lazy() takes it
    with cw.lazy():
        inner = cw.lazy()
        assert id(inner) != free
        with inner:
            assert lazy_mode.is_lazy()
        with cw.lazy(False):
            assert not lazy_mode.is_lazy()
        assert lazy_mode.is_lazy()
    assert lazy_mode.is_lazy() is lazy_mode._process_on
