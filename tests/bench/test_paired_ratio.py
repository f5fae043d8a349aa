"""bench/timing.py's paired_ratio: the median and quartiles of two peers' per-round ratio,
the one computation behind bench/pydata_e2e's lazy / eager figure and candlewick / peer
verdict and bench/sort_sweep's candlewick / NumPy verdict."""

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
    pydata = _pydata()
    row = {"candlewick lazy": {"rounds_s": times["candlewick"]}, "candlewick": {"rounds_s": times["numpy"]}}
    assert pydata.paired(row, "candlewick lazy", "candlewick") == (median, low, high)
    assert pydata.paired({"candlewick": {"error": "x"}}, "candlewick lazy", "candlewick") is None


@pytest.mark.parametrize("n", [6, 7, 20, 51, 200])
def test_median_interval_is_the_order_statistics_of_the_binomial_bound(n):
    # k: the largest with P(Binomial(n, 1/2) < k) <= 2.5 %, from SciPy's binomial as the oracle
    stats = pytest.importorskip("scipy.stats")
    k = max(j for j in range(n + 1) if stats.binom.cdf(j - 1, n, 0.5) <= 0.025)
    values = list(np.random.default_rng(n).permutation(n) * 0.5)
    assert timing.median_interval(values) == (0.5 * (k - 1), 0.5 * (n - k))


def test_median_interval_needs_six_values_at_95_percent():
    assert timing.median_interval([1.0, 2.0, 3.0, 4.0, 5.0]) is None
    assert timing.median_interval([]) is None
    assert timing.median_interval([5.0, 1.0, 4.0, 2.0, 3.0, 6.0]) == (1.0, 6.0)


def test_lazy_pairs_run_abba_and_read_the_interval():
    import lazy_pairs

    order = []

    def sample(lazy):  # lazy 2 % slower in every pair, its issue time 1 us more
        order.append(lazy)
        t = 1.0 + 0.01 * len(order)
        return (t * 1.02, 1e-6 * (2 + lazy)) if lazy else (t, 2e-6)

    row = lazy_pairs.measure(sample, 8)
    assert order[:8] == [False, True, True, False, False, True, True, False]
    assert row["verdict"] == "above" and row["interval"][0] > 1 and row["pairs"] == 8
    assert row["eager_issue_us"] == pytest.approx(2.0) and row["lazy_issue_us"] == pytest.approx(3.0)
    assert lazy_pairs.verdict((0.98, 0.999)) == "below" and lazy_pairs.verdict((0.99, 1.01)) == "at eager's time"
    assert lazy_pairs.verdict(None) is None
    assert lazy_pairs.met({"a": {"verdict": "below"}, "b": {"verdict": "at eager's time"}}) is True
    assert lazy_pairs.met({"a": {"verdict": "below"}, "b": {"verdict": "above"}}) is False
    assert lazy_pairs.met({"a": {"verdict": None}}) is None


def test_lazy_procs_judge_a_case_across_processes():
    import lazy_procs

    # six processes' rows of one case: lazy above eager in every process but one
    ratios = [1.004, 1.002, 0.999, 1.003, 1.006, 1.001]
    rows = [{"pairs": 30, "ratio": r, "eager_us": 100.0 + k, "lazy_us": 100.0 * r + k, "eager_issue_us": 90.0,
             "lazy_issue_us": 91.0} for k, r in enumerate(ratios)]
    row = lazy_procs.combine(rows)
    assert (row["procs"], row["pairs"], row["ratios"]) == (6, 30, ratios)
    assert row["ratio"] == pytest.approx(1.0025) and row["interval"] == (0.999, 1.006)
    assert row["verdict"] == "at eager's time" and row["eager_us"] == pytest.approx(102.5)
    # above in all six: above; a failed process is named and leaves five, too few for an interval
    above = lazy_procs.combine([dict(r, ratio=r["ratio"] + 0.002) for r in rows])
    assert above["verdict"] == "above" and above["interval"][0] > 1
    failed = lazy_procs.combine(rows[:5] + [{"error": "RuntimeError: lost"}])
    assert failed["procs"] == 5 and failed["interval"] is None and failed["verdict"] is None
    assert failed["errors"] == ["RuntimeError: lost"]
    table = lazy_procs.markdown({"case": above, "other": failed})
    assert "**not met** (case)" in table[0] and "6 fresh processes" in table[0]
    assert "| case |" in table[-3] and "| above |" in table[-3] and "1.0060 / 1.0040" in table[-3]
    assert "1 failed: `RuntimeError: lost`" in table[-2] and "| - |" in table[-2]


def _pydata():
    spec = importlib.util.spec_from_file_location("bench_pydata_e2e", ROOT / "bench" / "pydata_e2e.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_pydata_verdict_is_the_paired_median_where_rounds_were_kept():
    pydata = _pydata()
    # candlewick the faster in every round but one, where the peer alone had a quiet round:
    # its minimum is below candlewick's, the rounds' median ratio is 0.8
    peer = [1.0] * 20 + [0.5]
    cw = [0.8] * 20 + [0.9]
    row = {"candlewick": {"s": min(cw), "rounds_s": cw}, "torch": {"s": min(peer), "rounds_s": peer}}
    assert min(cw) / min(peer) > 1 and pydata.verdict(row, "rocm") is True
    row["candlewick"]["rounds_s"] = [1.01] * 21  # slower in every round: missed, whatever the minimums say
    row["candlewick"]["s"] = 0.4
    assert pydata.verdict(row, "rocm") is False
    # cpu: within 5 % of NumPy, by the same median
    row = {"candlewick": {"s": 1.0, "rounds_s": [1.04] * 5}, "numpy": {"s": 1.0, "rounds_s": [1.0] * 5}}
    assert pydata.verdict(row, "cpu") is True
    row["candlewick"]["rounds_s"] = [1.06] * 5
    assert pydata.verdict(row, "cpu") is False


def test_pydata_verdict_falls_back_to_the_minimums_without_rounds():
    pydata = _pydata()
    assert pydata.verdict({"candlewick": {"s": 1.0}, "torch": {"s": 1.0}}, "rocm") is True
    assert pydata.verdict({"candlewick": {"s": 1.01}, "torch": {"s": 1.0}}, "rocm") is False
    assert pydata.verdict({"candlewick": {"s": 1.05}, "numpy": {"s": 1.0}}, "cpu") is True
    assert pydata.verdict({"candlewick": {"error": "x"}, "torch": {"s": 1.0}}, "rocm") is None
