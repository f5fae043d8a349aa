"""The cpu storage's rfft and irfft primitives, which inline the checks the other
primitives get from decorators: NumPy's MemoryError reported as DeviceMemoryError (with
the primitive's name), and inputs that cover the whole buffer, sit at an offset or are
strided giving pocketfft's answers."""

import numpy as np
import pytest

import candlewick as cw
from candlewick.errors import DeviceMemoryError


def test_rfft_reports_memory_error_as_device_memory_error():
    x = cw.asarray(np.ones(8, np.float32))
    with pytest.raises(DeviceMemoryError, match="rfft"):
        x._storage.rfft(x._layout, 0, n=2**40)


def test_irfft_reports_memory_error_as_device_memory_error():
    x = cw.asarray(np.ones(8, np.complex64))
    with pytest.raises(DeviceMemoryError, match="irfft"):
        x._storage.irfft(x._layout, 0, 2**40)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("form", ["whole", "offset", "strided", "padded"])
def test_round_trip_matches_numpy(dtype, form):
    host = np.random.default_rng(1).standard_normal((6, 40)).astype(dtype)
    x = cw.asarray(host)
    n = None
    if form == "offset":
        x, host = x[2:], host[2:]
    elif form == "strided":
        x, host = x[:, ::3], host[:, ::3]
    elif form == "padded":
        n = 48
    spectrum = cw.fft.rfft(x, n=n, axis=-1)
    want = np.fft.rfft(host, n=n, axis=-1)
    assert spectrum.dtype == (cw.complex64 if dtype == np.float32 else cw.complex128)
    np.testing.assert_allclose(np.asarray(spectrum), want, rtol=1e-4, atol=1e-4)
    back = cw.fft.irfft(spectrum, n=n or host.shape[-1], axis=-1)
    np.testing.assert_allclose(np.asarray(back), np.fft.irfft(want, n=n or host.shape[-1], axis=-1), rtol=1e-4,
                               atol=1e-4)
    col = cw.fft.irfft(spectrum[:, 1:][::2], axis=0)  # a strided complex input along the first axis
    np.testing.assert_allclose(np.asarray(col), np.fft.irfft(want[:, 1:][::2], axis=0), rtol=1e-4, atol=1e-4)
