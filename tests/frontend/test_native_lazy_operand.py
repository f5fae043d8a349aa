"""Lazy mode's operand in C (candlewick._native.lazy_operand, where built): the storage an
element-wise primitive is called on for an array in lazy mode is the one the Python
``lazy_mode._operand`` (the path without the module) gives, in every case: lazy mode off,
a device that does not record, a small array with nothing pending, a large one (a Start),
a recorded operand of this graph, a result that has run (the array given its real
storage), lazy(False) inside a block; and the gate calls the C one."""

import threading

import numpy as np
import pytest

import candlewick as cw
from candlewick import _core
from candlewick.fusion import lazy_mode, lazy_policy, lazy_storage
from candlewick.fusion.lazy_policy import Start
from candlewick.lazy_gate import GATE

pytestmark = pytest.mark.skipif(_core._native is None, reason="candlewick._native was not built here")

BIG, SMALL = 1 << 22, 16  # float32 elements: 16 MiB (above RECORD_BYTES below) and 64 bytes


@pytest.fixture
def record(monkeypatch):
    monkeypatch.setattr(lazy_policy, "RECORD_BYTES", 1 << 23)  # (tests/conftest.py makes it 0)
    monkeypatch.setattr(lazy_mode, "RECORD_EVERYWHERE", True)  # (cpu records: the graph replayed)
    yield
    lazy_mode.flush()


def _described(answer):
    return ("Start", answer.pending, answer.real) if type(answer) is Start else answer


def _alike(x):
    """Both answers for x, the C one first (the Python one then finds the same pending
    graph, the thread's cached answer)."""
    c_answer = _described(_core._native.lazy_operand(x))
    assert c_answer == _described(lazy_mode._operand(x))
    return c_answer


def test_the_gate_calls_the_c_one():
    assert GATE.operand is _core._native.lazy_operand
    assert GATE.copy_operand is _core._native.lazy_copy_operand
    assert lazy_storage.RECORDING[0] is _core._native.lazy_recording


def test_the_c_recording_answers_as_the_python_one(record, monkeypatch):
    """``_native.lazy_recording(device)``, what each recorded call asks first: None with
    lazy mode off (outside a block, inside ``lazy(False)``) or on a device that does not
    record, else the thread's pending graph there, as ``lazy_mode._recording`` answers."""
    device = cw.asarray([1.0]).device
    recording = _core._native.lazy_recording
    assert recording(device) is None and lazy_mode._recording(device) is None
    with cw.lazy():
        pending = lazy_mode._recording(device)
        assert type(pending) is lazy_storage.Pending and recording(device) is pending
        with cw.lazy(False):
            assert recording(device) is None
        monkeypatch.setattr(lazy_mode, "RECORD_EVERYWHERE", False)  # (cpu does not fuse)
        assert recording(device) is None and lazy_mode._recording(device) is None


def test_the_c_operand_answers_as_the_python_one(record, monkeypatch):
    big, small = cw.asarray(np.ones(BIG, np.float32)), cw.asarray(np.ones(SMALL, np.float32))
    assert _alike(big) is big._storage  # lazy mode off here
    with cw.lazy():
        assert not lazy_storage.LIVE
        assert _alike(small) is small._storage  # nothing pending, too small to record
        answer = _alike(big)
        assert answer[0] == "Start" and answer[2] is big._storage
        recorded = big * big  # pending in this block's graph
        assert type(recorded._storage) is lazy_storage.LazyStorage and lazy_storage.LIVE
        assert _alike(recorded) is recorded._storage
        answer = _alike(small)  # something pending: small arrays join the graph too
        assert answer[0] == "Start" and answer[2] is small._storage
        with cw.lazy(False):
            assert _alike(big) is big._storage
        monkeypatch.setattr(lazy_mode, "RECORD_EVERYWHERE", False)  # a device that does not record
        assert _alike(big) is big._storage
    assert not lazy_storage.LIVE


def test_a_result_that_has_run_is_replaced_by_its_storage(record):
    x = cw.asarray(np.arange(BIG, dtype=np.float32))
    with cw.lazy():
        results = [x * x, x * x]
    for r, operand in zip(results, (_core._native.lazy_operand, lazy_mode._operand)):
        run = r._storage
        assert type(run) is lazy_storage.LazyStorage and run.graph is None
        assert operand(r) is run.real and r._storage is run.real
    np.testing.assert_array_equal(cw.to_numpy(results[0]), cw.to_numpy(results[1]))


def test_record_bytes_is_read_at_each_call(record, monkeypatch):
    big = cw.asarray(np.ones(BIG, np.float32))
    with cw.lazy():
        assert type(_core._native.lazy_operand(big)) is Start
        monkeypatch.setattr(lazy_policy, "RECORD_BYTES", 1 << 30)
        assert _core._native.lazy_operand(big) is big._storage


def test_a_global_the_module_lacks_is_named(record, monkeypatch):
    """The C path reads lazy_mode's globals through a view read again when the module's
    dict changed: one deleted is named in the error, and once it is back the call
    answers again (the view is not left half read)."""
    big = cw.asarray(np.ones(BIG, np.float32))
    with cw.lazy():
        assert type(_core._native.lazy_operand(big)) is Start
        monkeypatch.delattr(lazy_mode, "RECORD_EVERYWHERE")
        with pytest.raises(RuntimeError, match="lazy_mode has no RECORD_EVERYWHERE"):
            _core._native.lazy_operand(big)
        monkeypatch.undo()
        monkeypatch.setattr(lazy_policy, "RECORD_BYTES", 1 << 23)
        monkeypatch.setattr(lazy_mode, "RECORD_EVERYWHERE", True)
        assert type(_core._native.lazy_operand(big)) is Start


def test_the_threads_last_answer_is_used(record, monkeypatch):
    """A chain on one device asks lazy_mode._recording once: the thread's last answer
    (kept with the RECORD_EVERYWHERE and the lazy_mode._local it was given under) serves
    the calls after it."""
    big = cw.asarray(np.ones(BIG, np.float32))
    asked = []
    recording = lazy_mode._recording
    monkeypatch.setattr(lazy_mode, "_recording", lambda device: (asked.append(device), recording(device))[1])
    monkeypatch.setattr(lazy_mode, "_local", threading.local())  # (no last answer, in C or in Python)
    with cw.lazy():
        starts = [_core._native.lazy_operand(big) for _ in range(3)]
        assert len(asked) == 1 and all(type(s) is Start for s in starts)
        monkeypatch.setattr(lazy_mode, "RECORD_EVERYWHERE", False)  # given under another setting: asked again
        assert _core._native.lazy_operand(big) is big._storage and len(asked) == 2
        monkeypatch.setattr(lazy_mode, "_local", threading.local())  # another _local: asked again
        assert _core._native.lazy_operand(big) is big._storage and len(asked) == 3


def test_the_c_path_asks_the_operand_hook_it_was_handed(record, monkeypatch):
    """The C element-wise path asks the C operand in C (its Start's decision called on the
    Start's parts, no Start made): recorded on a large array, at once on a small one; a
    hook other than the C one (a wrapper) is called as such."""
    big, small = cw.asarray(np.ones(BIG, np.float32)), cw.asarray(np.ones(SMALL, np.float32))
    with cw.lazy():
        recorded, at_once = big * big, small * small
        assert type(recorded._storage) is lazy_storage.LazyStorage
        assert type(at_once._storage) is not lazy_storage.LazyStorage
    assert float(cw.sum(recorded)) == BIG and float(cw.sum(at_once)) == SMALL
    asked = []
    original = GATE.operand
    monkeypatch.setattr(GATE, "operand", lambda a: (asked.append(a), original(a))[1])
    with cw.lazy():  # (the hook handed to C at the block's entry)
        wrapped = big * big
        assert asked == [big] and type(wrapped._storage) is lazy_storage.LazyStorage
    assert float(cw.sum(wrapped)) == BIG


def _deferred_copy(x):
    """An array over a copy of ``x`` this thread's graph deferred (lazy_defer)."""
    pending = lazy_mode._recording(x.device)
    storage = pending.defer("copy", x._storage, x._layout)
    return _core.new_array(type(x), storage, x.shape, x.dtype, x.device)


def test_a_copy_deferred_here_is_read_from_its_source(record, monkeypatch):
    """A copy this thread deferred, read through its plain view: the source's Start, in C
    and in Python alike (the copy itself is never made by the read); read through another
    view, or while the graph holds a probe, the copy itself (its methods decide); and a
    copy or cast of it asks ``GATE.copy_operand``, which keeps the copy (deferred again)."""
    big = cw.asarray(np.arange(BIG, dtype=np.float32).reshape(1024, -1))
    with cw.lazy():
        copy = _deferred_copy(big)
        answer = _alike(copy)
        assert answer[0] == "Start" and answer[2] is big._storage
        # a kept result is no graph to join: a small computed operand still runs at once
        small = cw.asarray(np.ones(SMALL, np.float32))
        assert lazy_storage.LIVE and not lazy_storage.RECORDED
        assert _alike(small) is small._storage
        assert GATE.copy_operand(copy) is copy._storage and lazy_mode._copy_operand(copy) is copy._storage
        answer = _described(GATE.copy_operand(big))  # (anything else: lazy_operand's answer)
        assert answer == _described(lazy_mode._copy_operand(big)) and answer[0] == "Start"
        view = copy[1:]
        assert _alike(view) is copy._storage
        monkeypatch.setattr(lazy_mode._recording(big.device), "probing", True)
        assert _alike(copy) is copy._storage
        monkeypatch.undo()
        monkeypatch.setattr(lazy_policy, "RECORD_BYTES", 1 << 23)
        monkeypatch.setattr(lazy_mode, "RECORD_EVERYWHERE", True)
        np.testing.assert_array_equal(cw.to_numpy(copy[:2] * 2.0), cw.to_numpy(big)[:2] * np.float32(2.0))
    assert copy._storage.real is not None  # (made: a strided read, then held past the block)
