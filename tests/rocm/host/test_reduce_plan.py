"""The launch geometry of the ROCm reductions (rocm_backend/families/reduce_plan.py), as pure
functions of shape, device and tuning: no GPU, no compiler."""

import importlib
import warnings

import pytest

from rocm_backend.families import reduce_plan
from rocm_backend.families.reduce_plan import DEFAULT_TUNING, cols_plan, parse_tuning, rows_plan, wave_splits

H200 = 132 * 8  # resident 256-thread blocks of a 32-register kernel


def test_wave_splits_fill_whole_waves():
    assert wave_splits(1, 10 ** 6, H200) == H200
    assert wave_splits(64, 64, H200) == 16  # 1024 of 1056 slots: one wave
    s = wave_splits(600, 100, H200)  # 1 split would leave 43% idle
    blocks = 600 * s
    assert blocks / (-(-blocks // H200) * H200) >= 0.9 and blocks <= 3 * H200
    assert wave_splits(5000, 100, H200) == 1  # enough items already
    assert wave_splits(3, 1, H200) == 1  # too short to split


def test_sum_of_everything_is_one_wave_of_aligned_segments():
    for n in (1 << 26, (1 << 26) + 3, 3 << 30, 1 << 33):  # past 2^31 elements too
        group, splits, chunk, grid = rows_plan(1, n, 4, H200, 32, DEFAULT_TUNING)
        assert group == 256 and splits <= H200 and grid == splits
        assert chunk % 64 == 0 and splits * chunk >= n > (splits - 1) * chunk and splits >= 0.99 * H200
    assert rows_plan(1, 5000, 4, H200, 32, DEFAULT_TUNING)[1] == 1  # small: one block
    tuning = dict(DEFAULT_TUNING, all_waves=2)
    assert 2 * H200 >= rows_plan(1, 1 << 26, 4, H200, 32, tuning)[1] >= 0.99 * 2 * H200


def test_rows_groups():
    # 8192 rows of 8192: one warp per row fills the device in one wave
    group, splits, chunk, grid = rows_plan(8192, 8192, 4, H200, 32, DEFAULT_TUNING)
    assert (group, splits, chunk, grid) == (32, 1, 8192, 1024)
    assert rows_plan(8192, 8192, 4, H200, 64, DEFAULT_TUNING)[0] == 32  # sub-wave groups on wave64
    # short rows: small groups, two vectors per thread at least
    group, _, _, grid = rows_plan(1 << 20, 64, 4, H200, 32, DEFAULT_TUNING)
    assert group == 8 and grid == (1 << 20) // 32
    # few long rows: split, the block is the group
    group, splits, chunk, grid = rows_plan(8, 1 << 24, 4, H200, 32, DEFAULT_TUNING)
    assert group == 256 and splits == H200 // 8 and grid == 8 * splits
    # a forced group
    tuning = dict(DEFAULT_TUNING, rows_group=128)
    assert rows_plan(8192, 8192, 4, H200, 32, tuning)[0] == 128
    assert rows_plan(8192, 8192, 4, H200, 32, dict(DEFAULT_TUNING, rows_group=1000))[0] == 256


def test_cols_tiles():
    resident = lambda threads: 132 * (2048 // threads)  # noqa: E731
    bx, by, splits, chunk, gx = cols_plan(8192, 8192, 4, resident, DEFAULT_TUNING)
    assert (bx, by, gx) == (32, 8, 64) and 64 * splits <= H200 and splits * chunk >= 8192
    # few outputs: narrow tiles, tall blocks
    bx, by, splits, _, gx = cols_plan(4, 1 << 20, 4, resident, DEFAULT_TUNING)
    assert (bx, by, gx) == (1, 256, 1) and splits > 100
    # a few elements per output (argmin over 8 columns): one thread reduces each, no y-lanes
    for n_red in (3, 8, 16):
        bx, by, splits, _, gx = cols_plan(1 << 20, n_red, 1, resident, DEFAULT_TUNING)
        assert (bx, by, splits) == (256, 1, 1) and gx == (1 << 20) // 256
    # short reductions past that: wide tiles instead of idle rows of threads
    assert cols_plan(1 << 20, 17, 1, resident, DEFAULT_TUNING)[:3] == (32, 8, 1)
    bx, by, splits, _, gx = cols_plan(1 << 20, 3, 1, resident, dict(DEFAULT_TUNING, cols_serial_max=0))
    assert (bx, by, splits) == (64, 4, 1) and gx == (1 << 20) // 64
    # many outputs: no split
    assert cols_plan(1 << 22, 64, 4, resident, DEFAULT_TUNING)[2] == 1
    assert cols_plan(8192, 8192, 4, resident, dict(DEFAULT_TUNING, cols_bx=128))[:2] == (128, 2)


def test_parse_tuning_and_the_environment(monkeypatch):
    assert parse_tuning("rows_group=64, cols_bx=16")["rows_group"] == 64
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        t = parse_tuning("nope=1,cols_bx=x,all_waves=2")
    assert t["all_waves"] == 2 and t["cols_bx"] == DEFAULT_TUNING["cols_bx"] and len(caught) == 2
    monkeypatch.setenv(reduce_plan.ENV, "cols_waves=2")
    try:
        importlib.reload(reduce_plan)
        assert reduce_plan.TUNING["cols_waves"] == 2
    finally:
        monkeypatch.delenv(reduce_plan.ENV)
        importlib.reload(reduce_plan)
    assert reduce_plan.TUNING == DEFAULT_TUNING


@pytest.mark.parametrize("n_out,n_red", [(1, 7), (3, 40000), (700, 5000), (5, 3), (1 << 16, 1 << 15)])
def test_plans_cover_every_element(n_out, n_red):
    for warp in (32, 64):
        group, splits, chunk, grid = rows_plan(n_out, n_red, 4, 300, warp, DEFAULT_TUNING)
        assert splits * chunk >= n_red > (splits - 1) * chunk
        assert grid * (256 // group) >= min(n_out * splits, reduce_plan.GRID_CAP)
        assert group <= warp or group % warp == 0
    bx, by, splits, chunk, gx = cols_plan(n_out * 4, n_red, 4, lambda t: 300, DEFAULT_TUNING)
    assert bx * by <= 256 and splits * chunk >= n_red > (splits - 1) * chunk and gx * bx >= n_out
