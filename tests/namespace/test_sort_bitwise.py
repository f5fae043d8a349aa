"""The stable sort's values, bit for bit, whatever algorithm a backend sorts them with
(issue 39: the cpu backend sorts with NumPy's default SIMD quicksort and restores the
runs where equal elements can differ in their bits: -0.0/0.0 ties and NaN payloads).

Arrays up to a few thousand elements (past NumPy's small-array networks), drawn from a
pool of few values so that ties are common, with zeros of both signs and NaNs of several
signs and payloads, in both directions, 1-D and along either axis of a 2-D array. The
oracle is an order written out independently of any sort kind: ``lexsort`` by (NaN last,
value, original position)."""

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import candlewick as cw
from _namespace_helpers import make

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
    pool = np.concatenate([rng.integers(-3, 4, 6).astype(dtype), np.array([0.0, -0.0, np.inf, -np.inf], dtype),
                           _nans(dtype)])
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


@pytest.mark.parametrize("descending", [False, True], ids=["ascending", "descending"])
@given(case=tied_arrays(FLOATS + INTEGERS + [np.bool_]), data=st.data())
def test_stable_sort_values_are_bitwise_the_stable_order(device, descending, case, data):
    host, dtype = case
    axis = data.draw(st.integers(0, host.ndim - 1), label="axis")
    want = np.take_along_axis(host, stable_order(host, axis, descending), axis)
    got = cw.to_numpy(cw.sort(make(host, device), axis=axis, descending=descending))
    np.testing.assert_array_equal(bits(got), bits(want))
    # argsort stays stable by default: the same order, index for index
    order = cw.to_numpy(cw.argsort(make(host, device), axis=axis, descending=descending))
    np.testing.assert_array_equal(order, stable_order(host, axis, descending))


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
def test_unique_all_is_the_stable_sorts_first_occurrences(device, case):
    host, _ = case
    values, indices, inverse, counts = cw.unique_all(make(host, device))
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
