"""The cross-rank check of a process group (distributed_checks.agree_by_rounds over
runtime/signature_rounds.py), with two ranks as two threads on the fake two-device
runtime (fake_ranks.py: their RCCL calls meet as across processes, a collective whose
ranks differ never finishes, and a wait for it fails instead of hanging): matching calls
wait for nothing after the first call of each signature; a mismatch raises on both ranks,
at once where the call waited, at the next synchronization where it did not, and no wait
ever hangs."""

import threading

import numpy as np
import pytest

import candlewick as cw
import candlewick.distributed as dist
import fake_hip
import fake_ranks
from candlewick.errors import ArgumentValueError, DTypeError, ShapeError


@pytest.fixture
def ranks(monkeypatch, tmp_path):
    monkeypatch.setenv("CANDLEWICK_KERNEL_CACHE", str(tmp_path / "kc"))
    rt = fake_hip.install(monkeypatch, fake_ranks.RanksRuntime(devices=2, timeout=3.0))
    from rocm_backend import RocmBackend

    backend = RocmBackend()
    return rt, [backend.device(0), backend.device(1)]


def _run(rt, devices, body):
    """body(rank, group, device, rt) on two threads, one per rank; their results (or
    errors), after checking that no wait would have hung."""
    uid = dist.get_unique_id(devices[0])
    out = [None, None]

    def rank(r):
        try:
            group = dist.init_process_group(uid, 2, r, devices[r], default=False)
            out[r] = body(r, group, devices[r])
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            out[r] = exc

    threads = [threading.Thread(target=rank, args=(r,), name=f"rank{r}") for r in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert not any(t.is_alive() for t in threads), "a rank hung"
    assert not rt.hangs, rt.hangs
    for r in (0, 1):
        if isinstance(out[r], AssertionError):
            raise out[r]
    return out


def _x(device, n, rank, dtype=np.float32):
    return cw.asarray(np.arange(n, dtype=dtype) + 10 * rank, device=device)


def test_matching_calls_wait_only_on_the_first_call_of_a_signature(ranks):
    rt, devices = ranks

    def body(r, group, dev):
        x, y = _x(dev, 6, r), _x(dev, 4, r)
        first = rt.syncs()
        a = dist.all_reduce(x, group=group)  # a new signature: one round trip
        after_first = rt.syncs()
        results = [dist.all_reduce(x, group=group) for _ in range(5)]
        b = dist.all_gather(y, group=group)  # another new signature
        after_gather = rt.syncs()
        results += [dist.all_reduce(x, group=group), dist.all_gather(y, group=group)]
        cached = rt.syncs() - after_gather
        got = [cw.to_numpy(v) for v in (a, b, *results)]
        dist_calls = group.calls
        group.close()
        return after_first - first, after_gather - after_first, cached, got, dist_calls

    for trips, gather_trips, cached, got, calls in _run(rt, devices, body):
        assert trips >= 1 and gather_trips >= 1  # the first call of a signature waits for its round
        assert cached == 0, "a call with an agreed signature waited for the device"
        total = np.arange(6) * 2 + 10
        np.testing.assert_array_equal(got[0], total)
        np.testing.assert_array_equal(got[1], np.stack([np.arange(4), np.arange(4) + 10]))
        for v in got[2:7] + got[7:8]:
            np.testing.assert_array_equal(v, total)
        assert calls == 9
    # every checked call queued one round (int64 max) before its collective
    rounds = [c for c in rt.collectives if c[0] == "ncclAllReduce"]
    assert len(rounds) == 2 * (9 + 7)


def test_new_signatures_that_differ_raise_the_detailed_error_and_the_group_stays_usable(ranks):
    rt, devices = ranks

    def body(r, group, dev):
        errors = []
        for bad in (_x(dev, 3 + r, r), _x(dev, 4, r, np.float32 if r else np.float64)):
            try:
                dist.all_reduce(bad, group=group)
            except (ShapeError, DTypeError) as exc:
                errors.append(exc)
        try:
            dist.broadcast(_x(dev, 5, r), src=r, group=group)
        except ArgumentValueError as exc:
            errors.append(exc)
        after = cw.to_numpy(dist.all_reduce(_x(dev, 2, r), group=group))
        group.close()
        return errors, after

    for errors, after in _run(rt, devices, body):
        assert [type(e) for e in errors] == [ShapeError, DTypeError, ArgumentValueError], errors
        assert "the ranks' arrays differ in shape: rank 0 (3,), rank 1 (4,)" in str(errors[0])
        assert "rank 0 float64, rank 1 float32" in str(errors[1])
        assert "disagree on src: rank 0 0, rank 1 1" in str(errors[2])
        np.testing.assert_array_equal(after, [10, 12])


def _agree_on(group, dev, r, sizes):
    for n in sizes:
        cw.to_numpy(dist.all_reduce(_x(dev, n, r), group=group))


def test_agreed_signatures_that_differ_raise_at_the_next_synchronization_on_both_ranks(ranks):
    rt, devices = ranks

    def body(r, group, dev):
        _agree_on(group, dev, r, (4, 8))
        before = rt.syncs()
        y = dist.all_reduce(_x(dev, 4 if r == 0 else 8, r), group=group)  # both cached, they differ
        returned_without_waiting = rt.syncs() == before
        with pytest.raises(ArgumentValueError, match=r"all_reduce \(call 3 on this group\).*differed.*aborted"):
            cw.to_numpy(y)
        with pytest.raises(ArgumentValueError, match="aborted after the ranks' calls differed"):
            dist.all_reduce(_x(dev, 4, r), group=group)
        group.close()
        return returned_without_waiting

    assert _run(rt, devices, body) == [True, True]
    assert rt.calls["ncclCommAbort"] == 2


def test_a_cached_call_against_a_new_one_raises_on_both_ranks(ranks):
    rt, devices = ranks

    def body(r, group, dev):
        _agree_on(group, dev, r, (4,))
        if r == 0:
            y = dist.all_reduce(_x(dev, 4, r), group=group)  # cached: queued without waiting
            with pytest.raises(ArgumentValueError, match=r"all_reduce \(call 2 on this group\)"):
                dev.synchronize()
            del y
        else:  # a new shape: waits for its round, which says another rank queued already
            with pytest.raises(ArgumentValueError, match="a rank had queued its call already.*aborted"):
                dist.all_reduce(_x(dev, 5, r), group=group)
        assert group.closed
        return True

    assert _run(rt, devices, body) == [True, True]


def test_own_bad_input_against_a_cached_call_raises_on_both_ranks(ranks):
    rt, devices = ranks

    def body(r, group, dev):
        _agree_on(group, dev, r, (4,))
        if r == 0:
            y = dist.all_reduce(_x(dev, 4, r), group=group)
            with pytest.raises(ArgumentValueError, match="call 2 on this group"):
                cw.to_numpy(y)
        else:
            with pytest.raises(ArgumentValueError, match="op must be one of"):
                dist.all_reduce(_x(dev, 4, r), op="mean", group=group)
        return group.closed

    assert _run(rt, devices, body) == [True, True]


def test_different_collectives_with_the_same_record_raise(ranks):
    rt, devices = ranks

    def body(r, group, dev):
        x = _x(dev, 4, r)
        with pytest.raises(ArgumentValueError, match="different collectives"):
            (dist.all_reduce if r == 0 else dist.all_gather)(x, group=group)
        return cw.to_numpy(dist.all_gather(x, group=group))

    for got in _run(rt, devices, body):
        np.testing.assert_array_equal(got, [np.arange(4), np.arange(4) + 10])


@pytest.mark.parametrize("name", ["all_reduce", "all_gather", "reduce_scatter", "broadcast"])
def test_every_collective_waits_only_on_its_first_call(ranks, name):
    rt, devices = ranks
    call = {"all_reduce": lambda x, g: dist.all_reduce(x, op="max", group=g),
            "all_gather": lambda x, g: dist.all_gather(x, group=g),
            "reduce_scatter": lambda x, g: dist.reduce_scatter(x, group=g),
            "broadcast": lambda x, g: dist.broadcast(x, 1, group=g)}[name]

    def body(r, group, dev):
        x = _x(dev, 6, r)
        first = call(x, group)
        before = rt.syncs()
        later = [call(x, group) for _ in range(3)]
        waited = rt.syncs() - before
        return waited, [cw.to_numpy(y) for y in (first, *later)]

    a, b = np.arange(6.0), np.arange(6.0) + 10
    expected = {"all_reduce": [np.maximum(a, b)] * 2, "all_gather": [np.stack([a, b])] * 2,
                "reduce_scatter": [(a + b)[:3], (a + b)[3:]], "broadcast": [b, b]}[name]
    for r, (waited, got) in enumerate(_run(rt, devices, body)):
        assert waited == 0, f"rank {r} waited for the device on a call with an agreed signature"
        for y in got:
            np.testing.assert_array_equal(y, expected[r])


def test_a_full_ring_of_pending_rounds_is_read_before_the_next(ranks, monkeypatch):
    from rocm_backend.runtime import signature_rounds

    monkeypatch.setattr(signature_rounds, "SLOTS", 3)
    rt, devices = ranks

    def body(r, group, dev):
        x = _x(dev, 4, r)
        ys = [dist.all_reduce(x, group=group) for _ in range(8)]  # rounds 2-8 wrap the ring twice
        return [cw.to_numpy(y) for y in ys], group._comm._comm.rounds[0].pending

    for got, pending in _run(rt, devices, body):
        assert pending == 0
        for y in got:
            np.testing.assert_array_equal(y, np.arange(4) * 2 + 10)
