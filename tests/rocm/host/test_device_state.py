"""The device's one mechanism for per-device state (``RocmDevice.family_state``) and for
repeated launches (``PreparedLaunch`` kept in the bounded ``LaunchMemo``), on the fake HIP
runtime (no GPU needed)."""

import threading

import numpy as np

from candlewick.layout import Layout
from candlewick.opdefs import BinaryOp, ReduceOp
from rocm_backend.abi import structs
from rocm_backend.runtime.launcher import NOTHING, LaunchMemo, PreparedLaunch


def test_family_state_is_made_once_per_device_under_racing_threads(fake):
    _, dev = fake
    made, start = [], threading.Barrier(8)

    def make(device):
        made.append(device)
        return object()

    got = []

    def worker():
        start.wait()
        got.append(dev.family_state("test_state", make))

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert made == [dev] and len({id(g) for g in got}) == 1
    assert dev.family_state("test_state") is got[0]  # without make: what was made
    assert dev.family_state("never made") is None  # a report makes nothing
    assert dev.family_state(("peer_access", 3), lambda d: False) is False  # a falsy state is kept too


def test_family_state_may_ask_for_other_state_while_it_is_made(fake):
    _, dev = fake
    outer = dev.family_state("outer", lambda d: ("outer", d.family_state("inner", lambda _: "inner")))
    assert outer == ("outer", "inner") and dev.family_state("inner") == "inner"


def test_library_handles_are_the_devices_own_and_made_once(fake):
    rt, dev = fake
    assert dev.blas is dev.blas
    assert rt.calls["hipblasCreate"] == 1
    assert dev.streams.default.state["hipblas"] is dev.blas  # bound to a stream: kept with its record


def test_launch_memo_is_bounded_and_starts_over(monkeypatch):
    memo = LaunchMemo()
    monkeypatch.setattr(LaunchMemo, "SIZE", 4)
    made = []
    for i in range(4):
        assert memo.prepare(("t", i), lambda i=i: made.append(i) or i) == i
    assert memo.prepare(("t", 0), lambda: made.append("again") or -1) == 0  # a hit makes nothing
    memo.prepare(("t", 4), lambda: 4)  # the fifth: the table starts over
    assert list(memo) == [("t", 4)] and made == [0, 1, 2, 3]


class _Launcher:
    def __init__(self):
        self.calls = []

    def launch_fields(self, kernel, gx, gy, gz, bx, by, bz, args, packer, values):
        self.calls.append(((gx, gy, gz, bx, by, bz), packer.pack(*values)))


class _Kernel:
    block = 256


def test_prepared_launch_packs_what_the_full_values_pack():
    """Fields filled in one run (head + fills + tail) or scattered pack the same bytes as
    the whole values written out; NOTHING queues nothing."""
    launcher, args = _Launcher(), structs.NN_ARGS
    full = list(range(4, 4 + len(args.flat)))
    run = PreparedLaunch(launcher, _Kernel(), (3, 2, 1), None, args, [0, 0] + full[2:], (0, 1))
    run.run(11, 22)
    scattered = PreparedLaunch(launcher, _Kernel(), 5, 64, args, full, (3, 1))
    scattered.run(33, 44)
    values = [11, 22] + full[2:]
    want_scattered = list(full)
    want_scattered[3], want_scattered[1] = 33, 44
    assert launcher.calls == [((3, 2, 1, 256, 1, 1), args.struct.pack(*values)),
                              ((5, 1, 1, 64, 1, 1), args.struct.pack(*want_scattered))]
    assert run.values == [0, 0] + full[2:]  # the template is never written
    NOTHING.run(1, 2)
    assert len(launcher.calls) == 2


def test_every_family_keeps_its_prepared_launches_in_the_one_memo(fake):
    """An element-wise strided launch, a reduction and the flat sum each leave one entry in
    ``device.launches`` under their family's name, and a repeat adds none."""
    _, dev = fake
    x = dev.storage_from_host(np.arange(16, dtype=np.float32))
    flat, square, t = Layout.contiguous((16,)), Layout.contiguous((4, 4)), Layout((4, 4), (1, 4), 0)
    for _ in range(2):
        x.binary(BinaryOp.ADD, t, x, square)
        x.reduce(ReduceOp.SUM, square, (1,))
        x.reduce(ReduceOp.SUM, flat, (0,))
    families = sorted(key[0] for key in dev.launches)
    assert families == ["ew", "reduce", "reduce_flat"]
    assert all(isinstance(entry, (PreparedLaunch, tuple)) for entry in dev.launches.values())
