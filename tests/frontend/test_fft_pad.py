"""Zero-padding folded into the fft primitives where the device declares ``fft_pad``
(``candlewick.backend.FFTPadDevice``), and the front end's padded copy where the tracing
backend withholds the declaration: NumPy's values either way, and where declared the
transform is the only primitive the call makes (no buffer of zeros and copy before it)."""

import numpy as np
import pytest

import candlewick as cw
from candlewick.errors import CandlewickError

WITHHELD_GROUP = "fft_pad"  # (the conftest's traced fixture withholds it)
NEEDS_GROUP = "fft"  # (the conftest's traced fixture skips a device without it)


CALLS = [
    ("rfft", lambda x: cw.fft.rfft(x, n=16), lambda h: np.fft.rfft(h, n=16)),
    ("rfft axis 0", lambda x: cw.fft.rfft(x, n=7, axis=0), lambda h: np.fft.rfft(h, n=7, axis=0)),
    ("rfft of a transposed view", lambda x: cw.fft.rfft(x.T, n=9), lambda h: np.fft.rfft(h.T, n=9)),
    ("rfftn one axis", lambda x: cw.fft.rfftn(x, s=(15,), axes=(-1,), norm="ortho"),
     lambda h: np.fft.rfftn(h, s=(15,), axes=(-1,), norm="ortho")),
    ("fft", lambda x: cw.fft.fft(x.astype(cw.complex128), n=13), lambda h: np.fft.fft(h, n=13)),
    ("ifft", lambda x: cw.fft.ifft(x.astype(cw.complex128), n=12, norm="forward"),
     lambda h: np.fft.ifft(h, n=12, norm="forward")),
    ("ihfft", lambda x: cw.fft.ihfft(x, n=11), lambda h: np.fft.ihfft(h, n=11)),
    ("rfft cropped", lambda x: cw.fft.rfft(x, n=6), lambda h: np.fft.rfft(h, n=6)),
]


@pytest.mark.parametrize("name,call,expected", CALLS, ids=[c[0] for c in CALLS])
def test_padding_matches_numpy_with_and_without_the_declaration(traced, name, call, expected):
    backend, dev = traced
    h = np.random.default_rng(5).standard_normal((4, 10))
    x = cw.asarray(h, device=dev)
    backend.recorder.reset()
    got = call(x)
    np.testing.assert_allclose(cw.to_numpy(got), expected(h), rtol=1e-10, atol=1e-10)
    names = [row[0] for row in backend.recorder.rows()]
    if getattr(dev, "fft_pad", False):
        assert "zeros" not in names and "full" not in names and "assign" not in names, names
    elif "cropped" not in name:  # (what the declaration saves: the front end's padded copy)
        assert "zeros" in names and "assign" in names, names


def test_padding_of_float32_keeps_single_precision(traced):
    backend, dev = traced
    h = np.random.default_rng(6).standard_normal((3, 5)).astype(np.float32)
    got = cw.fft.rfft(cw.asarray(h, device=dev), n=8)
    assert got.dtype == cw.complex64
    np.testing.assert_allclose(cw.to_numpy(got), np.fft.rfft(h, n=8), rtol=1e-5, atol=1e-5)


def test_the_primitive_refuses_a_shorter_n(device):
    """``n`` below the axis's length is the front end's crop (a view), never passed: a
    backend given one raises rather than transform something else."""
    if "fft" not in device.capabilities or not getattr(device, "fft_pad", False):
        pytest.skip(f"{device.name} does not declare fft_pad")
    x = cw.asarray(np.ones((2, 8)), device=device)
    with pytest.raises(CandlewickError, match="n=4"):
        x._storage.rfft(x._layout, 1, n=4)
