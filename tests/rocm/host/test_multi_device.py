"""Several rocm devices in one process, on a fake HIP runtime with two devices (no GPU
needed; fake_devices.py): every call acting on a device runs with that device current,
work on one device never synchronizes the other, copies between them are peer copies
ordered on both streams (or go through the host without peer access), and collectives
queue each member's call on its own device inside one RCCL group. With host memory
behind the fake devices (``real_memory``), peer copies and the collectives of
candlewick.distributed are checked by value (the fake RCCL moves and reduces the bytes;
no kernel runs, so the inputs are plain uploads)."""

import numpy as np
import pytest

import candlewick as cw
import candlewick.distributed as dist
import fake_devices
import fake_hip
from candlewick.errors import DeviceMismatchError, DTypeError, ShapeError
from candlewick.layout import Layout
from candlewick.opdefs import BinaryOp, ReduceOp, UnaryOp


@pytest.fixture
def two(monkeypatch, tmp_path):
    monkeypatch.setenv("CANDLEWICK_KERNEL_CACHE", str(tmp_path / "kc"))
    rt = fake_hip.install(monkeypatch, fake_devices.MultiDeviceRuntime(devices=2))
    from rocm_backend import RocmBackend

    backend = RocmBackend()
    return rt, backend.device(0), backend.device(1)


def _upload(dev, a):
    return dev.storage_from_host(np.ascontiguousarray(a)), Layout.contiguous(a.shape)


def _ops(x, lx):
    t = Layout((4, 4), (1, 4), 0)
    x.binary(BinaryOp.ADD, lx, x, lx)
    x.binary(BinaryOp.ADD, t, x, t)
    x.unary(UnaryOp.EXP, lx)
    x.reduce(ReduceOp.SUM, t, (1,))


def _work(dev):
    x, lx = _upload(dev, np.arange(16, dtype=np.float32))
    _ops(x, lx)
    x.to_host(lx)
    dev.memory_info()


def test_each_call_runs_with_its_device_current(two):
    rt, d0, d1 = two
    assert (d0.stream.device, d1.stream.device) == (0, 1)
    for _ in range(2):
        _work(d1)
        _work(d0)
        _work(d1)
    # op by op, alternating: from the second round on the blocks come from each device's
    # cache (no allocation call), so only the launcher makes the device current
    xs = [_upload(d, np.arange(16, dtype=np.float32)) for d in (d0, d1)]
    for _ in range(3):
        for x, lx in xs:
            _ops(x, lx)
    assert not rt.violations, rt.violations[:5]
    assert {dev for _, dev, _ in rt.log} == {0, 1}


def test_work_on_one_device_never_waits_for_the_other(two):
    rt, d0, d1 = two
    _work(d0)
    before = len(rt.log)
    _work(d1)
    d1.synchronize()
    waits = [entry for entry in rt.log[before:] if entry[0] == "hipStreamSynchronize"]
    assert waits and all(stream_dev == 1 for _, _, stream_dev in waits)


def test_to_device_is_a_peer_copy_ordered_on_both_streams(two):
    rt, d0, d1 = two
    x = cw.asarray(np.arange(12, dtype=np.float32).reshape(3, 4), device=d0)
    before = len(rt.log)
    y = x.T.to_device(d1)  # a transposed view: copied contiguous on rocm:0 first
    assert y.device is d1 and y.shape == (4, 3)
    calls = [(name, cur, stream) for name, cur, stream in rt.log[before:]]
    names = [c[0] for c in calls]
    assert "hipMemcpyDtoHAsync" not in names, "the copy went through the host"
    copy = names.index("hipMemcpyPeerAsync")
    assert calls[copy][2] == 1  # queued on the destination's stream
    waits = [c for c in calls if c[0] == "hipStreamWaitEvent"]
    assert [w[2] for w in waits] == [1, 0]  # rocm:1 waits for rocm:0's work, then rocm:0 for the copy
    assert rt.enabled_peers == [(1, 0)]
    x.to_device(d1)
    assert rt.enabled_peers == [(1, 0)], "peer access is enabled once per pair"
    assert not rt.violations, rt.violations[:5]


def test_to_device_without_peer_access_goes_through_the_host(two):
    rt, d0, d1 = two
    rt.peer_access = False
    x = cw.asarray(np.arange(6, dtype=np.float32), device=d0)
    before = len(rt.log)
    x.to_device(d1)
    names = [name for name, _, _ in rt.log[before:]]
    assert "hipMemcpyPeerAsync" not in names
    assert "hipMemcpyDtoHAsync" in names and "hipMemcpyHtoDAsync" in names
    assert not rt.violations


def test_operands_on_two_gpus_raise_device_mismatch(two):
    _, d0, d1 = two
    a = cw.asarray(np.ones(3, np.float32), device=d0)
    b = cw.asarray(np.ones(3, np.float32), device=d1)
    with pytest.raises(DeviceMismatchError):
        a + b


def test_group_collectives_queue_each_member_on_its_own_device(two):
    rt, d0, d1 = two
    group = dist.new_group([d0, d1])
    assert (group.size, group.ranks) == (2, (0, 1))
    xs = [cw.asarray(np.ones((4, 2), np.float32), device=d) for d in (d0, d1)]
    for fn in (dist.all_reduce, dist.all_gather, dist.reduce_scatter):
        ys = fn(xs, group=group)
        assert [y.device for y in ys] == [d0, d1]
    ys = dist.broadcast(xs, 1, group=group)
    assert ys[0].shape == (4, 2)
    assert dist.all_gather(xs, group=group)[0].shape == (2, 4, 2)
    assert dist.reduce_scatter(xs, group=group)[1].shape == (2, 2)
    (z,) = dist.send_recv([(xs[0], 1)], [((4, 2), "float32", 0, 1)], group=group)
    assert z.device is d1
    assert all(inside for *_, inside in rt.collectives), "a call outside ncclGroupStart/End"
    assert {(dev, rank) for _, dev, rank, _ in rt.collectives} == {(0, 0), (1, 1)}
    assert not rt.violations, rt.violations[:5]
    group.close()
    with pytest.raises(ValueError, match="closed"):
        dist.all_reduce(xs, group=group)


def test_group_bad_input_raises_before_rccl_is_called(two):
    rt, d0, d1 = two
    group = dist.new_group([d0, d1])
    a0 = cw.asarray(np.ones(4, np.float32), device=d0)
    a1 = cw.asarray(np.ones(4, np.float32), device=d1)
    with pytest.raises(ShapeError, match="all_reduce"):
        dist.all_reduce([a0, cw.asarray(np.ones(5, np.float32), device=d1)], group=group)
    with pytest.raises(DTypeError, match="all_gather"):
        dist.all_gather([a0, cw.asarray(np.ones(4, np.float64), device=d1)], group=group)
    with pytest.raises(DeviceMismatchError, match="rank 1 of the group is rocm:1"):
        dist.all_reduce([a0, a0], group=group)  # rocm:0 holds no rank 1
    with pytest.raises(ValueError, match="one array per device"):
        dist.all_reduce([a0], group=group)
    with pytest.raises(ValueError, match="op must be one of"):
        dist.all_reduce([a0, a1], op="mean", group=group)
    with pytest.raises(ShapeError, match="multiple of the group's size 2"):
        dist.reduce_scatter([a0[:3], a1[:3]], group=group)
    with pytest.raises(ValueError, match="src must be a rank"):
        dist.broadcast([a0, a1], 2, group=group)
    with pytest.raises(ShapeError, match="expects"):
        dist.send_recv([(a0, 1)], [((5,), "float32", 0, 1)], group=group)
    with pytest.raises(ValueError, match="no receive"):
        dist.send_recv([(a0, 1)], [], group=group)
    with pytest.raises(ValueError, match="no send"):
        dist.send_recv([], [((4,), "float32", 0, 1)], group=group)
    with pytest.raises(ValueError, match="no device of the group"):
        dist.send_recv([(cw.asarray([1.0]), 1)], [], group=group)
    assert rt.collectives == [], "RCCL was called with bad input"


def test_process_group_joins_with_the_unique_id_on_its_device(two):
    rt, _, d1 = two
    uid = dist.get_unique_id(d1)
    assert isinstance(uid, bytes) and len(uid) == 128
    group = dist.init_process_group(uid, world_size=1, rank=0, device=d1)
    try:
        assert group.spans_processes and group.devices == (d1,)
        assert rt.calls["ncclCommInitRank"] == 1
        assert not rt.violations
    finally:
        group.close()


# --- by value: host memory behind the fake devices, RCCL's data movement done in NumPy ----

@pytest.fixture
def real(monkeypatch, tmp_path):
    monkeypatch.setenv("CANDLEWICK_KERNEL_CACHE", str(tmp_path / "kc"))
    rt = fake_hip.install(monkeypatch, fake_devices.MultiDeviceRuntime(devices=2, real_memory=True))
    from rocm_backend import RocmBackend

    backend = RocmBackend()
    return rt, backend.device(0), backend.device(1)


def test_peer_copy_moves_the_elements(real):
    _, d0, d1 = real
    host = np.arange(12, dtype=np.float32).reshape(3, 4)
    x = cw.asarray(host, device=d0)
    y = x[1:].to_device(d1)  # an offset view: copied from its offset
    assert y.device is d1
    np.testing.assert_array_equal(cw.to_numpy(y), host[1:])


@pytest.mark.parametrize("dtype,op", [("float32", "sum"), ("int64", "max"), ("float64", "avg"),
                                      ("complex64", "sum"), ("bool", "min"), ("bfloat16", "prod"),
                                      ("uint8", "sum")])
def test_group_collectives_by_value(real, dtype, op):
    _, d0, d1 = real
    np_dtype = cw.asarray(np.zeros(1), dtype=dtype).dtype.numpy if dtype != "bool" else np.bool_
    a = (np.arange(8).reshape(4, 2) % 3).astype(np_dtype)
    b = (np.arange(8).reshape(4, 2) % 2 + 1).astype(np_dtype)
    if dtype == "complex64":
        b = b + 1j * a
    xs = [cw.asarray(a, device=d0), cw.asarray(b, device=d1)]
    reduce = {"sum": np.add, "max": np.maximum, "min": np.minimum, "prod": np.multiply,
              "avg": lambda p, q: (p + q) / 2}[op]
    expected = reduce(a, b).astype(a.dtype)
    with dist.new_group([d0, d1]) as group:
        ys = dist.all_reduce(xs, op=op, group=group)
        for y, dev in zip(ys, (d0, d1)):
            assert y.device is dev and y.dtype == xs[0].dtype
            np.testing.assert_array_equal(cw.to_numpy(y), expected)
        for y in dist.all_gather(xs, group=group):
            np.testing.assert_array_equal(cw.to_numpy(y), np.stack([a, b]))
        r0, r1 = dist.reduce_scatter(xs, op=op, group=group)
        np.testing.assert_array_equal(cw.to_numpy(r0), expected[:2])
        np.testing.assert_array_equal(cw.to_numpy(r1), expected[2:])
        for y in dist.broadcast(xs, 1, group=group):
            np.testing.assert_array_equal(cw.to_numpy(y), b)
        got = dist.send_recv([(xs[0], 1), (xs[1], 0)], [((4, 2), dtype, 0, 1), ((4, 2), dtype, 1, 0)], group=group)
        np.testing.assert_array_equal(cw.to_numpy(got[0]), a)
        np.testing.assert_array_equal(cw.to_numpy(got[1]), b)


def test_process_group_of_one_agrees_then_runs(real):
    rt, _, d1 = real
    group = dist.init_process_group(dist.get_unique_id(d1), world_size=1, rank=0, device=d1, default=False)
    try:
        x = cw.asarray(np.arange(5, dtype=np.float32), device=d1)
        np.testing.assert_array_equal(cw.to_numpy(dist.all_reduce(x, group=group)), np.arange(5))
        np.testing.assert_array_equal(cw.to_numpy(dist.all_gather(x, group=group)), np.arange(5)[None])
        with pytest.raises(DeviceMismatchError, match="all_reduce: array 0 is on cpu"):
            dist.all_reduce(cw.asarray(np.arange(5.0)), group=group)  # raised after the agreement round
        with pytest.raises(ValueError, match="op must be one of"):
            dist.all_reduce(x, op="bogus", group=group)
        with pytest.raises(ValueError, match="src must be a rank"):
            dist.broadcast(x, 1, group=group)
        np.testing.assert_array_equal(cw.to_numpy(dist.broadcast(x, 0, group=group)), np.arange(5))
        # every call began with its signature round (a tiny all-reduce: 6, plus all_reduce's
        # own); the three bad calls then gathered the ranks' records for their error (an
        # all-gather each, plus all_gather's own) and queued nothing after it
        kinds = [name for name, *_ in rt.collectives]
        assert kinds.count("ncclAllReduce") == 7 and kinds.count("ncclAllGather") == 4, kinds
        assert kinds.count("ncclBroadcast") == 1, kinds
    finally:
        group.close()


def test_empty_arrays_queue_no_rccl_call(real):
    rt, d0, d1 = real
    xs = [cw.asarray(np.zeros((0, 3), np.float32), device=d) for d in (d0, d1)]
    with dist.new_group([d0, d1]) as group:
        assert [y.shape for y in dist.all_reduce(xs, group=group)] == [(0, 3), (0, 3)]
        assert dist.all_gather(xs, group=group)[0].shape == (2, 0, 3)
        assert dist.reduce_scatter(xs, group=group)[1].shape == (0, 3)
        assert dist.send_recv([(xs[0], 1)], [((0, 3), "float32", 0, 1)], group=group)[0].shape == (0, 3)
    assert rt.collectives == []
