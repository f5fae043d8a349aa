"""Lazy mode against ``cw.fuse`` for the functions bench/fusion.py times (GELU-tanh,
row softmax, row logsumexp, written eagerly), on the fake HIP runtime: the rocm
backend's own fusion path, no device. A call in lazy mode must reach the runtime exactly
as a call of the decorated function does: the same generated kernels (their names are
the hash of their source), launched with the same geometry, and nothing else: no
allocation beyond the result's, no memory query, no synchronization. What is left to
lazy mode is the recording on the host (timed by bench/fusion.py)."""

import importlib.util
import pathlib

import numpy as np
import pytest

import candlewick as cw
from candlewick import allocation
from candlewick.fusion import lazy_run, lazy_storage
from rocm_backend.codegen import fused_source

_BENCH = pathlib.Path(__file__).resolve().parents[3] / "bench"
_spec = importlib.util.spec_from_file_location("bench_fusion", _BENCH / "fusion.py")
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)

CASES = {"gelu": (bench.gelu, (1 << 12,)), "softmax": (bench.softmax, (64, 96)),
         "logsumexp": (bench.logsumexp, (64, 96))}


@pytest.fixture
def queried(monkeypatch):
    """Every result size checked against the device's free memory (the benchmarks'
    256 MiB operands are past the bound; these small ones are not)."""
    monkeypatch.setattr(allocation, "QUERY_ABOVE_BYTES", 0)


def _one_call(runtime, device, fn, x):
    """(runtime calls, launches, allocations) of one call of ``fn(x)``, after two calls
    that compile and fill the caches; the result is let go as the benchmark lets it go."""
    fn(x)
    fn(x)
    runtime.calls.clear()
    runtime.launches.clear()
    before = device.allocator.stats()["allocations"]
    result = fn(x)
    allocations = device.allocator.stats()["allocations"] - before
    del result
    return dict(runtime.calls), list(runtime.launches), allocations


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_lazy_call_reaches_the_runtime_as_the_fused_call(fake, queried, case):
    runtime, device = fake
    fn, shape = CASES[case]
    x = cw.asarray(np.random.default_rng(0).standard_normal(shape).astype(np.float32), device=device)
    fused = _one_call(runtime, device, cw.fuse(lambda a: fn(cw, a)), x)
    lazily = _one_call(runtime, device, bench.lazily(fn), x)
    assert lazily == fused
    calls, launches, allocations = fused
    assert calls == {"hipModuleLaunchKernel": 1} and allocations == 1  # one kernel writes the one result
    assert launches[0][0].startswith(b"fz")  # a generated kernel, not an eager one


@pytest.mark.parametrize("case", sorted(CASES))
def test_lazy_mode_compiles_the_graph_fuse_traces(fake, monkeypatch, case):
    """The graph lazy mode runs (cut to the result wanted) is the fused function's, node for
    node, so the generated source is the same; and the key lazy mode builds call by call is
    the one its graph gives when walked at the end."""
    _, device = fake
    fn, shape = CASES[case]
    x = cw.asarray(np.zeros(shape, np.float32), device=device)
    seen = []
    original = lazy_storage.compiled

    def spy(graph, wanted, node_keys):
        assert node_keys == [lazy_run.node_key(n) for n in graph.nodes]
        seen.append(lazy_run._cut(graph, wanted)[0])
        return original(graph, wanted, node_keys)

    monkeypatch.setattr(lazy_storage, "compiled", spy)
    bench.lazily(fn)(x)
    traced = cw.fuse(lambda a: fn(cw, a)).graph_for(x)
    assert len(seen) == 1 and seen[0].describe() == traced.describe()
    assert fused_source.plan(seen[0]).source == fused_source.plan(traced).source

