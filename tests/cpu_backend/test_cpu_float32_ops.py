"""cpu_backend.float32_ops: float32 floor_divide, remainder and logaddexp give the float64
evaluation rounded once (floor_divide and remainder bit for bit, logaddexp within an ulp
where the result cancels), on both sides of the kernels' size switches, with scalar and
broadcast operands."""

import numpy as np
import pytest

from cpu_backend import float32_ops, special
from cpu_backend.error import QuietBlock
from cpu_backend.ops import BINARY_RAW

F32, F64 = np.dtype(np.float32), np.dtype(np.float64)
WIDE = (F64, F64, None)
SPECIALS = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1, -1, 2, -2, 0.5, -0.5, 3, -3, 1e-45, -1e-45,
                     3.4e38, -3.4e38, 7, -7, 1e20, -1e20, 2**21, -(2**21), 2**21 - 1, 2**24, -0.6931472], F32)
SIZES = (1, 16, 128, 129, 511, 512, 5000, 70000)


def _operands(n, rng):
    """Special pairs, random bit patterns (subnormals, NaN, huge quotients), wide
    quotients against small divisors, and pairs near -log 2 (logaddexp cancels)."""
    bits = lambda: rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32).view(F32)  # noqa: E731
    pairs = np.repeat(SPECIALS, SPECIALS.size), np.tile(SPECIALS, SPECIALS.size)
    near = (-np.log(2.0) + rng.normal(size=n) * 0.01).astype(F32)
    yield np.resize(pairs[0], n), np.resize(pairs[1], n)
    yield bits(), bits()
    yield rng.uniform(-1e9, 1e9, n).astype(F32), rng.uniform(-3, 3, n).astype(F32)
    yield near, (near + rng.normal(size=n) * 0.01).astype(F32)


def _same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype == F32 and got.shape == want.shape
    np.testing.assert_array_equal(got.view(np.uint32)[~np.isnan(want)], want.view(np.uint32)[~np.isnan(want)])
    assert np.array_equal(np.isnan(got), np.isnan(want))


def _variants(a, b):
    """The operand forms the storage hands a kernel: flat, scalar (either side), strided, broadcast."""
    yield a, b
    yield a, np.array(b[0], F32)
    yield np.array(a[0], F32), b
    yield a[::-1], b[::-1]
    yield a.reshape(-1, 1)[:3], b.reshape(1, -1)


@pytest.mark.parametrize("n", SIZES)
def test_floor_divide_and_remainder_are_the_float64_results_bit_for_bit(n):
    rng = np.random.default_rng(n)
    with QuietBlock():
        for a, b in _operands(n, rng):
            for x, y in _variants(a, b):
                want = special.floor_divide(x, y, signature=WIDE).astype(F32)
                _same(float32_ops.floor_divide(x, y), want)
                _same(BINARY_RAW["remainder"]["float32"][0](x, y), np.remainder(x, y, signature=WIDE).astype(F32))


@pytest.mark.parametrize("n", SIZES)
def test_logaddexp_is_the_float64_result(n):
    rng = np.random.default_rng(n)
    with QuietBlock():
        for a, b in _operands(n, rng):
            for x, y in _variants(a, b):
                got, want = float32_ops.logaddexp(x, y), np.logaddexp(x, y, signature=WIDE).astype(F32)
                assert got.dtype == F32 and got.shape == want.shape
                # special values exactly; elsewhere the float64 libm may differ by an ulp of
                # float64, which moves a float32 result by one ulp at most where it cancels
                assert np.array_equal(np.isnan(got), np.isnan(want))
                finite = np.isfinite(want)
                assert np.array_equal(got[~finite & ~np.isnan(want)], want[~finite & ~np.isnan(want)])
                np.testing.assert_array_max_ulp(got[finite], want[finite], maxulp=1)


def test_floor_divide_redoes_large_quotients_and_infinite_operands_in_float64():
    a = np.array([3e9, np.inf, -1.0, 1.0, 16777217.0, -np.inf], F32)
    b = np.array([0.7, 2.0, np.inf, -np.inf, 3.0, 0.0], F32)
    with QuietBlock():
        got = float32_ops.floor_divide(a, b)
    want = np.floor(a.astype(F64) / b.astype(F64))
    want[0] = np.floor_divide(np.float64(a[0]), np.float64(b[0]))
    np.testing.assert_array_equal(got, want.astype(F32))
    assert np.signbit(got[2]) and np.signbit(got[3])  # -1 // inf = -0, 1 // -inf = -0
