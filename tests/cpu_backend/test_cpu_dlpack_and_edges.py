"""DLPack hooks, empty strided views, complex expm1 special values, allocation errors (sort_values's too)."""

import cmath
import warnings

import ml_dtypes
import numpy as np
import pytest

import candlewick as cw
from candlewick import dtypes as dt
from candlewick.errors import DeviceMemoryError
from candlewick.layout import Layout
from candlewick.opdefs import UnaryOp

from cpu_backend import ordering
from cpu_helpers import download, upload


def test_dlpack_view_shares_the_buffer(cpu):
    x, _ = upload(np.arange(12.0))
    exported = np.from_dlpack(x.dlpack_view(Layout((3, 2), (-4, 2), 8)))
    np.testing.assert_array_equal(exported, [[8, 10], [4, 6], [0, 2]])
    exported[0, 0] = -1  # same memory
    assert download(x, (12,))[8] == -1


@pytest.mark.parametrize("make", [
    lambda h: h,
    lambda h: h[::-1, 1::2],
    lambda h: h.T,
    lambda h: np.broadcast_to(h[1], (3, 4)),
    lambda h: h[:0],
    lambda h: h[1, 2, ...],
])
def test_storage_from_dlpack_shares_memory_with_any_strides(cpu, make):
    host = np.arange(12, dtype=np.int32).reshape(3, 4)
    producer = make(host)
    storage, layout = cpu.storage_from_dlpack(producer, None)
    np.testing.assert_array_equal(storage.to_host(layout), producer)
    if producer.size and 0 not in producer.strides:
        host[...] += 100  # visible through the shared memory
        np.testing.assert_array_equal(storage.to_host(layout), producer)


def test_storage_from_dlpack_copies_when_asked(cpu):
    host = np.arange(4.0)
    storage, layout = cpu.storage_from_dlpack(host, True)
    host[0] = 42
    assert storage.to_host(layout)[0] == 0


def test_empty_views_with_any_strides_and_offset_read_as_empty():
    x, _ = upload(np.arange(4.0))
    odd = Layout((0, 3), (1, 7), 99)  # not contiguous, offset past the end
    assert x.to_host(odd).shape == (0, 3)
    assert x.unary(UnaryOp.EXP, odd).size == 0


EXPM1_SPECIAL = [  # (z, expected) from C99 cexp(z) - 1 / the Array API tables
    (complex(np.inf, 0.0), complex(np.inf, 0.0)),
    (complex(-np.inf, np.inf), complex(-1.0, 0.0)),
    (complex(-np.inf, np.nan), complex(-1.0, 0.0)),
    (complex(np.nan, 0.0), complex(np.nan, 0.0)),
    (complex(0.0, -0.0), complex(0.0, -0.0)),
]


@pytest.mark.parametrize("dtype", [dt.complex64, dt.complex128])
def test_complex_expm1_special_values_and_small_arguments(dtype):
    zs = np.array([z for z, _ in EXPM1_SPECIAL] + [1e-9 + 1e-9j, 0.5 - 2j], dtype.numpy)
    x, lx = upload(zs)
    got = download(x.unary(UnaryOp.EXPM1, lx), zs.shape)
    for g, (_, e) in zip(got, EXPM1_SPECIAL):
        for part_g, part_e in ((g.real, e.real), (g.imag, e.imag)):
            assert (np.isnan(part_g) and np.isnan(part_e)) or abs(part_g) == abs(part_e)
    for g, z in zip(got[len(EXPM1_SPECIAL):], zs[len(EXPM1_SPECIAL):]):
        exact = cmath.exp(complex(z)) - 1 if abs(z) > 1e-3 else complex(z) + complex(z) ** 2 / 2
        assert abs(g - exact) <= 4 * np.finfo(dtype.numpy).eps * abs(exact)


def test_impossible_allocations_raise_device_memory_error(cpu):
    with pytest.raises(DeviceMemoryError, match="arange"):
        cpu.arange(0, 1, 10**300, dt.float64)
    with pytest.raises(DeviceMemoryError, match="zeros"):
        cpu.zeros((10**12, 10**9), dt.float32)


def test_complex_sign_does_not_overflow_and_reciprocal_of_zero_is_infinite():
    z, lz = upload(np.array([1e308 - 1e308j, 3 + 4j, 0j, 1e-320 + 1e-320j]))
    sign = download(z.unary(UnaryOp.SIGN, lz), (4,))
    h = np.sqrt(0.5)
    np.testing.assert_allclose(sign, [h - h * 1j, 0.6 + 0.8j, 0, h + h * 1j], rtol=1e-15)
    recip = download(z.unary(UnaryOp.RECIPROCAL, lz), (4,))
    assert np.isinf(recip[2].real)


def test_float32_floor_divide_is_the_floor_of_the_exact_quotient():
    from candlewick.opdefs import BinaryOp

    rng = np.random.default_rng(3)
    a = (rng.standard_normal(2000) * 1e7).astype(np.float32)
    b = rng.standard_normal(2000).astype(np.float32)
    sa, la = upload(a)
    sb, lb = upload(b)
    got = download(sa.binary(BinaryOp.FLOOR_DIVIDE, la, sb, lb), a.shape)
    expected = np.floor_divide(a.astype(np.float64), b.astype(np.float64)).astype(np.float32)
    np.testing.assert_array_equal(got, expected)


def test_complex64_product_accumulates_in_complex128():
    from candlewick.opdefs import ReduceOp

    host = np.full(200, 1.5 + 1.5j, np.complex64)  # |prod| = 2.12**200 overflows complex64
    x, lx = upload(host)
    got = download(x.reduce(ReduceOp.PROD, lx, (0,)), ())
    with np.errstate(over="ignore"):
        expected = np.prod(host.astype(np.complex128)).astype(np.complex64)
    assert np.isinf(got.real) or np.isinf(got.imag)
    assert not np.isnan(got.real) and not np.isnan(got.imag)
    assert np.isinf(expected.real) or np.isinf(expected.imag)


@pytest.mark.parametrize("dtype", [dt.float64, dt.float32, dt.bfloat16])
def test_pow_of_minus_infinity_by_one_half_is_infinity(dtype):
    from candlewick.opdefs import BinaryOp

    x, lx = upload(np.array([-np.inf, 4.0, -np.inf], dtype.numpy))
    expected = [np.inf, 2.0, np.inf]
    assert download(x.binary_scalar(BinaryOp.POW, lx, 0.5, False), (3,)).tolist() == expected
    half, _ = upload(np.array(0.5, dtype.numpy))
    broadcast = x.binary(BinaryOp.POW, lx, half, Layout((3,), (0,), 0))
    assert download(broadcast, (3,)).tolist() == expected


@pytest.mark.parametrize("dtype", [dt.float64, dt.float32, dt.float16, dt.bfloat16])
@pytest.mark.parametrize("exponent", [2, 2.0])
def test_pow_by_two_is_numpys_power_bit_for_bit(dtype, exponent):
    # a scalar exponent of 2 runs as np.square (NumPy's own x ** 2): the values of pow
    from candlewick.opdefs import BinaryOp

    finfo = ml_dtypes.finfo(dtype.numpy)
    special = [np.inf, -np.inf, np.nan, -0.0, 0.0, float(finfo.max), -float(finfo.max),
               float(finfo.smallest_subnormal), -float(finfo.tiny), 1.5, -3.25]
    host = np.concatenate([np.array(special), np.random.default_rng(0).standard_normal(997) * 100])
    host = host.astype(dtype.numpy)
    with np.errstate(all="ignore"):
        expected = np.power(host.astype(np.float64), 2.0).astype(dtype.numpy)
        if dtype in (dt.float32, dt.float64):
            expected = np.power(host, dtype.numpy.type(2))
    x, lx = upload(host)
    got = download(x.binary_scalar(BinaryOp.POW, lx, exponent, False), host.shape)
    np.testing.assert_array_equal(got.view(np.uint8), expected.view(np.uint8))
    x.binary_scalar_into(BinaryOp.POW, lx, x, lx, exponent, False)  # x **= 2
    np.testing.assert_array_equal(download(x, host.shape).view(np.uint8), expected.view(np.uint8))


def test_sort_values_reports_memory_as_the_device_error(monkeypatch):
    def exhausted(*args):
        raise MemoryError("no room")

    x = cw.asarray(np.arange(8, dtype=np.float32)[::-1].copy())
    assert cw.to_numpy(cw.sort(x)).tolist() == list(range(8))  # (the whole buffer as it lies)
    assert cw.to_numpy(cw.sort(cw.reshape(x, (2, 4))[:, 1:])).tolist() == [[4, 5, 6], [0, 1, 2]]
    monkeypatch.setattr(ordering, "sorted_values", exhausted)
    # sorted_values serves rows along another axis (and every row where _native is absent); one
    # whole 1-D row is sorted by _native's sort_rows itself, where it is built
    cases = [cw.reshape(x, (2, 4)).T] + ([x, cw.flip(x)] if ordering._native_rows is not None else [x])
    if ordering._native_rows is not None:
        monkeypatch.setattr(ordering, "_native_rows", exhausted)
    for case in cases:
        for descending in (False, True):
            with pytest.raises(DeviceMemoryError, match="sort_values: no room") as info:
                cw.sort(case, descending=descending)
            assert isinstance(info.value.__cause__, MemoryError)


def test_astype_is_quiet_and_copies_on_every_layout():
    host = np.array([[np.nan, np.inf, -np.inf, 3e9], [1.5, -2.5, 0.0, 7.0]], np.float64)
    x = cw.asarray(host)
    flat = cw.reshape(x, (8,))
    with np.errstate(all="ignore"):
        cases = [(x, host), (flat[2:6], host.reshape(-1)[2:6]), (x.T, host.T), (flat[::3], host.reshape(-1)[::3])]
        for v, expected in cases:
            for dtype in (cw.int32, cw.int64, cw.float32, cw.float64):
                with warnings.catch_warnings():
                    warnings.simplefilter("error")  # NaN/inf/out of range to int: unspecified, not a warning
                    out = cw.astype(v, dtype)
                got = cw.to_numpy(out)
                assert got.dtype == dtype.numpy and got.tobytes() == np.ascontiguousarray(
                    expected.astype(dtype.numpy)).tobytes()
                assert not np.shares_memory(got, cw.to_numpy(x))
