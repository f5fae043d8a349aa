"""Indexing, both oracles: basic keys (views), integer arrays, boolean masks and
``__setitem__`` in each form on drawn arrays, against NumPy applied to the same host data;
then integer-array and boolean-mask ``__getitem__``/``__setitem__`` over a table of keys
and layouts, and random mixed keys, against NumPy's results (NumPy's placement of the
advanced dims). take and take_along_axis: test_indexing_functions."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import candlewick as cw
from _namespace_helpers import LAYOUTS, assert_same, make, raises_index_error
from array_api_support import (
    ALL, any_arrays, arrays, assert_matches_strict, dt, same_memory, shapes, to_np, to_strict,
    xps,
)


# === drawn arrays: NumPy on the same host data ============================================

@given(data=st.data())
def test_basic_indexing_is_a_view_with_numpy_semantics(data):
    name = data.draw(st.sampled_from(ALL), label="dtype")
    x = data.draw(arrays(name, shapes(min_dims=0, max_dims=4)), label="x")
    key = data.draw(xps.indices(x.shape, allow_newaxis=True, allow_ellipsis=True), label="key")
    out = x[key]
    expected = to_np(x)[key]
    assert out.shape == expected.shape and out.dtype == x.dtype
    np.testing.assert_array_equal(to_np(out), expected)
    if out.size:
        assert same_memory(out, x), "basic indexing must return a view"


@given(data=st.data())
def test_integer_array_indexing(data):
    name = data.draw(st.sampled_from(ALL), label="dtype")
    x = data.draw(arrays(name, shapes(min_dims=1, max_dims=3, min_side=1)), label="x")
    count = data.draw(st.integers(1, x.ndim), label="indexed_axes")
    idx_shape = data.draw(shapes(max_dims=2), label="index_shape")
    index_dtype = data.draw(st.sampled_from(["int64", "int32", "int16", "uint8"]), label="index_dtype")
    indices = []
    for axis in range(count):
        n = x.shape[axis]
        lo = 0 if index_dtype == "uint8" else -n
        indices.append(data.draw(arrays(index_dtype, idx_shape, min_value=lo, max_value=n - 1),
                                 label=f"index{axis}"))
    key = tuple(indices)
    out = x[key]
    expected = to_np(x)[tuple(to_np(i) for i in indices)]
    assert out.shape == expected.shape and out.dtype == x.dtype
    np.testing.assert_array_equal(to_np(out), expected)


@given(data=st.data())
def test_integer_array_with_integers_and_slices(data):
    x = data.draw(any_arrays((3, 4, 2)), label="x")
    idx = data.draw(arrays("int64", (2, 2), min_value=-2, max_value=1), label="idx")
    host = to_np(x)
    for key in [(1, idx), (idx, slice(None)), (slice(None), idx), (Ellipsis, idx[0, :1])]:
        host_key = tuple(to_np(k) if isinstance(k, cw.Array) else k for k in key)
        np.testing.assert_array_equal(to_np(x[key]), host[host_key], err_msg=repr(key))


@pytest.mark.parametrize("bad", [3, -4, 10])
def test_integer_array_index_out_of_bounds(bad):
    """An asynchronous backend may report the bad index at the next synchronization (the
    protocol allows it): reading the result to the host is one."""
    x = cw.ones((3, 2))
    with pytest.raises(IndexError):
        cw.to_numpy(x[cw.asarray([0, bad])])


def _mask_shape(data, dims):
    """``dims``, or now and then with dimensions of size 0: a mask dimension must equal
    the array's or be 0 (the standard's rule and NumPy's; an empty mask selects nothing)."""
    return tuple(0 if n and data.draw(st.integers(0, 3), label="zero-size mask dimension") == 3 else n
                 for n in dims)


@given(data=st.data())
def test_boolean_mask_indexing(data):
    name = data.draw(st.sampled_from(ALL), label="dtype")
    x = data.draw(arrays(name, shapes(min_dims=0, max_dims=3)), label="x")
    leading = data.draw(st.integers(0, x.ndim), label="mask_ndim")
    mask = data.draw(arrays("bool", _mask_shape(data, x.shape[:leading])), label="mask")
    out = x[mask]
    ref = to_strict(x)[to_strict(mask)]
    assert_matches_strict(out, ref, what="x[mask]: ")
    assert out.device == x.device


# --- __setitem__ ----------------------------------------------------------------------

@given(data=st.data())
def test_setitem_with_basic_keys(data):
    name = data.draw(st.sampled_from(ALL), label="dtype")
    x = data.draw(arrays(name, shapes(min_dims=1, max_dims=3)), label="x")
    key = data.draw(xps.indices(x.shape, allow_newaxis=False), label="key")
    host = to_np(x).copy()
    target_shape = host[key].shape
    as_scalar = data.draw(st.booleans(), label="scalar value")
    if as_scalar:
        value = data.draw(xps.from_dtype(dt(name)) if name != "uint64" else st.integers(0, 2**63 - 1),
                          label="value")
        host[key] = value
    else:
        vshape = data.draw(xps.broadcastable_shapes(target_shape, min_side=0, max_dims=len(target_shape))
                           .filter(lambda s: np.broadcast_shapes(s, target_shape) == target_shape),
                           label="value_shape")
        value = data.draw(arrays(name, vshape), label="value")
        host[key] = to_np(value)
    x[key] = value
    np.testing.assert_array_equal(to_np(x), host)


@given(data=st.data())
def test_setitem_through_a_view_changes_the_base(data):
    x = data.draw(arrays("float64", (4, 3), allow_nan=False), label="x")
    view = x[1:3, ::-1]
    view[0, 0] = 99.0
    assert to_np(x)[1, 2] == 99.0
    view[...] = cw.asarray([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(to_np(x)[1:3], [[3.0, 2.0, 1.0]] * 2)


@given(data=st.data())
def test_setitem_with_integer_arrays(data):
    name = data.draw(st.sampled_from(ALL), label="dtype")
    x = data.draw(arrays(name, shapes(min_dims=1, max_dims=2, min_side=3)), label="x")
    n = x.shape[0]
    # repeated indices make the written value ambiguous: three distinct rows, drawn so
    # (filtering random indices for distinct ones failed Hypothesis's health check), each
    # written as a non-negative or a negative index
    rows = data.draw(st.lists(st.integers(0, n - 1), min_size=3, max_size=3, unique=True), label="rows")
    negative = data.draw(st.lists(st.booleans(), min_size=3, max_size=3), label="negative")
    idx = cw.asarray([row - n if neg else row for row, neg in zip(rows, negative)], dtype=cw.int64)
    host = to_np(x).copy()
    value = data.draw(arrays(name, host[to_np(idx)].shape), label="value")
    host[to_np(idx)] = to_np(value)
    x[idx] = value
    np.testing.assert_array_equal(to_np(x), host)


@given(data=st.data())
def test_setitem_with_a_boolean_mask(data):
    name = data.draw(st.sampled_from(ALL), label="dtype")
    x = data.draw(arrays(name, shapes(min_dims=1, max_dims=3)), label="x")
    leading = data.draw(st.integers(1, x.ndim), label="mask_ndim")
    mask = data.draw(arrays("bool", _mask_shape(data, x.shape[:leading])), label="mask")
    host = to_np(x).copy()
    value = {"bool": True}.get(name, 1)
    host[to_np(mask)] = value
    x[mask] = value
    np.testing.assert_array_equal(to_np(x), host)


@given(data=st.data())
def test_boolean_mask_with_other_keys(data):
    """A mask beside slices, integers and the ellipsis (the general path), its dimensions
    possibly of size 0, read and written as NumPy does."""
    x = data.draw(arrays("int16", shapes(min_dims=2, max_dims=3)), label="x")
    at = data.draw(st.integers(0, x.ndim - 1), label="mask axis")
    mask = data.draw(arrays("bool", _mask_shape(data, x.shape[at:at + 1])), label="mask")
    key = data.draw(st.sampled_from([(Ellipsis, mask) + (slice(None),) * (x.ndim - at - 1),
                                     (slice(None),) * at + (mask,)]), label="key")
    host = to_np(x).copy()
    host_key = tuple(to_np(k) if isinstance(k, cw.Array) else k for k in key)
    np.testing.assert_array_equal(to_np(x[key]), host[host_key])
    host[host_key] = 7
    x[key] = 7
    np.testing.assert_array_equal(to_np(x), host)


def test_a_mask_whose_size_does_not_match_is_refused():
    x = cw.zeros((2, 3))
    for shape in [(1,), (3,), (2, 2), (0, 2)]:
        with pytest.raises(IndexError):
            x[cw.zeros(shape, dtype=cw.bool)]
        with pytest.raises(IndexError):
            x[cw.zeros(shape, dtype=cw.bool)] = 1.0


def test_setitem_rejects_values_that_would_lose_information():
    x = cw.ones(3, dtype=cw.int8)
    with pytest.raises(TypeError):
        x[0] = 1.5
    with pytest.raises(TypeError):
        x[:] = cw.asarray([1.0, 2.0, 3.0])
    with pytest.raises(OverflowError):
        x[0] = 1000
    with pytest.raises(ValueError):
        x[:] = cw.asarray([1, 2], dtype=cw.int8)


@pytest.mark.parametrize("key", [(0, 0), 3, -4, (slice(None), 1), (..., ...), 1.5, "a", True])
def test_invalid_basic_keys(key):
    x = cw.ones(3)
    with pytest.raises(IndexError):
        x[key]


def test_zero_dim_indexing():
    x = cw.asarray(5)
    assert to_np(x[()]) == 5 and x[...].shape == () and x[None].shape == (1,)
    x[()] = 6
    assert int(x) == 6


# === a table of keys, layouts and random mixed keys: NumPy ================================

DATA = np.arange(2 * 3 * 4 * 5, dtype=np.float64).reshape(2, 3, 4, 5)


def _keys():
    i0 = np.array([1, 0, 1])
    i1 = np.array([[0, 2], [-1, 1]])
    i2 = np.array([3, -4, 0])
    i3 = np.array([4])
    return {
        "one_array": (i0,),
        "one_array_2d": (slice(None), i1),
        "last_axis": (Ellipsis, i2[:1]),
        "two_adjacent": (slice(None), i1, np.array([[0], [3]])),
        "two_adjacent_front": (i0, np.array([2, 0, 1])),
        "two_apart": (i0, slice(None), i2),
        "int_and_array_adjacent": (slice(None), 1, i2),
        "int_and_array_apart": (1, slice(None), i2),
        "array_none_array": (i0, None, np.array([0])),
        "slices_and_arrays": (slice(None, None, -1), i1, slice(1, 3), i3),
        "ellipsis_mid": (i0, Ellipsis, np.array([0, 4, 2])),
        "all_four": (i0, np.array([0, 1, 2]), i2, np.array([4, 3, 2])),
        "broadcast_three": (np.array([[0], [1]]), np.array([0, 2]), slice(None), np.array([[1, 1]])),
        "empty_index": (np.array([], dtype=np.int64),),
        "empty_and_slice": (slice(None), np.zeros((0, 2), dtype=np.int64)),
        "list_index": ([1, 0],),
        "list_pair": ([1, 0], [2, 2]),
        "negative_step_and_array": (slice(None, None, -1), slice(None), np.array([-1, 0])),
    }


KEYS = _keys()


def _to_cw(key, dev):
    out = []
    for k in key:
        if isinstance(k, np.ndarray):
            out.append(make(k, dev))
        else:
            out.append(k)
    return tuple(out)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", sorted(KEYS))
def test_integer_array_getitem(dev, name, layout):
    key = KEYS[name]
    x = make(DATA, dev, layout)
    assert_same(x[_to_cw(key, dev)], DATA[key])


def test_integer_array_index_dtypes_and_single_key(dev):
    x = make(DATA[0, 0], dev)  # (4, 5)
    for dtype in (np.int8, np.uint8, np.int32, np.uint64):
        idx = np.array([3, 0, 1], dtype=dtype)
        assert_same(x[make(idx, dev)], DATA[0, 0][idx])
    assert_same(x[make(np.array([[1, 2], [3, 0]]), dev)], DATA[0, 0][np.array([[1, 2], [3, 0]])])
    assert_same(x[np.array([2, -1])], DATA[0, 0][np.array([2, -1])])  # NumPy index accepted too
    assert_same(x[make(np.array(2), dev), make(np.array([1, 1]), dev)], DATA[0, 0][2, [1, 1]])


def test_integer_array_out_of_range(dev):
    x = make(DATA, dev)
    for key in ((make(np.array([2]), dev),),
                (make(np.array([-3]), dev),),
                (slice(None), make(np.array([0, 3]), dev)),
                # each index checked on its own axis even when the flat position exists
                (make(np.array([0]), dev), make(np.array([5]), dev)),
                (make(np.array([0]), dev), make(np.array([-4]), dev)),
                (make(np.array([0]), dev), 0, 0, make(np.array([5]), dev)),
                (make(np.array([1]), dev), 5)):
        with raises_index_error(dev):
            x[key]
    with raises_index_error(dev):
        make(np.zeros((0, 2)), dev)[make(np.array([0]), dev)]


@pytest.mark.parametrize("shape, key", [
    ((0, 0), (slice(None), [0, 0])),  # the thorough profile's find on rocm
    ((0, 0), ([0],)),
    ((3, 0), (slice(None), [0])),
    ((0, 3), ([1, 0], slice(None))),
    ((2, 0), ([0, 1], [0, 0])),
    ((0, 2, 0), (slice(None), [1], [0])),
    ((0, 4), ([[0]],)),
])
def test_an_index_array_into_an_axis_of_size_0_is_out_of_bounds(dev, shape, key):
    """NumPy refuses it even where the result has no elements, so that no kernel would see
    the indices: get and set alike, with candlewick's IndexOutOfBoundsError (an IndexError)."""
    data = np.zeros(shape, np.int32)
    host = tuple(np.array(k) if isinstance(k, list) else k for k in key)
    with pytest.raises(IndexError):
        data[host]
    cw_key = _to_cw(host, dev)
    with raises_index_error(dev):
        make(data, dev)[cw_key]
    x = make(data, dev)
    with pytest.raises(cw.errors.IndexOutOfBoundsError, match="size 0"):
        x[cw_key] = 1
        dev.synchronize()
    # an empty broadcast uses no index, so NumPy checks none: neither do we
    empty = tuple(make(np.zeros((0, 1), np.int64), dev) if isinstance(k, np.ndarray) else k for k in host)
    assert_same(make(data, dev)[empty], data[tuple(np.zeros((0, 1), np.int64) if isinstance(k, np.ndarray)
                                                  else k for k in host)])


@pytest.mark.parametrize("shape, key, good", [
    ((0, 3), (slice(None), [5]), (slice(None), [2])),
    ((0, 3), (slice(None), [-4]), (slice(None), [-3])),
    ((2, 0, 3), (slice(None), slice(None), [7]), (slice(None), slice(None), [0, 2])),
    ((3, 0), ([3],), ([2, -3],)),
    ((0, 3, 2), (slice(None), [1], [5]), (slice(None), [1], [1])),
])
def test_an_out_of_range_index_is_refused_where_the_result_is_empty(dev, shape, key, good):
    """NumPy checks every index even where the result has no elements (the backends'
    kernels then see none): get and set alike; in-range indices still give the empty
    result."""
    data = np.zeros(shape, np.int32)

    def host(k):
        return tuple(np.array(v) if isinstance(v, list) else v for v in k)

    with pytest.raises(IndexError):
        data[host(key)]
    with raises_index_error(dev):
        make(data, dev)[_to_cw(host(key), dev)]
    with raises_index_error(dev):
        make(data, dev)[_to_cw(host(key), dev)] = 1
    assert_same(make(data, dev)[_to_cw(host(good), dev)], data[host(good)])
    x = make(data, dev)
    x[_to_cw(host(good), dev)] = 1
    assert_same(x, data)


def test_index_type_errors(dev):
    x = make(DATA, dev)
    with pytest.raises(IndexError):
        x[make(np.array([0.0]), dev)]
    with pytest.raises(IndexError):
        x[[0.5]]
    with pytest.raises(IndexError):
        x[make(np.array([0]), dev), ..., ...]
    with pytest.raises(IndexError):
        x[make(np.array([0]), dev), 0, 0, 0, 0]
    with pytest.raises(IndexError):  # NumPy: "shape mismatch: indexing arrays could not be broadcast"
        x[make(np.array([0, 1]), dev), make(np.array([0, 1, 2]), dev)]


# --- boolean masks -----------------------------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
def test_mask_getitem(dev, layout):
    rng = np.random.default_rng(9)
    x = make(DATA, dev, layout)
    for shape in ((2,), (2, 3), (2, 3, 4), (2, 3, 4, 5)):
        mask = rng.integers(0, 2, size=shape).astype(bool)
        assert_same(x[make(mask, dev, layout)], DATA[mask])
        assert_same(x[(make(mask, dev),)], DATA[mask])
    assert_same(x[make(np.zeros((2, 3), bool), dev)], DATA[np.zeros((2, 3), bool)])
    assert_same(x[make(np.ones((2, 3, 4, 5), bool), dev)], DATA.ravel())


def test_mask_inside_tuple(dev):
    rng = np.random.default_rng(10)
    x = make(DATA, dev)
    m12 = rng.integers(0, 2, size=(3, 4)).astype(bool)
    m3 = np.array([True, False, True, True, False])
    m3 = np.array([True, False, True, True, False])  # three selected
    m2 = np.array([True, True])
    for key in ((slice(None), m12), (0, m12), (Ellipsis, m3), (m2, slice(None), 1),
                (slice(None), m12, np.array([4])),
                (np.array([1, 0, 1]), slice(None), slice(None), m3),
                (None, slice(None), m12), (m2, 0, slice(None), m3 & np.array([1, 1, 0, 1, 1], bool))):
        assert_same(x[_to_cw(key, dev)], DATA[key])


def test_zero_d_masks(dev):
    x = make(DATA[0, 0], dev)
    for key in (True, False):
        k = make(np.bool_(key), dev)
        assert_same(x[k], DATA[0, 0][np.bool_(key)])
        assert_same(x[..., k], DATA[0, 0][..., np.bool_(key)])
    s = make(np.float32(4.0), dev)
    assert_same(s[make(np.bool_(True), dev)], np.array([4.0], np.float32))
    assert_same(s[make(np.bool_(False), dev)], np.zeros(0, np.float32))


def test_mask_errors(dev):
    x = make(DATA, dev)
    with pytest.raises(IndexError):
        x[make(np.ones(3, bool), dev)]
    with pytest.raises(IndexError):
        x[slice(None), make(np.ones((3, 5), bool), dev)]
    with pytest.raises(IndexError):
        make(np.float32(1.0), dev)[make(np.ones(1, bool), dev)]


def test_special_values_survive(dev):
    data = np.array([np.nan, -0.0, np.inf, 1.0])
    x = make(data, dev)
    mask = np.array([True, True, True, False])
    got = cw.to_numpy(x[make(mask, dev)])
    assert np.isnan(got[0]) and np.signbit(got[1]) and got[2] == np.inf
    assert_same(make(data.astype(np.complex64), dev)[make(np.array([2, 0]), dev)],
                data.astype(np.complex64)[[2, 0]])


# --- setitem ------------------------------------------------------------------------------

def _check_setitem(dev, layout, key, value, base=DATA):
    expected = base.copy()
    expected[key] = value
    x = make(base, dev, layout)
    v = make(value, dev) if isinstance(value, np.ndarray) else value
    x[_to_cw(key, dev)] = v
    assert_same(x, expected)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", sorted(KEYS))
def test_integer_array_setitem_scalar(dev, name, layout):
    key = KEYS[name]
    # duplicate positions with one value: the result is well defined
    _check_setitem(dev, layout, key, -7.0)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", sorted(KEYS))
def test_integer_array_setitem_array(dev, name, layout):
    key = KEYS[name]
    shape = DATA[key].shape
    if _has_duplicates(key):
        pytest.skip("duplicate target positions: which write wins is unspecified")
    value = -np.arange(1, np.prod(shape) + 1, dtype=np.float64).reshape(shape)
    _check_setitem(dev, layout, key, value)
    if shape and 0 not in shape:
        _check_setitem(dev, layout, key, value[(0,) * (len(shape) - 1)][None])  # broadcast


def _has_duplicates(key):
    probe = np.arange(DATA.size).reshape(DATA.shape)
    picked = probe[key].ravel()
    return len(np.unique(picked)) != len(picked)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_mask_setitem(dev, layout):
    rng = np.random.default_rng(11)
    for shape in ((2,), (2, 3), (2, 3, 4, 5)):
        mask = rng.integers(0, 2, size=shape).astype(bool)
        count = int(mask.sum())
        rest = DATA.shape[len(shape):]
        _check_setitem(dev, layout, (mask,), 99.0)
        _check_setitem(dev, layout, (mask,), np.arange(np.prod(rest), dtype=np.float64).reshape(rest))
        _check_setitem(dev, layout, (mask,), -np.arange(count * np.prod(rest), dtype=np.float64)
                       .reshape((count,) + rest))
    m12 = rng.integers(0, 2, size=(3, 4)).astype(bool)
    _check_setitem(dev, layout, (slice(None), m12), 5.0)
    _check_setitem(dev, layout, (1, m12, slice(None, 2)), -np.ones((int(m12.sum()), 2)))


def test_setitem_dtype_rules_and_zero_d(dev):
    ints = np.arange(6, dtype=np.int16)
    _check_setitem(dev, "contiguous", (np.array([0, 5]),), np.array([7, 8], np.int8), base=ints)
    _check_setitem(dev, "flipped", (ints > 2,), 100, base=ints)
    x = make(ints, dev)
    with cw.promotion_mode("strict"):  # the default mode casts (test_promotion_rule.py)
        with pytest.raises(TypeError):
            x[make(np.array([0]), dev)] = 1.5
        with pytest.raises(TypeError):
            x[make(np.array([0]), dev)] = make(np.array([1]), dev)  # int64 into int16
    with pytest.raises(OverflowError):
        x[make(ints > 2, dev)] = 70000
    s = make(np.float64(1.0), dev)
    s[make(np.bool_(True), dev)] = 3.0
    assert cw.to_numpy(s) == 3.0
    s[make(np.bool_(False), dev)] = 4.0
    assert cw.to_numpy(s) == 3.0
    b = make(np.array([True, False, True]), dev)
    b[make(np.array([1]), dev)] = True
    assert cw.to_numpy(b).tolist() == [True, True, True]


def test_element_stores_of_zero_d_values(dev):
    """``x[i, j] = v`` with v a 0-d array (scikit-learn's fill_diagonal loop): a value of
    x's dtype stored as it is, from views with an offset or from x itself."""
    h = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    x = make(h, dev)
    source = make(np.array([5.5, -2.25], np.float32), dev)
    for i in range(3):
        x[i, i] = source[1]  # a 0-d view at offset 1
    x[-1, -1] = x[0, 1]
    x[0, 3] = make(np.array([[0.0], [7.25]], np.float32), dev)[1, 0]  # a strided 0-d view
    want = h.copy()
    for i in range(3):
        want[i, i] = -2.25
    want[-1, -1] = want[0, 1]
    want[0, 3] = 7.25
    np.testing.assert_array_equal(cw.to_numpy(x), want)


def test_setitem_errors(dev):
    x = make(DATA.copy(), dev)
    with raises_index_error(dev):
        x[make(np.array([2]), dev)] = 0.0
    with pytest.raises(ValueError):
        x[make(np.array([0, 1]), dev)] = make(np.zeros(3), dev)
    with pytest.raises(ValueError):
        x[make(np.ones((2, 3), bool), dev)] = make(np.zeros((5, 4, 5)), dev)
    with pytest.raises(IndexError):
        x[make(np.ones(5, bool), dev)] = 1.0
    # nothing was written by these failed assignments (a scatter skips a bad index)
    assert_same(x, DATA)
    # several index arrays: an asynchronous backend may already have written other
    # elements when it reports the bad one, so only the error is checked here
    with raises_index_error(dev):
        x[make(np.array([0]), dev), make(np.array([-4]), dev)] = 0.0


def test_setitem_into_view_writes_through(dev):
    base = make(DATA.copy(), dev)
    v = base[1]  # a basic view
    v[make(np.array([0, 2]), dev), make(np.array([1, 3]), dev)] = -1.0
    expected = DATA.copy()
    expected[1][[0, 2], [1, 3]] = -1.0
    assert_same(base, expected)
    t = cw.permute_dims(make(DATA.copy(), dev), (3, 1, 2, 0))  # axes that cannot merge
    t[make(np.array([0, 4]), dev), :, make(np.array([1, 2]), dev)] = 0.5
    e = np.transpose(DATA.copy(), (3, 1, 2, 0))
    e[[0, 4], :, [1, 2]] = 0.5
    assert_same(t, e)


# --- property test: random mixed keys against NumPy ------------------------------------------

@st.composite
def _shape_and_key(draw):
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=1, max_size=4)))
    key = []
    dims = list(shape)
    n_arrays = 0
    while dims:
        n = dims[0]
        kind = draw(st.sampled_from(["slice", "int", "array", "none", "mask"] if n else ["slice", "array", "none"]))
        if kind == "none":
            key.append(None)
            continue
        dims.pop(0)
        if kind == "slice":
            start = draw(st.integers(-5, 5) | st.none())
            step = draw(st.sampled_from([None, 1, 2, -1, -2]))
            key.append(slice(start, None, step))
        elif kind == "int":
            key.append(draw(st.integers(-n, n - 1)))
        elif kind == "mask":
            key.append(np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool))
            n_arrays += 1
        else:
            n_arrays += 1
            idx_shape = draw(st.sampled_from([(2,), (1,), (2, 1), (1, 2)]))
            # now and then one out of range (NumPy checks it even where the result is empty)
            in_range = st.integers(-n, n - 1) if n else st.just(0)
            vals = draw(st.lists(in_range | st.integers(-n - 2, n + 1), min_size=int(np.prod(idx_shape)),
                                 max_size=int(np.prod(idx_shape))))
            key.append(np.array(vals, dtype=np.int64).reshape(idx_shape))
        if draw(st.booleans()) and dims:
            continue
    if not n_arrays:
        key.append(np.array([0], dtype=np.int64) if shape[-1] else np.zeros(0, np.int64))
        key = key[: len(shape) - 1] + key[-1:] if len(key) > len(shape) else key
    return shape, tuple(key)


@settings(deadline=None)
@given(case=_shape_and_key())
def test_random_keys_match_numpy(dev, case):
    shape, key = case
    data = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
    try:
        expected = data[key]
    except IndexError:
        with raises_index_error(dev):
            make(data, dev)[_to_cw(key, dev)]
        return
    x = make(data, dev, "flipped")
    assert_same(x[_to_cw(key, dev)], expected)
    # setitem with the same key: a distinct value per selected element, unless duplicates
    target = data.copy()
    probe = np.arange(data.size).reshape(shape)[key].ravel()
    if len(np.unique(probe)) == len(probe):
        value = -np.arange(1, expected.size + 1, dtype=np.int32).reshape(expected.shape)
        target[key] = value
        y = make(data, dev)
        y[_to_cw(key, dev)] = make(value, dev)
        assert_same(y, target)
