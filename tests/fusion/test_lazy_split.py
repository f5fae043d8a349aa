"""A pending graph its device compiles no kernels for is split (candlewick/fusion/lazy_split.py):
the reductions and what they read replayed, the rest compiled. The device here is cpu
given a stand-in compiler, which refuses any graph holding a reduction (as the ROCm
generator refuses a column reduction over many rows) and compiles the others into their
replay, so the values are eager mode's bit for bit and the graphs it was asked for show
the split. The ROCm generator's kernels for the same graphs: tests/rocm/host."""

import weakref

import numpy as np
import pytest

import candlewick as cw
from candlewick.fusion import lazy_policy, lazy_storage


def pending(a):
    return isinstance(a._storage, lazy_storage.LazyStorage) and a._storage.real is None


def _centered(X):
    mean = cw.sum(X, axis=0) / X.shape[0]
    Xc = cw.asarray(X, copy=True)
    Xc -= mean
    return mean, Xc


def test_a_mean_then_a_centered_copy_splits(compiler):
    """PCA's centering: the column sum replayed, the division and the update compiled as
    one graph reading the sum and X (the copy's source: the copy itself is left out);
    results eager mode's."""
    device, asked = compiler
    x = np.linspace(-2, 7, 96, dtype=np.float32).reshape(16, 6)
    X = cw.asarray(x, device=device)
    with cw.lazy(False):
        want_mean, want = _centered(X)
    with cw.lazy():
        mean, Xc = _centered(X)
    assert asked == [(["input", "reduce", "binary_scalar", "binary"], False),
                     (["input", "binary_scalar", "input", "binary"], True)]
    np.testing.assert_array_equal(cw.to_numpy(mean), cw.to_numpy(want_mean))
    np.testing.assert_array_equal(cw.to_numpy(Xc), cw.to_numpy(want))
    with cw.lazy():  # the same graph again: its split run, compiled once
        again_mean, again = _centered(X)
    assert len(asked) == 2
    np.testing.assert_array_equal(cw.to_numpy(again), cw.to_numpy(want))


def _copied_then_centered(X, average=False):
    Xc = cw.asarray(X, copy=True)
    if average:  # scikit-learn's _average: a copy again, to the dtype it has
        mean = cw.mean(cw.astype(Xc, Xc.dtype), axis=0)
    else:
        mean = cw.sum(Xc, axis=0) / X.shape[0]
    Xc -= mean
    return mean, Xc


@pytest.mark.parametrize("average", [False, True], ids=["sum", "average"])
def test_a_reduction_of_a_copy_reads_its_source(compiler, average):
    """Ridge's centering (the copy first, its column sum, then the update): the sum
    replayed on X itself, so the copy is not replayed with it, and the division and the
    update compiled reading X (no copy left); results eager mode's. Once the sum was
    replayed ``REPLAYS`` times it runs at once on X, as eager mode runs it (a reduction of
    a pending plain copy is the call on the copy's source), and the division and the
    update (of a pending plain copy: the call on its source too) are one graph compiled
    whole, with no copy."""
    device, asked = compiler
    X = cw.asarray(np.linspace(-3, 5, 84, dtype=np.float32).reshape(14, 6), device=device)
    with cw.lazy(False):
        want_mean, want = _copied_then_centered(X, average)
    for _ in range(lazy_policy.REPLAYS + 1):
        with cw.lazy():
            mean, Xc = _copied_then_centered(X, average)
            assert pending(Xc)
        np.testing.assert_array_equal(cw.to_numpy(mean), cw.to_numpy(want_mean))
        np.testing.assert_array_equal(cw.to_numpy(Xc), cw.to_numpy(want))
    # (the copies are read by nothing but the sum and the update, which read X: left out)
    assert asked == [(["input", "reduce", "binary_scalar", "binary"], False),
                     (["input", "binary_scalar", "input", "binary"], True),
                     (["input", "input", "binary_scalar", "binary"], True)]


@pytest.mark.parametrize("write", ["update", "store"])
def test_a_reduction_of_a_copy_whose_source_was_written_reads_the_copy(compiler, write):
    """The copy's source written in place after the copy was recorded: the write computes
    the copy first, so the sum (at once or recorded, in every run) reads the values the
    copy took, as in eager mode, not the source's new ones."""
    device, _ = compiler
    x = np.linspace(-3, 5, 84, dtype=np.float32).reshape(14, 6)
    with cw.lazy(False):
        want = cw.to_numpy(cw.sum(cw.asarray(x, device=device), axis=0))
    for _ in range(lazy_policy.REPLAYS + 1):
        X = cw.asarray(x, device=device)
        with cw.lazy():
            Xc = cw.asarray(X, copy=True)
            if write == "update":
                X += 1.0
            else:
                X[0] = 100.0
            total = cw.sum(Xc, axis=0)
        np.testing.assert_array_equal(cw.to_numpy(total), want)
        np.testing.assert_array_equal(cw.to_numpy(Xc), x)


def test_an_update_of_a_copy_reads_its_source(compiler):
    """``Xc -= mean`` on a pending plain copy (Ridge's and PCA's centering) is the call on X:
    the copy, which Xc no longer holds, is never computed. Their graph then fuses nothing
    (one call run, replayed), so from its ``REPLAYS``-th run on the update runs at once
    and the copy is deferred (lazy_defer): the update, made on X, gives Xc its values, so
    the copy is never made either. A copy still held elsewhere keeps its values."""
    device, asked = compiler
    x = np.linspace(-3, 5, 84, dtype=np.float32).reshape(14, 6)
    X = cw.asarray(x, device=device)
    mean = cw.asarray(x.mean(axis=0), device=device)
    with cw.lazy(False):
        want = cw.to_numpy(cw.asarray(X, copy=True) - mean)
    for _ in range(lazy_policy.REPLAYS):
        with cw.lazy():
            Xc = cw.asarray(X, copy=True)
            copy = weakref.ref(Xc._storage)  # (not a reference: Xc holds its copy alone)
            Xc -= mean
            node = Xc._storage.node  # recorded on X's input node, not on the copy
            assert Xc._storage.graph.nodes[node.operands[0][0]].kind == "input"
            assert copy() is None  # dropped while pending: never computed
            np.testing.assert_array_equal(cw.to_numpy(Xc), want)
    assert asked == []  # (one call: replayed, nothing compiled)
    for _ in range(2):  # from then on the copy is deferred and the update runs at once on X
        with cw.lazy():
            Xc = cw.asarray(X, copy=True)
            assert pending(Xc) and Xc._storage.node is None
            deferral = Xc._storage.pending
            Xc -= mean
            assert not pending(Xc)
            assert deferral.call is not None  # never run: the copy was not made
            np.testing.assert_array_equal(cw.to_numpy(Xc), want)
    lazy_policy.reset()
    with cw.lazy():
        Xc = cw.asarray(X, copy=True)
        held = Xc[...]  # a view: the update writes Xc in place, as in eager mode
        Xc -= mean
        np.testing.assert_array_equal(cw.to_numpy(held), want)


def test_a_chain_on_a_copy_fuses_again_from_its_probe(compiler, monkeypatch):
    """StandardScaler's ``Xc = asarray(X, copy=True); Xc -= mean; Xc /= scale`` after
    Ridge's centering ran the same copy and subtraction alone, replayed, until they ran at
    once: the counts are per call, not per place, so the scaler's copy and update run at
    once too, and its division in place. At the copy's ``PROBE``-th run at once it is
    recorded again (a probe), the update is recorded on X and the division joins it: the
    chain fuses, its calls (the copy too) are marked, and every later run fuses, with
    eager mode's values."""
    device, asked = compiler
    monkeypatch.setattr(lazy_policy, "PROBE", 3)
    x = np.linspace(-3, 5, 84, dtype=np.float32).reshape(14, 6)
    X = cw.asarray(x, device=device)
    mean = cw.asarray(x.mean(axis=0), device=device)
    scale = cw.asarray(x.std(axis=0), device=device)
    for _ in range(lazy_policy.REPLAYS + 1):  # Ridge's: replayed, then at once
        with cw.lazy():
            Xc = cw.asarray(X, copy=True)
            Xc -= mean
            cw.to_numpy(Xc)
    assert not pending(Xc)
    want = (x - x.mean(axis=0)) / x.std(axis=0)
    runs, compiled = [], []
    for _ in range(lazy_policy.PROBE + 3):
        del asked[:]
        with cw.lazy():
            Xc = cw.asarray(X, copy=True)
            Xc -= mean
            Xc /= scale
            runs.append(pending(Xc))
            np.testing.assert_allclose(cw.to_numpy(Xc), want, rtol=1e-6)
        compiled.append([kinds for kinds, ok in asked if ok])
    probe = runs.index(True)
    assert 0 < probe < lazy_policy.PROBE and all(runs[probe:]), runs
    # the probe's graph: X's update and the division, one kernel (the copy left out);
    # compiled once, then found again
    assert compiled[probe] == [["input", "input", "binary", "input", "binary"]], compiled
    assert not any(compiled[probe + 1:])


def test_an_update_of_a_copy_whose_source_was_written_reads_the_copy(compiler):
    """The source written after the copy was recorded: the write computes the copy first,
    and the update reads the copy's values, as in eager mode, in every run."""
    device, _ = compiler
    x = np.linspace(-3, 5, 84, dtype=np.float32).reshape(14, 6)
    for _ in range(lazy_policy.REPLAYS + 1):
        X = cw.asarray(x, device=device)
        with cw.lazy():
            Xc = cw.asarray(X, copy=True)
            X += 1.0
            Xc -= 0.5
            np.testing.assert_array_equal(cw.to_numpy(Xc), x - np.float32(0.5))
            np.testing.assert_array_equal(cw.to_numpy(X), x + np.float32(1.0))


def test_a_reduction_of_a_strided_copy_keeps_reading_the_copy(compiler):
    """A copy of a transposed view: its sum reads the copy (X's own order would be
    another order of additions), so the copy is replayed with it."""
    device, asked = compiler
    X = cw.asarray(np.linspace(-3, 5, 84, dtype=np.float32).reshape(6, 14), device=device)
    with cw.lazy(False):
        want_mean, want = _copied_then_centered(X.T)
    with cw.lazy():
        mean, Xc = _copied_then_centered(X.T)
    np.testing.assert_array_equal(cw.to_numpy(Xc), cw.to_numpy(want))
    np.testing.assert_array_equal(cw.to_numpy(mean), cw.to_numpy(want_mean))
    assert asked[-1] == (["input", "binary_scalar", "input", "binary"], True)


def test_a_reduction_wanted_with_the_rest_and_read_by_it(compiler):
    """Outputs on both sides, the reduction's result read by the compiled part too."""
    device, asked = compiler
    x = np.linspace(-1, 1, 40, dtype=np.float32).reshape(8, 5)
    X = cw.asarray(x, device=device)
    with cw.lazy():
        total = cw.sum(X * 2.0, axis=0)
        scaled = (X + 1.0) * total
        shifted = cw.exp(X) - 1.0
        got = [cw.to_numpy(a) for a in (total, scaled, shifted)]
    assert asked[-1][1] and asked[-1][0].count("input") == 2
    with cw.lazy(False):
        total = cw.sum(X * 2.0, axis=0)
        want = [cw.to_numpy(a) for a in (total, (X + 1.0) * total, cw.exp(X) - 1.0)]
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_a_graph_with_one_call_beside_its_reductions_is_replayed(compiler):
    """Nothing would fuse after the split: the whole graph replays, as before."""
    device, asked = compiler
    X = cw.asarray(np.ones((8, 4), np.float32), device=device)
    with cw.lazy():
        out = cw.sum(X * X, axis=0) + 1.0
        assert float(out[0]) == 9.0
    assert asked == [(["input", "binary", "reduce", "binary_scalar"], False)]


def test_the_replayed_reductions_soon_run_at_once(compiler):
    """A split run teaches lazy_policy that its reductions replay and its other calls
    fuse: after ``REPLAYS`` runs the column sum of a computed X runs at once, as in eager
    mode, and what is left is one graph the device compiles whole (no split run, no
    recording of the reduction, on every later call)."""
    device, asked = compiler
    X = cw.asarray(np.linspace(-2, 7, 96, dtype=np.float32).reshape(16, 6), device=device)
    with cw.lazy(False):
        want = _centered(X)[1]
    for _ in range(lazy_policy.REPLAYS):
        with cw.lazy():
            mean, Xc = _centered(X)
            assert pending(mean)
    assert [ok for _, ok in asked] == [False, True]  # split once, then its run cached
    with cw.lazy():
        mean, Xc = _centered(X)
        assert not pending(cw.sum(X, axis=0)) and pending(Xc)
    assert asked[-1] == (["input", "binary_scalar", "input", "binary"], True)  # (the update reads X: no copy)
    np.testing.assert_array_equal(cw.to_numpy(Xc), cw.to_numpy(want))


def test_a_call_recorded_as_others_goes_with_them():
    """``reduce_as`` is listed as a call, then recorded as its ``astype`` and ``reduce``
    (each listed too): it is replayed where they are."""
    made = {1: 1, 2: 2, 4: 3, 5: 4}  # calls 0 (reduce_as: no node), 1, 2, 3, 4
    assert lazy_policy._replayed_calls({1, 2}, 5, made) == {0, 1, 2}
    assert lazy_policy._replayed_calls({4}, 5, made) == {3}
    assert lazy_policy._replayed_calls({5}, 5, made) == {4}
