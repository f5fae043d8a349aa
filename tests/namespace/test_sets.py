"""unique_all, unique_counts, unique_inverse, unique_values on every backend.

Oracle: array-api-strict (NumPy's ``np.unique`` with ``equal_nan=False``), whose output
is sorted ascending like ours, so results compare element for element."""

import array_api_strict as xp
import numpy as np
import pytest

import candlewick as cw
from _namespace_helpers import LAYOUTS, assert_same, make

NAN = float("nan")


def _cases():
    rng = np.random.default_rng(5)
    return {
        "ints": rng.integers(-3, 4, size=(5, 6)).astype(np.int16),
        "uint": rng.integers(0, 3, size=(17,)).astype(np.uint64),
        "floats_nan": np.array([[2.0, NAN, 1.0], [NAN, 2.0, -np.inf], [1.0, np.inf, NAN]]),
        "f32": np.array([0.5, -0.5, 0.5, 3.0], np.float32),
        "bool": np.array([[True, False], [True, True]]),
        "one": np.array([7], np.int8),
        "all_same": np.full((3, 3), 4.0),
        "0d": np.float64(3.5),
    }


CASES = _cases()


def _ref(data):
    return xp.unique_all(xp.asarray(data.astype(np.uint8) if data.dtype == bool else data))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", sorted(CASES))
def test_unique_all_matches_strict(device, name, layout):
    data = np.asarray(CASES[name])
    x = make(data, device, layout)
    ref = _ref(data)
    got = cw.unique_all(x)
    assert got._fields == ("values", "indices", "inverse_indices", "counts")
    assert_same(got.values, np.asarray(ref.values).astype(data.dtype))
    assert_same(got.indices, np.asarray(ref.indices), dtype=cw.int64)
    assert_same(got.inverse_indices, np.asarray(ref.inverse_indices), dtype=cw.int64)
    assert_same(got.counts, np.asarray(ref.counts), dtype=cw.int64)


@pytest.mark.parametrize("name", sorted(CASES))
def test_unique_variants_agree(device, name):
    data = np.asarray(CASES[name])
    x = make(data, device)
    ref = _ref(data)
    values = np.asarray(ref.values).astype(data.dtype)
    assert_same(cw.unique_values(x), values)
    counts = cw.unique_counts(x)
    assert counts._fields == ("values", "counts")
    assert_same(counts.values, values)
    assert_same(counts.counts, np.asarray(ref.counts), dtype=cw.int64)
    inverse = cw.unique_inverse(x)
    assert inverse._fields == ("values", "inverse_indices")
    assert_same(inverse.values, values)
    assert_same(inverse.inverse_indices, np.asarray(ref.inverse_indices), dtype=cw.int64)


def test_every_nan_is_distinct(device):
    data = np.array([NAN, NAN, 1.0, NAN])
    got = cw.unique_counts(make(data, device))
    assert got.values.shape == (4,)
    assert cw.to_numpy(got.counts).tolist() == [1, 1, 1, 1]
    inv = cw.to_numpy(cw.unique_inverse(make(data, device)).inverse_indices)
    assert sorted(inv.tolist()) == [0, 1, 2, 3]  # each NaN its own value


def test_inverse_rebuilds_input(device):
    data = np.array([[3, 1, 3], [2, 1, 0]], np.int32)
    values, inverse = cw.unique_inverse(make(data, device, "flipped"))
    assert inverse.shape == data.shape
    np.testing.assert_array_equal(cw.to_numpy(values)[cw.to_numpy(inverse)], data)


def test_complex_unique(device):
    data = np.array([1 + 2j, 1 + 1j, 1 + 2j, -1j, 0j, 1 + 1j], np.complex128)
    got = cw.unique_all(make(data, device))
    ref = np.unique(data, return_index=True, return_inverse=True, return_counts=True)
    assert_same(got.values, ref[0])
    assert_same(got.indices, ref[1], dtype=cw.int64)
    assert_same(got.inverse_indices, ref[2], dtype=cw.int64)
    assert_same(got.counts, ref[3], dtype=cw.int64)


def test_empty(device):
    for shape in ((0,), (2, 0)):
        data = np.zeros(shape, np.float32)
        got = cw.unique_all(make(data, device))
        assert_same(got.values, np.zeros(0, np.float32))
        assert_same(got.indices, np.zeros(0, np.int64))
        assert_same(got.inverse_indices, np.zeros(shape, np.int64))
        assert_same(got.counts, np.zeros(0, np.int64))


def test_rejects_non_arrays():
    with pytest.raises(TypeError):
        cw.unique_values([1, 2, 2])


# --- property test: random data (few distinct values, NaNs, +-0.0) against strict -----------

from hypothesis import given, settings, strategies as st  # noqa: E402
from hypothesis.extra import numpy as hnp  # noqa: E402


@settings(deadline=None)
@given(data=hnp.arrays(np.float32, hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4),
                       elements=st.sampled_from([0.0, -0.0, 1.5, -2.0, np.inf, np.nan])))
def test_random_unique_all_matches_strict(device, data):
    ref = xp.unique_all(xp.asarray(data))
    got = cw.unique_all(make(data, device, "flipped"))
    assert_same(got.values, np.asarray(ref.values))
    assert_same(got.counts, np.asarray(ref.counts), dtype=cw.int64)
    values = cw.to_numpy(got.values)
    inverse = cw.to_numpy(got.inverse_indices)
    assert inverse.shape == data.shape
    # values[inverse] rebuilds x (NaN where x is NaN); each NaN is its own value
    np.testing.assert_array_equal(values[inverse], data)
    first = cw.to_numpy(got.indices)
    np.testing.assert_array_equal(data.ravel()[first], values)
    assert_same(got.indices, np.asarray(ref.indices), dtype=cw.int64)
