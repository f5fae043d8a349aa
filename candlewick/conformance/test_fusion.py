"""The optional "fusion" group: ``device.compile_fused(graph)`` against the replay of the
same graph (the eager primitive calls). Exact element-wise graphs (arithmetic,
comparisons, where, max) must give the replay's bits (the fused kernels apply each op
as its primitive does and round to the node's dtype after each); transcendental
functions and sums (reassociated) within tolerance."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import candlewick as cw
from candlewick import dtypes as dt
from candlewick.fusion.replay import replay

from .checks import assert_bitwise_equal, read_result, require_capability
from .strategies import dtype_params

FLOATING = dtype_params((dt.float16, dt.bfloat16, dt.float32, dt.float64))


@pytest.fixture(scope="session")
def fusion_device(device):
    require_capability(device, "fusion")
    return device


def _gelu(x):
    return 0.5 * x * (1.0 + cw.tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))


def _leaky_max(x):  # a comparison with a scalar, where, a max broadcast back
    y = cw.where(x > 0, x, x * 0.25)
    return y - cw.max(y, axis=-1, keepdims=True)


def _softmax(x):
    e = cw.exp(x - cw.max(x, axis=-1, keepdims=True))
    return e / cw.sum(e, axis=-1, keepdims=True)


def _column_mean(x):
    return cw.mean(cw.abs(x), axis=0)


# gelu holds tanh: a transcendental function may round differently inside a fused kernel
# (measured: 1-2 ulps on a few elements on an H100), so only exact chains compare bitwise
GRAPHS = {"gelu": (_gelu, False), "leaky_max": (_leaky_max, True), "softmax": (_softmax, False),
          "column_mean": (_column_mean, False)}


# one shape per graph and dtype: each new shape is a kernel compile on the device
SHAPE = (5, 300)


@settings(max_examples=5, deadline=None)
@given(seed=st.integers(0, 2**16))
@pytest.mark.parametrize("dtype", FLOATING)
@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_compile_fused(fusion_device, name, dtype, seed):
    fn, exact = GRAPHS[name]
    shape = SHAPE
    host = (np.random.default_rng(seed).standard_normal(shape) * 3).astype(dtype.numpy)
    x = cw.asarray(host, device=fusion_device)
    graph = cw.fuse(fn).graph_for(x)
    run = fusion_device.compile_fused(graph)
    if run is None:  # the device replays graphs it does not compile: nothing to compare
        return
    (got,), (want,) = run([x._storage]), replay(graph, [x._storage])
    index, _ = graph.outputs[0]
    node = graph.nodes[index]
    got, want = read_result(got, node.dtype, node.shape), read_result(want, node.dtype, node.shape)
    if exact:
        assert_bitwise_equal(got, want)
    else:
        wide = want.astype(np.float64)
        eps = float(np.finfo(np.float32 if dtype in (dt.float16, dt.bfloat16) else dtype.numpy).eps)
        tol = 4 * eps * shape[0 if name == "column_mean" else -1] * np.abs(host.astype(np.float64)).max() + \
            8 * float(np.finfo(dtype.numpy if dtype is not dt.bfloat16 else np.float32).eps) * np.abs(wide)
        if dtype is dt.bfloat16:
            tol = tol + 2 ** -7 * np.abs(wide)
        np.testing.assert_array_less(np.abs(got.astype(np.float64) - wide), tol + 1e-300)
