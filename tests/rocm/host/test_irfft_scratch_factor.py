"""rocm's hooks ``irfft_scratch_factor`` (families/fft_scratch.py ``scratch_factor``) and
``irfft_scratch``: the factor's answers are cached (lazy mode asks at each irfft of a
pending result), and a cached answer is the one an uncached call gives, for lengths that
compare equal but are not ints too; irfft_scratch runs the plan transform would run."""

import math
from types import SimpleNamespace

import pytest

from candlewick import dtypes as dt
from candlewick.layout import Layout
from rocm_backend.families import fft, fft_scratch


@pytest.fixture(autouse=True)
def _fresh_cache():
    fft_scratch._scratch_factor.cache_clear()
    yield
    fft_scratch._scratch_factor.cache_clear()


@pytest.mark.parametrize("norm,expected", [(None, 1.0), ("backward", 1 / 12), ("ortho", 1 / math.sqrt(12)),
                                           ("forward", 1.0)])
def test_factor_of_a_contiguous_input_last_axis(norm, expected):
    assert fft_scratch.scratch_factor(dt.complex64, (3, 7), 1, 12, norm) == expected
    assert fft_scratch.scratch_factor(dt.complex128, [3, 7], 1, 12, norm) == expected  # (a list shape: as a tuple)


@pytest.mark.parametrize("dtype,shape,axis,n", [
    (dt.float32, (3, 7), 1, 12),  # irfft takes complex
    (dt.complex64, (3, 8), 1, 12),  # longer than n//2+1: the copy truncates
    (dt.complex64, (3, 5), 1, 12),  # shorter: the copy pads
    (dt.complex64, (7, 3), 0, 12),  # the first axis: the copy transposes
    (dt.complex64, (3, 7), 2, 12),  # no such axis
])
def test_no_factor_where_the_copy_is_not_the_input(dtype, shape, axis, n):
    assert fft_scratch.scratch_factor(dtype, shape, axis, n, "backward") is None


def test_cached_answers_keep_lengths_of_other_types_apart():
    assert fft_scratch.scratch_factor(dt.complex64, (3, 1), 1, 1, "backward") == 1.0
    assert fft_scratch._scratch_factor.cache_info().currsize == 1
    # True == 1 and 1.0 == 1 hash alike: a cache not typed would answer 1.0 for both
    assert fft_scratch.scratch_factor(dt.complex64, (3, 1), 1, True, "backward") is None
    assert fft_scratch.scratch_factor(dt.complex64, (3, 1), 1, 1.0, "backward") is None
    assert fft_scratch.scratch_factor(dt.complex64, (3, 1), 1, 1, "backward") == 1.0
    assert fft_scratch._scratch_factor.cache_info().hits == 1


def _device(runs):
    """A stand-in device: its plans record each run (key, inverse, source, destination),
    its storages are records of what was allocated."""
    def runner(key, inverse):
        return lambda src, dst: runs.append((key, inverse, src, dst)) or 0

    device = SimpleNamespace(fft_plans=SimpleNamespace(runner=runner))
    device.storage_type = SimpleNamespace(
        empty=lambda dev, dtype, size: SimpleNamespace(device=dev, dtype=dtype, size=size, ptr=0x9000 + 0x1000 * len(runs)))
    return device


@pytest.mark.parametrize("dtype,shape,axis,n", [
    (dt.complex64, (3, 7), 1, 12), (dt.complex128, (5, 2, 9), 2, 16), (dt.complex64, (4, 7, 1), 1, 12),
])
@pytest.mark.parametrize("offset", [0, 2])  # (an offset: the input is not known whole, transform's path)
def test_irfft_scratch_runs_the_plan_transform_runs(dtype, shape, axis, n, offset):
    """irfft_scratch keeps, per input shape, what transform finds at each call (the plan
    reading the input in place, the result written directly): the same plan, addresses
    and result."""
    fft_scratch._scratch_plan.cache_clear()
    got, want = [], []
    layout = Layout.contiguous(shape, offset)
    for runs, call in ((got, fft_scratch.irfft_scratch), (want, lambda x, *args: fft.transform(x, *args, "irfft", n, scratch=True))):
        x = SimpleNamespace(device=_device(runs), dtype=dtype, ptr=0x100000)
        out = call(x, layout, axis, n) if call is fft_scratch.irfft_scratch else call(x, layout, axis)
        runs.append((out.dtype, out.size))
    assert got == want and len(got) == 2
    assert got[0][2] == 0x100000 + offset * dtype.itemsize
    assert fft_scratch._scratch_plan.cache_info().currsize == (1 if offset == 0 else 0)
