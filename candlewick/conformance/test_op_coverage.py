"""Ties candlewick/opdefs.py to the backend: every member of every op enum, with every
dtype its domain accepts, must run and return the dtype the table promises. Adding an
op or widening a domain in opdefs without implementing it fails here (by name), even
before the detailed tests of test_elementwise.py / test_reduce.py look at values."""

import numpy as np
import pytest

from candlewick.layout import Layout
from candlewick.opdefs import ALL_OP_ENUMS, BinaryOp, CompareOp, ReduceOp, ScanOp, UnaryOp

from .checks import read_result
from .strategies import fill_values

SHAPE = (2, 3)
LAYOUT = Layout.contiguous(SHAPE)


def _exercise(device, op, dtype):
    host = fill_values(np.random.default_rng(0), dtype, 6, profile="moderate")
    x = device.storage_from_host(host)
    if isinstance(op, UnaryOp):
        return x.unary(op, LAYOUT), SHAPE
    if isinstance(op, BinaryOp):
        return x.binary(op, LAYOUT, x, LAYOUT), SHAPE
    if isinstance(op, CompareOp):
        return x.compare(op, LAYOUT, x, LAYOUT), SHAPE
    if isinstance(op, ReduceOp):
        return x.reduce(op, LAYOUT, (1,)), SHAPE[:1]
    if isinstance(op, ScanOp):
        return x.scan(op, LAYOUT, 1), SHAPE
    raise AssertionError(f"the suite does not know the op enum {type(op).__name__}: extend it")


@pytest.mark.primitive(param="op")
@pytest.mark.parametrize(
    "op,dtype",
    [pytest.param(op, d, id=f"{type(op).__name__}.{op.name}-{d.name}")
     for enum in ALL_OP_ENUMS for op in enum for d in op.dtypes()],
)
def test_every_op_runs_with_every_accepted_dtype(device, op, dtype):
    out, shape = _exercise(device, op, dtype)
    read_result(out, op.result_dtype(dtype), shape)


def test_every_op_has_a_dtype_to_test_with():
    """An op whose domain accepts no dtype would get no test case at all above."""
    for enum in ALL_OP_ENUMS:
        members = list(enum)
        assert members, f"{enum.__name__} has no members"
        assert all(op.dtypes() for op in members), f"an op of {enum.__name__} accepts no dtype"
