"""Lazy mode's policy (candlewick/fusion/lazy_policy.py) on the fake HIP runtime, a
device that fuses: a call whose graphs ran replayed ``REPLAYS`` times runs at once, the
eager kernel it would have replayed and nothing else; a call that fused stays recorded
until its graphs ran replayed ``REPLAYS`` times in a row; the counts are per call key
(shapes, dtypes, scalars)."""

import numpy as np
import pytest

import candlewick as cw
from candlewick.fusion import lazy_keys, lazy_policy
from candlewick.fusion.lazy_storage import LazyStorage


@pytest.fixture
def arrays(fake):
    runtime, device = fake
    lazy_policy.reset()
    x = cw.asarray(np.ones((20000, 16), np.float32), device=device)
    y = cw.asarray(np.full((20000, 16), 2.0, np.float32), device=device)
    yield runtime, x, y
    lazy_policy.reset()


def _run(runtime, fn):
    """(whether each array fn returns was recorded (pending), the kernels launched)."""
    del runtime.launches[:]
    with cw.lazy():
        out = fn()
        pending = [type(a._storage) is LazyStorage and a._storage.real is None for a in out]
        cw.argmax(out[-1])  # a consumer lazy mode does not record
    return pending, [name.decode() for name, *_ in runtime.launches]


def test_a_graph_without_a_fused_plan_runs_eagerly_from_its_third_run(arrays):
    runtime, x, y = arrays

    def column_sum():  # a column sum over 20 000 rows: the generator has no plan for it
        z = x * y
        return z, cw.sum(z, axis=0)

    runs = [_run(runtime, column_sum) for _ in range(lazy_policy.REPLAYS + 2)]
    eager_kernels = ["binary_flat_multiply_float32", "reduce_cols_vec_sum_float32", "reduce_rows_vec_argmax_float32"]
    for pending, launches in runs[:lazy_policy.REPLAYS]:
        assert pending == [True, True] and launches == eager_kernels  # recorded, then replayed
    for pending, launches in runs[lazy_policy.REPLAYS:]:
        assert pending == [False, False] and launches == eager_kernels  # run at once: the same kernels


def test_one_call_consumed_at_once_runs_eagerly_then(arrays):
    runtime, x, y = arrays
    runs = [_run(runtime, lambda: (x * y,)) for _ in range(lazy_policy.REPLAYS + 1)]
    assert [pending for pending, _ in runs] == [[True]] * lazy_policy.REPLAYS + [[False]]
    assert all(launches[0] == "binary_flat_multiply_float32" for _, launches in runs)
    # the key is the call's, not its storages': x * x is that call too
    assert _run(runtime, lambda: (x * x,))[0] == [False]
    # another op, shape, dtype or scalar is another call: recorded
    assert _run(runtime, lambda: (x + y,))[0] == [True]
    assert _run(runtime, lambda: (x[:100] * y[:100],))[0] == [True]
    assert _run(runtime, lambda: (x * cw.astype(y, cw.float64),))[0] == [True]
    for _ in range(lazy_policy.REPLAYS):
        _run(runtime, lambda: (x * 2.0,))
    assert _run(runtime, lambda: (x * 2.0,))[0] == [False]
    assert _run(runtime, lambda: (x * 3.0,))[0] == [True]


def test_a_call_that_fused_stays_recorded_until_it_replays_in_a_row(arrays):
    """A call that fused is recorded again, its count started over: a graph of that call
    alone replayed fewer than ``REPLAYS`` times in a row leaves it recorded (the chain
    fuses again); ``REPLAYS`` replays in a row (Ridge's ``X -= mean``, which fused with
    what made the mean in the first call only) make it run at once."""
    runtime, x, y = arrays
    for _ in range(2):
        pending, launches = _run(runtime, lambda: (x * y + 1.0,))
        assert pending == [True] and launches[0].startswith("fz")
        for _ in range(lazy_policy.REPLAYS - 1):  # x * y alone: replayed, but it fused just before
            assert _run(runtime, lambda: (x * y,))[0] == [True]
    pending, launches = _run(runtime, lambda: (x * y + 1.0,))
    assert pending == [True] and launches[0].startswith("fz") and "binary_flat_multiply_float32" not in launches
    for _ in range(lazy_policy.REPLAYS):
        assert _run(runtime, lambda: (x * y,))[0] == [True]
    pending, launches = _run(runtime, lambda: (x * y,))
    assert pending == [False] and launches[0] == "binary_flat_multiply_float32"


def test_a_call_on_a_pending_operand_is_recorded(arrays):
    """Only a call whose operands are all computed runs at once; the one reading a
    pending result joins its graph (where it fuses, the policy never sees it replayed)."""
    runtime, x, y = arrays
    for _ in range(lazy_policy.REPLAYS):
        _run(runtime, lambda: (x * y,))
    with cw.lazy():
        z = x + 1.0  # recorded: never replayed
        w = z * y  # counted as x * y's key would not be: another operand
        assert type(w._storage) is LazyStorage and w._storage.real is None



def test_a_fused_graph_of_small_arrays_stays_recorded(fake):
    """A fused graph of a few elements pays too: its one launch replaces a launch per call."""
    runtime, device = fake
    lazy_policy.reset()
    x = cw.asarray(np.ones((4, 4), np.float32), device=device)
    for _ in range(lazy_policy.REPLAYS + 1):
        pending, launches = _run(runtime, lambda: (x * x + 1.0,))
        assert pending == [True] and launches[0].startswith("fz")
    lazy_policy.reset()



def test_a_call_is_counted_once_per_run(arrays):
    """A replayed graph holding one call twice counts it once: the call still waits for
    REPLAYS runs (``y = y + 1`` in a loop is one call many times over)."""
    runtime, x, y = arrays

    def twice():  # two column sums over 20 000 rows (no fused plan), one call each twice
        return cw.sum(x * y, axis=0), cw.sum(x * y, axis=0)

    runs = [_run(runtime, twice) for _ in range(lazy_policy.REPLAYS + 1)]
    assert [pending for pending, _ in runs] == [[True, True]] * lazy_policy.REPLAYS + [[False, False]]


def test_the_key_of_a_binary_call_built_in_one_step_is_call_keys():
    """pair_key (the binary and compare calls of the C element-wise path) and call_key
    (every recorded call, counted after a replayed run) must make one key of one call:
    a count made by one is read by the other. Each Start method keys by its own maker
    (pair_key for binary and compare, call_key_of for the others)."""
    import types

    from candlewick import dtypes as dt
    from candlewick.layout import Layout
    from candlewick.opdefs import BinaryOp, CompareOp

    device = object()
    row = Layout((3, 5), (0, 1), 7)
    full = Layout.contiguous((3, 5))
    for name, op, l1, d2, l2 in [("binary", BinaryOp.MULTIPLY, full, dt.complex64, row),
                                 ("compare", CompareOp.LESS, row, dt.float32, full),
                                 ("binary", 2.5, full, dt.float32, full),  # an argument call_key converts
                                 ("binary", BinaryOp.ADD, [1, 2], dt.int8, full)]:
        want = lazy_keys.call_key(device, name, dt.float32, (op, l1, d2, l2))
        args = (op, l1, types.SimpleNamespace(dtype=d2), l2)  # as the primitive takes them: a storage
        for key_of in (lazy_keys.pair_key, lazy_keys.call_key_of):
            assert key_of(device, name, dt.float32, args) == want
            assert hash(key_of(device, name, dt.float32, args)) == hash(want)
        assert lazy_keys.pair_key(device, name, dt.float32, args[:3]) == lazy_keys.call_key(
            device, name, dt.float32, (op, l1, d2))  # not four arguments: call_key's


def test_the_counts_past_max_keys_are_dropped_and_a_change_bumps_the_generation_once(monkeypatch):
    """Past MAX_KEYS keys a change drops them all first; each change moves _generation (what
    the C decision's kept answer stands on, _native_lazy_key.c) by one, a drop included."""
    from candlewick import dtypes as dt

    monkeypatch.setattr(lazy_policy, "MAX_KEYS", 2)
    device = object()
    calls = [("binary", dt.float32, (float(i),)) for i in range(3)]
    try:
        for change in (lazy_policy.counted_replayed, lazy_policy.pinned_fused):
            lazy_policy.reset()
            before = lazy_policy._generation
            change(device, calls)
            assert lazy_policy._generation == before + 1 and len(lazy_policy._counts) == 3
            fresh = [("binary", dt.float32, (7.0,))]
            change(device, fresh)  # past MAX_KEYS: all dropped, then the one counted
            assert lazy_policy._generation == before + 2
            assert list(lazy_policy._counts) == [lazy_keys.call_key(device, *fresh[0])]
    finally:
        lazy_policy.reset()


def test_what_changes_no_count_leaves_the_generation():
    """A call counted ``REPLAYS`` times, or marked fusing again, changes nothing: no bump of
    _generation (each bump makes every later call on a computed array work its answer
    out again in C), and the change functions say so."""
    from candlewick import dtypes as dt

    device = object()
    calls = [("binary", dt.float32, (float(i),)) for i in range(2)]
    try:
        lazy_policy.reset()
        for _ in range(lazy_policy.REPLAYS):
            assert lazy_policy.counted_replayed(device, calls)
        before = lazy_policy._generation
        assert not lazy_policy.counted_replayed(device, calls)
        assert lazy_policy._generation == before
        assert lazy_policy._counts[lazy_keys.call_key(device, *calls[0])] == lazy_policy.REPLAYS
        assert lazy_policy.pinned_fused(device, calls) and lazy_policy._generation == before + 1
        assert not lazy_policy.pinned_fused(device, calls) and lazy_policy._generation == before + 1
        # marked fusing, then replayed: counted again from one
        assert lazy_policy.counted_replayed(device, calls) and lazy_policy._generation == before + 2
        assert lazy_policy._counts[lazy_keys.call_key(device, *calls[0])] == 1
    finally:
        lazy_policy.reset()


def test_a_split_run_with_nothing_left_to_learn_asks_no_more():
    """learn on a split run: its replayed calls counted and the others marked until nothing
    changes; then the run is marked so that its later runs call learn no more."""
    import types

    from candlewick import dtypes as dt

    device = object()
    calls = [("reduce", dt.float32, ("sum",)), ("binary", dt.float32, (2.0,))]
    run = types.SimpleNamespace(replayed=frozenset({1}), fused=True, pinned=False)
    try:
        lazy_policy.reset()
        for _ in range(lazy_policy.REPLAYS):
            lazy_policy.learn(run, device, calls, {1: 0, 2: 1})
            assert not run.pinned
        before = lazy_policy._generation
        lazy_policy.learn(run, device, calls, {1: 0, 2: 1})
        assert run.pinned and lazy_policy._generation == before
    finally:
        lazy_policy.reset()
