"""A ``with lazy():`` statement whose block fused nothing ``SITE_RUNS`` times in a row runs
its next ``SITE_QUIET`` entries eagerly, then records one run again, the quiet stretch
doubling while nothing fuses (candlewick/_native_lazy_sites.c, lazy_policy.SITE_RUNS), on
every backend under test (made a fusing one by conftest's ``fusing``). The C blocks alone
learn: without candlewick._native every block records."""

import numpy as np
import pytest

import candlewick as cw
from candlewick import _core
from candlewick.errors import ArgumentTypeError  # noqa: F401  (the module's errors load with it)
from candlewick.fusion import lazy_mode, lazy_policy
from candlewick.lazy_gate import GATE

pytestmark = pytest.mark.skipif(_core._native is None, reason="candlewick._native was not built here")


@pytest.fixture
def learning(fusing, monkeypatch):
    """conftest's ``fusing`` device, statements learning: three runs with nothing fused make
    two quiet entries, each stretch twice the last up to eight."""
    monkeypatch.setattr(lazy_policy, "SITE_RUNS", 3)
    monkeypatch.setattr(lazy_policy, "SITE_QUIET", 2)
    monkeypatch.setattr(lazy_policy, "SITE_DOUBLINGS", 2)
    return fusing


def _one_call(x):
    """A block of one call: recorded, its graph replays (nothing to fuse; after
    ``lazy_policy.REPLAYS`` such runs it runs at once). Returns whether the block was
    lazy mode's (the gate on: the mode's checks run), whether lazy mode said it was on,
    and the result."""
    with cw.lazy():
        recorded, on = GATE.on, lazy_mode.is_lazy()
        y = x + 1.0
    return recorded, on, y


def _chain(x):
    """A block of a chain of three calls: its graph fuses."""
    with cw.lazy():
        recorded = GATE.on
        y = (x * 2.0 + 1.0) * x
    return recorded, y


def _pattern(run, x, count):
    return "".join("R" if run(x)[0] else "." for _ in range(count))


def test_a_statement_that_fuses_nothing_runs_eagerly_between_doubling_probes(learning, device):
    x = cw.asarray(np.arange(6, dtype=np.float32), device=device)
    # three recorded runs, two quiet, one probe, four quiet, a probe, eight quiet (the
    # longest stretch), a probe, eight again
    assert _pattern(_one_call, x, 28) == "RRR..R....R........R........"


def test_a_quiet_block_is_in_lazy_mode_and_gives_eager_values(learning, device):
    x = cw.asarray(np.arange(6, dtype=np.float32), device=device)
    seen = [_one_call(x) for _ in range(5)]
    assert [s[0] for s in seen] == [True, True, True, False, False]
    assert all(s[1] for s in seen)  # is_lazy: the mode is on, though the block runs eagerly
    for _, _, y in seen:
        np.testing.assert_array_equal(cw.to_numpy(y), np.arange(6, dtype=np.float32) + 1.0)
    assert not GATE.on and lazy_mode.is_lazy() is False


def test_a_statement_whose_block_fuses_always_records(learning, device):
    x = cw.asarray(np.arange(6, dtype=np.float32), device=device)
    want = (np.arange(6, dtype=np.float32) * 2.0 + 1.0) * np.arange(6, dtype=np.float32)
    for _ in range(12):
        recorded, y = _chain(x)
        assert recorded
        np.testing.assert_array_equal(cw.to_numpy(y), want)


def test_statements_learn_apart(learning, device):
    x = cw.asarray(np.arange(6, dtype=np.float32), device=device)
    plain, fused = "", ""
    for _ in range(6):  # (turn by turn: the chain's fused runs do not teach the other statement)
        plain += "R" if _one_call(x)[0] else "."
        fused += "R" if _chain(x)[0] else "."
    assert (plain, fused) == ("RRR..R", "RRRRRR")


def test_a_probe_that_fuses_starts_the_count_over(learning, device):
    x = cw.asarray(np.arange(6, dtype=np.float32), device=device)

    def block(chain):
        with cw.lazy():
            recorded = GATE.on
            y = (x * 2.0 + 1.0) * x if chain else x + 1.0
        return recorded, y

    seen = "".join("R" if block(False)[0] else "." for _ in range(5))
    recorded, y = block(True)  # the probe: this time its graph fuses
    np.testing.assert_array_equal(cw.to_numpy(y), (np.arange(6, dtype=np.float32) * 2.0 + 1.0) * np.arange(6))
    seen += "R" if recorded else "."
    seen += "".join("R" if block(False)[0] else "." for _ in range(5))
    assert seen == "RRR..R" + "RRR.."


def test_a_block_inside_a_lazy_context_records_and_does_not_learn(learning, device):
    x = cw.asarray(np.arange(6, dtype=np.float32), device=device)
    with cw.lazy():
        assert all(_one_call(x)[0] for _ in range(8))
    lazy_policy.reset()
    assert _pattern(_one_call, x, 5) == "RRR.."


def test_a_statement_inside_a_quiet_block_learns_on_its_own(learning, device):
    x = cw.asarray(np.arange(6, dtype=np.float32), device=device)

    def outer(inner):
        with cw.lazy():
            return GATE.on, inner and _chain(x)[0]

    assert [outer(False)[0] for _ in range(4)] == [True, True, True, False]
    assert outer(True) == (False, True)  # quiet, and the chain inside it records
    assert not GATE.on


def test_decorated_functions_always_record(learning, device):
    x = cw.asarray(np.arange(6, dtype=np.float32), device=device)

    @cw.lazy()
    def step(x):
        return GATE.on, x + 1.0

    assert all(step(x)[0] for _ in range(10))


def test_off_reset_and_bad_settings(learning, device, monkeypatch):
    x = cw.asarray(np.arange(6, dtype=np.float32), device=device)
    assert _pattern(_one_call, x, 5) == "RRR.."
    lazy_policy.reset()  # forgets what the statement learned
    assert _pattern(_one_call, x, 4) == "RRR."
    monkeypatch.setattr(lazy_policy, "SITE_RUNS", 0)
    assert _pattern(_one_call, x, 8) == "RRRRRRRR"
    monkeypatch.setattr(lazy_policy, "SITE_RUNS", -1)
    with pytest.raises(ValueError, match="SITE_RUNS must be an int from 0"):
        _one_call(x)
    assert not GATE.on and lazy_mode.is_lazy() is False  # (the failed entry left nothing on)


def test_an_error_in_a_quiet_block_leaves_the_mode_as_it_was(learning, device):
    x = cw.asarray(np.arange(6, dtype=np.float32), device=device)

    def block(fail):
        with cw.lazy():
            recorded = GATE.on
            y = x + 1.0
            if fail:
                raise KeyError("inside")
        return recorded, y

    assert [block(False)[0] for _ in range(3)] == [True, True, True]
    with pytest.raises(KeyError, match="inside"):
        block(True)  # quiet
    assert not GATE.on and lazy_mode.is_lazy() is False
    assert block(False)[0] is False  # the second quiet entry: the error's run was the first
