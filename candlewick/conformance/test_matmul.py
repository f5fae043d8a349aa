"""matmul: batched (with stride-0 broadcast batch dims), any operand layout, every
numeric dtype (integers wrap; float16/bfloat16 accumulate in float32)."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from candlewick import dtypes as dt
from candlewick.layout import Layout

from .checks import Expected, read_result, sum_tolerance
from .strategies import dtype_params, host_arrays, shapes

NUMERIC = dtype_params(dt.NUMERIC)


def matmul_expected(dtype, a, b):
    """Explicit products and sums (no BLAS, whose zero-skipping would hide 0 * inf)."""
    if dtype.is_integer:
        with np.errstate(all="ignore"):
            terms = a[..., :, :, None] * b[..., None, :, :]
            return Expected(terms.sum(axis=-2, dtype=dtype.numpy))
    wide = np.complex128 if dtype.is_complex else np.float64
    aw, bw = a.astype(wide), b.astype(wide)
    with np.errstate(all="ignore"):
        exact = (aw[..., :, :, None] * bw[..., None, :, :]).sum(axis=-2)
        magnitude = (np.abs(aw)[..., :, :, None] * np.abs(bw)[..., None, :, :]).sum(axis=-2)
    atol = sum_tolerance(magnitude, a.shape[-1], dtype) * (2 if dtype.is_complex else 1)
    atol = np.where(np.isfinite(atol), atol, 0.0)
    return Expected(exact.astype(dtype.numpy), ulps=1, atol=atol)


@pytest.mark.parametrize("dtype", NUMERIC)
@given(data=st.data())
def test_matmul(device, dtype, data):
    batch = data.draw(shapes(max_dims=2, max_side=3), label="batch")
    m, k, n = (data.draw(st.integers(0, 5), label=name) for name in "MKN")
    a = data.draw(host_arrays(dtype, batch + (m, k), values="moderate"), label="lhs")
    b = data.draw(host_arrays(dtype, batch + (k, n), values="moderate"), label="rhs")
    out = a.upload(device).matmul(b.upload(device), a.layout, b.layout)
    got = read_result(out, dtype, batch + (m, n))
    matmul_expected(dtype, a.value(), b.value()).check(got)


@pytest.mark.primitive("matmul")
@pytest.mark.parametrize("dtype", NUMERIC)
def test_matmul_transposed_and_broadcast_batch(device, dtype):
    """The layouts a front end produces most: A.T @ B with a broadcast batch operand."""
    rng = np.random.default_rng(0)
    host_a = rng.integers(-3, 4, (4, 3)).astype(dtype.numpy)  # (K, M)
    host_b = rng.integers(-3, 4, (2, 4, 5)).astype(dtype.numpy)  # (B, K, N)
    a = device.storage_from_host(host_a.reshape(-1))
    b = device.storage_from_host(host_b.reshape(-1))
    a_layout = Layout((2, 3, 4), (0, 1, 3), 0)  # A.T broadcast over the batch
    out = a.matmul(b, a_layout, Layout.contiguous((2, 4, 5)))
    expected = matmul_expected(dtype, np.broadcast_to(host_a.T, (2, 3, 4)), host_b)
    expected.check(read_result(out, dtype, (2, 3, 5)))


@pytest.mark.primitive("matmul")
@pytest.mark.parametrize("dtype", NUMERIC)
def test_matmul_reversed_batch(device, dtype):
    """Operands whose batch axis runs backwards (x[::-1], flip): negative batch strides,
    with and without a transposed matrix."""
    rng = np.random.default_rng(1)
    host_a = rng.integers(-3, 4, (3, 4, 5)).astype(dtype.numpy)  # (B, M, K)
    host_b = rng.integers(-3, 4, (3, 5, 2)).astype(dtype.numpy)  # (B, K, N)
    a = device.storage_from_host(host_a.reshape(-1))
    b = device.storage_from_host(host_b.reshape(-1))
    a_reversed = Layout((3, 4, 5), (-20, 5, 1), 40)
    b_reversed = Layout((3, 5, 2), (-10, 2, 1), 20)
    b_reversed_t = Layout((3, 5, 2), (-10, 1, 5), 20)  # rows of b's (2, 5) matrices read as columns
    b_as_t = host_b.reshape(3, 2, 5)[::-1].transpose(0, 2, 1)
    for a_layout, b_layout, want_a, want_b in (
            (a_reversed, Layout.contiguous((3, 5, 2)), host_a[::-1], host_b),
            (Layout.contiguous((3, 4, 5)), b_reversed, host_a, host_b[::-1]),
            (a_reversed, b_reversed_t, host_a[::-1], b_as_t)):
        out = a.matmul(b, a_layout, b_layout)
        matmul_expected(dtype, want_a, want_b).check(read_result(out, dtype, (3, 4, 2)))
