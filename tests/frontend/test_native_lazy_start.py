"""Lazy mode's run-at-once decision in C (candlewick._native.StartMethod, where built):
lazy_policy.Start's methods decide as the Python policy does (the path without the
module) in every case: a small call at once, a large one recorded until its key is
counted REPLAYS times (pair_key's key and call_key_of's, the same as counted_replayed's),
a pending operand recorded, a computed recorded operand replaced by its result, an
unhashable argument never counted; and the C element-wise path reaches it."""

import numpy as np
import pytest

import candlewick as cw
from candlewick import _core
from candlewick import dtypes as dt
from candlewick.fusion import lazy_keys, lazy_policy
from candlewick.fusion.lazy_policy import Start
from candlewick.layout import Layout
from candlewick.opdefs import BinaryOp, ReduceOp

pytestmark = pytest.mark.skipif(_core._native is None, reason="candlewick._native was not built here")


class Storage:
    """A storage whose primitives say they ran, on what and with which arguments."""

    def __init__(self, tag, size, dtype=dt.float32):
        self.tag, self.size, self.dtype = tag, size, dtype

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return lambda *args: (self.tag, name, args)


class Recorded:
    """lazy_storage.LazyStorage's part the policy reads: ``real`` (None while pending)."""

    def __init__(self, real):
        self.real = real


class Pending:
    lazy_type = Recorded
    device = object()

    def tracer(self, real):
        return Storage(("traced", real.tag), real.size, real.dtype)

    def defer(self, name, real, *args):
        return (("deferred", name), real.tag)


def _python_method(name, pair, probe=False):
    saved = lazy_policy._StartMethod
    lazy_policy._StartMethod = None
    try:
        return lazy_policy._start(name, pair, probe=probe)
    finally:
        lazy_policy._StartMethod = saved


@pytest.fixture
def policy(monkeypatch):
    lazy_policy.reset()
    monkeypatch.setattr(lazy_policy, "RECORD_BYTES", 1 << 23)  # (tests/conftest.py makes it 0)
    yield
    lazy_policy.reset()


def _cases(pending):
    big, small = 1 << 22, 16  # float32 elements: 16 MiB (above RECORD_BYTES) and 64 bytes
    layout, row = Layout.contiguous((big,)), Layout((big,), (0,))
    other = Storage("other", big)
    yield "binary", True, Storage("x", small), (BinaryOp.ADD, Layout.contiguous((small,)), Storage("o", small),
                                                Layout.contiguous((small,)))
    yield "binary", True, Storage("x", big), (BinaryOp.MULTIPLY, layout, other, row)
    yield "binary", True, Storage("x", big), (BinaryOp.SUBTRACT, layout, Recorded(other), row)
    yield "binary", True, Storage("x", small), (BinaryOp.ADD, Layout.contiguous((small,)), Recorded(None),
                                                Layout.contiguous((small,)))
    yield "compare", True, Storage("x", big), (BinaryOp.ADD, layout, other, "not a layout")
    yield "binary_scalar", False, Storage("x", big), (BinaryOp.ADD, layout, 2.5)
    yield "binary_scalar", False, Storage("x", big), (BinaryOp.ADD, layout, [1, [2]])  # unhashable: never counted
    yield "where", False, Storage("x", big, dt.bool_), (layout, Recorded(other), layout, Storage("y", small), layout)
    yield "unary", False, Storage("x", small << 20), (BinaryOp.ADD, layout)


def test_start_methods_are_the_c_ones():
    assert type(Start.__dict__["binary"]) is _core._native.StartMethod
    assert type(Start.__dict__["where"]) is _core._native.StartMethod


def test_the_c_policy_decides_as_the_python_one(policy):
    pending = Pending()
    for name, pair, real, args in _cases(pending):
        c_method, py_method = getattr(Start, name), _python_method(name, pair)
        start = Start(pending, real)
        answers = []
        pending_operand = any(type(a) is Recorded and a.real is None for a in args)
        for counted in range(lazy_policy.REPLAYS + 1):
            answer = c_method(start, *args)
            assert answer == py_method(start, *args), (name, args, counted)
            assert getattr(start, name)(*args) == answer  # through the bound method too
            answers.append(answer[0])
            if not pending_operand:  # (its replayed graph's count: the call as run, on the operands' results)
                call_args = [a.real if type(a) is Recorded else a for a in args]
                lazy_policy.counted_replayed(pending.device, [(name, real.dtype, lazy_keys.plain(name, call_args))])
        hashable = not any(type(a) is list for a in args)
        if real.size < 1024 and not pending_operand:
            assert answers == ["x"] * len(answers)  # small: at once
        elif pending_operand or not hashable:
            assert answers == [("traced", "x")] * len(answers)  # recorded, however often counted
        else:  # recorded until counted REPLAYS times, then at once, on the operands' results
            assert answers == [("traced", "x")] * lazy_policy.REPLAYS + ["x"], (name, answers)


@pytest.mark.parametrize("path", ["C", "Python"])
def test_a_copy_run_at_once_is_probed_at_its_probe_th_run(policy, monkeypatch, path):
    """A copy counted REPLAYS times is deferred (lazy_defer: its update reads its source)
    but at its PROBE-th such call, which is recorded and marks the graph ``probing``;
    the next probe comes twice as far, up to
    ``PROBE << PROBE_DOUBLINGS`` runs. Its tally goes on through changes of other counts
    (a fused run elsewhere bumps the generation); a change of its own answer (marked
    fusing, then counted again) starts it over. Other calls are never probed."""
    monkeypatch.setattr(lazy_policy, "PROBE", 3)
    monkeypatch.setattr(lazy_policy, "PROBE_DOUBLINGS", 1)
    pending = Pending()
    pending.probing = False
    big = 1 << 22
    layout = Layout.contiguous((big,))
    start = Start(pending, Storage("x", big))

    def probes(method, args, runs):
        out = []
        for k in range(runs):
            if k == 1:  # another call counted: the counts' generation moves
                lazy_policy.counted_replayed(pending.device, [("unary", dt.float32, (BinaryOp.ADD, layout))])
            answer = method(start, *args)[0]
            assert answer == (("traced", "x") if pending.probing else ("deferred", "copy") if name == "copy" else "x"), k
            if pending.probing:
                out.append(k + 1)
            pending.probing = False
        return out

    cases = {"copy": (layout,), "binary_scalar": (BinaryOp.MULTIPLY, layout, 2.0, False)}
    for name, args in cases.items():
        method = getattr(Start, name) if path == "C" else _python_method(name, False, probe=name == "copy")
        call = (name, dt.float32, lazy_keys.plain(name, args))
        for _ in range(lazy_policy.REPLAYS):
            lazy_policy.counted_replayed(pending.device, [call])
        if name != "copy":
            assert probes(method, args, 16) == []
            continue
        assert probes(method, args, 16) == [3, 9, 15]
        lazy_policy.pinned_fused(pending.device, [call])  # a fused probe's mark
        assert method(start, *args)[0] == ("traced", "x")
        for _ in range(lazy_policy.REPLAYS):
            lazy_policy.counted_replayed(pending.device, [call])
        assert probes(method, args, 10) == [3, 9]
    monkeypatch.setattr(lazy_policy, "PROBE", 0)  # never
    assert all(getattr(Start, "copy")(start, layout)[0] == ("deferred", "copy") for _ in range(7))
    assert not pending.probing


@pytest.mark.parametrize("path", ["C", "Python"])
def test_only_a_copy_of_a_plain_view_is_deferred(policy, path):
    """A copy of a strided view, counted REPLAYS times, runs at once: no reader of it could
    read its source instead (lazy_copy), so deferring it would only cost."""
    pending = Pending()
    pending.probing = False
    big = 1 << 22
    start = Start(pending, Storage("x", big))
    method = Start.copy if path == "C" else _python_method("copy", False, probe=True)
    for layout, want in ((Layout((big // 2,), (2,)), "x"), (Layout.contiguous((big,)), ("deferred", "copy"))):
        call = ("copy", dt.float32, lazy_keys.plain("copy", (layout,)))
        for _ in range(lazy_policy.REPLAYS):
            lazy_policy.counted_replayed(pending.device, [call])
        assert method(start, layout)[0] == want


def test_record_bytes_is_read_at_each_call(policy, monkeypatch):
    start = Start(Pending(), Storage("x", 1 << 22))
    args = (BinaryOp.ADD, Layout.contiguous((1 << 22,)), 1.0)
    assert start.binary_scalar(*args)[0] == ("traced", "x")
    monkeypatch.setattr(lazy_policy, "RECORD_BYTES", 1 << 30)
    assert start.binary_scalar(*args)[0] == "x"


def test_refusals_name_the_method():
    with pytest.raises(TypeError, match="StartMethod binary: takes a Start"):
        Start.binary(object(), 1)
    with pytest.raises(ValueError, match="positions"):
        _core._native.StartMethod("where", (1, 2, 3, 4, 5), False)


def test_the_element_wise_path_calls_it(policy):
    """x * y in a block on a device that records (RECORD_EVERYWHERE), through the C
    element-wise path: recorded while its key is not counted, at once (eager mode's
    values) once counted REPLAYS times."""
    from candlewick.fusion import lazy_mode

    x = cw.asarray(np.arange(1 << 22, dtype=np.float32))
    y = cw.asarray(np.full(1 << 22, 0.5, np.float32))
    call = ("binary", x.dtype, (BinaryOp.MULTIPLY, x._layout, y.dtype, y._layout))
    saved = lazy_mode.RECORD_EVERYWHERE
    lazy_mode.RECORD_EVERYWHERE = True
    try:
        pending = []
        for counts in range(lazy_policy.REPLAYS + 1):
            with cw.lazy():
                z = x * y
                pending.append(type(z._storage).__name__ == "LazyStorage" and z._storage.real is None)
            np.testing.assert_array_equal(cw.to_numpy(z), np.arange(1 << 22, dtype=np.float32) * 0.5)
            lazy_policy.counted_replayed(x.device, [call])  # (cpu does not fuse: no graph run counts it)
    finally:
        lazy_mode.RECORD_EVERYWHERE = saved
    assert pending == [True] * lazy_policy.REPLAYS + [False]


def test_a_kept_answer_follows_the_counts(policy, monkeypatch):
    """StartMethod keeps its last keys' answers (_native_lazy_memo.c): a pair key's is
    asked again when the counts change (a fused run, a reset), when REPLAYS changes and
    for a call whose key differs in any part (a Layout's strides, the op)."""
    pending = Pending()
    big = 1 << 22
    real, other = Storage("x", big), Storage("other", big)
    layout, row = Layout.contiguous((big,)), Layout((big,), (0,))
    args = (BinaryOp.MULTIPLY, layout, other, row)

    def ask(*call_args):
        return Start.binary(Start(pending, real), *call_args)[0]

    def count(*call_args):
        plain = lazy_keys.plain("binary", call_args)
        lazy_policy.counted_replayed(pending.device, [("binary", real.dtype, plain)])

    for _ in range(lazy_policy.REPLAYS):
        count(*args)
    assert ask(*args) == ask(*args) == "x"  # counted REPLAYS times: at once (the second from the kept answer)
    same = (BinaryOp.MULTIPLY, Layout.contiguous((big,)), other, Layout((big,), (0,)))  # equal parts, new objects
    assert ask(*same) == "x"
    assert ask(BinaryOp.MULTIPLY, layout, other, layout) == ("traced", "x")  # another key: not counted
    assert ask(BinaryOp.ADD, layout, other, row) == ("traced", "x")
    assert ask(*args) == "x"
    monkeypatch.setattr(lazy_policy, "REPLAYS", lazy_policy.REPLAYS + 1)
    assert ask(*args) == ("traced", "x")
    monkeypatch.undo()
    monkeypatch.setattr(lazy_policy, "RECORD_BYTES", 1 << 23)
    assert ask(*args) == "x"
    lazy_policy.pinned_fused(pending.device, [("binary", real.dtype, lazy_keys.plain("binary", args))])
    assert ask(*args) == ("traced", "x")  # fused once: recorded from then on
    lazy_policy.reset()
    for _ in range(lazy_policy.REPLAYS):
        count(*args)
    assert ask(*args) == "x"
    lazy_policy.reset()
    assert ask(*args) == ("traced", "x")


class ScratchDevice:
    """A device whose irfft takes a caller-made input (the hook lazy_policy.defers asks for)."""

    def irfft_scratch_factor(self, dtype, shape, axis, n, norm=None):
        return 1.0


class DeferringPending(Pending):
    device = ScratchDevice()

    def defer(self, name, real, *args):
        return ("deferred", real.tag), name, args


def test_a_call_marked_deferred_is_deferred_by_both(policy):
    """A binary call lazy_policy.defers marked (irfft read its result alone) is given to
    the Pending's ``defer`` on the operands' results, by the C decision and the Python
    one alike, its answer kept until the counts change; a pending operand still joins its
    graph, and a small call still runs at once."""
    pending = DeferringPending()
    big, small = 1 << 22, 16
    real, other = Storage("x", big), Storage("other", big)
    layout, row = Layout.contiguous((big,)), Layout((big,), (0,))
    args = (BinaryOp.MULTIPLY, layout, other, row)
    c_method, py_method = Start.binary, _python_method("binary", True)

    def both(*call_args, receiver=real):
        start = Start(pending, receiver)
        answer = c_method(start, *call_args)
        assert py_method(start, *call_args) == answer
        return answer

    mark = ("binary", real.dtype, lazy_keys.plain("binary", args))
    assert both(*args)[0] == ("traced", "x")
    lazy_policy.defers(pending.device, mark)
    assert both(*args) == both(*args) == (("deferred", "x"), "binary", args)  # (the second: the kept answer)
    assert both(BinaryOp.MULTIPLY, layout, Recorded(other), row) == (("deferred", "x"), "binary", args)
    assert both(BinaryOp.MULTIPLY, layout, Recorded(None), row)[0] == ("traced", "x")
    assert both(BinaryOp.ADD, layout, other, row)[0] == ("traced", "x")  # another key
    lazy_policy.counted_replayed(pending.device, [mark] * lazy_policy.REPLAYS)
    assert both(*args)[0] == ("deferred", "x")  # (a replayed run does not count it)
    lazy_policy.pinned_fused(pending.device, [mark])
    assert both(*args)[0] == ("traced", "x")  # fused since: recorded
    lazy_policy.defers(pending.device, mark)
    assert both(*args)[0] == ("deferred", "x")
    tiny = Layout.contiguous((small,))
    small_args = (BinaryOp.MULTIPLY, tiny, Storage("o", small), tiny)
    lazy_policy.defers(pending.device, ("binary", real.dtype, lazy_keys.plain("binary", small_args)))
    assert both(*small_args, receiver=Storage("x", small))[0] == "x"  # small: at once, marked or not
    counts = dict(lazy_policy._counts)
    lazy_policy.defers(object(), mark)  # a device without the hook: nothing marked
    assert lazy_policy._counts == counts


def test_kept_answers_of_calls_without_a_pair_key(policy):
    """The calls whose key call_key_of makes (reductions, casts, unary and scalar calls)
    keep their answers too, several per method (a loop asks a few in turn), and a kept
    answer serves only a call whose arguments make the same key: the C decision answers
    as the Python one for scalars that are equal but make other keys (1, 1.0, True; 0.0
    and -0.0; NaN), other axes, another dtype of a storage argument, and a list argument,
    whose key is never kept; and it follows the counts."""
    pending = Pending()
    big = 1 << 22
    real = Storage("x", big)
    layout = Layout.contiguous((big,))
    nan = float("nan")
    calls = [("binary_scalar", (BinaryOp.ADD, layout, s, False)) for s in (1, 1.0, True, 0.0, -0.0, nan, 2.5)]
    calls += [("reduce", (ReduceOp.SUM, layout, axes)) for axes in ((0,), (), None, (0.0,), (-0.0,))]
    calls += [("astype", (layout, dtype)) for dtype in (dt.float64, dt.int32)]
    calls += [("where", (layout, Storage("c", big, dtype), layout, Storage("y", big), layout))
              for dtype in (dt.bool_, dt.int8)]
    listed = [1.0]
    calls += [("binary_scalar", (BinaryOp.ADD, layout, listed, False))]

    def both(name, args):
        start = Start(pending, real)
        answer = getattr(Start, name)(start, *args)
        assert answer == _python_method(name, False)(start, *args), (name, args)
        return answer[0]

    def count(name, args):
        lazy_policy.counted_replayed(pending.device, [(name, real.dtype, lazy_keys.plain(name, args))])

    def key(name, args):
        return lazy_keys.call_key_of(pending.device, name, real.dtype, args)

    for i, (name, args) in enumerate(calls):
        for _ in range(lazy_policy.REPLAYS):
            count(name, args)
        counted = {key(*call) for call in calls[: i + 1]}  # ((0.0,) is (0,)'s key: equal tuples)
        for j, (other_name, other_args) in enumerate(calls):  # every call twice: asked, then kept
            want = "x" if key(other_name, other_args) in counted else ("traced", "x")
            assert both(other_name, other_args) == both(other_name, other_args) == want, (i, j, other_args)
    listed[0] = 3.0  # the same list, another key: its answer was not kept
    assert both("binary_scalar", (BinaryOp.ADD, layout, listed, False)) == ("traced", "x")
    assert both("binary_scalar", (BinaryOp.ADD, Layout.contiguous((big,)), 2.5, False)) == "x"  # equal parts
    assert both("binary_scalar", (BinaryOp.ADD, Layout((big,), (0,)), 2.5, False)) == ("traced", "x")
    assert both("binary_scalar", (BinaryOp.MULTIPLY, layout, 2.5, False)) == ("traced", "x")
    lazy_policy.pinned_fused(pending.device, [("reduce", real.dtype, (ReduceOp.SUM, layout, (0,)))])
    assert both("reduce", (ReduceOp.SUM, layout, (0,))) == ("traced", "x")  # fused once: recorded since
    assert both("reduce", (ReduceOp.SUM, layout, ())) == "x"
    lazy_policy.reset()
    assert both("reduce", (ReduceOp.SUM, layout, ())) == ("traced", "x")


def test_the_size_test_reads_each_storage_as_python_does(policy):
    """The size test keeps where it last read a storage's size, dtype and itemsize (one
    load the next time, for a storage of that class): a class changed since (its size
    made a property) and another class read as Python reads them."""

    class Slotted:
        __slots__ = ("size", "dtype", "tag")

        def __init__(self, size):
            self.size, self.dtype, self.tag = size, dt.float32, "s"

        def unary(self, *args):
            return "at once"

    class Other(Storage):
        pass

    pending = Pending()
    layout = Layout.contiguous((1 << 22,))
    args = (BinaryOp.ADD, layout)

    def ask(real):
        return Start.unary(Start(pending, real), *args)

    big, small = Slotted(1 << 22), Slotted(16)
    assert [ask(big)[0], ask(small), ask(big)[0]] == [("traced", "s"), "at once", ("traced", "s")]
    assert ask(Other("o", 16))[0] == "o" and ask(Other("o", 1 << 22))[0] == ("traced", "o")
    Slotted.size = property(lambda self: 16)  # the class changed: its slot no longer what size reads
    assert ask(big) == "at once"
    unset = Slotted.__new__(Slotted)
    unset.dtype, unset.tag = dt.float32, "u"
    assert ask(unset) == "at once"  # (the property's 16)


def test_reductions_never_recorded_run_at_once(policy):
    """Start.reduce is a StartMethod given the fused reductions: argmin and the like run at
    once on the real storage (never recorded, as the Python policy does), sum is decided as
    any call (recorded until counted REPLAYS times)."""
    from candlewick.fusion.graph import FUSED_REDUCTIONS

    assert type(Start.__dict__["reduce"]) is _core._native.StartMethod
    pending = Pending()
    real = Storage("x", 1 << 22)
    layout = Layout.contiguous((1 << 22,))
    py_method = _python_method("reduce", False)
    saved = lazy_policy._StartMethod
    lazy_policy._StartMethod = None
    try:
        py_only = lazy_policy._start("reduce", only=FUSED_REDUCTIONS)
    finally:
        lazy_policy._StartMethod = saved
    for op, want in ((ReduceOp.ARGMIN, ["x"] * 3), (ReduceOp.SUM, [("traced", "x")] * lazy_policy.REPLAYS + ["x"])):
        args = (op, layout, (0,))
        answers = []
        for _ in range(lazy_policy.REPLAYS + 1):
            start = Start(pending, real)
            answer = Start.reduce(start, *args)
            assert answer == py_only(start, *args)
            answers.append(answer[0])
            lazy_policy.counted_replayed(pending.device, [("reduce", real.dtype, args)])
        assert answers == want, op
    assert py_method(Start(pending, real), ReduceOp.ARGMAX, layout, (0,))[0] == ("traced", "x")  # (without only)
