"""candlewick.distributed's front end on the CPU: argument checks, the backend hook it
needs (the cpu backend has no collectives), and the cross-rank agreement that makes bad
input raise on every rank alike (distributed_checks). The collectives themselves run in
tests/rocm/host/test_multi_device.py (a fake two-device runtime) and tests/rocm/gpu."""

import numpy as np
import pytest

import candlewick as cw
import candlewick.distributed as dist
from candlewick import distributed_checks as checks
from candlewick.errors import (ArgumentTypeError, ArgumentValueError, DeviceMismatchError, DTypeError, ShapeError,
                               UnsupportedOperation)


def _table(*rows):
    return np.stack(rows)


def test_record_round_trip():
    row = checks.record(False, cw.float32, (3, 0, 7), extra=2)
    assert row.shape == (checks.RECORD,) and row.dtype == np.int64
    assert checks.describe(row) == ("float32", (3, 0, 7)) and row[2] == 2
    assert checks.record(True)[0] == 1


def test_agreement_passes_when_ranks_agree():
    same = checks.record(False, cw.int64, (4,), 1)
    checks.agree("all_reduce", _table(same, same, same), None, "op")


@pytest.mark.parametrize("other,error,match", [
    (checks.record(False, cw.float64, (4,), 1), DTypeError, "rank 0 float32, rank 1 float64"),
    (checks.record(False, cw.float32, (5,), 1), ShapeError, r"rank 0 \(4,\), rank 1 \(5,\)"),
    (checks.record(False, cw.float32, (4,), 0), ArgumentValueError, "disagree on root: rank 0 1, rank 1 0"),
    (checks.record(True), ArgumentValueError, r"rank\(s\) \[1\] of the group gave bad input"),
])
def test_every_rank_raises_the_same_on_disagreement(other, error, match):
    mine = checks.record(False, cw.float32, (4,), 1)
    with pytest.raises(error, match="broadcast: .*" + match):
        checks.agree("broadcast", _table(mine, other), None, "root")


def test_own_error_comes_first():
    own = DeviceMismatchError("all_gather: array 0 is on cpu")
    with pytest.raises(DeviceMismatchError, match="array 0 is on cpu"):
        checks.agree("all_gather", _table(checks.record(True), checks.record(False, cw.int8, (1,))), own, "")


def test_cpu_has_no_collectives():
    with pytest.raises(UnsupportedOperation, match="new_group.*the cpu device has no collectives"):
        dist.new_group(["cpu"])
    with pytest.raises(UnsupportedOperation, match="get_unique_id"):
        dist.get_unique_id("cpu")


@pytest.mark.parametrize("call,error,match", [
    (lambda: dist.new_group([]), ArgumentTypeError, "non-empty sequence"),
    (lambda: dist.new_group("cpu"), ArgumentTypeError, "non-empty sequence"),
    (lambda: dist.new_group(["cpu", "cpu"]), ArgumentValueError, "each device may appear once"),
    (lambda: dist.init_process_group("id", 2, 0, "cpu"), ArgumentTypeError, "unique_id must be the bytes"),
    (lambda: dist.init_process_group(b"id", 2, 2, "cpu"), ArgumentValueError, "0 <= rank < world_size"),
    (lambda: dist.init_process_group(b"id", 2.0, 0, "cpu"), ArgumentTypeError, "world_size must be an int"),
    (lambda: dist.all_reduce(cw.ones(2)), ArgumentValueError, "all_reduce: no group given"),
    (lambda: dist.all_gather(cw.ones(2), group="g"), ArgumentTypeError, "all_gather: group must be"),
])
def test_bad_arguments(call, error, match):
    with pytest.raises(error, match=match):
        call()
