"""``Array.__array__(dtype, copy)`` by NumPy 2's contract: in host memory ``copy=None`` and
``copy=False`` share the array's memory, ``copy=True`` copies; ``copy=False`` raises
``CopyRequiredError`` (a ValueError) where only a copy converts. A device whose memory the
host does not read (the tracing backend withholding ``host_memory``, as a GPU) never
shares."""

import numpy as np
import pytest

import candlewick as cw
from candlewick.backend import holds_host_memory
from candlewick.errors import CopyRequiredError
from tracing_backend import TracingBackend


def test_copy_none_and_false_share_host_memory(device):
    if not holds_host_memory(device):
        pytest.skip(f"{device.name}: memory the host does not read (see the test below)")
    x = cw.reshape(cw.arange(12.0, device=device), (3, 4))
    shared = np.asarray(x)
    shared[0, 0] = -1.0
    view = np.asarray(x.T[::2], copy=False)  # a strided, transposed view: shared as it is
    view[...] = 5.0
    assert np.shares_memory(np.asarray(x), view)
    expected = np.arange(12.0).reshape(3, 4)
    expected[0, 0] = -1.0
    expected.T[::2] = 5.0
    np.testing.assert_array_equal(cw.to_numpy(x), expected)
    copied = np.asarray(x, copy=True)
    copied[...] = 0.0
    np.testing.assert_array_equal(cw.to_numpy(x), expected)
    assert np.asarray(x, dtype=np.float64, copy=False).base is not None
    with pytest.raises(CopyRequiredError, match="copy=False") as info:
        np.asarray(x, dtype=np.float32, copy=False)
    assert isinstance(info.value, ValueError)
    np.testing.assert_array_equal(np.asarray(x, dtype=np.float32), expected.astype(np.float32))


def test_a_broadcast_view_is_shared_read_only(device):
    if not holds_host_memory(device):
        pytest.skip(f"{device.name}: memory the host does not read")
    row = cw.broadcast_to(cw.arange(3.0, device=device), (2, 3))
    shared = np.asarray(row, copy=False)
    assert not shared.flags.writeable
    np.testing.assert_array_equal(shared, [[0, 1, 2], [0, 1, 2]])


def test_memory_the_host_does_not_read_is_never_shared():
    dev = TracingBackend(wraps="cpu", hide="host_memory").device(0)
    x = cw.arange(3.0, device=dev)
    with pytest.raises(CopyRequiredError, match="not host memory"):
        np.asarray(x, copy=False)
    with pytest.raises(TypeError, match="to_numpy"):
        np.asarray(x)
    cw.set_implicit_host_copy(True)
    try:
        host = np.asarray(x)
        host[0] = 9.0  # a copy: x keeps its values
        np.testing.assert_array_equal(cw.to_numpy(x), [0.0, 1.0, 2.0])
        with pytest.raises(CopyRequiredError):
            np.asarray(x, copy=False)
    finally:
        cw.set_implicit_host_copy(False)
