"""Graph capture on a rocm device (docs/graphs.md): replays compute what the eager calls
compute, on the current contents of the static inputs, into the same output memory."""

import numpy as np
import pytest

import candlewick as cw
from candlewick.errors import GraphCaptureError, IndexOutOfBoundsError

pytestmark = pytest.mark.gpu


def _step(x, y, cond, idx):
    z = cw.exp(x) * y + 1.0
    w = cw.where(cond, z, -z)
    return cw.sum(w, axis=1), cw.take(z, idx, axis=1), cw.matmul(z, cw.matrix_transpose(y))


def _inputs(rocm, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((8, 33)).astype(np.float32)
    y = rng.standard_normal((8, 33)).astype(np.float32)
    return x, y, x > y, np.array([0, 5, 32], np.int64)


def _host(outs):
    return [cw.to_numpy(o) for o in outs]


def test_replay_equals_eager_on_new_inputs(rocm):
    host = _inputs(rocm, 0)
    args = [cw.asarray(a, device=rocm) for a in host]
    g = cw.graphs.capture(_step, *args)
    out_ptrs = [o._storage.ptr for o in g.outputs]
    for seed in (1, 2, 3):
        new = _inputs(rocm, seed)
        outs = g.replay(*new)
        eager = _step(*[cw.asarray(a, device=rocm) for a in new])
        got, want = _host(outs), _host(eager)
        np.testing.assert_array_equal(got[0], want[0])  # the same kernels: the same bits
        np.testing.assert_array_equal(got[1], want[1])
        # hipBLAS may pick another algorithm under capture (its workspace differs)
        np.testing.assert_allclose(got[2], want[2], rtol=1e-5, atol=1e-5)
    assert [o._storage.ptr for o in g.outputs] == out_ptrs  # rewritten in place


def test_writing_the_static_inputs_by_hand(rocm):
    x = cw.asarray(np.arange(16, dtype=np.float32), device=rocm)
    g = cw.graphs.Graph(rocm)
    cw.cumulative_sum(x * 2.0)  # warm-up
    with g.capture():
        out = cw.cumulative_sum(x * 2.0)
    for k in range(3):
        x[...] = cw.asarray(np.full(16, k, np.float32), device=rocm)
        g.replay()
        np.testing.assert_array_equal(cw.to_numpy(out), np.cumsum(np.full(16, 2.0 * k, np.float32)))


def test_a_hundred_tiny_ops_replay(rocm):
    x = cw.asarray(np.zeros(16, np.float32), device=rocm)

    def loop(a):
        for _ in range(100):
            a = a + 1.0
        return a

    g = cw.graphs.capture(loop, x)
    for start in (0.0, 5.0):
        out = g.replay(np.full(16, start, np.float32))
        np.testing.assert_array_equal(cw.to_numpy(out), np.full(16, start + 100, np.float32))


def test_host_read_inside_a_capture_leaves_the_device_usable(rocm):
    x = cw.asarray(np.ones(4, np.float32), device=rocm)
    with pytest.raises(GraphCaptureError, match="Array.item"):
        with cw.graphs.Graph(rocm).capture():
            cw.sum(x).item()
    assert float(cw.sum(x + 1.0)) == 8.0


def test_an_index_out_of_range_in_a_replay_raises_at_the_next_read(rocm):
    x = cw.asarray(np.arange(8, dtype=np.float32), device=rocm)
    idx = cw.asarray(np.array([1, 2], np.int64), device=rocm)
    g = cw.graphs.capture(lambda a, i: cw.take(a, i), x, idx)
    np.testing.assert_array_equal(cw.to_numpy(g.replay()), [1.0, 2.0])
    g.replay(x, np.array([1, 99], np.int64))
    with pytest.raises(IndexOutOfBoundsError, match="an index was outside the dimension"):
        rocm.synchronize()
    np.testing.assert_array_equal(cw.to_numpy(g.replay(x, np.array([3, 4], np.int64))), [3.0, 4.0])


def test_reset_gives_the_memory_back(rocm):
    x = cw.asarray(np.ones(1 << 20, np.float32), device=rocm)
    alloc = rocm.allocator
    g = cw.graphs.capture(lambda a: cw.exp(a) + 1.0, x)
    owned = g._graph.pool.owned_bytes
    assert owned >= 4 << 20
    cached = alloc.cached_bytes
    g.outputs = None
    g.reset()
    assert alloc.cached_bytes >= cached + (4 << 20)
