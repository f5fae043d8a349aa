"""bench/timing.py's paired_ratio: the median and quartiles of two peers' per-round ratio,
the one computation behind bench/pydata_e2e's lazy / eager figure and bench/sort_sweep's
candlewick / NumPy verdict."""

import importlib.util
import pathlib
import sys

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))  # bench/ is no package: its modules import each other by name
import sort_sweep  # noqa: E402
import timing  # noqa: E402


@pytest.mark.parametrize("rounds", [2, 5, 8, 21])
def test_median_and_quartiles_interpolate_between_the_ratios_as_numpy_does(rounds):
    rng = np.random.default_rng(rounds)
    a, b = rng.uniform(1, 2, rounds), rng.uniform(1, 2, rounds)
    want = np.percentile(a / b, [50, 25, 75])
    np.testing.assert_allclose(timing.paired_ratio(list(a), list(b)), want, rtol=1e-12)


def test_rounds_pair_by_position_and_the_longer_list_is_cut():
    # ratios 2, 3, 1, 4 (the fifth figure of a has no partner): sorted 1 2 3 4
    assert timing.paired_ratio([2.0, 3.0, 1.0, 8.0, 100.0], [1.0, 1.0, 1.0, 2.0]) == (2.5, 1.75, 3.25)


def test_one_round_and_none():
    assert timing.paired_ratio([3.0], [2.0]) == (1.5, 1.5, 1.5)
    assert timing.paired_ratio([], [1.0]) is None and timing.paired_ratio([1.0], []) is None


def test_both_benchmarks_take_it():
    times = {"numpy": [1.0, 2.0, 1.0, 1.0], "candlewick": [1.1, 1.0, 0.9, 1.3]}
    median, low, high = timing.paired_ratio(times["candlewick"], times["numpy"])
    row = sort_sweep.figures(times)
    assert (row["paired"], row["paired_quartiles"], row["rounds"]) == (median, [low, high], 4)
    spec = importlib.util.spec_from_file_location("bench_pydata_e2e", ROOT / "bench" / "pydata_e2e.py")
    pydata = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(pydata)
    row = {"candlewick lazy": {"rounds_s": times["candlewick"]}, "candlewick": {"rounds_s": times["numpy"]}}
    assert pydata.paired(row, "candlewick lazy", "candlewick") == (median, low, high)
    assert pydata.paired({"candlewick": {"error": "x"}}, "candlewick lazy", "candlewick") is None
