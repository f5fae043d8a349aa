"""A 0-d array in host memory beside arrays on another device acts as a scalar (issue 20:
xarray and cubed make fill values on the cpu and meet rocm arrays with them); any other
mix of devices still raises DeviceMismatchError (docs/errors.md, "Devices")."""

import numpy as np
import pytest

import candlewick as cw
from candlewick.backend import holds_host_memory
from candlewick.errors import DeviceMismatchError
from tracing_backend import TracingBackend


@pytest.fixture
def elsewhere(device):
    """A host-memory device other than ``device``: the cpu beside a GPU; beside the cpu, a
    tracing device wrapping it (the same memory under another device)."""
    if holds_host_memory(device):
        return TracingBackend(wraps="cpu", hide="").device(0)
    return cw.get_device("cpu")


def test_host_0d_array_follows_the_other_operand(device, elsewhere):
    x = cw.asarray([-1.5, 0.5, 4.0], dtype=cw.float32, device=device)
    two = cw.asarray(2.0, dtype=cw.float32, device=elsewhere)
    results = {
        "x * s": (x * two, [-3.0, 1.0, 8.0]),
        "s - x": (two - x, [3.5, 1.5, -2.0]),
        "maximum": (cw.maximum(x, two), [2.0, 2.0, 4.0]),
        "x > s": (x > two, [False, False, True]),
        "where fill": (cw.where(x > 0, x, two), [2.0, 0.5, 4.0]),
        "where both": (cw.where(x > 0, two, cw.asarray(-2.0, dtype=cw.float32, device=elsewhere)), [-2.0, 2.0, 2.0]),
        "clip": (cw.clip(x, cw.asarray(0.0, dtype=cw.float32, device=elsewhere), two), [0.0, 0.5, 2.0]),
    }
    for name, (got, expected) in results.items():
        assert got.device is device, name
        np.testing.assert_array_equal(cw.to_numpy(got), expected, err_msg=name)
    y = cw.asarray([1.0, 2.0, 3.0], dtype=cw.float32, device=device)
    y += two
    assert y.device is device and cw.to_numpy(y).tolist() == [3.0, 4.0, 5.0]
    # the 0-d array's dtype counts as an array's (only the device rule is relaxed)
    n = cw.asarray([1, 2], dtype=cw.int32, device=device) + cw.asarray(3, dtype=cw.int64, device=elsewhere)
    assert n.dtype == cw.int64 and n.device is device and cw.to_numpy(n).tolist() == [4, 5]
    # a boolean condition made on the host as a 0-d array
    picked = cw.where(cw.asarray(True, device=elsewhere), x, two)
    assert picked.device is device and cw.to_numpy(picked).tolist() == [-1.5, 0.5, 4.0]


def test_arrays_of_other_shapes_on_another_device_still_raise(device, elsewhere):
    x = cw.asarray([1.0, 2.0], device=device)
    other = cw.asarray([3.0, 4.0], device=elsewhere)
    one = cw.asarray([5.0], device=elsewhere)  # one element, but not 0-d
    for mixed in (lambda: x + other, lambda: x * one, lambda: x < other, lambda: cw.where(x > 1, x, one),
                  lambda: cw.where(other > 3, x, 0.0), lambda: cw.clip(x, one, None), lambda: x @ other):
        with pytest.raises(DeviceMismatchError, match="device"):
            mixed()
