"""In-place operators in lazy mode (candlewick/fusion/lazy_write.py), on every backend
under test: ``x <op>= y`` on an array that alone holds a result still pending is recorded
as that array's next result (``X = asarray(X, copy=True); X -= mean; X /= scale`` one
graph), with eager mode's values and errors; an array sharing its storage with a view, or
anything else holding it, is written in place after what is pending runs, as before."""

import sys

import numpy as np
import pytest

import candlewick as cw
from candlewick.errors import DTypeError, ShapeError
from candlewick.fusion import lazy_mode, lazy_policy, lazy_storage, lazy_write
from _chains import same


@pytest.fixture(autouse=True)
def record_small(monkeypatch):
    """Record on every backend (cpu replays) and record these small arrays' calls too."""
    monkeypatch.setattr(lazy_mode, "RECORD_EVERYWHERE", True)
    monkeypatch.setattr(lazy_policy, "RECORD_BYTES", 0)


def pending(a):
    return isinstance(a._storage, lazy_storage.LazyStorage) and a._storage.real is None


def _data(device):
    x = np.linspace(-3, 5, 48, dtype=np.float32).reshape(8, 6)
    mean = np.linspace(0.5, 1.5, 6)  # float64, as a scaler's statistics
    return x, mean, cw.asarray(x, device=device), cw.asarray(mean, device=device)


def test_updates_of_a_copy_are_recorded_into_one_graph(device):
    """StandardScaler's transform: the copy and both updates pending in one graph, run once
    at the end of the block, with eager mode's values; the array that read X before the
    updates keeps the values it read."""
    x, mean, X, m = _data(device)
    with cw.lazy():
        Y = cw.asarray(X, copy=True)
        before = Y * 2.0
        Y -= cw.astype(m, Y.dtype)
        Y /= cw.astype(m + 1.0, Y.dtype)
        Y **= 2.0
        assert pending(Y) and pending(before) and Y._storage.graph is before._storage.graph
        assert Y._storage.node.kind == "binary_scalar"
    with cw.lazy(False):
        want = cw.asarray(X, copy=True)
        want -= cw.astype(m, want.dtype)
        want /= cw.astype(m + 1.0, want.dtype)
        want **= 2.0
    fused = "fusion" in device.capabilities
    same(Y, want, fused)
    same(before, cw.asarray(x * 2, device=device), False)
    np.testing.assert_array_equal(cw.to_numpy(X), x)  # the source of the copy is untouched


def test_a_shared_storage_is_written_in_place(device):
    """A view of the pending result (or any other reference to its storage) sees the
    update: the graph runs, then the write, as before this path existed."""
    x, mean, X, m = _data(device)
    with cw.lazy():
        Y = cw.asarray(X, copy=True)
        row = Y[2]
        Y += 1.0
        assert not pending(Y) and not pending(row)  # run, then written: the view sees it
        Z = cw.asarray(X, copy=True)
        held = Z._storage  # (a reference the update cannot see through: written in place)
        Z *= 3.0
        assert not pending(Z) and held.real is Z._storage
    np.testing.assert_array_equal(cw.to_numpy(row), x[2] + 1)
    np.testing.assert_array_equal(cw.to_numpy(Y), x + 1)
    np.testing.assert_array_equal(cw.to_numpy(Z), x * 3)
    del held


def test_an_update_of_a_computed_array_writes_it(device):
    """Lazy mode records updates only of pending results: a computed array is updated in
    place (no new buffer), and the calls recorded before the update read its old values."""
    x, _, X, _ = _data(device)
    X = cw.asarray(x, device=device)
    storage = X._storage
    with cw.lazy():
        doubled = X * 2.0
        X -= 1.0
        assert X._storage is storage
    np.testing.assert_array_equal(cw.to_numpy(doubled), x * 2)
    np.testing.assert_array_equal(cw.to_numpy(X), x - 1)


def test_errors_of_an_update_are_eager_modes(device):
    """An update whose result would change the array's dtype or shape raises as in eager
    mode, and leaves the array's pending values as they were."""
    x, _, X, _ = _data(device)
    ints = cw.asarray(np.arange(6, dtype=np.int32), device=device)
    with cw.lazy():
        Y = cw.asarray(X, copy=True)
        with pytest.raises(DTypeError, match="in-place operators keep the left operand's dtype"):
            Y += cw.asarray(np.ones(6), device=device)  # float64: Y would become float64
        with pytest.raises(ShapeError, match="would change x's shape"):
            Y -= cw.asarray(np.ones((2, 8, 6), np.float32), device=device)
        I = cw.asarray(ints, copy=True)
        with pytest.raises(DTypeError):
            I /= 2.0
    np.testing.assert_array_equal(cw.to_numpy(Y), x)
    np.testing.assert_array_equal(cw.to_numpy(I), np.arange(6))


def test_the_sole_holder_count_is_this_interpreters():
    """``SOLE`` is what a storage held by one array counts here, so that the path is taken
    on every interpreter CI runs (3.11, 3.12) and never where something else holds it."""
    x = cw.asarray(np.ones(4, np.float32))
    assert lazy_write._references(x) == lazy_write.SOLE
    kept = x._storage
    assert lazy_write._references(x) == lazy_write.SOLE + 1
    view = x[1:]
    assert lazy_write._references(x) == lazy_write.SOLE + 2 and sys.getrefcount(kept) > 2
    del view, kept
    assert lazy_write._references(x) == lazy_write.SOLE


def test_outside_lazy_mode_an_update_writes_in_place(device):
    x, _, X, _ = _data(device)
    Y = cw.asarray(X, copy=True)
    storage = Y._storage
    Y *= 2.0
    assert Y._storage is storage
    np.testing.assert_array_equal(cw.to_numpy(Y), x * 2)


def _update_paths():
    """``Array.__isub__`` itself (``_native.Update`` where candlewick._native is built: its
    rebinding case in C) and its Python path (the Update's ``general``, where there is one)."""
    from candlewick.array import Array

    method = Array.__isub__
    paths = [pytest.param(method, id="method")]
    general = getattr(method, "general", None)
    if general is not None:
        paths.append(pytest.param(general, id="general"))
    return paths


@pytest.mark.parametrize("update", _update_paths())
@pytest.mark.parametrize("operand", ["scalar", "int", "row", "same_shape"])
def test_a_rebinding_update_is_the_same_in_c_and_in_python(device, update, operand):
    """The in-place method's rebinding case, in C where built, gives what its Python path
    gives: x holds ``x - y`` recorded in the pending graph (one graph with the copy), with
    eager mode's values; an array of another dtype or shape still raises eager mode's error
    and leaves x as it was."""
    x, _, X, _ = _data(device)
    operands = {"scalar": 1.5, "int": 2, "row": x[3], "same_shape": x * 0.25}
    y = operands[operand]
    given = cw.asarray(y, device=device) if isinstance(y, np.ndarray) else y
    with cw.lazy():
        Y = cw.asarray(X, copy=True)
        graph = Y._storage.graph
        assert update(Y, given) is Y
        assert pending(Y) and Y._storage.graph is graph
        with pytest.raises(DTypeError, match="in-place operators keep the left operand's dtype"):
            update(Y, cw.asarray(np.ones(6), device=device))
        with pytest.raises(ShapeError, match="would change x's shape"):
            update(Y, cw.asarray(np.ones((2, 8, 6), np.float32), device=device))
    np.testing.assert_array_equal(cw.to_numpy(Y), x - np.asarray(y, np.float32))
