"""dask.array with candlewick chunks, computed on a dask.distributed LocalCluster of
several worker processes (started once for the module); results compared with NumPy.

Chunk-level work goes through candlewick's own functions: directly (operators,
``map_blocks``, ``blockwise``, ``reduction``) or through Dask's NumPy-named methods
(``x.sum()``, ``x.T``, ``da.sin``), whose NumPy calls candlewick's ``__array_function__`` /
``__array_ufunc__`` route to candlewick. Dask joins chunks through the dispatch entries of
``candlewick.dask_dispatch`` (preloaded in every worker)."""

import os
import sys

import numpy as np
import pytest

pytest.importorskip("dask.array")
pytest.importorskip("distributed")

import dask.array as da  # noqa: E402
from distributed import Client, LocalCluster  # noqa: E402

import candlewick as cw  # noqa: E402
import candlewick.dask_dispatch  # noqa: E402,F401  (the client joins chunks too)

pytestmark = pytest.mark.ecosystem("dask")

_RNG = np.random.default_rng(2)
A = _RNG.uniform(-1.0, 1.0, (12, 10))
B = _RNG.uniform(-1.0, 1.0, (10, 8))


@pytest.fixture(scope="module")
def client():
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                      preload=["candlewick.dask_dispatch"], memory_limit="1GiB") as cluster:
        with Client(cluster) as connected:
            yield connected


def _chunked(data, device, chunks):
    # Dask keeps the chunks as they are (no np.asarray) for an array with __array_function__
    return da.from_array(cw.asarray(data, device=device), chunks=chunks)


def _meta(device, ndim):
    return cw.zeros((0,) * ndim, device=device)


def _blockwise_matmul(x, y, device):
    # contraction over j: blockwise joins the j-blocks (candlewick concat) and multiplies
    return da.blockwise(cw.matmul, "ik", x, "ij", y, "jk", dtype=x.dtype, concatenate=True,
                        meta=_meta(device, 2))


CASES = {
    "from_array": (lambda a, b, dev: a, lambda a, b: a),
    "elementwise_operators": (lambda a, b, dev: (a * 2.0 + 1.0) / (abs(a) + 1.0),
                              lambda a, b: (a * 2.0 + 1.0) / (abs(a) + 1.0)),
    "map_blocks": (lambda a, b, dev: a.map_blocks(cw.sin, meta=_meta(dev, 2)), lambda a, b: np.sin(a)),
    "reduction_sum": (lambda a, b, dev: da.reduction(a, cw.sum, cw.sum, axis=0, dtype=a.dtype,
                                                     meta=_meta(dev, 1)),
                      lambda a, b: a.sum(axis=0)),
    "reduction_max": (lambda a, b, dev: da.reduction(a, cw.max, cw.max, axis=1, dtype=a.dtype,
                                                     meta=_meta(dev, 1)),
                      lambda a, b: a.max(axis=1)),
    "matmul_blockwise": (lambda a, b, dev: _blockwise_matmul(a, b, dev), lambda a, b: a @ b),
    "rechunk": (lambda a, b, dev: a.rechunk((3, 10)), lambda a, b: a),
}

# Dask's own methods call NumPy functions on the chunks (chunk.sum = np.sum, np.sin,
# np.transpose, ...); candlewick's __array_function__/__array_ufunc__ run its own there
BUILTIN = {
    "method_sum": (lambda a, b, dev: a.sum(axis=0), lambda a, b: a.sum(axis=0)),
    "method_max": (lambda a, b, dev: a.max(), lambda a, b: a.max()),
    "da_sin": (lambda a, b, dev: da.sin(a), lambda a, b: np.sin(a)),
    "da_exp_add": (lambda a, b, dev: da.exp(a) + da.add(a, 1.0), lambda a, b: np.exp(a) + a + 1.0),
    "transpose": (lambda a, b, dev: a.T, lambda a, b: a.T),
    "slice": (lambda a, b, dev: a[2:9, ::3], lambda a, b: a[2:9, ::3]),
    "tensordot": (lambda a, b, dev: da.tensordot(a, b, axes=1), lambda a, b: a @ b),
    # NumPy's methods on the chunks (chunk.sum(...), chunk.squeeze(axis)) and NEP 35's
    # like= (np.asarray(..., like=chunk) in the arg reductions)
    "method_mean": (lambda a, b, dev: a.mean(axis=1), lambda a, b: a.mean(axis=1)),
    "operator_matmul": (lambda a, b, dev: a @ b, lambda a, b: a @ b),
    "method_argmax": (lambda a, b, dev: a.argmax(), lambda a, b: a.argmax()),
    "method_argmin_axis": (lambda a, b, dev: a.argmin(axis=0), lambda a, b: a.argmin(axis=0)),
    "method_std": (lambda a, b, dev: a.std(axis=0, ddof=1), lambda a, b: a.std(axis=0, ddof=1)),
    "method_var": (lambda a, b, dev: a.var(), lambda a, b: a.var()),
    "cumsum": (lambda a, b, dev: da.cumsum(a, axis=1), lambda a, b: np.cumsum(a, axis=1)),
    "nanmax": (lambda a, b, dev: da.nanmax(a, axis=0), lambda a, b: np.nanmax(a, axis=0)),
    "nanmean": (lambda a, b, dev: da.nanmean(a), lambda a, b: np.nanmean(a)),
    "median_axis": (lambda a, b, dev: da.median(a, axis=1), lambda a, b: np.median(a, axis=1)),
    "einsum": (lambda a, b, dev: da.einsum("ij,jk->ik", a, b), lambda a, b: np.einsum("ij,jk->ik", a, b)),
    "pad": (lambda a, b, dev: da.pad(a, 2, mode="reflect"), lambda a, b: np.pad(a, 2, mode="reflect")),
}
def _compute_and_check(client, build, reference, device, matches_numpy):
    a, b = _chunked(A, device, (4, 5)), _chunked(B, device, (5, 4))
    result = client.compute(build(a, b, device)).result()
    matches_numpy(result, reference(A, B), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("case", list(CASES))
def test_dask(case, client, device, matches_numpy):
    build, reference = CASES[case]
    _compute_and_check(client, build, reference, device, matches_numpy)


@pytest.mark.parametrize("case", list(BUILTIN))
def test_dask_numpy_named(case, client, device, matches_numpy):
    build, reference = BUILTIN[case]
    _compute_and_check(client, build, reference, device, matches_numpy)


def _worker_state():
    return os.getpid(), "candlewick.dask_dispatch" in sys.modules


def test_runs_on_several_worker_processes(client):
    states = client.run(_worker_state)
    pids = {pid for pid, _ in states.values()}
    assert len(states) == 2 and len(pids) == 2 and os.getpid() not in pids
    assert all(preloaded for _, preloaded in states.values())
