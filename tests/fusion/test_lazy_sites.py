"""A ``with lazy():`` statement whose block runs no compiled graph times ``SITE_RUNS`` recorded
runs and as many quiet ones (eagerly: trials) in turn, and the faster mode runs its
next ``SITE_QUIET`` entries, a decision that stands holding twice as long
(candlewick/_native_lazy_sites.c, lazy_policy.SITE_RUNS), on every backend under test
(made a fusing one by conftest's ``fusing``); the blocks' times come from a clock the
test advances, a run's time lasting until its statement's next entry. The C blocks alone
learn: without candlewick._native every block records."""

import numpy as np
import pytest

import candlewick as cw
from candlewick import _core
from candlewick.fusion import lazy_mode, lazy_policy
from candlewick.lazy_gate import GATE
from _irfft_hooks import bits, data, scratch  # noqa: F401 (scratch: a fixture)

pytestmark = pytest.mark.skipif(_core._native is None, reason="candlewick._native was not built here")


class Clock:
    """SITE_CLOCK: seconds that pass only where a block says (``spend``) or after it
    (``wait``: the caller's synchronize, waiting for what the last block left the device)."""

    def __init__(self):
        self.now = 0.0
        self.cost = {True: 1.0, False: 1.0}  # a block's time: recorded (the gate on) and quiet
        self.after = {True: 0.0, False: 0.0}  # the wait after it
        self.drift = 0.0  # each block slower than the last by this share of its cost
        self.blocks = 0
        self.last = None

    def __call__(self):
        return self.now

    def spend(self):
        self.now += self.cost[GATE.on] * (1.0 + self.drift * self.blocks)
        self.blocks += 1
        self.last = GATE.on

    def wait(self):
        self.now += self.after[self.last]


@pytest.fixture
def learning(fusing, monkeypatch):
    """conftest's ``fusing`` device, statements learning on a clock the blocks advance:
    three recorded runs, three trials, each decision two entries, then four, then eight."""
    clock = Clock()
    monkeypatch.setattr(lazy_policy, "SITE_RUNS", 3)
    monkeypatch.setattr(lazy_policy, "SITE_QUIET", 2)
    monkeypatch.setattr(lazy_policy, "SITE_DOUBLINGS", 2)
    monkeypatch.setattr(lazy_policy, "SITE_CLOCK", clock)
    return clock


def _one_call(x, clock=None):
    """A block of one call: recorded, its graph replays (nothing to fuse; after
    ``lazy_policy.REPLAYS`` such runs it runs at once). Returns whether the block was
    lazy mode's (the gate on: the mode's checks run), whether lazy mode said it was on,
    and the result."""
    with cw.lazy():
        recorded, on = GATE.on, lazy_mode.is_lazy()
        y = x + 1.0
        if clock is not None:
            clock.spend()
    return recorded, on, y


def _chain(x, clock=None):
    """A block of a chain of three calls: its graph fuses."""
    with cw.lazy():
        recorded = GATE.on
        y = (x * 2.0 + 1.0) * x
        if clock is not None:
            clock.spend()
    return recorded, y


def _pattern(run, x, count):
    return "".join("R" if run(x)[0] else "." for _ in range(count))


def _x(device):
    return cw.asarray(np.arange(6, dtype=np.float32), device=device)


def _calls(run, x, clock, count):
    return "".join("R" if run(x, clock)[0] else "." for _ in range(count))


# each window: three recorded runs and three quiet trials in turn; then the decision's entries
QUIET_WINS = "R.R.R." + ".." + "R.R.R." + "...." + "R.R.R." + "........" + "R.R.R." + "........"
RECORDED_WINS = "R.R.R." + "RR" + "R.R.R." + "RRRR" + "R.R.R." + "RRRRRRRR"


def test_a_statement_that_runs_faster_eagerly_runs_quiet_ever_longer(learning, device):
    learning.cost = {True: 1.05, False: 1.0}  # (lazy mode's checks: 5 % more)
    assert _calls(_one_call, _x(device), learning, len(QUIET_WINS)) == QUIET_WINS


def test_a_statement_that_runs_faster_recorded_stays_recorded(learning, device):
    learning.cost = {True: 0.98, False: 1.0}  # (a copy lazy mode deferred and never made)
    assert _calls(_one_call, _x(device), learning, len(RECORDED_WINS)) == RECORDED_WINS


def _waited(run, x, clock, count):
    seen = ""
    for _ in range(count):
        seen += "R" if run(x, clock)[0] else "."
        clock.wait()
    return seen


def test_a_run_lasts_until_the_statement_runs_again(learning, device):
    x = _x(device)
    # the recorded block costs the host more, but leaves the device less to do (a copy saved):
    # the caller's wait after it shows that
    learning.cost, learning.after = {True: 1.05, False: 1.0}, {True: 0.5, False: 0.6}
    assert _waited(_one_call, x, learning, len(RECORDED_WINS)) == RECORDED_WINS
    lazy_policy.reset()
    learning.cost, learning.after = {True: 0.95, False: 1.0}, {True: 0.6, False: 0.5}
    assert _waited(_one_call, x, learning, len(QUIET_WINS)) == QUIET_WINS


def test_a_block_whose_only_gain_is_a_saved_copy_learns(learning, device, scratch):
    """irfft's input written by the product's deferred call (lazy_defer) saves eager irfft's
    copy, which shows in the time until the next entry; the block is not one that fused."""
    x, response = data(device)
    spectrum = cw.fft.rfft(x)
    want = cw.fft.irfft(spectrum * response)

    def block(x, clock):
        with cw.lazy():
            recorded = GATE.on
            y = cw.fft.irfft(spectrum * response)
            clock.spend()
        return recorded, y

    learning.cost = {True: 1.05, False: 1.0}
    got = []
    seen = ""
    for _ in range(len(QUIET_WINS)):
        recorded, y = block(x, learning)
        seen += "R" if recorded else "."
        got.append(bits(y).tobytes())
    assert seen == QUIET_WINS
    assert len(scratch) >= 2  # (deferred from the second recorded run on)
    assert set(got) == {bits(want).tobytes()}
    lazy_policy.reset()
    del scratch[:]
    learning.cost, learning.after = {True: 1.05, False: 1.0}, {True: 0.0, False: 0.1}
    assert _waited(block, x, learning, len(RECORDED_WINS)) == RECORDED_WINS


def test_a_decision_that_changes_holds_two_entries_again(learning, device):
    x = _x(device)
    learning.cost = {True: 1.05, False: 1.0}
    seen = _calls(_one_call, x, learning, 6 + 2 + 6 + 4)  # quiet, then quiet again
    learning.cost = {True: 0.9, False: 1.0}
    seen += _calls(_one_call, x, learning, 6 + 2 + 6 + 4)  # recorded: two entries, then four
    assert seen == "R.R.R..." "R.R.R....." + "R.R.R.RR" "R.R.R.RRRR"


def test_a_host_that_slows_down_slows_both_modes_of_a_window(learning, device):
    """A window's runs alternate: on a host slowing by 4 % a block (a busy H100 host's speed
    moved by half within a minute), recorded 5 % slower still loses; three recorded runs
    and then three quiet ones would have seen quiet 12 % slower."""
    learning.cost, learning.drift = {True: 1.05, False: 1.0}, 0.04
    assert _calls(_one_call, _x(device), learning, 6 + 2) == "R.R.R." + ".."


def test_a_statement_recorded_faster_by_under_the_margin_runs_quiet(learning, device):
    """Recording must win by over 1 % (_native_lazy_sites.c's SITE_MARGIN): a smaller
    difference is within a host's noise, and quiet runs are eager mode's own calls."""
    learning.cost = {True: 0.995, False: 1.0}
    assert _calls(_one_call, _x(device), learning, len(QUIET_WINS)) == QUIET_WINS


def test_a_decision_to_record_stands_until_quiet_wins_by_over_the_margin(learning, device):
    """A window whose modes differ within the margin runs as the last decision ran: a
    statement recorded faster goes on recording through a window where it was faster by
    under 1 %, or slower by under 1 % (each change of mode costs a window eight entries
    later), and runs quiet once quiet wins by more."""
    x = _x(device)
    learning.cost = {True: 0.98, False: 1.0}
    seen = _calls(_one_call, x, learning, 6 + 2)
    for cost, entries in ((0.995, 4), (1.005, 8)):  # (a decision that stands holds twice as long)
        learning.cost = {True: cost, False: 1.0}
        seen += _calls(_one_call, x, learning, 6 + entries)
    learning.cost = {True: 1.02, False: 1.0}
    seen += _calls(_one_call, x, learning, 6 + 2)
    assert seen == "R.R.R.RR" + "R.R.R.RRRR" + "R.R.R.RRRRRRRR" + "R.R.R..."


def _settled(x, learning):
    """Quiet decided twice: the statement's next four entries run quiet."""
    learning.cost = {True: 1.05, False: 1.0}
    return _calls(_one_call, x, learning, 6 + 2 + 6)


@pytest.mark.parametrize("factor", [4.0, 0.4])
def test_a_decision_whose_blocks_take_another_time_starts_the_learning_over(learning, device, factor):
    """A statement whose work changed (a helper's block running another computation: its
    blocks, entry to exit, took over twice or under half its mode's least in the window
    that decided, three in a row) learns again from its next entry: a new window, and a
    decision of two entries, not eight."""
    x = _x(device)
    seen = _settled(x, learning)
    learning.cost = {True: 1.05 * factor, False: factor}
    seen += _calls(_one_call, x, learning, 3 + 6 + 2 + 1)
    assert seen == "R.R.R...R.R.R." + "..." + "R.R.R." + ".." + "R"


def test_blocks_within_twice_or_strays_not_three_in_a_row_keep_the_decision(learning, device):
    """A block slower within twice its mode's least, or a host's hiccup (a block over
    twice, two in a row), leaves the decision standing: it runs out, the next
    window agrees, and the decision doubles to eight entries."""
    x = _x(device)
    seen = _settled(x, learning)
    for factor in (1.9, 4.0, 4.0, 1.9):
        learning.cost = {True: 1.05 * factor, False: factor}
        seen += _calls(_one_call, x, learning, 1)
    learning.cost = {True: 1.05, False: 1.0}
    seen += _calls(_one_call, x, learning, 6 + 8 + 1)
    assert seen == "R.R.R...R.R.R." + "...." + "R.R.R." + "........" + "R"


def test_a_quiet_block_is_in_lazy_mode_and_gives_eager_values(learning, device):
    learning.cost = {True: 2.0, False: 1.0}
    x = _x(device)
    seen = [_one_call(x, learning) for _ in range(8)]
    assert [s[0] for s in seen] == [True, False] * 3 + [False] * 2
    assert all(s[1] for s in seen)  # is_lazy: the mode is on, though the block runs eagerly
    for _, _, y in seen:
        np.testing.assert_array_equal(cw.to_numpy(y), np.arange(6, dtype=np.float32) + 1.0)
    assert not GATE.on and lazy_mode.is_lazy() is False


def test_a_statement_whose_block_fuses_always_records(learning, device):
    learning.cost = {True: 5.0, False: 1.0}  # (its time is not asked: what fusing saves is the device's)
    x = _x(device)
    want = (np.arange(6, dtype=np.float32) * 2.0 + 1.0) * np.arange(6, dtype=np.float32)
    for _ in range(20):
        recorded, y = _chain(x, learning)
        assert recorded
        np.testing.assert_array_equal(cw.to_numpy(y), want)


def test_statements_learn_apart(learning, device):
    learning.cost = {True: 1.05, False: 1.0}
    x = _x(device)
    plain, fused = "", ""
    for _ in range(10):  # (turn by turn: the chain's fused runs do not teach the other statement)
        plain += "R" if _one_call(x, learning)[0] else "."
        fused += "R" if _chain(x, learning)[0] else "."
    assert (plain, fused) == ("R.R.R...R.", "R" * 10)


def test_a_fused_run_starts_the_learning_over(learning, device):
    learning.cost = {True: 1.05, False: 1.0}
    x = _x(device)

    def block(x, clock, chain=False):
        with cw.lazy():
            recorded = GATE.on
            y = (x * 2.0 + 1.0) * x if chain else x + 1.0
            clock.spend()
        return recorded, y

    seen = _calls(block, x, learning, 8)  # decided: quiet
    recorded, y = block(x, learning, chain=True)  # the next window's first run: its graph fuses
    np.testing.assert_array_equal(cw.to_numpy(y), (np.arange(6, dtype=np.float32) * 2.0 + 1.0) * np.arange(6))
    seen += "R" if recorded else "."
    seen += _calls(block, x, learning, 8)
    assert seen == "R.R.R..." + "R" + "R.R.R..."


def test_a_block_inside_a_lazy_context_records_and_does_not_learn(learning, device):
    learning.cost = {True: 1.05, False: 1.0}
    x = _x(device)
    with cw.lazy():
        assert all(_one_call(x, learning)[0] for _ in range(12))
    lazy_policy.reset()
    assert _calls(_one_call, x, learning, 8) == "R.R.R..."


def test_a_statement_inside_a_quiet_block_learns_on_its_own(learning, device):
    learning.cost = {True: 1.05, False: 1.0}
    x = _x(device)

    def outer(inner):
        with cw.lazy():
            learning.spend()
            x + 1.0  # (a call given a graph: a block that asks for none is quiet at once)
            return GATE.on, inner and _chain(x)[0]

    assert [outer(False)[0] for _ in range(6)] == [True, False] * 3
    assert outer(True) == (False, True)  # quiet, and the chain inside it records
    assert not GATE.on


def test_decorated_functions_always_record(learning, device):
    learning.cost = {True: 1.05, False: 1.0}
    x = _x(device)

    @cw.lazy()
    def step(x):
        learning.spend()
        return GATE.on, x + 1.0

    assert all(step(x)[0] for _ in range(12))


def test_off_reset_and_bad_settings(learning, device, monkeypatch):
    learning.cost = {True: 1.05, False: 1.0}
    x = _x(device)
    assert _calls(_one_call, x, learning, 8) == "R.R.R..."
    lazy_policy.reset()  # forgets what the statement learned
    assert _calls(_one_call, x, learning, 6) == "R.R.R."
    monkeypatch.setattr(lazy_policy, "SITE_RUNS", 0)
    assert _calls(_one_call, x, learning, 10) == "R" * 10
    monkeypatch.setattr(lazy_policy, "SITE_RUNS", -1)
    with pytest.raises(ValueError, match="SITE_RUNS must be an int from 0"):
        _one_call(x)
    assert not GATE.on and lazy_mode.is_lazy() is False  # (the failed entry left nothing on)
    monkeypatch.setattr(lazy_policy, "SITE_RUNS", 3)
    monkeypatch.setattr(lazy_policy, "SITE_CLOCK", "now")
    with pytest.raises(TypeError, match="SITE_CLOCK must be None or a callable"):
        _one_call(x)
    assert not GATE.on and lazy_mode.is_lazy() is False


def test_the_monotonic_clock(learning, device, monkeypatch):
    monkeypatch.setattr(lazy_policy, "SITE_CLOCK", None)
    x = _x(device)
    seen = [_one_call(x) for _ in range(30)]
    assert "".join("R" if s[0] else "." for s in seen[:6]) == "R.R.R."  # (then whichever ran faster)
    for _, on, y in seen:
        assert on
        np.testing.assert_array_equal(cw.to_numpy(y), np.arange(6, dtype=np.float32) + 1.0)


def test_an_error_in_a_quiet_block_leaves_the_mode_as_it_was(learning, device):
    learning.cost = {True: 1.05, False: 1.0}
    x = _x(device)

    def block(x, clock, fail=False):
        with cw.lazy():
            recorded = GATE.on
            x + 1.0  # (a call given a graph: a block that asks for none is quiet at once)
            clock.spend()
            if fail:
                raise KeyError("inside")
        return recorded, None

    assert _calls(block, x, learning, 6) == "R.R.R."
    with pytest.raises(KeyError, match="inside"):
        block(x, learning, fail=True)  # decided quiet: the first of two entries
    assert not GATE.on and lazy_mode.is_lazy() is False
    assert block(x, learning)[0] is False  # the second
    assert block(x, learning)[0] is True  # the next window


# a block no call of which was given a graph: quiet after its first run, a decision that
# stands holding twice as long, one recorded run at each decision's end
ASKED_NONE = "R" + ".." + "R" + "...." + "R" + "........" + "R" + "........"


@pytest.fixture
def plain(learning, fusing, monkeypatch):
    """``learning``'s clock on the device under test as it is when it does not fuse."""
    device, _ = fusing
    monkeypatch.setattr(device, "capabilities", device.capabilities - {"fusion"})
    monkeypatch.setattr(lazy_mode, "_fuses", {})
    monkeypatch.setattr(lazy_mode, "RECORD_EVERYWHERE", False)
    return learning


def test_a_statement_whose_device_does_not_fuse_runs_quiet_after_one_run(plain, device):
    plain.cost = {True: 0.9, False: 1.0}  # (were it timed, recorded would win)
    x = _x(device)
    seen = [_one_call(x, plain) for _ in range(len(ASKED_NONE))]
    assert "".join("R" if s[0] else "." for s in seen) == ASKED_NONE
    for _, on, y in seen:
        assert on  # in lazy mode, as is_lazy says, quiet or not
        np.testing.assert_array_equal(cw.to_numpy(y), np.arange(6, dtype=np.float32) + 1.0)


def test_a_block_with_no_call_runs_quiet_after_one_run(learning, device):
    learning.cost = {True: 0.9, False: 1.0}

    def empty(x, clock):
        with cw.lazy():
            recorded = GATE.on
            clock.spend()
        return recorded, None

    assert _calls(empty, _x(device), learning, len(ASKED_NONE)) == ASKED_NONE


def test_a_statement_asking_for_no_graph_learns_again_once_it_records(plain, device, monkeypatch):
    x = _x(device)
    assert _calls(_one_call, x, plain, 3) == "R.."
    monkeypatch.setattr(lazy_mode, "RECORD_EVERYWHERE", True)  # the device's calls given graphs from now on
    plain.cost = {True: 1.05, False: 1.0}
    # the decision's two quiet entries went; the next window times both modes again
    assert _calls(_one_call, x, plain, 6) == "R.R.R."
