"""x[i, j] = v, one element, holds the cpu storage's lock (storage_slice.lock_of) while it
writes, as fill and every other write into the buffer do, whether v is a Python scalar
(the storage's fill; candlewick._native's cw_element_put) or a 0-d array (the storage's
assign; ElementAssign's copy), from C or through the Python method with the module
unbound. The lock is the cpu backend's alone (other backends' storages have none)."""

import threading

import numpy as np
import pytest

import candlewick as cw
from candlewick import _core
from candlewick import array as array_module
from cpu_backend.storage_slice import lock_of


@pytest.fixture(params=["c", "python"])
def path(request):
    """The store from C (the module bound) or the Python method's (unbound; the only path
    where the module was not built)."""
    if request.param == "c" and _core._native is None:
        pytest.skip("candlewick._native was not built here")
    if request.param == "python" and _core._native is not None:
        _core._native.unbind()
        yield request.param
        _core.bind_native(array_module.Array)
        return
    yield request.param


VALUES = {"scalar": lambda: 1.5, "0-d array": lambda: cw.asarray(1.5, dtype=cw.float64)}


class RecordingLock:
    """A lock (of another type than the module's Lock: the C paths leave it to the Python
    method's `with`) that records the stored element as it is taken and given back."""

    def __init__(self, buf, at):
        self.buf, self.at, self.seen = buf, at, []

    def __enter__(self):
        self.seen.append(("taken", float(self.buf[self.at])))

    def __exit__(self, *exc):
        self.seen.append(("given back", float(self.buf[self.at])))


@pytest.mark.parametrize("kind", sorted(VALUES))
def test_a_store_writes_inside_the_storages_lock(kind, path):
    x = cw.asarray(np.zeros((2, 3)))
    value = VALUES[kind]()
    lock = x._storage._lock = RecordingLock(x._storage.buf, 5)
    x[1, 2] = value
    assert lock.seen == [("taken", 0.0), ("given back", 1.5)]


@pytest.mark.parametrize("kind", sorted(VALUES))
def test_a_store_waits_for_the_storages_lock(kind, path):
    x = cw.asarray(np.zeros((2, 2)))
    value = VALUES[kind]()
    done = threading.Event()

    def store():
        x[1, 0] = value
        done.set()

    with lock_of(x._storage):
        worker = threading.Thread(target=store)
        worker.start()
        assert not done.wait(0.2)  # (held: the store cannot finish, however long it waits)
    worker.join()
    assert cw.to_numpy(x).tolist() == [[0, 0], [1.5, 0]]
