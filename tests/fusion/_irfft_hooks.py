"""What the tests of lazy mode's irfft consumers share (test_lazy_irfft.py, the graph's
path; test_lazy_defer.py, a deferred call's): stand-in hooks ``IrfftScratchDevice`` for
a device without its own, and the data."""

import math

import numpy as np
import pytest

import candlewick as cw
from candlewick.layout import Layout

__all__ = ["FACTORS", "bits", "data", "scratch"]


FACTORS = {None: lambda n: 1.0, "backward": lambda n: 1.0 / n, "ortho": lambda n: 1.0 / math.sqrt(n),
           "forward": lambda n: 1.0}


@pytest.fixture
def scratch(device, monkeypatch):
    """The device given stand-in hooks (where it has none of its own): a factor for an
    input whose last axis is transformed at its n//2+1 entries, the transform the
    primitive's unnormalized one, its input then overwritten with NaN. Returns the list
    of each scratch call's input storage."""
    calls = []
    if getattr(type(device), "irfft_scratch_factor", None) is not None:
        pytest.skip("the device has its own hooks (tests/rocm/host/test_lazy_irfft_host.py)")
    storage_type = type(cw.zeros((1,), dtype=cw.complex64, device=device)._storage)

    def irfft_scratch_factor(self, dtype, shape, axis, n, norm=None):
        if axis != len(shape) - 1 or shape[axis] != n // 2 + 1:
            return None
        return FACTORS[norm](n)

    def irfft_scratch(self, layout, axis, n):
        calls.append(self)
        out = self.irfft(layout, axis, n, norm="forward")  # (the inverse unscaled)
        self.fill(Layout.contiguous((self.size,)), complex("nan+nanj"))
        return out

    monkeypatch.setattr(type(device), "irfft_scratch_factor", irfft_scratch_factor, raising=False)
    monkeypatch.setattr(storage_type, "irfft_scratch", irfft_scratch, raising=False)
    return calls


def data(device, rows=3, n=16):
    rng = np.random.default_rng(0)
    x = cw.asarray(rng.standard_normal((rows, n)).astype(np.float32), device=device)
    response = cw.asarray(np.exp(-np.arange(n // 2 + 1, dtype=np.float32) / 4).astype(np.complex64), device=device)
    return x, response


def bits(a):
    return cw.to_numpy(a).view(np.uint8)
