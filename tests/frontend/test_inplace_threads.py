"""Several threads updating one array in place (docs/inplace.md, "Threads"): candlewick
loses no more updates than NumPy does at the same size, here none. NumPy runs one ufunc
loop per update and holds the GIL through loops of up to 500 elements; past that it
releases it, and two loops over one array can then race. Each candlewick update is one
in-place primitive that the backend keeps whole (cpu: a lock per storage), or with the
group withheld the fallback's two calls under one lock."""

import sys
import threading

import numpy as np
import pytest

import candlewick as cw
from tracing_backend import TracingBackend

THREADS, ROUNDS = 4, 150


@pytest.fixture(params=["declared", "withheld"])
def dev(request, device):
    if request.param == "declared":
        return device
    return TracingBackend(wraps=device.backend, hide="inplace").device(device.ordinal)


@pytest.fixture
def frequent_switches():
    """Thread switches every microsecond, so that an update split in two would be split."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(before)


def _lost_share(array, update, read):
    barrier = threading.Barrier(THREADS)

    def work():
        barrier.wait()
        for _ in range(ROUNDS):
            update(array)

    workers = [threading.Thread(target=work) for _ in range(THREADS)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return 1.0 - float(np.mean(read(array))) / (THREADS * ROUNDS)


def _add_one(x):
    x += 1.0


@pytest.mark.parametrize("n", [256, 1000, 1 << 16])
def test_concurrent_updates_lose_no_more_than_numpy(dev, n, frequent_switches):
    numpy_lost = _lost_share(np.zeros(n), _add_one, lambda h: h)
    candlewick_lost = _lost_share(cw.zeros(n, device=dev), _add_one, cw.to_numpy)
    assert candlewick_lost <= numpy_lost, (candlewick_lost, numpy_lost)


def test_concurrent_numpy_out_updates_lose_nothing(dev, frequent_switches):
    def update(a):
        np.add(a, 1.0, out=a)

    assert _lost_share(cw.zeros(300, device=dev), update, cw.to_numpy) == 0.0
