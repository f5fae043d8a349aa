"""astype/affine/clip edge rules and the device's creation primitives."""

import warnings

import numpy as np
import pytest

from candlewick import dtypes as dt
from candlewick.errors import DeviceError, DTypeError, LinAlgError, UnsupportedOperation
from candlewick.layout import Layout
import cpu_backend

from cpu_helpers import download, upload


def test_float_to_int_of_nan_and_inf_is_silent():
    x, lx = upload(np.array([np.nan, np.inf, -np.inf, 1e30, -2.7], np.float32))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for target in dt.INTEGER + (dt.bool_,):
            out = download(x.astype(lx, target), (5,))
            assert out.dtype == target.numpy
            assert out[4] == (-2 if target in dt.SIGNED else out[4])
    assert download(x.astype(lx, dt.bool_), (5,)).tolist() == [True] * 5


@pytest.mark.parametrize("dtype", [dt.int8, dt.uint16, dt.float16, dt.bfloat16, dt.float64, dt.complex64])
def test_affine_is_x_times_mul_plus_add_in_the_dtype(dtype):
    host = np.array([0, 1, 2, 100], dtype.numpy)
    x, lx = upload(host)
    got = download(x.affine(lx, 3, 7), (4,))
    wide = np.float32 if dtype in (dt.float16, dt.bfloat16) else dtype.numpy.type
    with np.errstate(all="ignore"):
        expected = (host.astype(wide) * wide(3) + wide(7)).astype(dtype.numpy)
    np.testing.assert_array_equal(got, expected)  # int8: 100*3+7 wraps to 51


def test_affine_rejects_bool():
    x, lx = upload(np.array([True]))
    with pytest.raises(UnsupportedOperation, match="affine"):
        x.affine(lx, 2, 1)


def test_clip_keeps_nan_and_takes_one_sided_bounds():
    x, lx = upload(np.array([-5.0, np.nan, 0.5, 9.0]))
    assert np.array_equal(download(x.clip(lx, -1.0, 1.0), (4,)), [-1.0, np.nan, 0.5, 1.0], equal_nan=True)
    assert np.array_equal(download(x.clip(lx, None, 1.0), (4,)), [-5.0, np.nan, 0.5, 1.0], equal_nan=True)
    assert np.array_equal(download(x.clip(lx, 0.0, None), (4,)), [0.0, np.nan, 0.5, 9.0], equal_nan=True)
    i, li = upload(np.array([-100, 0, 100], np.int8))
    assert download(i.clip(li, -3, 5), (3,)).tolist() == [-3, 0, 5]


def test_arange_integer_wraps_like_int64_and_accepts_uint64_starts(cpu):
    got = download(cpu.arange(250, 3, 4, dt.uint8), (4,))
    assert got.tolist() == [250, 253, 0, 3]
    got = download(cpu.arange(2**64 - 2, 1, 3, dt.uint64), (3,))
    assert got.tolist() == [2**64 - 2, 2**64 - 1, 0]
    got = download(cpu.arange(5, -2, 4, dt.int16), (4,))
    assert got.tolist() == [5, 3, 1, -1]


def test_arange_float_is_computed_in_float64_then_cast_once(cpu):
    got = download(cpu.arange(0.1, 0.1, 5, dt.float32), (5,))
    np.testing.assert_array_equal(got, (0.1 + np.arange(5) * 0.1).astype(np.float32))


def test_full_beyond_the_range_is_inf_without_a_warning(cpu):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = download(cpu.full((2,), dt.float16, 1e6), (2,))
    assert np.isinf(got).all()


def test_storage_from_host_copies_and_rejects_foreign_dtypes(cpu):
    host = np.arange(6.0).reshape(2, 3)
    s = cpu.storage_from_host(host)
    host[0, 0] = 99
    assert download(s, (2, 3))[0, 0] == 0
    with pytest.raises(DTypeError, match="storage_from_host"):
        cpu.storage_from_host(np.array(["a"]))


def test_backend_object():
    backend = cpu_backend.BACKEND
    assert backend.probe() == (True, "")
    assert backend.device_count() == 1
    assert backend.device(0) is cpu_backend.CPU_DEVICE
    with pytest.raises(DeviceError):
        backend.device(1)
    assert backend.details()["numpy"] == np.__version__
    free, total = cpu_backend.CPU_DEVICE.memory_info()
    assert 0 < free <= total


@pytest.mark.parametrize("dtype", [dt.float32, dt.complex64])
def test_linalg_keeps_single_precision_and_maps_errors(dtype):
    a, la = upload(np.array([[4.0, 2.0], [2.0, 3.0]], dtype.numpy))
    assert a.cholesky(la, False).dtype is dtype
    s = a.svd(la, False)[1]
    assert s.dtype is dt.real_dtype_of(dtype)
    singular, ls = upload(np.ones((2, 2), dtype.numpy))
    with pytest.raises(LinAlgError, match="inv"):
        singular.inv(ls)
    sign, logdet = singular.slogdet(ls)
    assert download(sign, ()) == 0 and download(logdet, ()) == -np.inf


def test_linalg_rejects_integer_and_half_dtypes():
    a, la = upload(np.eye(2, dtype=np.float16))
    with pytest.raises(UnsupportedOperation, match="det"):
        a.det(la)


def test_fft_is_unnormalized_both_ways_and_keeps_precision():
    host = np.array([1, 2, 3, 4, 5], np.complex64)
    x, lx = upload(host)
    fwd = x.fft(lx, 0, False)
    assert fwd.dtype is dt.complex64
    back = download(fwd.fft(lx, 0, True), (5,))
    np.testing.assert_allclose(back, 5 * host, rtol=1e-5)
    r, lr = upload(np.arange(6, dtype=np.float32))
    half = r.rfft(lr, 0)
    assert half.dtype is dt.complex64
    np.testing.assert_allclose(download(half.irfft(Layout.contiguous((4,)), 0, 6), (6,)),
                               6 * np.arange(6), rtol=1e-5, atol=1e-4)


def test_float32_affine_does_not_overflow_in_the_product():
    x, lx = upload(np.array([-1.5], np.float32))
    big = float(np.finfo(np.float32).max)
    got = download(x.affine(lx, -big, -big), (1,))
    assert got[0] == np.float32(1.5 * big - big)


def test_fft_calls_scipys_pocketfft_functions_without_its_dispatch(monkeypatch):
    """cpu_backend.fft takes scipy.fft._pocketfft's functions (public scipy.fft's
    signatures, without uarray's backend lookup and the array API check) where SciPy has
    them, the same transforms as NumPy's."""
    from cpu_backend import fft

    scipy_fft = pytest.importorskip("scipy.fft")
    module = fft._fft()
    assert module is getattr(scipy_fft, "_pocketfft", scipy_fft)
    x = np.random.default_rng(0).standard_normal((3, 64)).astype(np.float32)
    np.testing.assert_allclose(fft.rfft(x, -1), np.fft.rfft(x, axis=-1), rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(fft.irfft(fft.rfft(x, -1), -1, 64) / 64, x, rtol=1e-5, atol=1e-5)  # (unnormalized)
    # a SciPy without those functions: the public module
    monkeypatch.setattr(fft, "_pocketfft", [])
    monkeypatch.setattr(scipy_fft, "_pocketfft", object(), raising=False)
    assert fft._fft() is scipy_fft
