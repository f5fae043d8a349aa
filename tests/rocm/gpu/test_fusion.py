"""``candlewick.fuse`` on the rocm device: generated kernels against the eager rocm path.

Exact chains (arithmetic, comparisons, where, max, sqrt, float16 rounding) must equal the
eager results bit for bit; chains with transcendental functions (GELU's tanh) within a
few ulps (the H100 run of 06:40 UTC found 1-2 ulps on a few elements: the same functor
may round differently inside a fused kernel); sums are reassociated by the fused
reductions and compared within the suite's tolerance.
"""

import numpy as np
import pytest

import candlewick as cw
from rocm_backend import kernels


def gelu(x):
    return 0.5 * x * (1.0 + cw.tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))


def softmax(x):
    e = cw.exp(x - cw.max(x, axis=-1, keepdims=True))
    return e / cw.sum(e, axis=-1, keepdims=True)


def logsumexp(x):
    m = cw.max(x, axis=-1)
    return m + cw.log(cw.sum(cw.exp(x - m[..., None]), axis=-1))


def exact_chain(x, y):
    z = cw.where(x > 2, x * 3, y - 1)
    return cw.clip(z, -5, 40).astype(cw.float32) + (y < 0), cw.max(cw.maximum(x, 3) // 2, axis=0)


def half_chain(h):
    return cw.sqrt(h * h + 1.5) - h / 3


def _pair(rocm, host):
    return cw.asarray(host, device=rocm), cw.asarray(host, device=rocm)


@pytest.mark.parametrize("n", [1, 7, 1000, 4099, 1 << 20])
def test_elementwise_chain_matches_eager(rocm, n):
    x = cw.asarray(np.random.default_rng(n).standard_normal(n).astype(np.float32), device=rocm)
    fused = cw.fuse(gelu)
    eps = float(np.finfo(np.float32).eps)
    np.testing.assert_allclose(cw.to_numpy(fused(x)), cw.to_numpy(gelu(x)), rtol=4 * eps, atol=4 * eps)
    # a misaligned view takes the scalar path
    np.testing.assert_allclose(cw.to_numpy(fused(x[1:])), cw.to_numpy(gelu(x[1:])), rtol=4 * eps, atol=4 * eps)


def test_exact_chains_equal_eager_bitwise(rocm):
    rng = np.random.default_rng(5)
    x = cw.asarray(rng.integers(-5, 9, (64, 33)).astype(np.int16), device=rocm)
    y = cw.asarray(rng.integers(-5, 9, (33,)).astype(np.int32), device=rocm)
    for got, want in zip(cw.fuse(exact_chain)(x, y), exact_chain(x, y)):
        np.testing.assert_array_equal(cw.to_numpy(got), cw.to_numpy(want))
    h = cw.asarray(rng.standard_normal(3001).astype(np.float16), device=rocm)
    np.testing.assert_array_equal(cw.to_numpy(cw.fuse(half_chain)(h)), cw.to_numpy(half_chain(h)))


# (4096, 1024): more rows than the device holds blocks at once
@pytest.mark.parametrize("shape", [(3, 5), (64, 1000), (256, 8192), (4096, 1024), (2, 3, 16384), (4, 20000)])
def test_softmax_and_logsumexp_match_eager(rocm, shape):
    x = cw.asarray(np.random.default_rng(1).standard_normal(shape).astype(np.float32) * 4, device=rocm)
    for fn in (softmax, logsumexp):
        got, want = cw.to_numpy(cw.fuse(fn)(x)), cw.to_numpy(fn(x))
        np.testing.assert_allclose(got, want, rtol=1e-5 * np.log2(shape[-1]), atol=1e-6)


def test_traced_once_and_compiled_once_per_signature(rocm):
    fused = cw.fuse(softmax)
    x = cw.asarray(np.ones((8, 128), np.float32), device=rocm)
    fused(x)
    before = dict(kernels.stats)
    for _ in range(3):
        fused(x)
    assert fused.cache_info()["traces"] == 1 and fused.cache_info()["hits"] == 3
    assert kernels.stats["compiled"] == before["compiled"] and kernels.stats["disk_hits"] == before["disk_hits"]


def test_rocm_declares_fusion(rocm):
    assert "fusion" in rocm.capabilities


@pytest.mark.parametrize("norm", ["backward", "ortho", "forward"])
def test_lazy_irfft_of_a_pending_product_equals_eager_bitwise(rocm, monkeypatch, norm):
    """irfft of a pending ``spectrum * response`` in lazy mode: the fused product (times the
    norm's factor) is the C2R's input, the product stays pending (docs/fusion.md, "irfft
    reads what the graph writes for it"); results and the product read later are eager
    mode's bit for bit."""
    from candlewick.fusion import lazy_policy

    monkeypatch.setattr(lazy_policy, "CONSUME_BYTES", 0)  # (these arrays are below the bound)
    rng = np.random.default_rng(4)
    x = cw.asarray(rng.standard_normal((64, 1024)).astype(np.float32), device=rocm)
    response = cw.asarray(np.exp(-np.arange(513, dtype=np.float32) / 128).astype(np.complex64), device=rocm)
    spectrum = cw.fft.rfft(x)
    want_product = cw.to_numpy(spectrum * response)
    want = cw.to_numpy(cw.fft.irfft(spectrum * response, norm=norm))
    for _ in range(3):
        with cw.lazy():
            product = spectrum * response
            got = cw.to_numpy(cw.fft.irfft(product, norm=norm))
            assert product._storage.real is None
        assert np.array_equal(got.view(np.uint32), want.view(np.uint32))
        assert np.array_equal(cw.to_numpy(product).view(np.uint64), want_product.view(np.uint64))
