"""The general schedule's reductions (codegen/fused_reduce.py): a group of G threads per
output, G from 1 (a thread per output) to the block (a block per output), run on the CPU
through host_exec.py's harness (test_fused_host.py's docstring), against the eager cpu
results: bit for bit for exact reductions (integers, max, any), within a reassociated
sum's rounding for floating sums and products."""

import numpy as np
import pytest

import candlewick as cw
from host_exec import build, device_factory
from rocm_backend.codegen import fused_general, fused_reduce, fused_source

ROW_LENGTHS = (1, 3, 31, 32, 33, 256, 1000)
#: TUNING forced on every case: groups of a thread, part of a warp, a warp of 32 (half of
#: one of 64), two warps of 32, the block, and from the shape (0); 16-byte loads on and off
SETTINGS = [{"group": g, "vector": v} for g, v in ((0, 1), (0, 0), (1, 1), (8, 1), (8, 0), (32, 1), (64, 1),
                                                   (256, 1))]
#: (setting, warp width) run: warps of 64 where a group spans warps of 32
RUNS = [(k, 32) for k in range(len(SETTINGS))] + [(k, 64) for k, s in enumerate(SETTINGS) if s["group"] in (0, 64, 256)]


def row_sums(x):  # the KMeans-like loop's first reduction
    return cw.sum(x * x, axis=1)


def kmeans_first(x, y, c):  # its first graph: x2 - 2.0 * (X @ C.T) + sum(c * c, axis=1)
    return cw.sum(x * x, axis=1, keepdims=True) - y + cw.sum(c * c, axis=1)


def strided_sums(x):  # every other column of rows that start at odd columns
    return cw.sum(x[:, 1::2] + 1.0, axis=1)


def transposed_max(x):  # rows read down columns of the operand
    return cw.max(x.T * 3, axis=1)


def offset_rows(x):  # rows that start 4 elements in (whole vectors) and 1 element in (not)
    return cw.sum(x[:, 4:], axis=1), cw.max(x[:, 1:33], axis=1)


def middle_axis(x):  # a kept axis innermost: a thread per output when there are many
    return cw.sum(x, axis=1), cw.prod(x[:, :2, :] + 0.5, axis=1)


def two_axes(x):
    return cw.sum(cw.abs(x), axis=(0, 2))


def any_positive(x):
    return cw.any(x > 0.75, axis=1), cw.all(x > -0.9, axis=-1)


def int_reductions(x):  # wrapping sums and products: exact in any order
    return cw.sum(x, axis=1), cw.prod(x, axis=1), cw.max(x * 3, axis=1), cw.min(x, axis=1)


def half_sums(h):  # float16 summed in float32 (the eager accumulator), rounded once
    return cw.sum(h * 2, axis=-1), cw.max(h, axis=-1)


def _cases(rng):
    """(function, host args, ulps; 0 = bit for bit)."""
    f32 = lambda *s: rng.standard_normal(s).astype(np.float32)  # noqa: E731
    out = []
    for n in ROW_LENGTHS:
        rows = 3 if n >= 256 else 70  # few outputs of long rows, many of short ones
        out += [(row_sums, (f32(rows, n),), 64), (row_sums, (f32(2, n),), 64),
                (strided_sums, (f32(5, 2 * n + 1),), 64), (transposed_max, (f32(n, 9),), 0),
                (any_positive, (f32(7, n),), 0),
                (int_reductions, (rng.integers(-3, 4, (6, n)).astype(np.int32),), 0),
                (half_sums, (rng.standard_normal((4, n)).astype(np.float16),), 16)]
    out += [(kmeans_first, (f32(40, 256), f32(40, 8), f32(8, 256)), 64),
            (offset_rows, (f32(6, 36),), 64), (offset_rows, (f32(5, 36).astype(np.float64),), 64),
            (middle_axis, (f32(3, 33, 40).astype(np.float64),), 64),
            (middle_axis, (f32(2, 5, 1030).astype(np.float64),), 64),  # 1030 outputs: a thread each
            (two_axes, (f32(3, 5, 7),), 64),
            (int_reductions, (rng.integers(-2, 3, (40, 33)).astype(np.int64),), 0),
            (int_reductions, (rng.integers(-2, 3, (9, 31)).astype(np.int8),), 0)]
    return out


class _Spec:
    def __init__(self, name):
        self.name, self.abi, self.body = name, "cw_fused_args", f"{name}(a);"


def _no_rows(graph, outputs):
    """``fused_source.rows_shapes`` answering that no graph fits the rows schedule (a row
    sum alone would take it): every case runs the general schedule's reductions."""
    return None


def _graph(fn, args):
    return cw.fuse(fn).graph_for(*[cw.asarray(a) for a in args])


@pytest.fixture(scope="module")
def groups(tmp_path_factory):
    """(library of every case's kernels under every forced group, the cases)."""
    cases = _cases(np.random.default_rng(7))
    entries, specs, modules = [], [], set()
    saved, rows_shapes = dict(fused_reduce.TUNING), fused_source.rows_shapes
    fused_source.rows_shapes = _no_rows
    try:
        for setting in SETTINGS:
            fused_reduce.TUNING.update(setting)
            for fn, args, _ in cases:
                plan = fused_source.plan(_graph(fn, args))
                assert plan is not None
                if plan.module not in modules:  # (groups of one size make one source)
                    modules.add(plan.module)
                    entries.append(plan.source[len(fused_source.prelude()):])
                    specs += [_Spec(k.spec.name) for k in plan.kernels]
    finally:
        fused_reduce.TUNING.update(saved)
        fused_source.rows_shapes = rows_shapes
    lib = build(tmp_path_factory.mktemp("fused_groups"), ["reduce.hip"], specs,
                extra_lines=[fused_source.HELPERS, *entries])
    return lib, cases


def _close(got, want, ulps):
    assert got.dtype == want.dtype and got.shape == want.shape
    if ulps == 0:
        assert np.array_equal(got, want, equal_nan=True)
    else:
        eps = float(np.finfo(want.dtype).eps)
        scale = max(1.0, float(np.max(np.abs(want)))) if want.size else 1.0
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=ulps * eps,
                                   atol=ulps * eps * scale)


@pytest.mark.parametrize("setting, warp", RUNS)
def test_grouped_reductions_match_the_eager_cpu_results(groups, monkeypatch, tmp_path, setting, warp):
    lib, cases = groups
    _, device = device_factory(lib, monkeypatch, tmp_path)(warp=warp)
    for key, value in SETTINGS[setting].items():
        monkeypatch.setitem(fused_reduce.TUNING, key, value)
    monkeypatch.setattr(fused_source, "rows_shapes", _no_rows)
    for fn, args, ulps in cases:
        got = cw.fuse(fn)(*[cw.asarray(a, device=device) for a in args])  # (a new trace: this group's kernels)
        want = fn(*[cw.asarray(a) for a in args])
        got = got if isinstance(got, tuple) else (got,)
        want = want if isinstance(want, tuple) else (want,)
        for g, w in zip(got, want):
            _close(cw.to_numpy(g), cw.to_numpy(w), ulps)


def _group(shape, axes):
    graph = _graph(lambda x: cw.sum(x, axis=axes), [np.ones(shape, np.float32)])
    layout = graph.nodes[-1].operands[0][1]
    n_red = int(np.prod([shape[a] for a in axes]))
    return fused_reduce.group_size(layout, axes, int(np.prod(shape)) // n_red, n_red)


def test_groups_from_the_shape():
    """Short rows of many outputs: groups of MIN_GROUP threads (the KMeans-like loop's
    sum(X * X, axis=1), 200 000 x 256, whose first graph used to run replayed: a block per
    256-element row was slower than the eager multiply and row sum); few outputs: groups
    as wide as fill the device, up to a block; a kept axis innermost: a thread per output;
    rows shorter than MIN_PER_THREAD x MIN_GROUP: narrower groups, down to a thread."""
    graph = _graph(kmeans_first, [np.ones(s, np.float32) for s in ((200_000, 256), (200_000, 8), (8, 256))])
    plan = fused_source.plan(graph)
    # the centers' 8 rows: 64 threads each; the element-wise (200 000, 8) output
    assert [(k.kind, k.n, k.per_block) for k in plan.kernels] == [("reduce", 200_000, 32), ("reduce", 8, 4),
                                                                  ("ew", 1_600_000, 1)]
    # 16-byte loads of x (slot 1) where the buffer is aligned, checked per call
    assert [(k.vector_slots, k.vector_bytes) for k in plan.kernels[:2]] == [((1,), 16), ((1,), 16)]
    def general(fn, shape):  # the general schedule's kernels (a row sum alone takes the rows schedule)
        graph = _graph(fn, [np.ones(shape, np.float32)])
        return fused_general.general(graph, [i for i, _ in graph.outputs], lambda k: f"k{k}", "")[0]

    # a row 4 elements in: whole vectors; 1 element in, a strided row, a column: scalar loads
    assert [k.vector_slots for k in general(offset_rows, (6, 36))] == [(1,), ()]
    assert [k.vector_slots for k in general(strided_sums, (6, 36))] == [()]
    assert [k.vector_slots for k in general(middle_axis, (3, 4, 8))] == [(), ()]
    assert _group((200_000, 256), (1,)) == _group((1_000_000, 32), (1,)) == _group((50_000, 1000), (1,)) == 8
    assert _group((100_000, 12), (1,)) == 2 and _group((100_000, 1), (1,)) == 1
    assert _group((16, 4000), (1,)) == 256  # a block per row
    assert _group((2048, 1000), (1,)) == 128
    assert _group((300, 2048), (0,)) == 1  # a kept axis innermost, outputs enough: a thread each
    assert _group((300, 64), (0,)) == 64  # too few outputs for a thread each
    assert _group((3, 40, 50), (0, 2)) == 32
    layout = next(n for n in graph.nodes if n.kind == "reduce").operands[0][1]
    assert fused_reduce.group_size(layout, (1,), 4, 4, {"group": 48, "unroll": 4}) == 32  # forced: a power of two


def test_a_lone_reduction_of_short_rows_takes_the_general_schedule():
    """sum(x * x, axis=1) alone fits the rows schedule (a block per row); with rows shorter
    than LONE_ROW_MAX it is the general schedule's one kernel (groups of 8 threads, 32 rows
    a block: 50 us against 124 on the H200 at 200 000 x 256). Longer rows, a full-shape
    output or a second reduction keep the rows schedule."""
    kinds = lambda fn, shape: [(k.kind, k.per_block) for k in fused_source.plan(  # noqa: E731
        _graph(fn, [np.ones(shape, np.float32)])).kernels]
    assert kinds(row_sums, (200_000, 256)) == [("reduce", 32)]
    assert kinds(lambda x: cw.max(x, axis=-1, keepdims=True), (3, 40, 32)) == [("reduce", 32)]
    assert kinds(row_sums, (100, fused_source.LONE_ROW_MAX)) == [("rows", 1)]
    assert kinds(lambda x: x / cw.sum(x, axis=1, keepdims=True), (1000, 256)) == [("rows", 1)]
    assert kinds(lambda x: cw.sum(x - cw.max(x, axis=1, keepdims=True), axis=1), (1000, 256)) == [("rows", 1)]


def test_the_tuning_parses_and_warns():
    assert fused_reduce.parse_tuning("group=256, vector=0") == {"group": 256, "unroll": 4, "vector": 0}
    with pytest.warns(UserWarning, match=fused_reduce.ENV):
        assert fused_reduce.parse_tuning("groups=4,unroll=x") == fused_reduce.DEFAULT_TUNING
