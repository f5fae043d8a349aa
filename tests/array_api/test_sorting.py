"""Sorting functions, both oracles: sort and argsort against array-api-strict on drawn
arrays; then stability in both directions, NaN placement, every real dtype, views,
empty and error cases against NumPy and array-api-strict; then the stable sort's values
bit for bit whatever algorithm a backend sorts with (issue 39), against an order written
out independently of any sort kind (``lexsort`` by NaN last, value, original position):
-0.0/0.0 ties and NaN payloads, in both directions, 1-D and along either axis."""

import math

import array_api_strict as xs
import ml_dtypes
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import candlewick as cw
from candlewick.backend import declares_descending_sort_view
from cpu_backend import ordering
from _namespace_helpers import LAYOUTS, assert_same, make
from array_api_support import REAL, REAL_FLOAT, arrays, assert_matches_strict, shapes, small_arrays, to_np, to_strict


def _no_nan(name, shape):
    return arrays(name, shape, **({"allow_nan": False} if name in REAL_FLOAT else {}))


# === array-api-strict: drawn arrays =======================================================

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


# === fixed cases and layouts: NumPy and array-api-strict ==================================

NAN = float("nan")
REAL_DTYPES = [np.bool_, np.int8, np.int64, np.uint16, np.uint64, np.float32, np.float64]


def _data(dtype, shape=(4, 6)):
    rng = np.random.default_rng(2)
    if dtype is np.bool_:
        return rng.integers(0, 2, size=shape).astype(bool)
    # few distinct values so ties are common (stability is observable)
    return rng.integers(0, 4, size=shape).astype(dtype)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", REAL_DTYPES)
@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("axis", [0, -1])
def test_sort_and_argsort_match_strict(dev, dtype, descending, axis, layout):
    data = _data(dtype)
    x = make(data, dev, layout)
    # array-api-strict does not sort bool (NumPy does): its oracle sorts the 0/1 values
    ref_x = xs.asarray(data.astype(np.uint8) if dtype is np.bool_ else data)
    expected = np.asarray(xs.sort(ref_x, axis=axis, descending=descending)).astype(dtype)
    assert_same(cw.sort(x, axis=axis, descending=descending), expected)
    # stable is the default: the argsort is fully determined, ties included
    assert_same(cw.argsort(x, axis=axis, descending=descending),
                np.asarray(xs.argsort(ref_x, axis=axis, descending=descending)), dtype=cw.int64)


@pytest.mark.parametrize("axis", [-1, -3, 60])
@pytest.mark.parametrize("descending", [False, True])
def test_sort_of_64_dimensions(dev, axis, descending):
    """An array's most dimensions (NumPy's own sorts stop at 32): the same values and
    stable order as sorting each line along ``axis`` of the array with its size-1 axes
    dropped."""
    data = np.random.default_rng(9).integers(0, 3, size=(2, 3, 2, 4)).astype(np.float32)
    x = make(data.reshape((1,) * 60 + data.shape), dev)
    flat_axis = axis if axis < 0 else axis - 60
    keys = -data if descending else data
    order = np.argsort(keys, axis=flat_axis, kind="stable")
    got = cw.argsort(x, axis=axis, descending=descending)
    assert_same(cw.reshape(got, data.shape), order, dtype=cw.int64)
    assert_same(cw.reshape(cw.sort(x, axis=axis, descending=descending), data.shape),
                np.take_along_axis(data, order, flat_axis))


@pytest.mark.parametrize("descending", [False, True])
def test_nan_inf_and_signed_zero_order(dev, descending):
    data = np.array([NAN, 1.0, -np.inf, NAN, np.inf, -1.0, 0.0], dtype=np.float32)
    got = cw.sort(make(data, dev), descending=descending)
    expected = np.sort(data)
    if descending:
        expected = expected[::-1]  # NaN first when descending
    assert_same(got, expected)
    order = cw.argsort(make(data, dev), descending=descending)
    assert_same(order, np.asarray(xs.argsort(xs.asarray(data), descending=descending)), dtype=cw.int64)


def test_low_precision_and_unstable(dev):
    data = np.array([3.0, -1.0, 2.5, 2.5, 0.0], dtype=np.float16)
    assert_same(cw.sort(make(data, dev)), np.sort(data))
    # stable=False may order ties either way, but the values still sort
    idx = cw.argsort(make(data, dev), stable=False)
    assert sorted(cw.to_numpy(idx).tolist()) == list(range(5))
    np.testing.assert_array_equal(data[cw.to_numpy(idx)], np.sort(data))


def test_sort_empty_and_one(dev):
    for shape, axis in (((0,), -1), ((3, 0), 1), ((0, 4), 0), ((1,), 0)):
        data = np.zeros(shape, np.int32)
        assert_same(cw.sort(make(data, dev), axis=axis), data)
        assert_same(cw.argsort(make(data, dev), axis=axis), np.zeros(shape, np.int64))


def test_sort_does_not_touch_input(dev):
    data = np.array([3, 1, 2])
    x = make(data, dev)
    cw.sort(x)
    assert cw.to_numpy(x).tolist() == [3, 1, 2]


def test_sort_errors(dev):
    with pytest.raises(IndexError):
        cw.sort(make(np.float64(1.0), dev))  # 0-d: no axis -1
    with pytest.raises(IndexError):
        cw.argsort(make(np.ones((2, 2)), dev), axis=2)
    with pytest.raises(TypeError):
        cw.sort(make(np.array([1j, 2j]), dev))
    with pytest.raises(TypeError):
        cw.argsort(make(np.array([1.0]), dev), descending="yes")
    with pytest.raises(TypeError):
        cw.sort([3, 1, 2])


from hypothesis import given, settings, strategies as st  # noqa: E402
from hypothesis.extra import numpy as hnp  # noqa: E402


@settings(deadline=None)
@given(data=hnp.arrays(np.float64, hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=5),
                       elements=st.sampled_from([0.0, 1.0, -1.0, np.inf, -np.inf, np.nan])),
       descending=st.booleans(), axis=st.integers(-1, 2))
def test_random_argsort_matches_strict(dev, data, descending, axis):
    axis = axis % data.ndim
    ref = xs.argsort(xs.asarray(data), axis=axis, descending=descending)
    assert_same(cw.argsort(make(data, dev, "strided"), axis=axis, descending=descending),
                np.asarray(ref), dtype=cw.int64)


# === the stable sort's values bit for bit =================================================

#: quiet and signalling NaNs with payloads and both signs, as float32 bit patterns
NAN_BITS = [0x7FC00000, 0xFFC00000, 0x7FC00001, 0xFFC12345, 0x7F800003, 0x7FA00000]
FLOATS = [np.float32, np.float64, np.float16, ml_dtypes.bfloat16]
INTEGERS = [np.int8, np.uint8, np.int16, np.int32, np.int64, np.uint64]


def _nans(dtype):
    """NaNs of ``dtype`` with distinct bit patterns (as many as the format keeps apart)."""
    wide = np.array(NAN_BITS, np.uint32)
    if dtype == np.float32:
        return wide.view(np.float32)
    if dtype == np.float64:  # the float32 payload moved up into the float64 mantissa
        sign = (wide >> 31).astype(np.uint64) << 63
        return (sign | np.uint64(0x7FF8000000000000) | (wide & 0x3FFFFF).astype(np.uint64) << 29).view(np.float64)
    bits = (wide >> 16).astype(np.uint16)  # bfloat16 is float32's upper half
    if dtype == np.float16:
        bits = (bits & 0x8000) | 0x7E00 | (bits & 0x1FF)
    return bits.view(np.dtype(dtype))


@st.composite
def tied_arrays(draw, dtypes):
    """(host array, dtype): few distinct values, many ties, zeros and NaNs of all kinds."""
    dtype = draw(st.sampled_from(dtypes), label="dtype")
    shape = draw(st.sampled_from([(1,), (7,), (200,), (3000,), (40, 90), (90, 40)]), label="shape")
    seed = draw(st.integers(0, 2**32 - 1), label="seed")
    rng = np.random.default_rng(seed)
    if dtype is np.bool_:
        return rng.random(shape) < rng.random(), dtype
    if np.dtype(dtype).kind in "iu":
        info = np.iinfo(dtype)
        pool = rng.integers(info.min, info.max, 8, dtype=dtype, endpoint=True)
        return pool[rng.integers(0, pool.size, shape)], dtype
    tiny = ml_dtypes.finfo(dtype).smallest_subnormal  # (float64's high word 0: a zero's, but for its low word)
    pool = np.concatenate([rng.integers(-3, 4, 4).astype(dtype), np.array([tiny, -tiny], dtype),
                           np.array([0.0, -0.0, np.inf, -np.inf], dtype), _nans(dtype)])
    weights = draw(st.sampled_from(["zeros", "nans", "mixed", "no specials"]), label="mix")
    p = np.ones(pool.size)
    p[6:8] *= 8 if weights in ("zeros", "mixed") else 1
    p[10:] *= 4 if weights in ("nans", "mixed") else 1
    if weights == "no specials":
        p[6:] = 0
    return pool[rng.choice(pool.size, shape, p=p / p.sum())], dtype


def bits(a):
    return np.ascontiguousarray(a).view(f"u{a.dtype.itemsize}") if a.dtype.kind not in "biu" else a


def stable_order(host, axis, descending):
    """Indices of the stable sort along ``axis``: NaN above everything (first when
    descending), ties (-0.0 == 0.0, every NaN) in original order."""
    v = np.moveaxis(host, axis, -1)
    with np.errstate(invalid="ignore"):  # a signalling NaN cast
        wide = v.astype(np.float64) if v.dtype.kind == "f" or v.dtype == ml_dtypes.bfloat16 else v
    nan = np.isnan(wide) if wide.dtype.kind == "f" else np.zeros(wide.shape, bool)
    value = np.where(nan, 0, wide) if wide.dtype.kind == "f" else wide
    position = np.broadcast_to(np.arange(v.shape[-1]), v.shape)
    if descending:  # larger first: negate the value (integers through their rank)
        value = -value if value.dtype.kind == "f" else -np.unique(value, return_inverse=True)[1].reshape(value.shape)
        nan = ~nan
    order = np.lexsort((position, value, nan), axis=-1)
    return np.moveaxis(order, -1, axis)


@pytest.fixture(params=["c", "c-asked-descending", "numpy"])
def sort_finish(request, dev, monkeypatch):
    """The cpu backend's forms of a stable sort's values (tie runs copied from the input):
    candlewick._native's sort_rows, with the front end's descending sort as the ascending
    sort of x reversed viewed reversed (the device's ``descending_sort_view``) or asked of
    the backend (reversed in place), and NumPy's passes (installs without the C module,
    rows along another axis). Other backends run once."""
    if dev.backend != "cpu":
        if request.param != "c":
            pytest.skip("a form of the cpu backend")
    elif request.param == "numpy":
        monkeypatch.setattr(ordering, "_native_rows", None)
    elif ordering._native_rows is None:
        pytest.skip("candlewick._native is not built")
    if request.param == "c-asked-descending":
        monkeypatch.setattr(dev, "descending_sort_view", False)
    return request.param


@pytest.mark.parametrize("descending", [False, True], ids=["ascending", "descending"])
@given(case=tied_arrays(FLOATS + INTEGERS + [np.bool_]), data=st.data())
def test_stable_sort_values_are_bitwise_the_stable_order(dev, sort_finish, descending, case, data):
    host, _ = case
    axis = data.draw(st.integers(0, host.ndim - 1), label="axis")
    layout = data.draw(st.sampled_from(LAYOUTS), label="layout")  # the input read through any strides
    want = np.take_along_axis(host, stable_order(host, axis, descending), axis)
    result = cw.sort(make(host, dev, layout), axis=axis, descending=descending)
    got = cw.to_numpy(result)
    np.testing.assert_array_equal(bits(got), bits(want))
    # a view of it with negative strides reads the same (a descending row's memory is its own)
    np.testing.assert_array_equal(bits(cw.to_numpy(cw.flip(result))), bits(np.flip(want)))
    # where the device declares it, the ascending sort of x reversed viewed reversed (bool too:
    # the backend sorts it as it is, no uint8 keys); else C-contiguous
    viewed = descending and declares_descending_sort_view(dev)
    assert (result._layout.strides[axis] < 0) == viewed
    # argsort stays stable by default: the same order, index for index
    order = cw.to_numpy(cw.argsort(make(host, dev), axis=axis, descending=descending))
    np.testing.assert_array_equal(order, stable_order(host, axis, descending))


@pytest.mark.parametrize("dtype", FLOATS + [np.int16, np.uint16], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("stable", [True, False])
@pytest.mark.parametrize("descending", [False, True], ids=["ascending", "descending"])
def test_long_rows_of_few_values_come_out_in_order(dev, dtype, stable, descending):
    """8198 small integers of 2-byte and other formats: NumPy 2.4's default float16 sort
    on AVX512_ICL without AVX512_SPR returns such rows out of order (cpu_backend.ordering,
    SIMD_FLOAT16), so a backend sorting with it would too. Any sort's values: the stable
    sort's where no zero or NaN is there; unique's values and argsort's order alike."""
    for seed in range(6):
        host = np.random.default_rng(seed).integers(0 if dtype == np.uint16 else -3, 4, 8198).astype(dtype)
        want = host[stable_order(host, 0, descending)]
        x = make(host, dev)
        np.testing.assert_array_equal(cw.to_numpy(cw.sort(x, descending=descending, stable=stable)), want)
        order = cw.to_numpy(cw.argsort(x, descending=descending, stable=stable))
        np.testing.assert_array_equal(host[order], want)
        up = host[stable_order(host, 0, False)]  # (np.unique sorts with NumPy's default kind)
        np.testing.assert_array_equal(cw.to_numpy(cw.unique_values(x)), up[np.r_[True, up[1:] != up[:-1]]])


def test_the_oracle_sees_what_numpy_default_sort_loses():
    """The cases above can fail: NumPy's default sort alone rewrites the NaN payloads and
    reorders (even duplicates) the signed zeros that the stable order keeps."""
    rng = np.random.default_rng(0)
    pool = np.concatenate([np.array([0.0, -0.0, 1.0], np.float32), _nans(np.float32)])
    host = pool[rng.integers(0, pool.size, 3000)]
    want = host[stable_order(host, 0, False)]
    assert not np.array_equal(bits(np.sort(host)), bits(want))
    assert np.array_equal(bits(np.sort(host, kind="stable")), bits(want))


def _stable_unique(flat):
    """(values, first indices, inverse, counts) through the stable order: each value its
    group's first occurrence, bit for bit; every NaN its own group."""
    order = stable_order(flat, 0, False)
    s = flat[order]
    with np.errstate(invalid="ignore"):
        starts = np.concatenate([[True], s[1:] != s[:-1]])
    groups = np.cumsum(starts) - 1
    inverse = np.empty(flat.size, np.int64)
    inverse[order] = groups
    return s[starts], order[starts], inverse, np.bincount(groups)


@given(case=tied_arrays(FLOATS + INTEGERS + [np.bool_]))
def test_unique_all_is_the_stable_sorts_first_occurrences(dev, case):
    host, _ = case
    values, indices, inverse, counts = cw.unique_all(make(host, dev))
    want = _stable_unique(host.reshape(-1))
    np.testing.assert_array_equal(bits(cw.to_numpy(values)), bits(want[0]))
    for got, expected in zip((indices, inverse, counts), want[1:]):
        np.testing.assert_array_equal(cw.to_numpy(got).reshape(-1), expected)


@given(case=tied_arrays(FLOATS + INTEGERS))
def test_cpu_unique_values_are_first_occurrences_too(case):
    """The cpu backend's unique sorts with NumPy's default kind for every flag set, and
    still gives the stable sort's representatives (the contract allows any element of a
    group where indices are not asked: -0.0 or 0.0, one NaN payload or another)."""
    host, _ = case
    x = cw.asarray(host, device="cpu")
    want_values, _, want_inverse, want_counts = _stable_unique(host.reshape(-1))
    for values in (cw.unique_values(x), cw.unique_counts(x).values, cw.unique_inverse(x).values):
        np.testing.assert_array_equal(bits(cw.to_numpy(values)), bits(want_values))
    np.testing.assert_array_equal(cw.to_numpy(cw.unique_inverse(x).inverse_indices).reshape(-1), want_inverse)
    np.testing.assert_array_equal(cw.to_numpy(cw.unique_counts(x).counts), want_counts)
