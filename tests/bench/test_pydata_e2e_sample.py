"""bench/pydata_e2e.py's samples: a sample of several calls starts with one untimed call (the
first call after another library's turn costs more, probe s20lazyfft_2), so which library a
turn follows does not count; a sample of one call is that call alone. The clock is fake:
each reading advances it, and each call logs the clock's reading when it ran."""

import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))  # bench/ is no package: its modules import each other by name
import pydata_e2e  # noqa: E402



class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        self.now += 1.0
        return self.now


def run(sample_s, call_s):
    clock, ran = Clock(), []

    def fn(data):
        clock.now += call_s  # a call of call_s seconds
        ran.append(clock.now)

    libs = {"lib": (lambda a: a, lambda: None, None, False)}
    row = pydata_e2e.run_case("case", fn, {"x": 0}, libs, 2, False, clock, sample_s)
    return row["lib"], ran


def test_a_sample_of_several_calls_starts_with_one_untimed():
    row, ran = run(sample_s=10.0, call_s=4.0)
    calls = row["calls_per_sample"]
    assert calls > 1
    # the warm-up and the count's timing (no peak probe here); then each of the two rounds: one untimed call and the sample
    assert len(ran) == 2 + 2 * (1 + calls)
    # the sample's time is its own calls' only (the clock's own readings add one each)
    assert row["rounds_s"] == [(calls * 4.0 + 1.0) / calls] * 2


def test_a_sample_of_one_call_is_that_call_alone():
    row, ran = run(sample_s=1.0, call_s=4.0)
    assert row["calls_per_sample"] == 1
    assert len(ran) == 2 + 2
    assert row["rounds_s"] == [5.0, 5.0]


def test_a_pair_times_each_mode_with_issue_and_wall_time_per_call():
    import lazy_pairs

    clock, modes = Clock(), []

    def fn(data, lazy):
        clock.now += 4.0
        modes.append(lazy)

    sample = lazy_pairs.sampler(fn, {"x": 0}, lambda: None, 1, clock)
    pairs = lazy_pairs.measure(sample, 6)
    # eager then lazy, then lazy then eager (ABBA), six pairs
    assert modes == [False, True, True, False] * 3
    # a call's wall time reads the clock twice after its start (issue and end), its issue time once
    assert (pairs["pairs"], pairs["eager_us"], pairs["eager_issue_us"]) == (6, 6e6, 5e6)
    assert pairs["ratio"] == 1.0 and pairs["interval"] == (1.0, 1.0) and pairs["verdict"] == "at eager's time"
