"""``norm`` scaling folded into the fft primitives where the device declares ``fft_norm``
(``candlewick.backend.FFTNormDevice``), and the front end's multiply where the tracing
backend withholds the declaration: NumPy's values either way, and the recorder shows no
separate scaling pass where declared."""

import numpy as np
import pytest

import candlewick as cw
from tracing_backend import TracingBackend


WITHHELD_GROUP = "fft_norm"  # (the conftest's traced fixture withholds it)
NEEDS_GROUP = "fft"  # (the conftest's traced fixture skips a device without it)


CALLS = [
    ("rfft", lambda x, norm: cw.fft.rfft(x, norm=norm), lambda h, norm: np.fft.rfft(h, norm=norm)),
    ("irfft", lambda x, norm: cw.fft.irfft(cw.fft.rfft(x), n=14, norm=norm),
     lambda h, norm: np.fft.irfft(np.fft.rfft(h), n=14, norm=norm)),
    ("ifft", lambda x, norm: cw.fft.ifft(x.astype(cw.complex128), n=9, norm=norm),
     lambda h, norm: np.fft.ifft(h, n=9, norm=norm)),
    ("fftn", lambda x, norm: cw.fft.fftn(x.astype(cw.complex128), norm=norm), lambda h, norm: np.fft.fftn(h, norm=norm)),
    ("rfftn", lambda x, norm: cw.fft.rfftn(x, norm=norm), lambda h, norm: np.fft.rfftn(h, norm=norm)),
    ("irfftn", lambda x, norm: cw.fft.irfftn(cw.fft.rfftn(x), norm=norm),
     lambda h, norm: np.fft.irfftn(np.fft.rfftn(h), norm=norm)),
]


@pytest.mark.parametrize("norm", ["backward", "ortho", "forward"])
@pytest.mark.parametrize("name,call,expected", CALLS, ids=[c[0] for c in CALLS])
def test_norm_matches_numpy_with_and_without_the_declaration(traced, name, call, expected, norm):
    backend, dev = traced
    h = np.random.default_rng(3).standard_normal((3, 10))
    x = cw.asarray(h, device=dev)
    backend.recorder.reset()
    got = call(x, norm)
    np.testing.assert_allclose(cw.to_numpy(got), expected(h, norm), rtol=1e-10, atol=1e-10)
    scaling = [row for row in backend.recorder.rows() if row[:2] == ("binary_scalar", "multiply")]
    if getattr(dev, "fft_norm", False):
        assert not scaling  # scaled inside the transform


@pytest.mark.parametrize("axis", [0, -1])
def test_rfftn_over_one_axis_takes_the_one_axis_primitive(traced, axis):
    """rfftn over one axis (scipy.signal.fftconvolve's, with a padded length) is rfft's
    primitive call, not the n-D one: NumPy's values, with and without fft_norm."""
    backend, dev = traced
    h = np.random.default_rng(4).standard_normal((6, 10))
    x = cw.asarray(h, device=dev)
    for norm in ("backward", "ortho"):
        backend.recorder.reset()
        got = cw.fft.rfftn(x, s=(16,), axes=(axis,), norm=norm)
        np.testing.assert_allclose(cw.to_numpy(got), np.fft.rfftn(h, s=(16,), axes=(axis,), norm=norm),
                                   rtol=1e-10, atol=1e-10)
        names = [row[0] for row in backend.recorder.rows()]
        assert "rfft" in names and "rfftn" not in names
