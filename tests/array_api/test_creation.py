"""Creation functions against NumPy: values, shapes, dtype inference, devices."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import candlewick as cw
from array_api_support import (
    ALL, INTEGER, NUMERIC, REAL_FLOAT, any_arrays, arrays, dt, shapes, to_np,
)

small_ints = st.integers(-20, 20)


@given(start=small_ints, stop=st.none() | small_ints, step=st.integers(-5, 5).filter(bool))
def test_arange_of_ints(start, stop, step):
    out = cw.arange(start, stop, step) if stop is not None else cw.arange(start)
    expected = np.arange(start, stop, step) if stop is not None else np.arange(start)
    assert out.dtype == cw.int64
    np.testing.assert_array_equal(to_np(out), expected)


@given(start=st.floats(-10, 10), stop=st.floats(-10, 10),
       step=st.floats(0.25, 3) | st.floats(-3, -0.25))
def test_arange_of_floats(start, stop, step):
    out = cw.arange(start, stop, step)
    expected = np.arange(start, stop, step)
    assert out.dtype == cw.float64
    assert out.shape == expected.shape
    np.testing.assert_allclose(to_np(out), expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", NUMERIC[:8] + REAL_FLOAT)
def test_arange_with_dtype(name):
    out = cw.arange(2, 12, 3, dtype=dt(name))
    assert out.dtype == dt(name)
    np.testing.assert_array_equal(to_np(out), np.arange(2, 12, 3, dtype=name))


def test_arange_rejects_a_zero_step():
    with pytest.raises(ValueError):
        cw.arange(0, 5, 0)


# --- asarray ------------------------------------------------------------------------

@pytest.mark.parametrize("obj,expected", [
    (True, "bool"), (3, "int64"), (2.5, "float64"), (1 + 1j, "complex128"),
    ([True, False], "bool"), ([[1, 2], [3, 4]], "int64"), ([1, 2.5], "float64"),
    ([[1.0], [2j]], "complex128"), ((1, 2, 3), "int64"),
])
def test_asarray_infers_the_default_dtypes(obj, expected):
    out = cw.asarray(obj)
    assert out.dtype == dt(expected)
    np.testing.assert_array_equal(to_np(out), np.asarray(obj, dtype=expected))


@pytest.mark.parametrize("name", ALL)
def test_asarray_from_numpy_keeps_dtype_and_values(name, dev):
    host = np.arange(12).reshape(3, 4).astype(name)
    for source in (host, host[:, ::2], host.T, np.asarray(host[1, 1])):
        out = cw.asarray(source)
        assert out.dtype == dt(name) and out.shape == source.shape and out.device == dev
        np.testing.assert_array_equal(to_np(out), source)


def test_asarray_from_a_buffer():
    host = np.array([1.5, 2.5, 3.5])
    out = cw.asarray(memoryview(host))
    assert out.dtype == cw.float64
    np.testing.assert_array_equal(to_np(out), host)


@given(data=st.data())
def test_asarray_with_an_explicit_dtype(data):
    name = data.draw(st.sampled_from(ALL), label="dtype")
    x = data.draw(arrays(name, shapes(max_dims=2)), label="x")
    values = to_np(x).tolist()
    out = cw.asarray(values, dtype=dt(name))
    assert out.dtype == dt(name)
    np.testing.assert_array_equal(to_np(out), np.asarray(values, dtype=name), strict=True)


def test_asarray_keeps_uint64_values_above_the_int64_range():
    values = [2**63 + 1, 1, 2**64 - 1]
    out = cw.asarray(values, dtype=cw.uint64)
    assert to_np(out).tolist() == values
    assert int(cw.asarray(2**64 - 1, dtype=cw.uint64)) == 2**64 - 1
    assert to_np(cw.full((2,), 2**63 + 1, dtype=cw.uint64)).tolist() == [2**63 + 1] * 2


def test_asarray_does_not_lose_precision_on_large_python_ints():
    """A Python int list that only fits uint64 must not silently become float64."""
    try:
        out = cw.asarray([1, 2**63 + 1])
    except OverflowError:
        return
    assert out.dtype == cw.uint64 and to_np(out).tolist() == [1, 2**63 + 1]


@pytest.mark.parametrize("obj", [[[1, 2], [3]], ["a", "b"], [object()], {"a": 1}])
def test_asarray_rejects_what_is_not_array_data(obj):
    with pytest.raises((TypeError, ValueError)):
        cw.asarray(obj)


@pytest.mark.parametrize("name", INTEGER)
def test_asarray_rejects_ints_outside_the_dtype(name):
    with pytest.raises(OverflowError):
        cw.asarray(int(np.iinfo(name).max) + 1, dtype=dt(name))


_SCALARS = [False, True, 0, 7, -3, 1.5, -2.75, 1e300, 1 + 2j, 1e300 + 1j]


@pytest.mark.parametrize("value", _SCALARS, ids=repr)
@pytest.mark.parametrize("name", ["bool", "int8", "int32", "uint8", "int64", "float32", "float64",
                                  "complex64", "complex128"])
def test_asarray_of_a_scalar_with_a_dtype_converts_as_its_one_element_list(value, name):
    """One rule for scalars and nested lists: asarray(v, dtype=d) is
    asarray([v], dtype=d)[0], and both raise the same error class where they fail
    (complex into a real dtype, a value out of an integer dtype's range). Out-of-range
    values into a narrower float become infinities with no NumPy warning (pytest turns a
    RuntimeWarning into an error)."""
    dtype = getattr(cw, name)
    outcomes = []
    for obj in (value, [value]):
        try:
            got = to_np(cw.asarray(obj, dtype=dtype))
        except (cw.errors.DTypeError, OverflowError) as exc:
            outcomes.append(type(exc))
        else:
            assert got.dtype == np.dtype(name)
            outcomes.append(got.reshape(-1)[0].tolist())
    assert outcomes[0] == outcomes[1]
    if not isinstance(value, complex) or name.startswith("complex"):
        assert outcomes[0] != cw.errors.DTypeError  # bool/int/float go into every dtype
    if not isinstance(value, complex):  # a NumPy array converts silently too
        assert to_np(cw.asarray(np.asarray([value]), dtype=dtype)).dtype == np.dtype(name)


def test_asarray_of_a_list_of_0d_arrays():
    parts = [cw.asarray(1.5), cw.asarray(2.5)]
    out = cw.asarray(parts)
    assert out.dtype == cw.float64
    np.testing.assert_array_equal(to_np(out), [1.5, 2.5])


# --- filled arrays ------------------------------------------------------------------

@pytest.mark.parametrize("fn", [cw.zeros, cw.ones, cw.empty])
@given(shape=shapes(), name=st.none() | st.sampled_from(ALL))
def test_zeros_ones_empty(fn, shape, name):
    kwargs = {} if name is None else {"dtype": dt(name)}
    out = fn(shape, **kwargs)
    assert out.shape == shape and out.dtype == dt(name or "float64")
    if fn is not cw.empty:
        fill = 0 if fn is cw.zeros else 1
        np.testing.assert_array_equal(to_np(out), np.full(shape, fill, dtype=name or "float64"))
    if len(shape) == 1:
        assert fn(shape[0], **kwargs).shape == shape


@pytest.mark.parametrize("value,expected", [(True, "bool"), (7, "int64"), (-2.5, "float64"),
                                            (1 - 2j, "complex128")])
def test_full_infers_dtype_from_the_fill_value(value, expected):
    out = cw.full((2, 3), value)
    assert out.dtype == dt(expected)
    np.testing.assert_array_equal(to_np(out), np.full((2, 3), value))


@pytest.mark.parametrize("name,value", [("float32", 3), ("complex64", 2.5), ("int8", -128),
                                        ("uint8", 255), ("bool", False), ("float64", float("nan"))])
def test_full_with_an_explicit_dtype(name, value):
    out = cw.full(4, value, dtype=dt(name))
    assert out.dtype == dt(name)
    np.testing.assert_array_equal(to_np(out), np.full(4, value, dtype=name))


@pytest.mark.parametrize("name,value", [("int8", 1.5), ("int16", 1j), ("bool", 1), ("float32", 1j)])
def test_full_rejects_a_fill_value_of_another_kind(name, value):
    with pytest.raises(TypeError):
        cw.full(3, value, dtype=dt(name))


@pytest.mark.parametrize("fn", ["zeros_like", "ones_like", "empty_like", "full_like"])
@given(x=any_arrays(shapes()), override=st.none() | st.sampled_from(NUMERIC))
def test_like_functions_keep_shape_dtype_and_device(fn, x, override):
    kwargs = {} if override is None else {"dtype": dt(override)}
    result_dtype = x.dtype if override is None else dt(override)
    one = True if result_dtype == cw.bool else 1
    args = (x, one) if fn == "full_like" else (x,)
    out = getattr(cw, fn)(*args, **kwargs)
    assert out.shape == x.shape and out.device == x.device
    assert out.dtype == result_dtype
    if fn != "empty_like":
        fill = {"zeros_like": 0, "ones_like": 1, "full_like": 1}[fn]
        np.testing.assert_array_equal(to_np(out), np.full(x.shape, fill, dtype=out.dtype.name))


@given(n=st.integers(0, 6), m=st.none() | st.integers(0, 6), k=st.integers(-7, 7),
       name=st.none() | st.sampled_from(NUMERIC + ("bool",)))
def test_eye(n, m, k, name):
    kwargs = {} if name is None else {"dtype": dt(name)}
    out = cw.eye(n, m, k=k, **kwargs)
    expected = np.eye(n, m, k=k, dtype=name or "float64")
    assert out.dtype == dt(name or "float64")
    np.testing.assert_array_equal(to_np(out), expected)


@given(start=st.floats(-100, 100) | st.integers(-100, 100), stop=st.floats(-100, 100),
       num=st.integers(0, 12), endpoint=st.booleans(), name=st.sampled_from(REAL_FLOAT))
def test_linspace_real(start, stop, num, endpoint, name):
    out = cw.linspace(start, stop, num, dtype=dt(name), endpoint=endpoint)
    expected = np.linspace(start, stop, num, endpoint=endpoint, dtype=name)
    assert out.dtype == dt(name) and out.shape == (num,)
    np.testing.assert_allclose(to_np(out), expected, rtol=1e-5 if name == "float32" else 1e-12,
                               atol=1e-4 if name == "float32" else 1e-12)


def test_linspace_defaults_and_complex():
    out = cw.linspace(0, 1, 5)
    assert out.dtype == cw.float64
    np.testing.assert_allclose(to_np(out), np.linspace(0, 1, 5))
    z = cw.linspace(0, 2 + 2j, 3)
    assert z.dtype == cw.complex128
    np.testing.assert_allclose(to_np(z), np.linspace(0, 2 + 2j, 3))
    np.testing.assert_allclose(to_np(cw.linspace(1.0, 2.0, 1, endpoint=True)), [1.0])


@given(data=st.data())
def test_meshgrid(data):
    count = data.draw(st.integers(1, 3), label="count")
    name = data.draw(st.sampled_from(NUMERIC), label="dtype")
    inputs = [data.draw(arrays(name, st.integers(1, 4).map(lambda n: (n,))), label=f"x{i}")
              for i in range(count)]
    indexing = data.draw(st.sampled_from(["xy", "ij"]), label="indexing")
    out = cw.meshgrid(*inputs, indexing=indexing)
    expected = np.meshgrid(*[to_np(a) for a in inputs], indexing=indexing)
    assert isinstance(out, (list, tuple)) and len(out) == count
    for got, exp in zip(out, expected):
        assert got.dtype == dt(name)
        np.testing.assert_array_equal(to_np(got), exp)


@pytest.mark.parametrize("fn", ["tril", "triu"])
@given(data=st.data())
def test_tril_triu(fn, data):
    name = data.draw(st.sampled_from(ALL), label="dtype")
    x = data.draw(arrays(name, shapes(min_dims=2, max_dims=4)), label="x")
    k = data.draw(st.integers(-5, 5), label="k")
    out = getattr(cw, fn)(x, k=k)
    expected = getattr(np, fn)(to_np(x), k=k)
    assert out.dtype == x.dtype
    np.testing.assert_array_equal(to_np(out), expected)


@pytest.mark.parametrize("make", [
    lambda d: cw.zeros(3, device=d), lambda d: cw.ones((2, 2), device=d), lambda d: cw.empty(2, device=d),
    lambda d: cw.full(2, 1.0, device=d), lambda d: cw.arange(3, device=d), lambda d: cw.eye(2, device=d),
    lambda d: cw.linspace(0, 1, 3, device=d), lambda d: cw.asarray([1, 2], device=d),
    lambda d: cw.zeros_like(cw.ones(2), device=d), lambda d: cw.full_like(cw.ones(2), 3.0, device=d),
])
def test_creation_places_the_result_on_the_requested_device(make, dev):
    assert make(dev).device == dev
