"""``candlewick.fuse`` against the eager path, on every backend under test.

Hypothesis generates chains of element-wise operations (arrays of two shapes that
broadcast, Python scalars, mixed dtypes that promote) optionally ending in a reduction
whose result is broadcast back (the softmax pattern). The fused result must have the
eager result's dtype and shape, and its values bit for bit, except, on a device that
compiles the graph (``fusion`` capability), float sums and products (reassociated) and
transcendental functions (rounded by the device's math library inside another kernel):
those within tolerance.
"""

import numpy as np
import pytest
from hypothesis import given, settings

import candlewick as cw
from candlewick.errors import ArgumentTypeError, DeviceMismatchError, FusionTraceError
from _chains import EXAMPLES, build, chain_cases, reassociates, same


@settings(max_examples=EXAMPLES, deadline=None)
@given(case=chain_cases())
def test_fused_chains_equal_eager(device, case):
    program, x, y = case
    x, y = cw.asarray(x, device=device), cw.asarray(y, device=device)
    fn = build(program)
    try:
        want = fn(x, y)
    except Exception as exc:  # the eager path refuses it (a dtype outside an op's domain): so must fuse
        with pytest.raises(type(exc)):
            cw.fuse(fn)(x, y)
        return
    fused = cw.fuse(fn)
    got = fused(x, y)
    got, want = (got, want) if isinstance(got, tuple) else ((got,), (want,))
    for g, w in zip(got, want):
        assert g.device is device
        same(g, w, reassociates(device, program))
    again = fused(x, y)  # the cached signature gives the same result
    for g, w in zip(again if isinstance(again, tuple) else (again,), got):
        np.testing.assert_array_equal(cw.to_numpy(g), cw.to_numpy(w))
    assert fused.cache_info()["traces"] == 1


def softmax(x):
    e = cw.exp(x - cw.max(x, axis=-1, keepdims=True))
    return e / cw.sum(e, axis=-1, keepdims=True)


def logsumexp(x):
    m = cw.max(x, axis=-1)
    return m + cw.log(cw.sum(cw.exp(x - m[..., None]), axis=-1))


@pytest.mark.parametrize("fn", [softmax, logsumexp])
@pytest.mark.parametrize("shape", [(4, 9), (2, 3, 130), (1, 1)])
def test_softmax_and_logsumexp(device, fn, shape):
    x = cw.asarray(np.random.default_rng(2).standard_normal(shape).astype(np.float32), device=device)
    got, want = cw.fuse(fn)(x), fn(x)
    same(got, want, "fusion" in device.capabilities)


def test_traced_once_per_signature(device):
    calls = []

    @cw.fuse
    def f(x, k):
        calls.append(1)
        return x * k + 1

    x = cw.asarray([1.0, 2.0], device=device)
    for _ in range(3):
        f(x, 2)
    assert len(calls) == 1 and f.cache_info() == {"traces": 1, "hits": 2, "signatures": 1}
    f(cw.asarray([1.0, 2.0, 3.0], device=device), 2)  # new shape
    f(x, 3)  # int scalars are part of the signature by value
    f(x.astype(cw.float32), 2)  # new dtype
    f(x, True)  # new scalar type
    assert len(calls) == 5 and f.cache_info()["traces"] == 5
    np.testing.assert_array_equal(cw.to_numpy(f(x, 3)), [4.0, 7.0])


def test_float_arguments_used_as_operands_are_parameters(device):
    calls = []

    def body(x, scale, fill, lo):
        return cw.clip(cw.where(x > 0, x * scale, fill), lo, None)

    @cw.fuse
    def f(x, scale, fill, lo):
        calls.append(1)
        return body(x, scale, fill, lo)

    x = cw.asarray([-1.0, 0.5, 2.0], device=device)
    for scale, fill, lo in [(2.0, -3.0, -1.0), (0.5, 7.0, 0.0), (-1.0, 0.0, -0.0), (2.0, float("nan"), -1.0)]:
        got = f(x, scale, fill, lo)
        np.testing.assert_array_equal(cw.to_numpy(got), cw.to_numpy(body(x, scale, fill, lo)))
    assert len(calls) == 2  # the first signature traces twice (with probe values), then never
    assert f.cache_info() == {"traces": 1, "hits": 3, "signatures": 1}
    graph = f.graph_for(x, 1.0, 1.0, 1.0)
    assert graph.params == 3 and "Param" in repr([n.attrs for n in graph.nodes])


@pytest.mark.parametrize("body", [
    lambda x, a: x * (1.0 - a),  # Python arithmetic on the argument
    lambda x, a: x if a > 0 else -x,  # control flow on it
    lambda x, a: x * float(round(a)),
])
def test_float_arguments_used_in_python_stay_in_the_signature(device, body):
    f = cw.fuse(body)
    x = cw.asarray([1.0, -2.0], device=device)
    for a in (0.25, -0.5, 1.6):
        np.testing.assert_array_equal(cw.to_numpy(f(x, a)), cw.to_numpy(body(x, a)))
    assert f.cache_info()["signatures"] == 3 and f.graph_for(x, 0.25).params == 0


def test_scalar_promotion_and_views_as_eager(device):
    def f(i, x):
        return i + 0.5, (x.T * 2)[1:], cw.sum(x, axis=0, keepdims=True), x

    i = cw.asarray([1, 2, 3], dtype=cw.int16, device=device)
    x = cw.asarray(np.arange(12.0, dtype=np.float32).reshape(3, 4), device=device)
    for g, w in zip(cw.fuse(f)(i, x), f(i, x)):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(cw.to_numpy(g), cw.to_numpy(w))


def test_nested_fused_function_is_inlined(device):
    inner = cw.fuse(lambda v: v * 2)
    outer = cw.fuse(lambda v: inner(v) + 1)
    x = cw.asarray([1.0, 2.0], device=device)
    np.testing.assert_array_equal(cw.to_numpy(outer(x)), [3.0, 5.0])
    assert inner.cache_info()["traces"] == 0


def test_data_dependent_control_flow_names_fuse(device):
    @cw.fuse
    def f(x):
        if cw.sum(x) > 0:
            return x
        return -x

    with pytest.raises(FusionTraceError, match=r"candlewick\.fuse.*control flow"):
        f(cw.asarray([1.0], device=device))
    with pytest.raises(FusionTraceError, match=r"candlewick\.fuse"):
        cw.fuse(lambda x: float(x[0]) * x)(cw.asarray([1.0], device=device))


@pytest.mark.parametrize("body", [
    lambda x: cw.sort(x),
    lambda x: cw.argmax(x),
    lambda x: x @ x,
    lambda x: cw.cumulative_sum(x),
])
def test_untraceable_operations_name_fuse(device, body):
    with pytest.raises(FusionTraceError, match=r"candlewick\.fuse: .*cannot be traced"):
        cw.fuse(body)(cw.asarray([1.0, 2.0], device=device))


def test_bad_arguments_and_results(device):
    x = cw.asarray([1.0, 2.0], device=device)
    closed = cw.asarray([3.0, 4.0], device=device)
    with pytest.raises((FusionTraceError, DeviceMismatchError), match=r"candlewick\.fuse|traced by"):
        cw.fuse(lambda v: v + closed)(x)
    with pytest.raises(FusionTraceError, match="must return a candlewick array"):
        cw.fuse(lambda v: 3)(x)
    with pytest.raises(FusionTraceError, match="hashable static value"):
        cw.fuse(lambda v, opts: v)(x, [1, 2])
    with pytest.raises(FusionTraceError, match="at least one candlewick array"):
        cw.fuse(lambda v: v)(1.0)
    with pytest.raises(ArgumentTypeError, match=r"candlewick\.fuse: expected a function"):
        cw.fuse(3)


def test_same_array_twice_is_one_input(device):
    f = cw.fuse(lambda a, b: a * b - a)
    x = cw.asarray([1.5, -2.0], device=device)
    assert len(f.graph_for(x, x).inputs) == 1
    np.testing.assert_array_equal(cw.to_numpy(f(x, x)), cw.to_numpy(x * x - x))


def test_fused_method_binds_its_instance(device):
    class Scaler:
        def __init__(self, k):
            self.k = k

        @cw.fuse
        def apply(self, x):
            return x * self.k

    x = cw.asarray([1.0, 2.0], device=device)
    np.testing.assert_array_equal(cw.to_numpy(Scaler(2.0).apply(x)), [2.0, 4.0])
    np.testing.assert_array_equal(cw.to_numpy(Scaler(3.0).apply(x)), [3.0, 6.0])


@pytest.mark.parametrize("dtype", [cw.float32, cw.float64, cw.complex64])
def test_var_and_std_fuse(device, dtype):
    """var/std (one ``var`` primitive eagerly) are traced as the steps they are made of:
    a layer norm and a corrected variance match the eager results."""
    rng = np.random.default_rng(5)
    host = rng.standard_normal((6, 9)) * 3 + 1
    if dtype == cw.complex64:
        host = host + 1j * rng.standard_normal((6, 9))
    x = cw.asarray(host.astype(dtype.numpy), device=device)

    def norm(v):
        return (v - cw.mean(v, axis=-1, keepdims=True)) / cw.std(v, axis=-1, keepdims=True, correction=1)

    def spread(v):  # correction 9 > N = 6: NaN
        return cw.var(v, axis=0, correction=2.5), cw.var(v, axis=0, correction=9), cw.std(v) + 1

    for fn in (norm, spread):
        got, want = cw.fuse(fn)(x), fn(x)
        for g, w in zip(got, want) if isinstance(want, tuple) else ((got, want),):
            assert g.dtype == w.dtype and g.shape == w.shape
            np.testing.assert_allclose(cw.to_numpy(g), cw.to_numpy(w), rtol=1e-5, atol=1e-5, equal_nan=True)
