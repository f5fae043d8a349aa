"""Philox-4x32-10 against the Random123 known-answer vectors, and the stream/transform
rules of candlewick.backend.PHILOX written out by hand."""

import math

import numpy as np
import pytest

from candlewick import dtypes as dt
from cpu_backend import random as philox

from cpu_helpers import download

# Random123 kat_vectors, philox4x32_10: (counter words, key words, expected output words)
KNOWN_ANSWERS = [
    ((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
    ((0xFFFFFFFF,) * 4, (0xFFFFFFFF, 0xFFFFFFFF), (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
    (
        (0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344),
        (0xA4093822, 0x299F31D0),
        (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1),
    ),
]


@pytest.mark.parametrize("counter, key, expected", KNOWN_ANSWERS)
def test_known_answers(counter, key, expected):
    words = philox.philox4x32_10(*(np.array([c]) for c in counter), *key)
    assert tuple(int(w[0]) for w in words) == expected


def test_stream_is_blocks_in_counter_order():
    seed, counter = 0x1234_5678_9ABC_DEF0, 2**64 - 2  # wraps past 2**64 in block 2
    got = philox.words(seed, counter, 11)
    expected = []
    for b in range(3):
        c = (counter + b) % 2**64
        block = philox.philox4x32_10(
            np.array([c & 0xFFFFFFFF]), np.array([c >> 32]), np.array([0]), np.array([0]),
            seed & 0xFFFFFFFF, seed >> 32,
        )
        expected += [int(w[0]) for w in block]
    assert [int(w) for w in got] == expected[:11]


def test_uniform_float32_and_float64_follow_the_formulas(cpu):
    seed, counter = 7, 3
    w = [int(v) for v in philox.words(seed, counter, 10)]
    f32 = download(cpu.rand_uniform((5,), dt.float32, seed, counter, -2.0, 3.0), (5,))
    for i in range(5):
        u = np.float32((w[i] >> 8) * 2.0**-24)
        assert f32[i] == np.float32(-2.0) + (np.float32(3.0) - np.float32(-2.0)) * u
    f64 = download(cpu.rand_uniform((5,), dt.float64, seed, counter, 0.0, 1.0), (5,))
    for i in range(5):
        assert f64[i] == ((w[2 * i] << 21) ^ (w[2 * i + 1] >> 11)) * 2.0**-53


@pytest.mark.parametrize("dtype", [dt.float16, dt.bfloat16])
def test_uniform_low_precision_rounds_the_float32_value(cpu, dtype):
    got = download(cpu.rand_uniform((4, 3), dtype, 11, 0, 0.0, 10.0), (4, 3))
    ref = download(cpu.rand_uniform((4, 3), dt.float32, 11, 0, 0.0, 10.0), (4, 3))
    assert got.dtype == dtype.numpy
    np.testing.assert_array_equal(got, ref.astype(dtype.numpy))


@pytest.mark.parametrize("size", [1, 4, 7])
def test_normal_box_muller_pairs_and_odd_tail(cpu, size):
    seed, counter, mean, std = 99, 5, 1.5, 2.0
    got = download(cpu.rand_normal((size,), dt.float64, seed, counter, mean, std), (size,))
    pairs = (size + 1) // 2
    u = download(cpu.rand_uniform((2 * pairs,), dt.float64, seed, counter, 0.0, 1.0), (2 * pairs,))
    for i in range(size):
        u1, u2 = u[i - i % 2], u[i - i % 2 + 1]
        r = math.sqrt(-2 * math.log(1 - u1))
        trig = math.cos if i % 2 == 0 else math.sin
        assert got[i] == pytest.approx(mean + std * r * trig(2 * math.pi * u2), rel=1e-14, abs=1e-14)


def test_random_rejects_integer_dtypes(cpu):
    from candlewick.errors import UnsupportedOperation

    with pytest.raises(UnsupportedOperation, match="rand_uniform"):
        cpu.rand_uniform((3,), dt.int32, 0, 0, 0, 1)
