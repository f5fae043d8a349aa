"""The shim's MIOpen forward convolution on cuDNN's graph (backend) API
(tools/hip_on_cuda/src/miopen_graph*.c): Find caches an execution plan, Forward
runs it; HIP_ON_CUDA_CONV_API=legacy (read by each Find) keeps a problem on the
legacy cuDNN calls.  ``miopenOnCudaConvStats`` (not MIOpen API) counts which path
ran.  GPU only: without one the ``hip`` fixture skips, as for the other shim tests.
"""

import ctypes as C

import numpy as np
import pytest

from .conftest import ok
from .test_hip_on_cuda_libs import MI, ConvProblem, from_device, random, ref_conv, rel_err

pytestmark = pytest.mark.gpu

CONV_API = "HIP_ON_CUDA_CONV_API"


@pytest.fixture
def gmi(miopen, hip):
    if not hasattr(miopen, "miopenOnCudaConvStats"):
        pytest.fail("libMIOpen.so lacks miopenOnCudaConvStats: not this shim's build")
    miopen.miopenOnCudaConvStats.argtypes = [C.POINTER(C.c_longlong)] * 3
    miopen.miopenOnCudaConvStats.restype = C.c_int
    m = MI(miopen, hip)
    yield m
    m.close()  # miopenDestroy also destroys the handle's cached plans


def stats(lib):
    """(backend usable, graph runs, legacy runs, graph finds)."""
    g, lg, f = C.c_longlong(), C.c_longlong(), C.c_longlong()
    rc = lib.miopenOnCudaConvStats(C.byref(g), C.byref(lg), C.byref(f))
    return rc == 0, g.value, lg.value, f.value


def conv(mi, hip, x, w, pad, stride, dil, groups, mtype, forwards=2):
    """Find, then ``forwards`` Forwards (the last into a fresh output buffer, so a new
    variant pack); returns every output and the stats deltas (graph, legacy, finds)."""
    lib = mi.lib
    prob = ConvProblem(mi, hip, x, w, pad, stride, dil, groups, mtype, 0 if groups == 1 else 2)
    nbytes = int(np.prod(prob.shape)) * x.dtype.itemsize
    ys = [ok(hip.hipMalloc(nbytes)) for _ in range(2)]
    before = stats(lib)
    best = prob.find(ys[0])
    assert best.memory <= prob.ws_size
    outs = []
    for i in range(forwards):
        y = ys[1] if i == forwards - 1 and i > 0 else ys[0]
        ok(hip.hipMemset(y, 0, nbytes))
        prob.forward(y, best.fwd_algo, best.memory)
        outs.append(from_device(hip, y, prob.shape, x.dtype))
    after = stats(lib)
    for y in ys:
        ok(hip.hipFree(y))
    prob.close()
    usable = after[0]
    return outs, usable, tuple(a - b for a, b in zip(after[1:], before[1:]))


# dtype, MIOpen type, tolerance against float64; x shape, w shape, pad, stride, dilation, groups
CASES = [
    (np.float32, 1, 1e-5, (2, 4, 12, 10), (6, 4, 3, 3), (1, 1), (1, 1), (1, 1), 1),
    (np.float32, 1, 1e-5, (2, 4, 9, 11), (6, 2, 3, 3), (1, 1), (2, 2), (1, 1), 2),
    (np.float32, 1, 1e-5, (2, 3, 50), (5, 3, 4), (2,), (1,), (2,), 1),
    (np.float16, 0, 1e-2, (2, 8, 12, 10), (8, 8, 3, 3), (1, 1), (1, 1), (1, 1), 1),
    (np.float16, 0, 1e-2, (2, 8, 9, 11), (8, 4, 3, 3), (1, 1), (2, 2), (1, 1), 2),
]


@pytest.mark.parametrize("dtype,mtype,tol,xs,ws,pad,stride,dil,groups", CASES,
                         ids=["f32", "f32-groups2-stride2", "f32-conv1d-dilated", "f16",
                              "f16-groups2-stride2"])
def test_graph_path_runs_and_matches_legacy(gmi, hip, monkeypatch, dtype, mtype, tol, xs, ws,
                                            pad, stride, dil, groups):
    x, w = random(xs, dtype), random(ws, dtype)
    ref = ref_conv(x, w, pad, stride, dil, groups)

    monkeypatch.setenv(CONV_API, "legacy")
    legacy, _, (g_runs, l_runs, finds) = conv(gmi, hip, x, w, pad, stride, dil, groups, mtype)
    assert (g_runs, l_runs, finds) == (0, 2, 0), "legacy mode ran the graph path"

    monkeypatch.delenv(CONV_API)
    graph, usable, (g_runs, l_runs, finds) = conv(gmi, hip, x, w, pad, stride, dil, groups, mtype)
    assert usable, "cuDNN's backend API is not usable (HIP_ON_CUDA_DEBUG=1 says why)"
    assert (g_runs, l_runs, finds) == (2, 0, 1), \
        f"graph path did not run: graph {g_runs} legacy {l_runs} finds {finds} " \
        "(HIP_ON_CUDA_DEBUG=1 prints the failing cuDNN call)"

    monkeypatch.setenv(CONV_API, "legacy")  # a legacy Find drops the problem's cached plan
    again, _, (g_runs, l_runs, finds) = conv(gmi, hip, x, w, pad, stride, dil, groups, mtype)
    assert (g_runs, l_runs, finds) == (0, 2, 0), "legacy Find left the graph plan in use"

    for out in legacy + graph + again:
        assert out.shape == ref.shape and rel_err(out, ref) < tol
    assert rel_err(graph[0], legacy[0]) < tol
    np.testing.assert_array_equal(graph[0], graph[1])  # same plan, new variant pack


@pytest.mark.parametrize("dtype,mtype,tol", [(np.float64, 6, 1e-12), (np.float32, 1, 1e-5)],
                         ids=["f64", "f32"])
def test_other_problems_are_right_on_either_path(gmi, hip, dtype, mtype, tol):
    """f64 and a 3-D convolution: the graph path or, where cuDNN's engines decline
    it, the legacy one; either way the numbers are right."""
    x, w = random((1, 4, 6, 7, 5), dtype), random((4, 2, 3, 3, 2), dtype)
    pad, stride = (1, 1, 0), (1, 2, 1)
    dil = (1, 1, 2) if dtype == np.float32 else (1, 1, 1)
    outs, _, (g_runs, l_runs, _) = conv(gmi, hip, x, w, pad, stride, dil, 2, mtype)
    assert g_runs + l_runs == 2
    ref = ref_conv(x, w, pad, stride, dil, 2)
    for out in outs:
        assert out.shape == ref.shape and rel_err(out, ref) < tol
