"""bench/timing.py's rotated rounds: every library once a round, the order rotated by one
place a round, each library's best round kept; a failing library recorded and left out of
the later rounds. The turns are fake timers: each returns the next figure of its script and
logs when it ran."""

import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))  # bench/ is no package: its modules import each other by name
import timing  # noqa: E402


def fake_turns(scripts, log):
    """{name: turn}: turn number r returns scripts[name][r] (raising it if an exception)."""
    def turn(name):
        figures = iter(scripts[name])

        def once():
            log.append(name)
            figure = next(figures)
            if isinstance(figure, Exception):
                raise figure
            return figure
        return once
    return {name: turn(name) for name in scripts}


def test_order_rotates_one_place_a_round():
    log = []
    timing.rotated_rounds(fake_turns({"a": [1] * 4, "b": [1] * 4, "c": [1] * 4}, log), 4)
    assert [log[i:i + 3] for i in range(0, 12, 3)] == [["a", "b", "c"], ["b", "c", "a"], ["c", "a", "b"],
                                                       ["a", "b", "c"]]


def test_best_round_is_kept_per_library_and_per_label():
    scripts = {"cw": [3.0, 1.0, 2.0], "torch": [0.5, 4.0, 0.7],
               "ops": [{"add": 2.0, "sum": 9.0}, {"add": 3.0, "sum": 1.0}, {"add": 1.5, "sum": 8.0}]}
    best = timing.rotated_rounds(fake_turns(scripts, []), 3)
    assert best == {"cw": 1.0, "torch": 0.5, "ops": {"add": 1.5, "sum": 1.0}}


def test_a_failing_turn_is_recorded_and_sits_out_later_rounds():
    log, errors = [], {}
    scripts = {"cw": [2.0, ValueError("no kernel"), 0.1], "torch": [3.0, 1.0, 2.0]}
    best = timing.rotated_rounds(fake_turns(scripts, log), 3, errors)
    assert errors == {"cw": "ValueError: no kernel"}
    assert best == {"cw": 2.0, "torch": 1.0}  # cw's figure before the failure stands
    assert log == ["cw", "torch", "torch", "cw", "torch"]


def test_without_an_error_table_the_failure_propagates():
    with pytest.raises(ValueError, match="no kernel"):
        timing.rotated_rounds(fake_turns({"cw": [ValueError("no kernel")]}, []), 1)


def test_no_turns_or_no_rounds_give_no_figures():
    assert timing.rotated_rounds({}, 5) == {}
    assert timing.rotated_rounds(fake_turns({"cw": []}, []), 0) == {}


def test_rounds_out_gets_every_rounds_figure_in_order():
    """``rounds_out`` keeps each turn's figure of every round it ran (pydata_e2e pairs the
    lazy and eager rounds by position), beside the best that is returned; a failing turn's
    figures before its failure stand."""
    scripts = {"cw": [3.0, 1.0, 2.0], "torch": [0.5, ValueError("no kernel"), 0.7],
               "ops": [{"add": 2.0}, {"add": 3.0}, {"add": 1.5}]}
    out, errors = {}, {}
    best = timing.rotated_rounds(fake_turns(scripts, []), 3, errors, rounds_out=out)
    assert out == {"cw": [3.0, 1.0, 2.0], "torch": [0.5], "ops": [{"add": 2.0}, {"add": 3.0}, {"add": 1.5}]}
    assert best == {"cw": 1.0, "torch": 0.5, "ops": {"add": 1.5}}
