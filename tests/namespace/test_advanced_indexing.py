"""Integer-array and boolean-mask ``__getitem__``/``__setitem__`` on every backend,
against NumPy's results for the same keys (NumPy's placement of the advanced dims)."""

import numpy as np
import pytest

import candlewick as cw
from _namespace_helpers import LAYOUTS, assert_same, make, raises_index_error

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


def _to_cw(key, device):
    out = []
    for k in key:
        if isinstance(k, np.ndarray):
            out.append(make(k, device))
        else:
            out.append(k)
    return tuple(out)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", sorted(KEYS))
def test_integer_array_getitem(device, name, layout):
    key = KEYS[name]
    x = make(DATA, device, layout)
    assert_same(x[_to_cw(key, device)], DATA[key])


def test_integer_array_index_dtypes_and_single_key(device):
    x = make(DATA[0, 0], device)  # (4, 5)
    for dtype in (np.int8, np.uint8, np.int32, np.uint64):
        idx = np.array([3, 0, 1], dtype=dtype)
        assert_same(x[make(idx, device)], DATA[0, 0][idx])
    assert_same(x[make(np.array([[1, 2], [3, 0]]), device)], DATA[0, 0][np.array([[1, 2], [3, 0]])])
    assert_same(x[np.array([2, -1])], DATA[0, 0][np.array([2, -1])])  # NumPy index accepted too
    assert_same(x[make(np.array(2), device), make(np.array([1, 1]), device)], DATA[0, 0][2, [1, 1]])


def test_integer_array_out_of_range(device):
    x = make(DATA, device)
    for key in ((make(np.array([2]), device),),
                (make(np.array([-3]), device),),
                (slice(None), make(np.array([0, 3]), device)),
                # each index checked on its own axis even when the flat position exists
                (make(np.array([0]), device), make(np.array([5]), device)),
                (make(np.array([0]), device), make(np.array([-4]), device)),
                (make(np.array([0]), device), 0, 0, make(np.array([5]), device)),
                (make(np.array([1]), device), 5)):
        with raises_index_error(device):
            x[key]
    with raises_index_error(device):
        make(np.zeros((0, 2)), device)[make(np.array([0]), device)]


def test_index_type_errors(device):
    x = make(DATA, device)
    with pytest.raises(IndexError):
        x[make(np.array([0.0]), device)]
    with pytest.raises(IndexError):
        x[[0.5]]
    with pytest.raises(IndexError):
        x[make(np.array([0]), device), ..., ...]
    with pytest.raises(IndexError):
        x[make(np.array([0]), device), 0, 0, 0, 0]
    with pytest.raises(IndexError):  # NumPy: "shape mismatch: indexing arrays could not be broadcast"
        x[make(np.array([0, 1]), device), make(np.array([0, 1, 2]), device)]


# --- boolean masks -----------------------------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
def test_mask_getitem(device, layout):
    rng = np.random.default_rng(9)
    x = make(DATA, device, layout)
    for shape in ((2,), (2, 3), (2, 3, 4), (2, 3, 4, 5)):
        mask = rng.integers(0, 2, size=shape).astype(bool)
        assert_same(x[make(mask, device, layout)], DATA[mask])
        assert_same(x[(make(mask, device),)], DATA[mask])
    assert_same(x[make(np.zeros((2, 3), bool), device)], DATA[np.zeros((2, 3), bool)])
    assert_same(x[make(np.ones((2, 3, 4, 5), bool), device)], DATA.ravel())


def test_mask_inside_tuple(device):
    rng = np.random.default_rng(10)
    x = make(DATA, device)
    m12 = rng.integers(0, 2, size=(3, 4)).astype(bool)
    m3 = np.array([True, False, True, True, False])
    m3 = np.array([True, False, True, True, False])  # three selected
    m2 = np.array([True, True])
    for key in ((slice(None), m12), (0, m12), (Ellipsis, m3), (m2, slice(None), 1),
                (slice(None), m12, np.array([4])),
                (np.array([1, 0, 1]), slice(None), slice(None), m3),
                (None, slice(None), m12), (m2, 0, slice(None), m3 & np.array([1, 1, 0, 1, 1], bool))):
        assert_same(x[_to_cw(key, device)], DATA[key])


def test_zero_d_masks(device):
    x = make(DATA[0, 0], device)
    for key in (True, False):
        k = make(np.bool_(key), device)
        assert_same(x[k], DATA[0, 0][np.bool_(key)])
        assert_same(x[..., k], DATA[0, 0][..., np.bool_(key)])
    s = make(np.float32(4.0), device)
    assert_same(s[make(np.bool_(True), device)], np.array([4.0], np.float32))
    assert_same(s[make(np.bool_(False), device)], np.zeros(0, np.float32))


def test_mask_errors(device):
    x = make(DATA, device)
    with pytest.raises(IndexError):
        x[make(np.ones(3, bool), device)]
    with pytest.raises(IndexError):
        x[slice(None), make(np.ones((3, 5), bool), device)]
    with pytest.raises(IndexError):
        make(np.float32(1.0), device)[make(np.ones(1, bool), device)]


def test_special_values_survive(device):
    data = np.array([np.nan, -0.0, np.inf, 1.0])
    x = make(data, device)
    mask = np.array([True, True, True, False])
    got = cw.to_numpy(x[make(mask, device)])
    assert np.isnan(got[0]) and np.signbit(got[1]) and got[2] == np.inf
    assert_same(make(data.astype(np.complex64), device)[make(np.array([2, 0]), device)],
                data.astype(np.complex64)[[2, 0]])


# --- setitem ------------------------------------------------------------------------------

def _check_setitem(device, layout, key, value, base=DATA):
    expected = base.copy()
    expected[key] = value
    x = make(base, device, layout)
    v = make(value, device) if isinstance(value, np.ndarray) else value
    x[_to_cw(key, device)] = v
    assert_same(x, expected)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", sorted(KEYS))
def test_integer_array_setitem_scalar(device, name, layout):
    key = KEYS[name]
    # duplicate positions with one value: the result is well defined
    _check_setitem(device, layout, key, -7.0)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", sorted(KEYS))
def test_integer_array_setitem_array(device, name, layout):
    key = KEYS[name]
    shape = DATA[key].shape
    if _has_duplicates(key):
        pytest.skip("duplicate target positions: which write wins is unspecified")
    value = -np.arange(1, np.prod(shape) + 1, dtype=np.float64).reshape(shape)
    _check_setitem(device, layout, key, value)
    if shape and 0 not in shape:
        _check_setitem(device, layout, key, value[(0,) * (len(shape) - 1)][None])  # broadcast


def _has_duplicates(key):
    probe = np.arange(DATA.size).reshape(DATA.shape)
    picked = probe[key].ravel()
    return len(np.unique(picked)) != len(picked)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_mask_setitem(device, layout):
    rng = np.random.default_rng(11)
    for shape in ((2,), (2, 3), (2, 3, 4, 5)):
        mask = rng.integers(0, 2, size=shape).astype(bool)
        count = int(mask.sum())
        rest = DATA.shape[len(shape):]
        _check_setitem(device, layout, (mask,), 99.0)
        _check_setitem(device, layout, (mask,), np.arange(np.prod(rest), dtype=np.float64).reshape(rest))
        _check_setitem(device, layout, (mask,), -np.arange(count * np.prod(rest), dtype=np.float64)
                       .reshape((count,) + rest))
    m12 = rng.integers(0, 2, size=(3, 4)).astype(bool)
    _check_setitem(device, layout, (slice(None), m12), 5.0)
    _check_setitem(device, layout, (1, m12, slice(None, 2)), -np.ones((int(m12.sum()), 2)))


def test_setitem_dtype_rules_and_zero_d(device):
    ints = np.arange(6, dtype=np.int16)
    _check_setitem(device, "contiguous", (np.array([0, 5]),), np.array([7, 8], np.int8), base=ints)
    _check_setitem(device, "flipped", (ints > 2,), 100, base=ints)
    x = make(ints, device)
    with cw.promotion_mode("strict"):  # the default mode casts (test_promotion_rule.py)
        with pytest.raises(TypeError):
            x[make(np.array([0]), device)] = 1.5
        with pytest.raises(TypeError):
            x[make(np.array([0]), device)] = make(np.array([1]), device)  # int64 into int16
    with pytest.raises(OverflowError):
        x[make(ints > 2, device)] = 70000
    s = make(np.float64(1.0), device)
    s[make(np.bool_(True), device)] = 3.0
    assert cw.to_numpy(s) == 3.0
    s[make(np.bool_(False), device)] = 4.0
    assert cw.to_numpy(s) == 3.0
    b = make(np.array([True, False, True]), device)
    b[make(np.array([1]), device)] = True
    assert cw.to_numpy(b).tolist() == [True, True, True]


def test_setitem_errors(device):
    x = make(DATA.copy(), device)
    with raises_index_error(device):
        x[make(np.array([2]), device)] = 0.0
    with pytest.raises(ValueError):
        x[make(np.array([0, 1]), device)] = make(np.zeros(3), device)
    with pytest.raises(ValueError):
        x[make(np.ones((2, 3), bool), device)] = make(np.zeros((5, 4, 5)), device)
    with pytest.raises(IndexError):
        x[make(np.ones(5, bool), device)] = 1.0
    # nothing was written by these failed assignments (a scatter skips a bad index)
    assert_same(x, DATA)
    # several index arrays: an asynchronous backend may already have written other
    # elements when it reports the bad one, so only the error is checked here
    with raises_index_error(device):
        x[make(np.array([0]), device), make(np.array([-4]), device)] = 0.0


def test_setitem_into_view_writes_through(device):
    base = make(DATA.copy(), device)
    v = base[1]  # a basic view
    v[make(np.array([0, 2]), device), make(np.array([1, 3]), device)] = -1.0
    expected = DATA.copy()
    expected[1][[0, 2], [1, 3]] = -1.0
    assert_same(base, expected)
    t = cw.permute_dims(make(DATA.copy(), device), (3, 1, 2, 0))  # axes that cannot merge
    t[make(np.array([0, 4]), device), :, make(np.array([1, 2]), device)] = 0.5
    e = np.transpose(DATA.copy(), (3, 1, 2, 0))
    e[[0, 4], :, [1, 2]] = 0.5
    assert_same(t, e)


# --- property test: random mixed keys against NumPy ------------------------------------------

from hypothesis import given, settings, strategies as st  # noqa: E402


@st.composite
def _shape_and_key(draw):
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=1, max_size=4)))
    key = []
    dims = list(shape)
    arrays = 0
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
            arrays += 1
        else:
            arrays += 1
            idx_shape = draw(st.sampled_from([(2,), (1,), (2, 1), (1, 2)]))
            vals = draw(st.lists(st.integers(-n, n - 1) if n else st.just(0), min_size=int(np.prod(idx_shape)),
                                 max_size=int(np.prod(idx_shape))))
            key.append(np.array(vals, dtype=np.int64).reshape(idx_shape))
        if draw(st.booleans()) and dims:
            continue
    if not arrays:
        key.append(np.array([0], dtype=np.int64) if shape[-1] else np.zeros(0, np.int64))
        key = key[: len(shape) - 1] + key[-1:] if len(key) > len(shape) else key
    return shape, tuple(key)


@settings(deadline=None)
@given(case=_shape_and_key())
def test_random_keys_match_numpy(device, case):
    shape, key = case
    data = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
    try:
        expected = data[key]
    except IndexError:
        with raises_index_error(device):
            make(data, device)[_to_cw(key, device)]
        return
    x = make(data, device, "flipped")
    assert_same(x[_to_cw(key, device)], expected)
    # setitem with the same key: a distinct value per selected element, unless duplicates
    target = data.copy()
    probe = np.arange(data.size).reshape(shape)[key].ravel()
    if len(np.unique(probe)) == len(probe):
        value = -np.arange(1, expected.size + 1, dtype=np.int32).reshape(expected.shape)
        target[key] = value
        y = make(data, device)
        y[_to_cw(key, device)] = make(value, device)
        assert_same(y, target)
