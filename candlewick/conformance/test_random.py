"""rand_uniform / rand_normal: Philox-4x32-10 per backend.PHILOX, bit-identical uniform
words on every backend (checked against philox_reference.py)."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from candlewick import dtypes as dt

from . import philox_reference as philox
from .checks import Expected, assert_bitwise_equal, eps_of, read_result
from .strategies import dtype_params, shapes

FLOATING = dtype_params(dt.REAL_FLOATING)
HALF = (dt.float16, dt.bfloat16)

seeds = st.integers(0, 2**64 - 1)
# small counters, counters whose blocks carry from the low into the high word, large ones
counters = st.integers(0, 1000) | st.integers(2**32 - 8, 2**32 + 8) | st.integers(0, 2**63)


@pytest.mark.parametrize(
    "counter,key,expected",
    [
        ((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
        ((0xFFFFFFFF,) * 4, (0xFFFFFFFF, 0xFFFFFFFF), (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
    ],
    ids=["zeros", "ones"],
)
def test_philox_reference_known_answers(counter, key, expected):
    """Random123's known-answer vectors: the oracle itself is right."""
    assert tuple(int(w) for w in philox.philox4x32_10([counter], key)[0]) == expected


@pytest.mark.primitive("rand_uniform")
@pytest.mark.parametrize("dtype", FLOATING)
@given(shape=shapes(max_side=6), seed=seeds, counter=counters)
def test_rand_uniform_words_are_bit_exact(device, dtype, shape, seed, counter):
    """With low=0, high=1 the output is u itself: every bit the words contribute shows."""
    got = read_result(device.rand_uniform(shape, dtype, seed, counter, 0.0, 1.0), dtype, shape)
    assert_bitwise_equal(got, philox.uniform(shape, dtype.numpy, seed, counter, 0.0, 1.0))
    g = got.astype(np.float64)
    assert ((g >= 0) & (g <= 1)).all()
    if dtype not in HALF:  # rounding u to 8 or 11 bits may reach 1.0
        assert (g < 1).all()


@pytest.mark.primitive("rand_uniform")
@pytest.mark.parametrize("dtype", FLOATING)
@given(shape=shapes(max_side=6), seed=seeds, counter=counters,
       low=st.floats(-100, 100), width=st.floats(0.001, 100))
def test_rand_uniform_range(device, dtype, shape, seed, counter, low, width):
    high = low + width
    got = read_result(device.rand_uniform(shape, dtype, seed, counter, low, high), dtype, shape)
    expected = philox.uniform(shape, dtype.numpy, seed, counter, low, high)
    # low + (high - low) * u may be fused, or (high - low) taken in another precision:
    # a rounding or two of slack
    slack = 2 * eps_of(dt.float32 if dtype in HALF else dtype) * max(abs(low), abs(high))
    Expected(expected, ulps=1, atol=slack).check(got)
    lo, hi = np.array([low, high]).astype(dtype.numpy).astype(np.float64)
    g = got.astype(np.float64)
    assert ((g >= lo - slack) & (g <= hi + slack)).all(), f"values outside [{low}, {high}]"


@pytest.mark.primitive("rand_uniform")
@pytest.mark.parametrize("dtype", [dt.float32])
@given(shape=shapes(max_side=6), seed=seeds, counter=counters)
def test_rand_uniform_float32_over_2_24_is_the_words_top_bits(device, dtype, shape, seed, counter):
    """With low=0, high=2**24 a float32 draw is each word's top 24 bits, exactly: the
    integer draws, choices and permutations of candlewick.random are made of these, so
    they are the same numbers on every backend."""
    got = read_result(device.rand_uniform(shape, dtype, seed, counter, 0.0, 2.0**24), dtype, shape)
    words = philox.words(seed, counter, math.prod(shape))
    assert_bitwise_equal(got, (words >> np.uint32(8)).astype(np.float32).reshape(shape))


@pytest.mark.primitive("rand_uniform")
@pytest.mark.parametrize("dtype", FLOATING)
@given(seed=seeds, counter=st.integers(0, 2**40))
def test_rand_uniform_stream_positions(device, dtype, seed, counter):
    """Block b uses counter + b: advancing the counter by one block shifts the stream
    by four words (four float32 elements, two float64 elements)."""
    n = 24
    first = read_result(device.rand_uniform((n,), dtype, seed, counter, 0.0, 1.0), dtype, (n,))
    again = read_result(device.rand_uniform((n,), dtype, seed, counter, 0.0, 1.0), dtype, (n,))
    assert_bitwise_equal(again, first)  # deterministic
    shift = 2 if dtype is dt.float64 else 4
    later = read_result(device.rand_uniform((n,), dtype, seed, counter + 1, 0.0, 1.0), dtype, (n,))
    assert_bitwise_equal(later[: n - shift], first[shift:])
    other = read_result(device.rand_uniform((n,), dtype, seed ^ 1, counter, 0.0, 1.0), dtype, (n,))
    assert (other != first).any(), "a different seed gave the same numbers"


@pytest.mark.parametrize("dtype", FLOATING)
@given(shape=shapes(max_side=6), seed=seeds, counter=counters,
       mean=st.floats(-10, 10), std=st.floats(0.01, 10))
def test_rand_normal(device, dtype, shape, seed, counter, mean, std):
    got = read_result(device.rand_normal(shape, dtype, seed, counter, mean, std), dtype, shape)
    values, radius = philox.normal_float64(shape, dtype.numpy, seed, counter, mean, std)
    # log, sqrt, cos, sin of the compute precision: a few ulps of that precision,
    # scaled by what each term contributes
    compute_eps = eps_of(dt.float32 if dtype in HALF else dtype)
    atol = 16 * compute_eps * (abs(mean) + std * (radius + 1) * (1 + 2 * math.pi))
    Expected(values.astype(dtype.numpy), ulps=1, atol=atol).check(got)
    again = read_result(device.rand_normal(shape, dtype, seed, counter, mean, std), dtype, shape)
    assert_bitwise_equal(again, got)
