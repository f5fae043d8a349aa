"""rocm's hook ``irfft_scratch_factor`` (families/fft.py ``scratch_factor``): its answers
are cached (lazy mode asks at each irfft of a pending result), and a cached answer is the
one an uncached call gives, for lengths that compare equal but are not ints too."""

import math

import pytest

from candlewick import dtypes as dt
from rocm_backend.families import fft


@pytest.fixture(autouse=True)
def _fresh_cache():
    fft._scratch_factor.cache_clear()
    yield
    fft._scratch_factor.cache_clear()


@pytest.mark.parametrize("norm,expected", [(None, 1.0), ("backward", 1 / 12), ("ortho", 1 / math.sqrt(12)),
                                           ("forward", 1.0)])
def test_factor_of_a_contiguous_input_last_axis(norm, expected):
    assert fft.scratch_factor(dt.complex64, (3, 7), 1, 12, norm) == expected
    assert fft.scratch_factor(dt.complex128, [3, 7], 1, 12, norm) == expected  # (a list shape: as a tuple)


@pytest.mark.parametrize("dtype,shape,axis,n", [
    (dt.float32, (3, 7), 1, 12),  # irfft takes complex
    (dt.complex64, (3, 8), 1, 12),  # longer than n//2+1: the copy truncates
    (dt.complex64, (3, 5), 1, 12),  # shorter: the copy pads
    (dt.complex64, (7, 3), 0, 12),  # the first axis: the copy transposes
    (dt.complex64, (3, 7), 2, 12),  # no such axis
])
def test_no_factor_where_the_copy_is_not_the_input(dtype, shape, axis, n):
    assert fft.scratch_factor(dtype, shape, axis, n, "backward") is None


def test_cached_answers_keep_lengths_of_other_types_apart():
    assert fft.scratch_factor(dt.complex64, (3, 1), 1, 1, "backward") == 1.0
    assert fft._scratch_factor.cache_info().currsize == 1
    # True == 1 and 1.0 == 1 hash alike: a cache not typed would answer 1.0 for both
    assert fft.scratch_factor(dt.complex64, (3, 1), 1, True, "backward") is None
    assert fft.scratch_factor(dt.complex64, (3, 1), 1, 1.0, "backward") is None
    assert fft.scratch_factor(dt.complex64, (3, 1), 1, 1, "backward") == 1.0
    assert fft._scratch_factor.cache_info().hits == 1
