"""Lazy mode (``with cw.lazy():``, ``CANDLEWICK_LAZY=1``) against the eager path, on every
backend under test: the generated chains of test_fuse give the eager dtypes, shapes and
values (bit for bit where the device replays; within test_fuse's tolerance where it
compiles); errors raise at the call that causes them; what is recorded runs at a host
read, at an operation lazy mode does not record, before a write, past the size bound and
at the end of the block; only results still referenced are computed into memory."""

import os
import subprocess
import sys
import threading

import numpy as np
import pytest
from hypothesis import given, settings

import candlewick as cw
from candlewick.errors import DeviceMismatchError, DTypeError, ShapeError
from candlewick.fusion import lazy_run, lazy_storage
from candlewick.fusion import lazy_mode
from candlewick.fusion.lazy_mode import is_lazy
from _chains import EXAMPLES, build, chain_cases, reassociates, same

GELU_C = 0.7978845608028654


def gelu(x):
    return 0.5 * x * (1.0 + cw.tanh(GELU_C * (x + 0.044715 * x * x * x)))


def softmax(x):
    m = cw.max(x, axis=-1, keepdims=True)
    e = cw.exp(x - m)
    return e / cw.sum(e, axis=-1, keepdims=True)


def layer_norm(x):
    return (x - cw.mean(x, axis=-1, keepdims=True)) / cw.sqrt(cw.var(x, axis=-1, keepdims=True) + 1e-5)


@pytest.fixture(autouse=True)
def record_everywhere(monkeypatch):
    """Record on every backend: a device without the ``fusion`` capability (cpu) would run
    lazy mode eagerly, and these tests are about the recording (replayed there)."""
    monkeypatch.setattr(lazy_mode, "RECORD_EVERYWHERE", True)


def pending(a):
    """Whether ``a`` holds a recorded result that has not run."""
    return isinstance(a._storage, lazy_storage.LazyStorage) and a._storage.real is None


@pytest.fixture
def runs(monkeypatch):
    """The results each run of a recorded graph asked for: one list per run."""
    seen = []
    original = lazy_run.compiled

    def spy(graph, wanted, *keys):
        seen.append([graph.nodes[i].kind for i in wanted])
        return original(graph, wanted, *keys)

    monkeypatch.setattr(lazy_storage, "compiled", spy)
    return seen


@settings(max_examples=EXAMPLES, deadline=None)
@given(case=chain_cases())
def test_lazy_chains_equal_eager(device, case):
    program, x, y = case
    x, y = cw.asarray(x, device=device), cw.asarray(y, device=device)
    fn = build(program)
    try:
        want = fn(x, y)
    except Exception as exc:  # the eager path refuses it: so must lazy mode, at the same call
        with pytest.raises(type(exc)), cw.lazy():
            fn(x, y)
        return
    with cw.lazy():
        got = fn(x, y)
    got, want = (got, want) if isinstance(got, tuple) else ((got,), (want,))
    for g, w in zip(got, want):
        assert g.device is device and not pending(g)  # the block's end ran it
        same(g, w, reassociates(device, program))


@pytest.mark.parametrize("fn", [gelu, softmax, layer_norm])
@pytest.mark.parametrize("shape", [(4, 9), (2, 3, 130), (1, 1)])
def test_eager_written_functions(device, fn, shape, runs):
    x = cw.asarray(np.random.default_rng(2).standard_normal(shape).astype(np.float32), device=device)
    want = fn(x)
    with cw.lazy():
        got = fn(x)
        assert pending(got) and not runs
    assert len(runs) == 1 and len(runs[0]) == 1  # one graph, one result written: no intermediate
    same(got, want, "fusion" in device.capabilities)
    assert cw.fuse(fn)(x).shape == got.shape


def test_a_loop_runs_one_compiled_graph(device):
    x = cw.asarray(np.linspace(-2, 2, 64, dtype=np.float32), device=device)
    before = len(lazy_run._cache)
    for _ in range(3):
        with cw.lazy():
            y = gelu(x)
    assert len(lazy_run._cache) == before + 1
    same(y, gelu(x), "fusion" in device.capabilities)


def test_a_loop_of_several_graphs_finds_them_without_hashing(device, monkeypatch):
    """A loop whose body runs several graphs in turn (the KMeans-like loop of
    bench/pydata_e2e.py: three an iteration, each ended by an operation lazy mode does not
    record) finds each by comparing node keys with the graphs last run, not by hashing
    the whole key on every run."""
    x = cw.asarray(np.linspace(-2, 2, 64, dtype=np.float32).reshape(8, 8), device=device)
    hashed = []
    original = lazy_run._key
    monkeypatch.setattr(lazy_run, "_key", lambda *a: (hashed.append(1), original(*a))[1])

    def body():
        with cw.lazy():
            a = cw.argmax(x * 2.0 + 1.0, axis=1)  # argmax is not recorded: the graph runs
            b = cw.argmin(cw.exp(x) - 3.0, axis=0)
            return cw.sort(cw.abs(x - 0.5), axis=1), a, b

    body()
    hashed.clear()
    for _ in range(3):
        body()
    assert hashed == []


def test_errors_raise_at_the_call_that_causes_them(device):
    x = cw.asarray([1.0, 2.0, 3.0], device=device)
    i = cw.asarray([1, 2, 3], device=device)
    with cw.lazy():
        before = x * 2 + 1  # recorded, and must survive the errors below
        with pytest.raises(DTypeError, match="bitwise_and"):
            cw.bitwise_and(x, 1)
        with pytest.raises(ShapeError):
            x + cw.asarray([1.0, 2.0], device=device)
        with pytest.raises(DTypeError):
            cw.bitwise_left_shift(i, x)
        assert pending(before)
    np.testing.assert_array_equal(cw.to_numpy(before), [3.0, 5.0, 7.0])


def test_device_errors_raise_at_the_call(device):
    from tracing_backend import TracingBackend

    elsewhere = TracingBackend(wraps="cpu", hide="").device(0) if device.name.startswith("cpu") else cw.get_device("cpu")
    x = cw.asarray([1.0, 2.0], device=device)
    other = cw.asarray([3.0, 4.0], device=elsewhere)
    with cw.lazy():
        y = x * 3
        with pytest.raises(DeviceMismatchError):
            y + other
        np.testing.assert_array_equal(cw.to_numpy(y + 1), [4.0, 7.0])


def test_host_reads_and_other_operations_run_what_is_pending(device):
    x = cw.asarray(np.arange(6.0, dtype=np.float32).reshape(2, 3), device=device)
    with cw.lazy():
        y = x * 2 - 1
        assert pending(y)
        assert float(cw.sum(y)) == 24.0  # a host read
        z = y + 1
        order = cw.argsort(z, axis=-1)  # not recorded: runs z first, then itself
        assert not pending(z)
        np.testing.assert_array_equal(cw.to_numpy(order), [[0, 1, 2], [0, 1, 2]])
        w = (x + 1) @ cw.ones((3, 1), dtype=cw.float32, device=device)  # a recorded argument of matmul
        np.testing.assert_array_equal(cw.to_numpy(w), [[6.0], [15.0]])
        v = (x * 0)[:, 1:]  # a view of a recorded result
        np.testing.assert_array_equal(cw.to_numpy(v + x[:, :2]), cw.to_numpy(x[:, :2]))


def test_writes_see_what_was_recorded_before_them(device):
    x = cw.asarray([1.0, 2.0, 3.0], device=device)
    with cw.lazy():
        y = x * 10  # reads x as it is now
        x[0] = 100.0
        z = x * 10
        x += 1
        np.testing.assert_array_equal(cw.to_numpy(y), [10.0, 20.0, 30.0])
        np.testing.assert_array_equal(cw.to_numpy(z), [1000.0, 20.0, 30.0])
        y[1] = -1.0  # a write into a recorded result
        np.testing.assert_array_equal(cw.to_numpy(y * 1), [10.0, -1.0, 30.0])
    np.testing.assert_array_equal(cw.to_numpy(x), [101.0, 3.0, 4.0])


def test_a_write_gives_the_array_its_run_storage(device):
    """Once a recorded result has run, a write into its array goes to the real storage
    directly (scikit-learn's fill_diagonal: 2048 element stores into a lazily computed
    matrix), not attribute by attribute through the recorded storage; every write still
    lands, and a view made before the write sees it. A run storage recorded on is likewise
    swapped for the real one in the array that holds it."""
    x = cw.asarray(np.zeros((4, 4), np.float32), device=device)
    forwarded = []
    original = lazy_storage.LazyStorage.__getattr__

    def counted(self, name):
        forwarded.append(name)
        return original(self, name)

    with cw.lazy():
        y = x + 1
        before = y[:, 0]
        assert float(cw.sum(y)) == 16.0  # y has run
        lazy_storage.LazyStorage.__getattr__ = counted
        try:
            for i in range(4):
                y[i, i] = 5.0
        finally:
            lazy_storage.LazyStorage.__getattr__ = original
        assert forwarded == [] and not isinstance(y._storage, lazy_storage.LazyStorage)
        assert isinstance(before._storage, lazy_storage.LazyStorage)  # (a view of the run storage)
        twice = before * 2
        assert not isinstance(before._storage, lazy_storage.LazyStorage) and pending(twice)
        np.testing.assert_array_equal(cw.to_numpy(y), np.ones((4, 4)) + 4 * np.eye(4))
        np.testing.assert_array_equal(cw.to_numpy(before), [5.0, 1.0, 1.0, 1.0])
        np.testing.assert_array_equal(cw.to_numpy(twice), [10.0, 2.0, 2.0, 2.0])


def test_views_and_stores_stay_in_c_and_see_what_was_recorded(device):
    """Lazy mode keeps the C module bound (views and stores made in C, as in eager mode;
    only the paths that compute decline, so that element-wise calls are recorded); a
    store from C runs what is pending first, as the Python path does."""
    from candlewick import _core

    if _core._native is None:
        pytest.skip("candlewick._native is not built")
    x = cw.asarray(np.arange(6.0, dtype=np.float32).reshape(2, 3), device=device)
    value = cw.asarray(np.float32(-1.0), device=device)
    with cw.lazy():
        assert _core._native.bound_class() is type(x)
        y = x * 10
        assert pending(y)
        x[0, 1] = value  # a 0-d value of x's dtype and device, one int per axis: the C store
        assert not pending(y)  # the store ran it first (it reads x)
        z = y[1:]  # a slice view, from C
        assert z._storage is y._storage
        y[1, 2] = value  # into a recorded result: it runs, then the store
    np.testing.assert_array_equal(cw.to_numpy(x), [[0.0, -1.0, 2.0], [3.0, 4.0, 5.0]])
    np.testing.assert_array_equal(cw.to_numpy(y), [[0.0, 10.0, 20.0], [30.0, 40.0, -1.0]])
    np.testing.assert_array_equal(cw.to_numpy(z), [[30.0, 40.0, -1.0]])


def test_calls_on_small_computed_arrays_run_at_once(device, monkeypatch):
    """A call whose operands are all computed and each hold fewer than
    ``lazy_policy.RECORD_BYTES`` runs at once (fusing a chain of small arrays saves less
    device time than recording it costs host time); a call on a large operand or a pending
    one is recorded, whatever else is pending. Values are eager mode's either way."""
    from candlewick.fusion import lazy_policy

    monkeypatch.setattr(lazy_policy, "RECORD_BYTES", 64)
    small = cw.asarray(np.arange(4.0, dtype=np.float32), device=device)  # 16 bytes
    large = cw.asarray(np.linspace(-1, 1, 64, dtype=np.float32), device=device)  # 256 bytes
    want = [cw.to_numpy(r) for r in (cw.exp(small) * 2.0, small + small, large * 2.0, small - 1.0, small + cw.sum(large))]
    with cw.lazy():
        at_once = [cw.exp(small) * 2.0, small + small]  # nothing pending: the C path's operand hook
        assert not any(pending(r) for r in at_once) and not lazy_storage.LIVE
        recorded = large * 2.0
        assert pending(recorded) and lazy_storage.LIVE
        also_at_once = small - 1.0  # something pending: lazy_policy.Start's test
        total = cw.sum(large)
        joined = small + total  # a pending operand: recorded, though both are small
        assert not pending(also_at_once) and pending(total) and pending(joined)
        got = at_once + [recorded, also_at_once, joined]
    fused = "fusion" in device.capabilities
    for g, w in zip(got, want):
        same(g, cw.asarray(w, device=device), fused)


def test_the_c_elementwise_path_records(device, monkeypatch):
    """In lazy mode the element-wise functions' common case stays in C (candlewick._native's
    Elementwise; an array and a Python scalar after it too), its primitive called on the
    recording storage, as the Python path calls it: recorded, with eager mode's values and
    errors."""
    from candlewick import _core
    from candlewick.lazy_gate import GATE

    if _core._native is None:
        pytest.skip("candlewick._native is not built")
    x = cw.asarray(np.arange(6.0, dtype=np.float32).reshape(2, 3), device=device)
    y = cw.asarray(np.full((2, 3), 0.5, np.float32), device=device)
    row = cw.asarray(np.float32([1.0, 2.0, 3.0]), device=device)
    column = x[:, :1]  # (with row: both operands broadcast)
    eager = [cw.to_numpy(r) for r in (cw.multiply(x, y), x - y, x * row, cw.exp(x), cw.less(x, y), column * row)]
    with cw.lazy():
        # the Python path asks GATE.operand; C was handed the hook when the block opened
        python_path = []
        original = GATE.operand
        monkeypatch.setattr(GATE, "operand", lambda a: (python_path.append(1), original(a))[1])
        results = [cw.multiply(x, y), x - y, x * row, cw.exp(x), cw.less(x, y), column * row]
        chained = results[0] * results[1]  # a recorded operand: recorded too
        assert python_path == [] and all(pending(r) for r in results + [chained])
        with pytest.raises(ShapeError):
            x + cw.asarray([1.0, 2.0], device=device)
        assert all(pending(r) for r in results)
        forward = x * 2.0  # a Python scalar after the array: in C too
        assert python_path == [] and pending(forward)
        scaled = 2.0 * x  # reflected: the Python path, which records the same way
        # (it asks the hook once on cpu, twice on rocm: H200, c3b9a48)
        assert python_path and pending(scaled)
    fused = "fusion" in device.capabilities  # (a fused exp is within the conformance tolerances)
    for got, want in zip(results, eager):
        same(got, cw.asarray(want, device=device), fused)
    same(chained, cw.asarray(eager[0] * eager[1], device=device), fused)
    same(forward, cw.asarray(cw.to_numpy(x) * np.float32(2.0), device=device), fused)
    same(scaled, cw.asarray(cw.to_numpy(x) * np.float32(2.0), device=device), fused)
    assert not lazy_storage.LIVE  # nothing pending anywhere: a store asks nothing more


def test_a_c_store_asks_lazy_mode_only_when_something_is_pending(device, monkeypatch):
    """A store from C calls lazy mode's write hook only while a graph holds nodes or the
    array holds a recorded storage: a loop of stores with nothing pending (scikit-learn's
    fill_diagonal) asks nothing."""
    from candlewick import _core
    from candlewick.lazy_gate import GATE

    if _core._native is None:
        pytest.skip("candlewick._native is not built")
    asked = []
    original = GATE.write_into
    monkeypatch.setattr(GATE, "write_into", lambda a: (asked.append(a), original(a))[1])  # before the block opens
    x = cw.asarray(np.zeros((3, 3), np.float32), device=device)
    value = cw.asarray(np.float32(1.0), device=device)
    with cw.lazy():
        for i in range(3):
            x[i, i] = value
        assert asked == []
        y = x * 2  # pending: the next store runs it first
        x[0, 1] = value
        assert len(asked) == 1 and not pending(y)
        y[0, 0] = value  # y holds its run recorded storage: the hook gives y the real one
        assert len(asked) == 2 and not isinstance(y._storage, lazy_storage.LazyStorage)
    np.testing.assert_array_equal(cw.to_numpy(x), [[1, 1, 0], [0, 1, 0], [0, 0, 1]])
    np.testing.assert_array_equal(cw.to_numpy(y), [[1, 0, 0], [0, 2, 0], [0, 0, 2]])


def test_an_update_with_nothing_pending_stays_in_c(device, monkeypatch):
    """``x += y`` in lazy mode with no graph pending and neither storage a recorded one runs
    in C as eager mode runs it (scikit-learn's pairwise_distances makes 12 a call); with a
    graph pending it takes the general path, which runs what is pending first."""
    from candlewick import _core
    from candlewick.lazy_gate import GATE

    if _core._native is None:
        pytest.skip("candlewick._native is not built")
    asked = []
    original = GATE.write_into
    monkeypatch.setattr(GATE, "write_into", lambda a: (asked.append(a), original(a))[1])  # before the block opens
    x = cw.asarray(np.arange(4.0, dtype=np.float32), device=device)
    y = cw.asarray(np.full(4, 0.5, np.float32), device=device)
    with cw.lazy():
        x += y
        x *= 2.0
        assert asked == [] and not lazy_storage.LIVE
        z = y * 3.0  # recorded
        x += z
        assert asked == [x]
    np.testing.assert_array_equal(cw.to_numpy(x), (np.arange(4.0, dtype=np.float32) + 0.5) * 2 + 1.5)


def test_a_sum_into_a_wider_dtype_replays_as_one_call(device, monkeypatch):
    """``sum(x, dtype=float64)`` of float32 is recorded as its steps (astype, then sum: a
    fused kernel converts as it reads); replayed (a device without the capability, or a
    graph the device does not compile), it is the one ``reduce_as`` call of eager mode,
    not a converted copy and a sum over it. A cast that something else reads stays."""
    if "reduce_dtype" not in cw.get_device(device).capabilities:
        pytest.skip("the device does not sum into a dtype as it reads")
    from candlewick.fusion import replay

    x = cw.asarray(np.arange(12.0, dtype=np.float32).reshape(3, 4), device=device)
    steps = []
    original = replay._step
    monkeypatch.setattr(replay, "_step", lambda node, *a: (steps.append(node.kind), original(node, *a))[1])
    monkeypatch.setattr(lazy_run, "_cache", type(lazy_run._cache)())
    monkeypatch.setattr(lazy_run, "_last", [()])
    monkeypatch.setattr(cw.get_device(device), "compile_fused", lambda graph: None, raising=False)
    with cw.lazy():
        total = cw.sum(x, axis=0, dtype=cw.float64)
        wide = x.astype(cw.float64)
        both = cw.sum(wide, axis=1), wide  # the cast is kept: it is read twice
        del wide
    assert sorted(steps) == sorted(["reduce_as", "astype", "reduce"])
    np.testing.assert_array_equal(cw.to_numpy(total), np.arange(12.0).reshape(3, 4).sum(axis=0))
    np.testing.assert_array_equal(cw.to_numpy(both[0]), np.arange(12.0).reshape(3, 4).sum(axis=1))


def test_only_results_still_referenced_are_written(device, runs):
    x = cw.asarray([1.0, -2.0], device=device)
    with cw.lazy():
        kept = x + 1
        dropped = kept * 2
        total = cw.sum(dropped * 3)
        del dropped
    assert runs == [["binary_scalar", "reduce"]]
    assert float(total) == 6.0 and cw.to_numpy(kept).tolist() == [2.0, -1.0]


def test_the_size_bound_runs_long_chains(device, runs):
    x = cw.asarray([1.0, 2.0], device=device)
    with cw.lazy():
        y = x
        for _ in range(lazy_storage.MAX_NODES + 10):
            y = y + 1
        assert len(runs) == 1 and pending(y)
        assert len(y._storage.pending.graph.nodes) < lazy_storage.MAX_NODES
    assert cw.to_numpy(y).tolist() == [1.0 + lazy_storage.MAX_NODES + 10, 2.0 + lazy_storage.MAX_NODES + 10]


def test_results_used_after_the_block_and_in_eager_calls(device):
    x = cw.asarray([1.0, 2.0, 4.0], device=device)
    with cw.lazy():
        y = cw.sqrt(x)
        with cw.lazy(False):
            assert not is_lazy()
            eager = x * 2  # runs now
            assert not pending(eager)
            np.testing.assert_array_equal(cw.to_numpy(x + y), cw.to_numpy(x) + np.sqrt([1.0, 2.0, 4.0]))
        assert is_lazy()
    assert not is_lazy()
    # a recorded result as either operand of eager calls, a view, a reduction, a copy
    np.testing.assert_array_equal(cw.to_numpy(x - y), cw.to_numpy(x) - cw.to_numpy(y))
    np.testing.assert_array_equal(cw.to_numpy(y[::-1] * x), cw.to_numpy(y)[::-1] * cw.to_numpy(x))
    assert cw.argmax(y).item() == 2 and float(cw.sum(y)) == pytest.approx(1 + 2**0.5 + 2)
    assert cw.asarray(y, copy=True).shape == (3,)


def test_fused_functions_inside_lazy_mode(device):
    fused = cw.fuse(softmax)
    x = cw.asarray(np.random.default_rng(1).standard_normal((3, 5)).astype(np.float32), device=device)
    with cw.lazy():
        got = fused(x * 2)  # a recorded argument: the fused function is recorded too
    same(got, softmax(x * 2), "fusion" in device.capabilities)
    assert fused.cache_info()["traces"] == 0
    with cw.lazy():
        y = x * 2
    same(fused(y), softmax(x * 2), "fusion" in device.capabilities)  # a run result outside lazy mode


def test_lazy_mode_is_per_thread(device):
    x = cw.asarray([1.0, 2.0], device=device)
    seen = {}

    def other():
        seen["lazy"] = is_lazy()
        seen["pending"] = pending(x * 2)

    with cw.lazy():
        thread = threading.Thread(target=other)
        thread.start()
        thread.join()
        assert pending(x * 2)
    assert seen == {"lazy": False, "pending": False}


def test_an_error_in_the_block_leaves_recorded_results_usable(device):
    x = cw.asarray([1.0, 2.0], device=device)
    with pytest.raises(ZeroDivisionError), cw.lazy():
        y = x + 1
        1 / 0
    assert cw.to_numpy(y).tolist() == [2.0, 3.0]


def test_bad_flag():
    with pytest.raises(TypeError, match="enabled must be a bool"), cw.lazy("yes"):
        pass


def test_a_device_without_fusion_runs_lazy_mode_eagerly(monkeypatch):
    monkeypatch.setattr(lazy_mode, "RECORD_EVERYWHERE", False)
    x = cw.asarray([1.0, 2.0], device="cpu")
    with cw.lazy():
        y = cw.exp(x) * 2
        assert is_lazy() and not isinstance(y._storage, lazy_storage.LazyStorage)
    np.testing.assert_array_equal(cw.to_numpy(y), np.exp([1.0, 2.0]) * 2)


def test_environment_variable_turns_lazy_mode_on():
    script = ("import candlewick as cw, numpy as np\n"
              "from candlewick.fusion import lazy_mode, lazy_policy\n"
              "from candlewick.fusion.lazy_mode import is_lazy\n"
              "lazy_mode.RECORD_EVERYWHERE = True  # (cpu: recorded and replayed)\n"
              "lazy_policy.RECORD_BYTES = 0  # (the tests' arrays are small: recorded all the same)\n"
              "x = cw.asarray(np.linspace(-1, 1, 7, dtype=np.float32))\n"
              "y = cw.exp(x) * 2\n"
              "assert is_lazy() and y._storage.real is None\n"
              "np.testing.assert_array_equal(cw.to_numpy(y), np.exp(np.linspace(-1, 1, 7, dtype=np.float32)) * 2)\n"
              "with cw.lazy(False):\n"
              "    assert not is_lazy()\n")
    env = dict(os.environ, CANDLEWICK_LAZY="1", CANDLEWICK_DEVICE="cpu")
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_a_mask_store_with_nothing_pending_is_eager_modes(device, monkeypatch):
    """``x[mask] = 0.5`` in lazy mode with no graph pending and neither array a recorded
    result is eager mode's one step (indexing.mask_fill; scikit-learn's StandardScaler
    makes one a call), not the general path; with a graph pending, or the mask a recorded
    result, what is pending runs first: the values are eager mode's."""
    from candlewick import indexing

    general = []
    original = indexing.advanced_setitem
    monkeypatch.setattr(indexing, "advanced_setitem", lambda *a: (general.append(a[1]), original(*a))[1])
    data = np.array([0.5, -1.0, 2.0, -3.0], np.float32)
    x = cw.asarray(data, device=device)
    m = cw.asarray(data < 0, device=device)
    want = np.where(data < 0, 0.25, data)
    with cw.lazy():
        x[m] = 0.25
        assert general == [] and not lazy_storage.LIVE
        y = x * 2.0  # recorded: it reads x as it is now
        x[m] = 0.5  # (where built, the C store runs y first, then this is eager mode's step)
        assert not pending(y)
        recorded = x < 1.0  # a recorded mask
        x[recorded] = 0.75
        assert general[-1] is recorded
    np.testing.assert_array_equal(cw.to_numpy(y), want * 2.0)
    np.testing.assert_array_equal(cw.to_numpy(x), np.where(np.where(data < 0, 0.5, data) < 1.0, 0.75, data))
