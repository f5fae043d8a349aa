"""The rocm backend's unique, nonzero and isin (composed of its own primitives: sort,
compare, compress, scan, scatter, arange, searchsorted, take), run on the CPU end to end
through the backend's host code and its real kernels compiled for the host (host_exec.py),
against NumPy."""

import numpy as np
import pytest

from candlewick.layout import Layout
from host_exec import build_scan_sort, scan_sort_device
from rocm_backend.families import sets, sort

DTYPES = {"int64", "float32", "bool", "complex64"}
OPS = {"binary": {"subtract", "multiply", "floor_divide", "remainder", "minimum"},
       "compare": {"not_equal", "equal"}, "unary": {"real", "imag", "logical_not"}}


def _wanted(key):
    """The kernels unique and nonzero launch for the dtypes above."""
    kind, rest = key[0], key[1:]
    if kind in ("copy", "fill", "take", "put", "compact", "mask", "transpose", "radix", "radix_out"):
        return True
    if kind in OPS:
        return rest[0] in OPS[kind] and rest[-1] in DTYPES
    if kind.startswith("scan"):
        return "sum" in rest and "int64" in rest
    return kind in ("astype", "radix_keys", "radix_values", "arange", "searchsorted") and set(rest) <= DTYPES


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    return build_scan_sort(tmp_path_factory.mktemp("sets_host"), _wanted)


@pytest.fixture
def dev(lib, monkeypatch, tmp_path):
    return scan_sort_device(lib, monkeypatch, tmp_path)


def _numpy_unique(flat):
    """NumPy's unique_all of the 1-D array, every NaN distinct, values ascending, NaN last."""
    values, first, inverse, counts = np.unique(flat, return_index=True, return_inverse=True,
                                               return_counts=True, equal_nan=False)
    return values, first, inverse.reshape(-1), counts


def _cases():
    rng = np.random.default_rng(11)
    ints = rng.integers(-5, 6, (7, 40)).astype(np.int64)
    floats = rng.integers(-3, 4, 120).astype(np.float32)  # one sort block (<= 128 keys)
    floats[[3, 50, 51]] = np.nan
    floats[floats == 0] = -0.0
    floats[7] = 0.0
    flags = rng.random(90) < 0.3
    # past a range tile (families/sort.py: values alone counted, with the order a onesweep;
    # isin's half of it too): bool sorted as it is
    many = rng.random(2 * sort.RANGE_TILE[4] + 808) < 0.6
    return {"int64": (ints, ints[:, ::-3]), "float32": (floats, floats[::-1]), "bool": (flags, flags),
            "long bool": (many, many[::-1])}


@pytest.mark.parametrize("kind", ["int64", "float32", "bool", "long bool"])
@pytest.mark.parametrize("asked", [(True, True, True), (False, False, False), (False, True, False),
                                   (False, False, True)])
def test_unique_against_numpy(dev, kind, asked):
    base, view = _cases()[kind]
    item = base.dtype.itemsize
    offset = (view.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // item
    layout = Layout(view.shape, tuple(st // item for st in view.strides), offset)
    values, count, first, inverse, counts = dev.storage_from_host(base).unique(layout, *asked)
    want = _numpy_unique(view.reshape(-1))
    assert count == want[0].size
    got = values.to_host(Layout.contiguous((count,)))
    np.testing.assert_array_equal(got, want[0])
    if asked[0]:  # each value is its first occurrence: -0.0 where -0.0 came first
        np.testing.assert_array_equal(np.signbit(got), np.signbit(view.reshape(-1)[want[1]]))
    for flag, storage, expected in zip(asked, (first, inverse, counts), want[1:]):
        if flag:
            np.testing.assert_array_equal(storage.to_host(Layout.contiguous(expected.shape)), expected)
        else:
            assert storage is None


def test_unique_of_complex_orders_by_real_then_imaginary_part(dev):
    x = np.array([2 + 1j, 1 + 5j, 2 + 1j, 1 + 2j, np.nan + 0j, 1 + 2j], np.complex64)
    values, count, first, inverse, counts = dev.storage_from_host(x).unique(Layout.contiguous((6,)), True, True, True)
    assert count == 4
    np.testing.assert_array_equal(values.to_host(Layout.contiguous((4,))), x[[3, 1, 0, 4]])
    np.testing.assert_array_equal(first.to_host(Layout.contiguous((4,))), [3, 1, 0, 4])
    np.testing.assert_array_equal(inverse.to_host(Layout.contiguous((6,))), [2, 1, 2, 0, 3, 0])
    np.testing.assert_array_equal(counts.to_host(Layout.contiguous((4,))), [2, 1, 2, 1])


@pytest.mark.parametrize("shape", [(90,), (9, 10), (3, 5, 6)])
def test_nonzero_against_numpy(dev, shape):
    rng = np.random.default_rng(12)
    x = np.where(rng.random(90) < 0.4, rng.standard_normal(90), 0).astype(np.float32).reshape(shape)
    x.reshape(-1)[[1, 2]] = [np.nan, -0.0]
    coords, count = dev.storage_from_host(x).nonzero(Layout.contiguous(shape))
    want = np.nonzero(x)
    assert count == want[0].size and len(coords) == len(shape)
    for got, expected in zip(coords, want):
        np.testing.assert_array_equal(got.to_host(Layout.contiguous((count,))), expected)
    flags = x != 0
    coords, count = dev.storage_from_host(flags).nonzero(Layout.contiguous(shape))
    assert count == want[0].size
    np.testing.assert_array_equal(coords[-1].to_host(Layout.contiguous((count,))), want[-1])


@pytest.mark.parametrize("kind", ["int64", "float32", "bool", "long bool"])
@pytest.mark.parametrize("invert", [False, True])
def test_isin_against_numpy(dev, kind, invert, monkeypatch):
    base, view = _cases()[kind]
    needles = view if kind != "int64" else view[:, :7]
    item = base.dtype.itemsize
    offset = (needles.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // item
    layout = Layout(needles.shape, tuple(st // item for st in needles.strides), offset)
    x = dev.storage_from_host(base)
    for cut in (False, True):  # x2 searched as it is, and cut to its distinct values
        monkeypatch.setattr(sets, "DISTINCT_MIN", 1 if cut else 1 << 30)
        for haystack in (base[: base.shape[0] // 2], base[::-1][:3], base[:1]):
            y = dev.storage_from_host(np.ascontiguousarray(haystack))
            got = x.isin(layout, y, Layout.contiguous(haystack.shape), invert)
            want = np.isin(needles, haystack, invert=invert)  # NaN in nothing, -0.0 == 0.0
            np.testing.assert_array_equal(got.to_host(Layout.contiguous(needles.shape)), want)


def test_isin_with_an_empty_operand(dev):
    x = np.array([1.0, 2.0, np.nan], np.float32)
    empty = dev.storage_from_host(np.zeros(0, np.float32))
    got = dev.storage_from_host(x).isin(Layout.contiguous((3,)), empty, Layout.contiguous((0,)), True)
    np.testing.assert_array_equal(got.to_host(Layout.contiguous((3,))), [True, True, True])
    got = empty.isin(Layout.contiguous((0,)), dev.storage_from_host(x), Layout.contiguous((3,)), False)
    assert got.to_host(Layout.contiguous((0,))).shape == (0,)
