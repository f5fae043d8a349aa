"""Searching (argmax, argmin, count_nonzero, nonzero, searchsorted, where), sorting
(sort, argsort, stability) and set functions (unique_*) against array-api-strict."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import array_api_strict as xs
import candlewick as cw
from array_api_support import (
    ALL, REAL, REAL_FLOAT, arrays, assert_matches_strict, axes_for, axis_for, shapes,
    small_arrays, to_np, to_strict, xps,
)


def _no_nan(name, shape):
    return arrays(name, shape, **({"allow_nan": False} if name in REAL_FLOAT else {}))


# --- searching ----------------------------------------------------------------------

@pytest.mark.parametrize("fname", ["argmax", "argmin"])
@given(data=st.data())
def test_argmax_argmin(fname, data):
    name = data.draw(st.sampled_from(REAL), label="dtype")
    shape = data.draw(shapes(max_dims=3, min_side=1), label="shape")
    # few distinct values so ties are common: the first occurrence must win
    x = data.draw(small_arrays(name, shape, 0, 3), label="x")
    axis = data.draw(axis_for(len(shape)), label="axis")
    keepdims = data.draw(st.booleans(), label="keepdims")
    out = getattr(cw, fname)(x, axis=axis, keepdims=keepdims)
    ref = getattr(xs, fname)(to_strict(x), axis=axis, keepdims=keepdims)
    assert_matches_strict(out, ref, what=f"{fname}(axis={axis}, keepdims={keepdims}): ")


@given(data=st.data())
def test_count_nonzero(data):
    name = data.draw(st.sampled_from(ALL), label="dtype")
    shape = data.draw(shapes(max_dims=3), label="shape")
    x = data.draw(arrays(name, shape), label="x")
    axis = data.draw(axes_for(len(shape)), label="axis")
    keepdims = data.draw(st.booleans(), label="keepdims")
    out = cw.count_nonzero(x, axis=axis, keepdims=keepdims)
    ref = xs.count_nonzero(to_strict(x), axis=axis, keepdims=keepdims)
    assert_matches_strict(out, ref, what=f"count_nonzero(axis={axis}): ")


@given(data=st.data())
def test_nonzero(data):
    name = data.draw(st.sampled_from(ALL), label="dtype")
    x = data.draw(arrays(name, shapes(min_dims=1, max_dims=3)), label="x")
    out = cw.nonzero(x)
    ref = xs.nonzero(to_strict(x))
    assert isinstance(out, tuple) and len(out) == len(ref) == x.ndim
    for got, exp in zip(out, ref):
        assert_matches_strict(got, exp, what="nonzero: ")
        assert got.device == x.device


def test_nonzero_of_a_0d_array_is_an_error():
    with pytest.raises(ValueError):
        cw.nonzero(cw.asarray(1))


@given(data=st.data())
def test_searchsorted(data):
    name = data.draw(st.sampled_from(REAL), label="dtype")
    haystack = data.draw(_no_nan(name, shapes(min_dims=1, max_dims=1)), label="x1")
    needles = data.draw(_no_nan(name, shapes(max_dims=2)), label="x2")
    side = data.draw(st.sampled_from(["left", "right"]), label="side")
    use_sorter = data.draw(st.booleans(), label="use_sorter")
    if use_sorter:
        sorter = cw.argsort(haystack)
        out = cw.searchsorted(haystack, needles, side=side, sorter=sorter)
        ref = xs.searchsorted(to_strict(haystack), to_strict(needles), side=side, sorter=to_strict(sorter))
    else:
        haystack = cw.sort(haystack)
        out = cw.searchsorted(haystack, needles, side=side)
        ref = xs.searchsorted(to_strict(haystack), to_strict(needles), side=side)
    assert_matches_strict(out, ref, what=f"searchsorted(side={side}): ")


def test_searchsorted_rejects_nd_haystacks_and_bad_sides():
    with pytest.raises(ValueError):
        cw.searchsorted(cw.ones((2, 2)), cw.ones(2))
    with pytest.raises(ValueError):
        cw.searchsorted(cw.ones(2), cw.ones(2), side="middle")


@given(data=st.data())
def test_where(data):
    s = data.draw(xps.mutually_broadcastable_shapes(3, max_dims=3, max_side=3), label="shapes").input_shapes
    cond = data.draw(arrays("bool", s[0]), label="condition")
    name = data.draw(st.sampled_from(ALL), label="dtype")
    x1 = data.draw(arrays(name, s[1]), label="x1")
    use_scalar = data.draw(st.booleans(), label="scalar x2")
    if use_scalar:
        scalar = {"bool": True}.get(name, 1)
        out = cw.where(cond, x1, scalar)
        ref = xs.where(to_strict(cond), to_strict(x1), scalar)
    else:
        x2 = data.draw(arrays(name, s[2]), label="x2")
        out = cw.where(cond, x1, x2)
        ref = xs.where(to_strict(cond), to_strict(x1), to_strict(x2))
    assert_matches_strict(out, ref, what="where: ")


def test_where_needs_a_bool_condition():
    with pytest.raises(TypeError):
        cw.where(cw.asarray([1, 0]), cw.asarray([1.0, 2.0]), cw.asarray([3.0, 4.0]))


# --- sorting ------------------------------------------------------------------------

@pytest.mark.parametrize("fname", ["sort", "argsort"])
@given(data=st.data())
def test_sort_and_argsort(fname, data):
    name = data.draw(st.sampled_from(REAL), label="dtype")
    shape = data.draw(shapes(min_dims=1, max_dims=3), label="shape")
    x = data.draw(small_arrays(name, shape, -2, 2), label="x")
    axis = data.draw(st.integers(-len(shape), len(shape) - 1), label="axis")
    descending = data.draw(st.booleans(), label="descending")
    out = getattr(cw, fname)(x, axis=axis, descending=descending, stable=True)
    ref = getattr(xs, fname)(to_strict(x), axis=axis, descending=descending, stable=True)
    # argsort with stable=True is fully determined: equal elements keep their order
    assert_matches_strict(out, ref, check_zero_sign=False, what=f"{fname}(axis={axis}, descending={descending}): ")


@given(data=st.data())
def test_unstable_argsort_still_sorts(data):
    name = data.draw(st.sampled_from(REAL), label="dtype")
    x = data.draw(_no_nan(name, shapes(min_dims=1, max_dims=1)), label="x")
    descending = data.draw(st.booleans(), label="descending")
    idx = to_np(cw.argsort(x, descending=descending, stable=False))
    host = to_np(x)
    assert sorted(idx.tolist()) == list(range(host.size)), "argsort must return a permutation"
    ordered = host[idx]
    expected = np.sort(host)[::-1] if descending else np.sort(host)
    np.testing.assert_array_equal(ordered, expected)


def test_stable_sort_keeps_the_order_of_equal_keys():
    keys = cw.asarray([3, 1, 2, 1, 3, 2, 1, 3, 0, 2, 1, 3] * 5, dtype=cw.int16)
    host = to_np(keys)
    ascending = to_np(cw.argsort(keys, stable=True)).tolist()
    assert ascending == sorted(range(host.size), key=lambda i: host[i])
    descending = to_np(cw.argsort(keys, descending=True, stable=True)).tolist()
    assert descending == sorted(range(host.size), key=lambda i: -int(host[i]))


def test_sort_places_nan_last_in_ascending_order():
    x = cw.asarray([2.0, float("nan"), -1.0, 0.5])
    out = to_np(cw.sort(x))
    assert out[:3].tolist() == [-1.0, 0.5, 2.0] and math.isnan(out[3])


@pytest.mark.parametrize("fname", ["sort", "argsort"])
def test_sort_rejects_complex_and_bad_axes(fname):
    with pytest.raises(TypeError):
        getattr(cw, fname)(cw.ones(3, dtype=cw.complex64))
    with pytest.raises(IndexError):
        getattr(cw, fname)(cw.ones((2, 3)), axis=2)


# --- sets ---------------------------------------------------------------------------

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
