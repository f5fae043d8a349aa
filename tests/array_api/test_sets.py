"""Set functions, both oracles: unique_all, unique_counts, unique_inverse and
unique_values against array-api-strict on drawn arrays, then on fixed cases and layouts
against array-api-strict (NumPy's ``np.unique`` with ``equal_nan=False``, sorted
ascending like ours, so results compare element for element)."""

import array_api_strict as xs
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import candlewick as cw
from _namespace_helpers import LAYOUTS, assert_same, make
from array_api_support import ALL, REAL, shapes, small_arrays, to_np, to_strict


# === array-api-strict: drawn arrays =======================================================

def _sorted_unique(values, *others):
    order = np.argsort(values, kind="stable")
    return (values[order],) + tuple(o[order] for o in others)


@given(data=st.data())
def test_unique_values_and_counts(data):
    name = data.draw(st.sampled_from(ALL), label="dtype")
    x = data.draw(small_arrays(name, shapes(max_dims=3), -3, 3), label="x")
    values = cw.unique_values(x)
    counts_result = cw.unique_counts(x)
    ref = xs.unique_counts(to_strict(x))
    # the order of unique elements is unspecified: compare after sorting
    got_v, got_c = _sorted_unique(to_np(counts_result.values), to_np(counts_result.counts))
    exp_v, exp_c = _sorted_unique(np.asarray(ref.values), np.asarray(ref.counts))
    np.testing.assert_array_equal(got_v, exp_v)
    np.testing.assert_array_equal(got_c, exp_c)
    np.testing.assert_array_equal(np.sort(to_np(values)), exp_v)
    assert values.dtype == x.dtype and counts_result.counts.dtype == cw.int64


@given(data=st.data())
def test_unique_inverse_and_all_reconstruct_the_input(data):
    name = data.draw(st.sampled_from(REAL + ("bool",)), label="dtype")
    x = data.draw(small_arrays(name, shapes(max_dims=3), 0, 4), label="x")
    host = to_np(x)
    values, inverse = cw.unique_inverse(x)
    assert inverse.shape == x.shape, "inverse_indices has the input's shape (2023.12)"
    np.testing.assert_array_equal(to_np(values)[to_np(inverse)], host)
    result = cw.unique_all(x)
    v, idx, inv, counts = (to_np(a) for a in result)
    np.testing.assert_array_equal(v[inv], host)
    flat = host.reshape(-1)
    np.testing.assert_array_equal(flat[idx], v)
    # indices are the first occurrences, counts the multiplicities
    for value, first, count in zip(v.tolist(), idx.tolist(), counts.tolist()):
        positions = np.flatnonzero(flat == value)
        assert first == positions[0] and count == positions.size
    assert sorted(v.tolist()) == sorted(set(flat.tolist()))
    assert result.values.dtype == x.dtype
    assert all(a.dtype == cw.int64 for a in (result.indices, result.inverse_indices, result.counts))


def test_unique_treats_each_nan_as_distinct_and_zeros_as_equal():
    nan = float("nan")
    x = cw.asarray([nan, 1.0, -0.0, nan, 0.0, 1.0])
    values = to_np(cw.unique_values(x))
    assert np.isnan(values).sum() == 2, "each NaN is a distinct element"
    assert sorted(values[~np.isnan(values)].tolist()) == [0.0, 1.0]
    counts = cw.unique_counts(x)
    c = dict(zip(map(repr, to_np(counts.values).tolist()), to_np(counts.counts).tolist()))
    assert c["nan"] == 1 and c["1.0"] == 2


# === fixed cases and layouts: array-api-strict ============================================

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
    return xs.unique_all(xs.asarray(data.astype(np.uint8) if data.dtype == bool else data))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", sorted(CASES))
def test_unique_all_matches_strict(dev, name, layout):
    data = np.asarray(CASES[name])
    x = make(data, dev, layout)
    ref = _ref(data)
    got = cw.unique_all(x)
    assert got._fields == ("values", "indices", "inverse_indices", "counts")
    assert_same(got.values, np.asarray(ref.values).astype(data.dtype))
    assert_same(got.indices, np.asarray(ref.indices), dtype=cw.int64)
    assert_same(got.inverse_indices, np.asarray(ref.inverse_indices), dtype=cw.int64)
    assert_same(got.counts, np.asarray(ref.counts), dtype=cw.int64)


@pytest.mark.parametrize("name", sorted(CASES))
def test_unique_variants_agree(dev, name):
    data = np.asarray(CASES[name])
    x = make(data, dev)
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


def test_every_nan_is_distinct(dev):
    data = np.array([NAN, NAN, 1.0, NAN])
    got = cw.unique_counts(make(data, dev))
    assert got.values.shape == (4,)
    assert cw.to_numpy(got.counts).tolist() == [1, 1, 1, 1]
    inv = cw.to_numpy(cw.unique_inverse(make(data, dev)).inverse_indices)
    assert sorted(inv.tolist()) == [0, 1, 2, 3]  # each NaN its own value


def test_inverse_rebuilds_input(dev):
    data = np.array([[3, 1, 3], [2, 1, 0]], np.int32)
    values, inverse = cw.unique_inverse(make(data, dev, "flipped"))
    assert inverse.shape == data.shape
    np.testing.assert_array_equal(cw.to_numpy(values)[cw.to_numpy(inverse)], data)


def test_complex_unique(dev):
    data = np.array([1 + 2j, 1 + 1j, 1 + 2j, -1j, 0j, 1 + 1j], np.complex128)
    got = cw.unique_all(make(data, dev))
    ref = np.unique(data, return_index=True, return_inverse=True, return_counts=True)
    assert_same(got.values, ref[0])
    assert_same(got.indices, ref[1], dtype=cw.int64)
    assert_same(got.inverse_indices, ref[2], dtype=cw.int64)
    assert_same(got.counts, ref[3], dtype=cw.int64)


def test_empty(dev):
    for shape in ((0,), (2, 0)):
        data = np.zeros(shape, np.float32)
        got = cw.unique_all(make(data, dev))
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
def test_random_unique_all_matches_strict(dev, data):
    ref = xs.unique_all(xs.asarray(data))
    got = cw.unique_all(make(data, dev, "flipped"))
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
