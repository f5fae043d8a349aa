"""A copy of a plain view whose count says it runs at once is deferred instead (lazy_defer):
the calls that read it through its plain view (a reduction, an element-wise call, a cast,
the update ``Xc -= mean`` that rebinds Xc) are made on its source, so the copy is never
made; anything else computes it first by the eager call. Values are eager mode's in
every case, on the cpu device with a stand-in compiler (tests/fusion/conftest.py)."""

import numpy as np
import pytest

import candlewick as cw
from candlewick.fusion import lazy_policy, lazy_storage


def _counted(X):
    """A centring run until its copy's count says at once (REPLAYS replayed runs)."""
    mean = cw.mean(X, axis=0)
    for _ in range(lazy_policy.REPLAYS):
        with cw.lazy():
            Xc = cw.asarray(X, copy=True)
            Xc -= mean
            cw.to_numpy(Xc)


def _deferred(a):
    storage = a._storage
    return type(storage) is lazy_storage.LazyStorage and storage.real is None and storage.node is None


def _average(a):
    # scikit-learn's: its copy, dropped on return (a copy still held when something runs
    # what is pending is made then, as any deferred result is)
    again = cw.astype(a, cw.float32)
    assert _deferred(again) and again._storage.pending.call[1] is a._storage.pending.call[1]
    return cw.mean(again, axis=0)


@pytest.fixture
def copies(compiler, monkeypatch):
    """(the device, X's values, X, the copies of a storage made since: each its source)."""
    device, _ = compiler
    x = np.linspace(-3, 5, 84, dtype=np.float32).reshape(14, 6)
    X = cw.asarray(x, device=device)
    made = []
    kind = type(X._storage)
    real = kind.copy

    def copy(self, layout):
        made.append(self)
        return real(self, layout)

    monkeypatch.setattr(kind, "copy", copy)
    _counted(X)
    del made[:]
    return device, x, X, made


def test_ridges_centring_makes_no_copy(copies):
    """``Xc = asarray(X, copy=True); mean(astype(Xc, float32)); Xc -= mean``: both copies
    deferred (the cast to the copy's own dtype is a copy of X deferred again), the mean
    and the update read X, and neither copy is made."""
    _, x, X, made = copies
    with cw.lazy(False):
        want = cw.to_numpy(cw.asarray(X, copy=True) - cw.mean(X, axis=0))
    del made[:]
    for _ in range(3):
        with cw.lazy():
            Xc = cw.asarray(X, copy=True)
            assert _deferred(Xc)
            Xc -= _average(Xc)
            assert not _deferred(Xc)
            np.testing.assert_array_equal(cw.to_numpy(Xc), want)
            np.testing.assert_array_equal(cw.to_numpy(X), x)
    assert made == []


def test_a_cast_of_a_deferred_copy_reads_its_source(copies):
    _, x, X, made = copies
    with cw.lazy():
        Xc = cw.asarray(X, copy=True)
        np.testing.assert_array_equal(cw.to_numpy(cw.astype(Xc, cw.float64)), x.astype(np.float64))
        np.testing.assert_array_equal(cw.to_numpy(Xc * 2.0), x * np.float32(2.0))
    assert made == [X._storage]  # (Xc itself, alive at the block's end: computed there)
    np.testing.assert_array_equal(cw.to_numpy(Xc), x)


@pytest.mark.parametrize("read", [
    pytest.param(lambda a: cw.exp(a), id="unary"),
    pytest.param(lambda a: cw.clip(a, -1.0, 2.0), id="clip"),
    pytest.param(lambda a: a * 2.0, id="binary_scalar"),
    pytest.param(lambda a: a >= 1.0, id="compare_scalar"),
    pytest.param(lambda a: a - cw.ones(6), id="binary"),
    pytest.param(lambda a: cw.var(a, axis=0), id="var"),
    pytest.param(lambda a: cw.astype(a, cw.float64), id="astype"),
    pytest.param(lambda a: cw.max(a, axis=1), id="reduce"),
])
def test_a_read_of_a_deferred_copy_through_its_plain_view_reads_its_source(copies, read):
    """Any element-wise call, reduction or ``var`` of the copy (the array itself, its plain
    view) is made on its source (the operand lazy mode hands the call: lazy_mode._operand),
    so the copy, dropped before the block ends, is never made; values are eager mode's."""
    _, x, X, made = copies
    with cw.lazy(False):
        want = cw.to_numpy(read(cw.asarray(X, copy=True)))
    del made[:]
    with cw.lazy():
        Xc = cw.asarray(X, copy=True)
        assert _deferred(Xc)
        got = read(Xc)
        del Xc
        np.testing.assert_array_equal(cw.to_numpy(got), want)
    assert made == []


@pytest.mark.parametrize("write", ["update", "store"])
def test_a_deferred_copy_keeps_the_values_its_source_had(copies, write):
    """The source written after the copy was deferred: the write computes the copy first."""
    _, x, X, made = copies
    with cw.lazy():
        Xc = cw.asarray(X, copy=True)
        assert _deferred(Xc)
        if write == "update":
            X += 1.0
        else:
            X[0, 0] = 100.0
        assert not _deferred(Xc)
        Xc -= 0.5
        np.testing.assert_array_equal(cw.to_numpy(Xc), x - np.float32(0.5))
    assert made == [X._storage]
    assert cw.to_numpy(X)[0, 0] == (x[0, 0] + 1 if write == "update" else 100.0)


def test_an_update_of_a_deferred_copy_another_array_reads_writes_in_place(copies):
    """A view of the copy held: ``Xc -= mean`` must change what the view reads, so the copy
    is made and written in place, as in eager mode."""
    _, x, X, made = copies
    mean = cw.asarray(x.mean(axis=0))
    with cw.lazy():
        Xc = cw.asarray(X, copy=True)
        held = Xc[1:]
        Xc -= mean
        np.testing.assert_array_equal(cw.to_numpy(held), (x - x.mean(axis=0))[1:])
    np.testing.assert_array_equal(cw.to_numpy(X), x)
    assert len(made) == 1


def test_a_deferred_copy_read_otherwise_is_made(copies):
    """A strided view, a matrix product, a host read: each reads the copy, made once."""
    _, x, X, made = copies
    with cw.lazy():
        Xc = cw.asarray(X, copy=True)
        np.testing.assert_array_equal(cw.to_numpy(cw.sum(Xc[::2], axis=0)), x[::2].sum(axis=0))
        np.testing.assert_allclose(cw.to_numpy(Xc.T @ Xc), x.T @ x, rtol=1e-6)
        np.testing.assert_array_equal(cw.to_numpy(Xc), x)
    assert len(made) == 1


def test_a_probe_records_the_copy(copies, monkeypatch):
    """At the copy's PROBE-th deferral it is recorded instead (lazy_policy.PROBE); that
    graph (the copy, and the addition made on X) fuses, so the copy is recorded from then
    on."""
    _, x, X, _ = copies
    monkeypatch.setattr(lazy_policy, "PROBE", 2)
    seen = []
    for _ in range(4):
        with cw.lazy():
            Xc = cw.asarray(X, copy=True)
            seen.append("deferred" if _deferred(Xc) else "recorded")
            np.testing.assert_array_equal(cw.to_numpy(Xc + 1.0), x + np.float32(1.0))
    assert seen == ["deferred", "recorded", "recorded", "recorded"], seen
