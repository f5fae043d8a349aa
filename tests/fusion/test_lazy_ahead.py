"""A graph runs ahead of its consumer where its recording reaches the nodes at which the
same graph ran before (candlewick/fusion/lazy_ahead.py), on every backend under test (a
device without the fusion capability is given a compiler that replays the graph, so the
values are eager mode's bit for bit): a scaled copy then centered (``Xc = X * 2.0; Xc -=
mean``) computed as the update is recorded, the scaled copy left pending and computed
only if read;
a recording that differs runs at its consumer as before; nothing runs ahead with
``lazy_policy.RUN_AHEAD`` off (tests/conftest.py's setting) or after ``reset``."""

from types import SimpleNamespace

import numpy as np
import pytest

import candlewick as cw
from candlewick.fusion import lazy_ahead, lazy_policy, lazy_storage


@pytest.fixture
def fusing(fusing, monkeypatch):
    """conftest's ``fusing`` device, run ahead on."""
    monkeypatch.setattr(lazy_policy, "RUN_AHEAD", True)
    return fusing


def pending(a):
    return isinstance(a._storage, lazy_storage.LazyStorage) and a._storage.real is None


def _data(device):
    x = np.linspace(-2, 7, 96, dtype=np.float32).reshape(16, 6)
    return x, cw.asarray(x, device=device), cw.asarray(x.mean(axis=0), device=device)


def _centered(X, mean):
    # (a product, not a plain copy: an update of a plain copy reads the copy's source,
    # lazy_storage._two, and leaves no graph of two calls to run ahead)
    Xc = X * 2.0
    Xc -= mean
    return Xc


def test_a_graph_runs_where_it_ran_before(fusing):
    device, asked = fusing
    x, X, mean = _data(device)
    want = 2.0 * x - x.mean(axis=0)
    with cw.lazy():
        Xc = _centered(X, mean)
        assert pending(Xc)  # never ran: pending until read
        np.testing.assert_array_equal(cw.to_numpy(Xc), want)
        for _ in range(2):
            Xc = _centered(X, mean)
            assert not pending(Xc)  # computed as the update was recorded
            np.testing.assert_array_equal(cw.to_numpy(Xc), want)
    assert asked == [["input", "binary_scalar", "input", "binary"]]  # the product computed by none of the runs


@pytest.mark.parametrize("write", [False, True], ids=["read", "write"])
def test_a_result_the_last_run_left_out_is_computed_when_read(fusing, write):
    """The product is still held (by ``c`` here) as the update is recorded: it stays
    pending in a graph of its own, and reading it computes it; a write into its input
    first computes it, with the input's value before the write."""
    device, _ = fusing
    x, X, mean = _data(device)
    with cw.lazy():
        cw.to_numpy(_centered(X, mean))
        c = X * 2.0
        d = c - mean
        assert not pending(d) and pending(c)
        if write:
            X[0, 0] = 100.0
        np.testing.assert_array_equal(cw.to_numpy(c), 2.0 * x)
        np.testing.assert_array_equal(cw.to_numpy(d), 2.0 * x - x.mean(axis=0))


def test_another_recording_runs_at_its_consumer(fusing):
    device, _ = fusing
    x, X, mean = _data(device)
    with cw.lazy():
        cw.to_numpy(_centered(X, mean))
        Xc = X * 2.0
        Xc = Xc * 2.0  # another node before the update: not the graph that ran
        Xc -= mean
        assert pending(Xc)
        np.testing.assert_array_equal(cw.to_numpy(Xc), 4.0 * x - x.mean(axis=0))


def test_a_longer_run_forgets_the_shorter_ends_it_begins_with(fusing):
    """A graph that ran past the nodes where a shorter one ran (Ridge's copy and
    subtraction ran alone; StandardScaler's division follows the same two) makes the
    next recording of those nodes go on: the shorter end is forgotten, any other kept."""
    device, _ = fusing
    lazy_policy.reset()

    def ran(keys):
        lazy_ahead.remember(SimpleNamespace(device=device, keys=keys), [])

    def due(keys):
        return lazy_ahead.due(SimpleNamespace(device=device, keys=keys))

    ran([("a",), ("b",)])
    ran([("d",)])
    ran([("a",), ("b",), ("e",)])
    assert due([("a",), ("b",)]) is None
    assert due([("a",), ("b",), ("e",)]) == due([("d",)]) == frozenset()
    ran([("c",), ("b",)])  # another graph ending at a node of the same key
    ran([("a",), ("b",), ("e",)])
    assert due([("c",), ("b",)]) == frozenset()  # not a beginning of that one: kept
    ran([("c",), ("b",), ("e",), ("f",)])
    assert due([("c",), ("b",)]) is None
    assert len(lazy_policy.ENDS) == 3


def test_off_or_reset_nothing_runs_ahead(fusing, monkeypatch):
    device, _ = fusing
    _, X, mean = _data(device)
    with cw.lazy():
        cw.to_numpy(_centered(X, mean))
        lazy_policy.reset()
        assert pending(_centered(X, mean))
    monkeypatch.setattr(lazy_policy, "RUN_AHEAD", False)
    with cw.lazy():
        for _ in range(2):
            Xc = _centered(X, mean)
            assert pending(Xc)
            cw.to_numpy(Xc)


def test_an_unhashable_node_is_never_remembered(fusing):
    """A graph whose last node's key holds an unhashable attribute: its run teaches
    nothing and a recording reaching it runs nothing ahead (no error either way)."""
    device, _ = fusing
    lazy_policy.reset()
    graph = SimpleNamespace(device=device, keys=[("input",), ("unary", [1, 2])])
    lazy_ahead.remember(graph, [])
    assert lazy_policy.ENDS == {}
    assert lazy_ahead.due(graph) is None
