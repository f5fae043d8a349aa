"""NEP 35: every NumPy creation function called with ``like=`` a candlewick array makes a
candlewick array on that array's device, equal to NumPy's own result; NumPy's truthiness
and bool loops where PyData calls NumPy on candlewick arrays (``np.where`` of an integer
condition and two scalars, ``np.abs`` of bools); the NumPy functions xarray's
duck_array_ops, Dask's chunk functions and cubed call answer with candlewick arrays."""

import io

import numpy as np
import pytest

import candlewick as cw
from candlewick.backend import holds_host_memory

LIKE_CASES = [
    ("array", lambda like: np.array([[1, 2], [3, 4]], dtype=float, like=like)),
    ("array ndmin", lambda like: np.array([1, 2], ndmin=3, like=like)),
    ("asarray", lambda like: np.asarray([1], like=like)),
    ("asanyarray", lambda like: np.asanyarray([1.5, 2.5], like=like)),
    ("ascontiguousarray", lambda like: np.ascontiguousarray(5, like=like)),
    ("asfortranarray", lambda like: np.asfortranarray([[1, 2]], like=like)),
    ("require", lambda like: np.require([1, 2], dtype=np.float32, like=like)),
    ("arange", lambda like: np.arange(3, like=like)), ("arange step", lambda like: np.arange(1, 10, 3, like=like)),
    ("zeros", lambda like: np.zeros((2, 3), like=like)), ("ones", lambda like: np.ones(3, dtype=int, like=like)),
    ("empty", lambda like: np.empty(4, like=like) * 0), ("full", lambda like: np.full(2, 7, like=like)),
    ("full float", lambda like: np.full((2, 2), 1.5, like=like)), ("eye", lambda like: np.eye(3, k=1, like=like)),
    ("identity", lambda like: np.identity(2, like=like)), ("tri", lambda like: np.tri(3, 4, k=-1, like=like)),
    ("fromfunction", lambda like: np.fromfunction(lambda i, j: i * 10 + j, (2, 3), like=like)),
    ("frombuffer", lambda like: np.frombuffer(b"\x01\x02\x03\x04", dtype=np.uint8, like=like)),
    ("fromiter", lambda like: np.fromiter(range(4), dtype=np.int32, like=like)),
    ("fromstring", lambda like: np.fromstring("1 2 3", sep=" ", like=like)),
    ("loadtxt", lambda like: np.loadtxt(io.StringIO("1 2\n3 4"), like=like)),
    ("genfromtxt", lambda like: np.genfromtxt(io.StringIO("1,2\n3,4"), delimiter=",", like=like)),
]


@pytest.mark.parametrize("name,call", LIKE_CASES, ids=[c[0] for c in LIKE_CASES])
def test_like_makes_a_candlewick_array_on_the_like_device(name, call, device):
    like = cw.zeros(1, device=device)
    got, expected = call(like), call(None)
    assert isinstance(got, cw.Array) and got.device == like.device
    host = cw.to_numpy(got)
    assert host.shape == expected.shape and host.dtype == expected.dtype
    np.testing.assert_array_equal(host, expected)


def test_fromfile_with_like(device, tmp_path):
    path = tmp_path / "data.bin"
    np.arange(5, dtype=np.int16).tofile(path)
    got = np.fromfile(path, dtype=np.int16, like=cw.zeros(1, device=device))
    assert isinstance(got, cw.Array) and got.tolist() == [0, 1, 2, 3, 4]


def test_asarray_like_keeps_candlewick_data_on_its_device(device):
    x = cw.asarray([1.0, 2.0], device=device)
    got = np.array([x, x], like=x)
    assert isinstance(got, cw.Array) and got.tolist() == [[1.0, 2.0], [1.0, 2.0]]


def test_where_takes_numpys_truthiness_and_two_scalars(device):
    """SciPy's distance_transform_edt calls np.where(int_array, 1, 0)."""
    condition = np.array([[0, 3, -1], [2, 0, 0]])
    x = cw.asarray(condition, device=device)
    for args in ((1, 0), (1.5, 0), (x, 0), (True, False)):
        got = np.where(x, *args)
        expected = np.where(condition, *(condition if a is x else a for a in args))
        assert isinstance(got, cw.Array) and cw.to_numpy(got).dtype == expected.dtype
        np.testing.assert_array_equal(cw.to_numpy(got), expected)
    assert [i.tolist() for i in np.where(x)] == [i.tolist() for i in np.where(condition)]
    assert [i.tolist() for i in np.nonzero(x)] == [i.tolist() for i in np.nonzero(condition)]


def test_bool_loops_of_ufuncs(device):
    flags = np.array([True, False, True])
    other = np.array([False, False, True])
    x, y = cw.asarray(flags, device=device), cw.asarray(other, device=device)
    for name in ("absolute", "add", "multiply", "maximum", "minimum"):
        ufunc = getattr(np, name)
        got = ufunc(x) if name == "absolute" else ufunc(x, y)
        expected = ufunc(flags) if name == "absolute" else ufunc(flags, other)
        assert isinstance(got, cw.Array) and got.dtype == cw.bool
        assert got.tolist() == expected.tolist()
    assert np.abs(x) is not x


DATA = np.array([[1.0, -2.0, 3.0, 0.5], [0.5, 4.0, -1.5, 2.0], [np.nan, 1.0, 2.0, 3.0]])
FUNCTION_CASES = [
    ("pad", lambda m, x: m.pad(x, ((1, 0), (2, 1)), mode="reflect")),
    ("einsum", lambda m, x: m.einsum("ij,kj->ik", x, x)),
    ("cumsum dtype", lambda m, x: m.cumsum(x, axis=0, dtype=np.float32)),
    ("cumprod flat", lambda m, x: m.cumprod(x)), ("transpose axes", lambda m, x: m.transpose(x, (1, 0))),
    ("squeeze", lambda m, x: m.squeeze(x[:1], axis=0)), ("moveaxis", lambda m, x: m.moveaxis(x, 0, 1)),
    ("swapaxes", lambda m, x: m.swapaxes(x, 0, 1)), ("ravel", lambda m, x: m.ravel(x)),
    ("median", lambda m, x: m.median(x, axis=1)), ("percentile", lambda m, x: m.percentile(x, [10, 90], axis=0)),
    ("quantile", lambda m, x: m.quantile(x, 0.3, axis=1, method="nearest")),
    ("nanmedian", lambda m, x: m.nanmedian(x, axis=0)), ("nanquantile", lambda m, x: m.nanquantile(x, 0.5)),
    ("nanpercentile", lambda m, x: m.nanpercentile(x, 50, axis=1)), ("nanprod", lambda m, x: m.nanprod(x, axis=0)),
    ("nancumsum", lambda m, x: m.nancumsum(x, axis=1)), ("nancumprod", lambda m, x: m.nancumprod(x, axis=0)),
    ("nanargmax", lambda m, x: m.nanargmax(x, axis=1)), ("nanargmin", lambda m, x: m.nanargmin(x, axis=1)),
    ("gradient", lambda m, x: m.gradient(x, axis=1)), ("mean dtype", lambda m, x: m.mean(x, dtype=np.float32)),
    ("sum where initial", lambda m, x: m.sum(x, where=x > 0, initial=1.0)),
    ("max initial", lambda m, x: m.max(x, axis=1, initial=10.0)),
    ("concatenate flat", lambda m, x: m.concatenate([x, x], axis=None)), ("diff", lambda m, x: m.diff(x, n=2)),
    ("take scalar", lambda m, x: m.take(x, 1, axis=1)), ("dot", lambda m, x: m.dot(x, x.T)),
    ("round decimals", lambda m, x: m.round(x, 1)), ("atleast_3d", lambda m, x: m.atleast_3d(x)),
    ("tile", lambda m, x: m.tile(x, 2)), ("reshape F", lambda m, x: m.reshape(x, (4, 3), order="F")),
]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name,call", FUNCTION_CASES, ids=[c[0] for c in FUNCTION_CASES])
def test_numpy_functions_answer_with_candlewick(name, call, device):
    x = cw.asarray(DATA, device=device)
    got, expected = call(np, x), call(np, DATA)
    assert isinstance(got, cw.Array) and got.device == x.device
    host = cw.to_numpy(got)
    assert host.shape == expected.shape and host.dtype == expected.dtype
    np.testing.assert_allclose(host, expected, rtol=1e-6, equal_nan=True)


def test_a_call_without_an_equal_names_numpys_function_where_memory_is_not_host():
    """The rule, on whichever backend holds device memory: candlewick's error naming the
    NumPy function, never a NumPy array made from a silent device-to-host copy."""
    devices = [d for d in cw.__array_namespace_info__().devices() if not holds_host_memory(d)]
    if not devices:
        pytest.skip("every installed device holds host memory")
    x = cw.asarray([1.0, 2.0], device=devices[0])
    with pytest.raises(TypeError, match=r"numpy\.ptp: .*implicit conversion"):
        np.ptp(x)
