"""Lazy mode's rule for chains recorded slowly (``lazy_policy.IDLE_RUNS``), on every backend
under test: a call that opened two graphs in a row recorded slowly (more host time per
call than ``SLOW_CALL_S`` before they ran) runs at once the next ``RELEARN`` times it
would open one on a device that says its stream is idle (eager mode's result, nothing pending); a busy device, a
graph already open, a chain recorded quickly or a device without ``stream_idle`` records
as before. The device's answer is set by the test (``stream_idle`` patched on its
class), and so is what counts as slow: a queue's contents and a host's speed are not
the policy's."""

import numpy as np
import pytest

import candlewick as cw
from candlewick.fusion import lazy_mode, lazy_policy, lazy_storage


@pytest.fixture(autouse=True)
def idle_rule(monkeypatch):
    """The rule on (tests/conftest.py turns it off), every graph slow, and recording on
    every backend (a device without the fusion capability would run lazy mode eagerly)."""
    monkeypatch.setattr(lazy_policy, "IDLE_RUNS", True)
    monkeypatch.setattr(lazy_policy, "SLOW_CALL_S", -1.0)
    monkeypatch.setattr(lazy_mode, "RECORD_EVERYWHERE", True)


@pytest.fixture
def answers(device, monkeypatch):
    """The device's stream made idle or busy (``answers.idle``); ``answers.asked`` counts
    the questions."""
    class Answers:
        idle = True
        asked = 0

    def stream_idle(self):
        Answers.asked += 1
        return Answers.idle

    monkeypatch.setattr(type(device), "stream_idle", stream_idle, raising=False)
    return Answers


def pending(a):
    return isinstance(a._storage, lazy_storage.LazyStorage) and a._storage.real is None


def _operands(device):
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((4, 5)).astype(np.float32), rng.standard_normal((4, 5)).astype(np.float32)
    return x, y, cw.asarray(x, device=device), cw.asarray(y, device=device)


def _chain(a, b):
    c = a * b
    return c, cw.exp(c) + 1.0


def _slow_twice(a, b):
    """Two graphs opened by ``a * b``, each run (slow: SLOW_CALL_S is below any time)."""
    for _ in range(2):
        cw.to_numpy(_chain(a, b)[1])


def test_a_slow_opener_runs_at_once_on_an_idle_device(device, answers):
    x, y, a, b = _operands(device)
    with cw.lazy():
        c, d = _chain(a, b)
        assert pending(c) and pending(d) and answers.asked == 0  # never seen: recorded, nothing asked
        np.testing.assert_allclose(cw.to_numpy(d), np.exp(x * y) + 1.0, rtol=1e-6)
        c, d = _chain(a, b)
        assert pending(c) and answers.asked == 0  # slow once: recorded again
        cw.to_numpy(d)
        c, d = _chain(a, b)
        assert not pending(c) and answers.asked == 1  # slow twice: at once
        # exp(c) opens a graph of its own: seen slow once, recorded
        assert pending(d)
        np.testing.assert_allclose(cw.to_numpy(d), np.exp(x * y) + 1.0, rtol=1e-6)


def test_a_marked_opener_is_timed_again_after_relearn_runs(device, answers, monkeypatch):
    monkeypatch.setattr(lazy_policy, "RELEARN", 3)
    _, _, a, b = _operands(device)
    with cw.lazy():
        _slow_twice(a, b)
        for _ in range(3):
            assert not pending(a * b)
        c = a * b
        assert pending(c) and answers.asked == 3  # recorded (and timed) again, nothing asked
        cw.to_numpy(c)  # slow again: marked at once
        assert not pending(a * b)


def test_a_busy_device_records_a_slow_opener(device, answers):
    x, y, a, b = _operands(device)
    answers.idle = False
    with cw.lazy():
        _slow_twice(a, b)
        c, d = _chain(a, b)
        assert pending(c) and pending(d) and answers.asked == 1
        np.testing.assert_allclose(cw.to_numpy(d), np.exp(x * y) + 1.0, rtol=1e-6)


def test_a_quick_graph_clears_the_mark(device, answers, monkeypatch):
    _, _, a, b = _operands(device)
    answers.idle = False
    with cw.lazy():
        _slow_twice(a, b)
        monkeypatch.setattr(lazy_policy, "SLOW_CALL_S", 1e9)
        cw.to_numpy(_chain(a, b)[1])  # (busy: recorded) quick: the mark cleared
        answers.idle = True
        c, _ = _chain(a, b)
        assert pending(c) and answers.asked == 1


def test_an_open_graph_goes_on_recording(device, answers):
    """A graph already holding calls records the next chain too (its own calls are what
    the device waits for: running one of them at once would not start the others)."""
    x, y, a, b = _operands(device)
    with cw.lazy():
        for _ in range(2):
            cw.to_numpy(cw.exp(a))  # exp: a slow opener
        c = a * b  # opens the graph
        d = cw.exp(a)
        assert pending(c) and pending(d) and answers.asked == 0
        np.testing.assert_allclose(cw.to_numpy(c + d), x * y + np.exp(x), rtol=1e-6)


def test_the_rule_off_records_without_asking(device, answers, monkeypatch):
    _, _, a, b = _operands(device)
    with cw.lazy():
        _slow_twice(a, b)
        monkeypatch.setattr(lazy_policy, "IDLE_RUNS", False)
        assert pending(a * b) and answers.asked == 0


def test_a_device_without_the_hook_records(device, monkeypatch):
    monkeypatch.delattr(type(device), "stream_idle", raising=False)
    _, _, a, b = _operands(device)
    with cw.lazy():
        _slow_twice(a, b)
        assert pending(a * b)


def test_reset_forgets_the_marks(device, answers):
    _, _, a, b = _operands(device)
    with cw.lazy():
        _slow_twice(a, b)
        lazy_policy.reset()
        assert pending(a * b) and answers.asked == 0
