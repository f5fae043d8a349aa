"""Kernels generated for ``candlewick.fuse`` graphs (codegen/fused_source.py), run on the CPU.

host_exec.py has g++ compile the generated kernels for the host (every thread of a block
a fiber: real barriers, warp shuffles, shared memory) and a fake HIP runtime hand the
rocm backend's launches to them, so what runs is the backend's own fusion path
(``RocmDevice.compile_fused``: plan, kernel loading, buffers, launch geometry, the vector
path's alignment flag) and the generated code. Results are compared with the eager cpu
backend: bitwise where every op is exact on these inputs, else within a few ulps.
"""

import numpy as np
import pytest

import candlewick as cw
from host_exec import build, device_factory
from rocm_backend.codegen import fused_reduce, fused_rows, fused_source


def gelu(x):
    return 0.5 * x * (1.0 + cw.tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))


def gelu_of_columns(x):  # a strided view of the input inside the function: no vector path
    return gelu(x[:, 1:4])


def softmax(x):
    e = cw.exp(x - cw.max(x, axis=-1, keepdims=True))
    return e / cw.sum(e, axis=-1, keepdims=True)


def leaky_softmax(x):  # a scalar comparison: a constant node inside the rows schedule
    return softmax(cw.where(x > 0, x, 0.5 * x))


def vector_softmax(x):  # one row: the row shape is ()
    return softmax(x)


def row_extremes(x):  # only reductions returned, one kept as (rows, 1)
    return cw.max(x, axis=-1, keepdims=True), cw.min(x, axis=1)


def tempered_softmax(x, t):  # a float argument: a run-time scalar of the rows kernel
    return softmax(x * t)


def scaled_where(x, s, b):  # float arguments in the element-wise kernel, f32 and f64 slots
    return cw.where(x > 0, x * s, b), x.astype(cw.float64) * s


def logsumexp(x):
    m = cw.max(x, axis=-1)
    return m + cw.log(cw.sum(cw.exp(x - m[..., None]), axis=-1))


def column_stats(x, b):  # reductions over a leading axis: the general schedule
    centered = x - cw.mean(x, axis=0)
    return cw.sum(centered * b, axis=0), cw.max(cw.abs(centered), axis=0)


def mixed(x, y, k):  # exact ops: promotion, scalars, compare, where, astype, clip, broadcast
    z = cw.where(x > 2, x * k, y - 1)
    w = cw.clip(z, -5, 40).astype(cw.float32) + (y < 0)
    return w, cw.maximum(x, 3) // 2


def wide_columns(x):  # many outputs, kept axis innermost: a thread per output
    return cw.sum(x * x, axis=0), cw.max(x, axis=0)


def half_chain(h):  # float16 rounds after every op, as the eager kernels store it
    return cw.sqrt(h * h + 1.5) - h / 3


def row_norms(x, b):  # rows schedule with a broadcast input and a row-shaped output
    s = cw.sum(x * x + b, axis=-1)
    return x / cw.sqrt(s)[:, None], s


def _special_rows(x):
    """Rows of x where logsumexp's max and sum of exp meet -inf, inf and NaN: all -inf;
    every element of thread 3 (64 threads) -inf; an inf; a NaN; -inf beside a finite max."""
    x = x.copy()
    x[0] = -np.inf
    x[1, 3::64] = -np.inf
    x[2, 5] = np.inf
    x[3, 7] = np.nan
    x[4, ::3] = -np.inf
    return x


def _inputs(rng):
    f32 = lambda *s: rng.standard_normal(s).astype(np.float32)  # noqa: E731
    return [
        (gelu, (f32(1000),), 4),
        (gelu_of_columns, (f32(37, 5),), 4),
        (softmax, (f32(6, 300),), 4),
        (softmax, (f32(3, 256),), 4),  # rows a whole number of vector blocks long: 16-byte vectors
        (logsumexp, (f32(3, 4, 70),), 4),
        (logsumexp, (f32(9, 4096),), 4),  # 256 threads: 8 or 4 warps combined
        (logsumexp, (_special_rows(f32(6, 300)),), 4),
        (logsumexp, (_special_rows(f32(6, 256)).astype(np.float64),), 4),  # vectors of 2
        (softmax, (f32(13, 512),), 4),  # vectors, 13 rows
        (leaky_softmax, (f32(7, 129),), 4),
        (vector_softmax, (f32(77),), 4),
        (row_extremes, (f32(9, 31),), 0),
        (tempered_softmax, (f32(5, 70), 0.7), 4),
        (scaled_where, (f32(300), 1.5, -2.25), 0),
        (column_stats, (f32(20, 9), f32(9)), 64),
        (wide_columns, (f32(6, 1500),), 4),
        (mixed, (rng.integers(-5, 9, (8, 33)).astype(np.int16), rng.integers(-5, 9, (33,)).astype(np.int32), 3),
         0),
        (half_chain, (rng.standard_normal(301).astype(np.float16),), 0),
        (row_norms, (np.abs(f32(5, 200)) + 0.5, np.abs(f32(200))), 4),
        (row_norms, (np.abs(f32(3, 512)) + 0.5, np.abs(f32(512))), 4),  # vectors, a broadcast input
    ]


def _traced(rng):
    """(function, host args, ulps, graph traced on cpu): the graph's source does not depend
    on the device, so the kernels can be built before the rocm device exists."""
    out = []
    for fn, args, ulps in _inputs(rng):
        fused = cw.fuse(fn)
        cpu_args = [cw.asarray(a) if isinstance(a, np.ndarray) else a for a in args]
        out.append((fused, args, ulps, fused.graph_for(*cpu_args)))
    return out


class _Spec:
    def __init__(self, name):
        self.name, self.abi, self.body = name, "cw_fused_args", f"{name}(a);"


@pytest.fixture(scope="module")
def cases(tmp_path_factory):
    """(library of every case's kernels, the traced cases)."""
    traced = _traced(np.random.default_rng(3))
    entries, specs = [], []
    for *_, graph in traced:
        plan = fused_source.plan(graph)
        assert plan is not None
        entries.append(plan.source[len(fused_source.prelude()):])
        specs += [_Spec(k.spec.name) for k in plan.kernels]
    lib = build(tmp_path_factory.mktemp("fused_host"), ["reduce.hip"], specs,
                extra_lines=[fused_source.HELPERS, *entries])
    return lib, traced


def _close(got, want, ulps):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    if ulps == 0:
        assert np.array_equal(got, want, equal_nan=True)
    else:
        # the host's libm and NumPy's differ by an ulp in transcendental functions, which
        # later ops carry as an absolute error of the intermediates' size (order 1 here)
        eps = float(np.finfo(want.dtype).eps)
        scale = max(1.0, float(np.max(np.abs(want))))
        np.testing.assert_allclose(got, want, rtol=ulps * eps, atol=ulps * eps * scale)


@pytest.mark.parametrize("warp", [32, 64])
def test_generated_kernels_match_the_eager_cpu_results(cases, monkeypatch, tmp_path, warp):
    lib, traced = cases
    _, device = device_factory(lib, monkeypatch, tmp_path)(warp=warp)
    for fused, args, ulps, _ in traced:
        dev_args = [cw.asarray(a, device=device) if isinstance(a, np.ndarray) else a for a in args]
        cpu_args = [cw.asarray(a) if isinstance(a, np.ndarray) else a for a in args]
        got = fused(*dev_args)
        want = fused.__wrapped__(*cpu_args)
        got = got if isinstance(got, tuple) else (got,)
        want = want if isinstance(want, tuple) else (want,)
        assert fused.cache_info()["traces"] >= 1
        for g, w in zip(got, want):
            assert g.device is device
            _close(cw.to_numpy(g), cw.to_numpy(w), ulps)


def test_the_rows_schedule_is_one_kernel_and_column_reductions_are_general(cases):
    _, traced = cases
    vectors = [fused_source.plan(graph).kernels[0].vector_slots for fused, args, _, graph in traced
               if fused.__wrapped__ in (softmax, row_norms)]
    # (6, 300), (3, 256), (13, 512), (5, 200), (3, 512): x and the full output
    assert vectors == [(), (0, 1), (0, 1), (), (0, 2)]
    kinds = {fused.__wrapped__.__name__: [k.kind for k in fused_source.plan(graph).kernels]
             for fused, _, _, graph in traced}
    assert kinds["softmax"] == ["rows"] and kinds["logsumexp"] == ["rows"] and kinds["row_norms"] == ["rows"]
    assert kinds["leaky_softmax"] == kinds["vector_softmax"] == kinds["row_extremes"] == ["rows"]
    assert kinds["column_stats"] == ["reduce", "reduce", "reduce"]
    assert kinds["wide_columns"] == ["reduce", "reduce"]
    per_block = {fused.__wrapped__.__name__: [k.per_block for k in fused_source.plan(graph).kernels]
                 for fused, _, _, graph in traced}
    assert per_block["wide_columns"] == [256, 256]  # 1500 columns: a thread each
    assert per_block["column_stats"] == [64, 64, 64]  # 9 columns of 20: groups of 4 threads
    assert kinds["gelu"] == ["ew"] and kinds["mixed"] == ["ew"]  # two outputs of one shape: one kernel
    # the hardware exp only in a float32 logsumexp's sum of exp(x - max): nowhere else
    generated = {(fused.__wrapped__.__name__, graph.nodes[0].dtype.name):
                 fused_source.plan(graph).source.split("generated for one fused graph")[1]
                 for fused, _, _, graph in traced}
    assert "op_exp_sum()(" in generated[("logsumexp", "float32")]
    assert "op_exp_sum()(" not in generated[("logsumexp", "float64")]
    assert all("op_exp_sum()(" not in src for (name, _), src in generated.items() if name != "logsumexp")


@pytest.mark.parametrize("fn, shape", [
    (lambda x: cw.all(cw.isfinite(x)), (300, 100)),  # one output: one block would read them all
    (lambda x: cw.mean(x * 2.0, axis=0), (5000, 16)),  # a block per column, strided reads
    (lambda x: cw.sum(x + 1.0, axis=0), (5000, 2048)),  # a thread per column: 2048 threads
])
def test_long_reductions_into_few_outputs_run_replayed(fn, shape):
    """A reduction of more than BLOCK_REDUCE_MAX elements per output into too few outputs
    to fill a device gets no fused plan (it runs replayed, through the eager reductions):
    scikit-learn's checks and column means in lazy mode took 78 ms a call fused into one
    block on the H200. Below the bound, the same graphs are fused."""
    x = np.ones(shape, np.float32)
    assert fused_source.plan(cw.fuse(fn).graph_for(cw.asarray(x))) is None
    small = np.ones((16, shape[1]), np.float32)
    assert fused_source.plan(cw.fuse(fn).graph_for(cw.asarray(small))) is not None


def test_many_short_rows_of_two_shapes_fuse():
    """Row sums of two shapes (the KMeans-like loop's sum(X * X, axis=1) beside its centers'
    sum) take the general schedule: a group of threads per short row, several rows a block
    (a block per 256-element row took 335 us on the H200 against the eager kernels' ~160
    us, and such graphs ran replayed)."""
    def fn(x, c):
        return cw.sum(x * x, axis=1, keepdims=True) - cw.sum(c * c, axis=1)

    centers = cw.asarray(np.ones((8, 256), np.float32))
    big = cw.asarray(np.ones((1 << 16, 256), np.float32))
    plan = fused_source.plan(cw.fuse(fn).graph_for(big, centers))
    assert [(k.kind, k.per_block) for k in plan.kernels] == [("reduce", 256 // fused_reduce.MIN_GROUP),
                                                             ("reduce", 4), ("ew", 1)]


def test_float_arguments_reach_the_kernels_at_run_time(cases, monkeypatch, tmp_path):
    lib, traced = cases
    _, device = device_factory(lib, monkeypatch, tmp_path)()
    for fused, args, ulps, graph in traced:
        floats = [k for k, a in enumerate(args) if type(a) is float]
        if not floats:
            continue
        assert graph.params == len(floats)
        dev_args = [cw.asarray(a, device=device) if isinstance(a, np.ndarray) else a for a in args]
        cpu_args = [cw.asarray(a) if isinstance(a, np.ndarray) else a for a in args]
        before = fused.cache_info()["traces"]
        for delta in (0.0, 1.25, -3.5):
            dev_call = [a + delta if k in floats else a for k, a in enumerate(dev_args)]
            cpu_call = [a + delta if k in floats else a for k, a in enumerate(cpu_args)]
            got, want = fused(*dev_call), fused.__wrapped__(*cpu_call)
            got = got if isinstance(got, tuple) else (got,)
            want = want if isinstance(want, tuple) else (want,)
            for g, w in zip(got, want):
                _close(cw.to_numpy(g), cw.to_numpy(w), ulps)
        assert fused.cache_info()["traces"] == before + 1  # this device's signature, traced once


def _lazy_graph(fn, host):
    """The graph lazy mode runs for ``fn`` written eagerly (recorded on cpu, cut to the
    results wanted as ``fusion.lazy_run`` cuts it): its source does not depend on the device."""
    from candlewick.fusion import lazy_mode, lazy_policy, lazy_run, lazy_storage

    cut = []
    original = lazy_storage.compiled

    def spy(graph, wanted, *keys):
        cut.append(lazy_run._cut(graph, wanted)[0])
        return original(graph, wanted, *keys)

    # (cpu records only when asked; the module's fixture runs outside conftest's RECORD_BYTES 0
    # and SITE_RUNS 0: its one statement would otherwise learn, a trial running quiet)
    record_bytes, site_runs = lazy_policy.RECORD_BYTES, lazy_policy.SITE_RUNS
    lazy_storage.compiled, lazy_mode.RECORD_EVERYWHERE, lazy_policy.RECORD_BYTES = spy, True, 0
    lazy_policy.SITE_RUNS = 0
    try:
        with cw.lazy():
            result = fn(cw.asarray(host))  # (held: a result nothing holds is not computed)
    finally:
        lazy_storage.compiled, lazy_mode.RECORD_EVERYWHERE, lazy_policy.RECORD_BYTES = original, False, record_bytes
        lazy_policy.SITE_RUNS = site_runs
    assert len(cut) == 1 and result.shape == host.shape
    return cut[0]


def layer_norm(x):
    return (x - cw.mean(x, axis=-1, keepdims=True)) / cw.sqrt(cw.var(x, axis=-1, keepdims=True) + 1e-5)


@pytest.fixture(scope="module")
def lazy_cases(tmp_path_factory):
    rng = np.random.default_rng(4)
    cases = [(gelu, rng.standard_normal(1000).astype(np.float32)),
             (softmax, rng.standard_normal((6, 300)).astype(np.float32)),
             (layer_norm, rng.standard_normal((5, 70)).astype(np.float32))]
    entries, specs, plans = [], [], []
    for fn, host in cases:
        plan = fused_source.plan(_lazy_graph(fn, host))
        assert plan is not None
        entries.append(plan.source[len(fused_source.prelude()):])
        specs += [_Spec(k.spec.name) for k in plan.kernels]
        fused = fused_source.plan(cw.fuse(fn).graph_for(cw.asarray(host)))
        plans.append(([k.kind for k in plan.kernels], [k.kind for k in fused.kernels]))
    lib = build(tmp_path_factory.mktemp("lazy_host"), ["reduce.hip"], specs,
                extra_lines=[fused_source.HELPERS, *entries])
    return lib, cases, plans


def test_lazy_mode_runs_eager_code_as_the_generated_kernels(lazy_cases, monkeypatch, tmp_path):
    """Eager-written GELU, softmax and layer norm in ``cw.lazy()`` on the rocm backend: the
    kernels ``cw.fuse`` generates for them (GELU one element-wise kernel, softmax one rows
    kernel), the eager cpu results within a few ulps."""
    lib, cases, plans = lazy_cases
    _, device = device_factory(lib, monkeypatch, tmp_path)()
    assert [p[0] for p in plans[:2]] == [["ew"], ["rows"]]
    for (fn, host), (lazily, fused) in zip(cases, plans):
        assert lazily == fused, fn.__name__
        x = cw.asarray(host, device=device)
        with cw.lazy():
            got = fn(x)
        _close(cw.to_numpy(got), cw.to_numpy(fn(cw.asarray(host))), 8)
