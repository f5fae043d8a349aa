"""Graph capture's rules and state machine on a fake HIP runtime (no GPU): what a capture
records, what it refuses (naming the function), where its memory comes from and when it
goes back. tests/rocm/gpu/test_graphs.py checks the results on a GPU."""

import threading

import numpy as np
import pytest

import candlewick as cw
from candlewick.errors import DTypeError, GraphCaptureError, ShapeError, UnsupportedOperation
from rocm_backend.families import pad_fixup_cache, reductions


def _arrays(dev):
    x = cw.asarray(np.arange(16, dtype=np.float32), device=dev)
    return x, cw.asarray(np.ones(16, dtype=np.float32), device=dev)


def _step(x, y):
    return cw.sum(cw.exp(x) * y + 1.0)


def test_capture_records_and_replay_relaunches_the_same_kernels(fake):
    rt, dev = fake
    x, y = _arrays(dev)
    g = cw.graphs.capture(_step, x, y)
    eager = rt.launches[:len(rt.launches) // 1]
    assert g.captured and rt.capturing is None
    before = len(rt.launches)
    out = g.replay()
    replayed = rt.launches[before:]
    assert out is g.outputs and len(replayed) >= 3
    assert [name for name, _, _ in replayed] == [name for name, _, _ in eager[-len(replayed):]]
    g.replay()
    assert rt.launches[-len(replayed):] == replayed
    assert dev.capture is None


@pytest.mark.parametrize("read,name", [
    (lambda a: float(a[0]), "Array.__float__"),
    (lambda a: a[0].item(), "Array.item"),
    (lambda a: cw.to_numpy(a), "to_numpy"),
    (lambda a: a.to_device("cpu"), "Array.to_device"),
    (lambda a: bool(cw.all(a > 0)), "Array.__bool__"),
    (lambda a: a.device.synchronize(), "synchronize"),
    (lambda a: a.__dlpack__(), "Array.__dlpack__"),
])
def test_host_reads_inside_a_capture_raise_naming_the_function(fake, read, name):
    rt, dev = fake
    x, _ = _arrays(dev)
    g = cw.graphs.Graph(dev)
    syncs = rt.synchronizing_calls
    with pytest.raises(GraphCaptureError, match=rf"{name}.* inside a graph capture on rocm:0"):
        with g.capture():
            read(cw.exp(x))
    assert rt.synchronizing_calls == syncs, "the refused read reached the runtime"
    assert dev.capture is None and rt.capturing is None and not g.captured
    float(x[0])  # eager again after the aborted capture


def test_host_copies_and_random_numbers_inside_a_capture_raise(fake):
    _, dev = fake
    g = cw.graphs.Graph(dev)
    with pytest.raises(GraphCaptureError, match=r"asarray.*copy from host memory"):
        with g.capture():
            cw.asarray([1.0, 2.0], device=dev)
    with pytest.raises(GraphCaptureError, match=r"uniform.*random numbers"):
        with g.capture():
            cw.random.uniform(size=(4,), device=dev)


def test_memory_allocated_in_a_capture_stays_the_graphs_until_reset(fake):
    rt, dev = fake
    x, y = _arrays(dev)
    alloc = dev.allocator
    def step():
        tmp = cw.exp(x)
        return tmp, tmp * y

    step()  # warm-up: the blocks the step needs are now cached
    dev.index_checks.ensure_buffer()  # device state begin_capture makes (once per device)
    reductions.scratch(dev)
    g = cw.graphs.Graph(dev)
    mallocs = rt.calls["hipMalloc"]
    with g.capture():
        tmp, out = step()
    assert rt.calls["hipMalloc"] == mallocs, "the warm-up's cached blocks were not used"
    pool = g._graph.pool
    tmp_ptr = tmp._storage.ptr
    assert {tmp_ptr, out._storage.ptr} <= set(pool.owned)
    del tmp  # its block stays reserved for the graph: a replay writes it
    assert all(tmp_ptr not in ptrs for ptrs in alloc._free.values())
    again = cw.exp(x)
    assert again._storage.ptr != tmp_ptr
    g.reset()
    assert any(tmp_ptr in ptrs for ptrs in alloc._free.values()), "reset did not give the block back"
    out_ptr = out._storage.ptr
    assert all(out_ptr not in ptrs for ptrs in alloc._free.values()), "a live output's block was freed"
    del out
    assert any(out_ptr in ptrs for ptrs in alloc._free.values())
    assert rt.graphs_alive == 0


def test_a_block_freed_during_the_capture_is_reused_by_it(fake):
    _, dev = fake
    x, _ = _arrays(dev)
    g = cw.graphs.Graph(dev)
    with g.capture():
        a = cw.exp(x)
        first = a._storage.ptr
        del a
        b = cw.exp(x)
    assert b._storage.ptr == first and len(g._graph.pool.owned) == 1


def test_replay_copies_new_inputs_and_checks_their_shape_and_dtype(fake):
    rt, dev = fake
    x, y = _arrays(dev)
    g = cw.graphs.capture(_step, x, y)
    x2 = cw.asarray(np.zeros(16, np.float32), device=dev)
    n = len(rt.launches)
    g.replay(x2, y)
    assert len(rt.launches) > n
    with pytest.raises(ShapeError, match=r"Graph.replay: argument 0 must keep the captured shape \(16,\)"):
        g.replay(cw.asarray(np.zeros(8, np.float32), device=dev), y)
    with pytest.raises(DTypeError, match=r"argument 1 must keep the captured dtype float32"):
        g.replay(x, cw.asarray(np.zeros(16, np.float64), device=dev))
    with pytest.raises(cw.errors.ArgumentTypeError, match="takes the 2 inputs"):
        g.replay(x)
    g.replay(np.arange(16, dtype=np.float32), y)  # host data: copied in outside the capture


def test_python_arguments_are_frozen(fake):
    _, dev = fake
    x, _ = _arrays(dev)
    g = cw.graphs.capture(lambda a, k: a * k, x, 2.0)
    g.replay(x, 2.0)
    with pytest.raises(GraphCaptureError, match="argument 1 was a Python value 2.0 at capture"):
        g.replay(x, 3.0)


def test_state_machine_errors(fake):
    _, dev = fake
    x, _ = _arrays(dev)
    g = cw.graphs.Graph(dev)
    with pytest.raises(GraphCaptureError, match="nothing captured yet"):
        g.replay()
    with g.capture():
        with pytest.raises(GraphCaptureError, match="captures do not nest"):
            with cw.graphs.Graph(dev).capture():
                pass
        cw.exp(x)
    with pytest.raises(GraphCaptureError, match="already holds a capture"):
        with g.capture():
            pass
    with pytest.raises(GraphCaptureError, match="captured by hand"):
        g.replay(x)
    g.reset()
    g.reset()  # idempotent
    with g.capture():  # a reset graph captures again
        cw.exp(x)
    g.replay()


def test_other_threads_may_not_allocate_during_a_capture(fake):
    _, dev = fake
    x, _ = _arrays(dev)
    errors = []

    def other():
        try:
            cw.exp(x)
        except GraphCaptureError as exc:
            errors.append(str(exc))

    g = cw.graphs.Graph(dev)
    with g.capture():
        t = threading.Thread(target=other)
        t.start()
        t.join()
    assert errors and "another thread" in errors[0]


def test_index_checks_of_a_graph_are_read_after_each_replay_and_kept(fake):
    _, dev = fake
    x, _ = _arrays(dev)
    idx = cw.asarray(np.array([1, 2], np.int64), device=dev)
    checks = dev.index_checks
    g = cw.graphs.capture(lambda a, i: cw.take(a, i), x, idx, warmup=0)
    slots = g._graph._slots
    assert slots and all(slot in checks.kept for slot, _ in slots)
    assert not checks.pending.get(threading.get_ident())
    g.replay()
    assert {(slot, name) for slot, name, _ in checks.pending[threading.get_ident()]} >= set(slots)
    dev.synchronize()  # reads them (the fake's memory says "in range") and keeps them
    assert all(slot not in checks.free for slot, _ in slots)
    g.reset()
    assert all(slot in checks.free for slot, _ in slots) and not checks.kept


def test_a_graph_freed_during_another_capture_is_freed_after_it(fake):
    rt, dev = fake
    x, _ = _arrays(dev)
    g1 = cw.graphs.capture(cw.exp, x)
    g2 = cw.graphs.Graph(dev)
    with g2.capture():
        g1.reset()
        assert rt.graphs_alive == 1  # g1's executable graph, deferred
        cw.exp(x)
    assert rt.graphs_alive == 1  # now only g2's


def test_cpu_has_no_graphs(fake):
    with pytest.raises(UnsupportedOperation, match="'graph capture' is not supported on backend 'cpu'"):
        cw.graphs.Graph("cpu")
    with pytest.raises(UnsupportedOperation, match="graphs"):
        cw.graphs.capture(cw.exp, cw.asarray([1.0]))


def test_a_replay_voids_what_was_learnt_of_memory_contents(fake):
    """pad_fixup_cache trusts a weight known finite only until something writes it; a
    replay writes without bumping buffer versions, so it voids that knowledge, and a
    capture learns nothing."""
    _, dev = fake
    w, _ = _arrays(dev)
    st = w._storage
    assert not pad_fixup_cache.known_finite(st)  # seen
    assert not pad_fixup_cache.known_finite(st)  # check queued
    probe = pad_fixup_cache.probe_of(st.buffer)
    probe.cells[:] = [2 * probe.tag] * len(probe.cells)  # as the check's kernel writes "finite"
    assert pad_fixup_cache.known_finite(st)
    g = cw.graphs.Graph(dev)
    with g.capture():
        assert not pad_fixup_cache.known_finite(st)
        cw.exp(w)
    assert pad_fixup_cache.known_finite(st)
    g.replay()
    assert not pad_fixup_cache.known_finite(st)
