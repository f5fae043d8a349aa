"""Creation functions, both oracles: values, shapes, dtype inference and devices against
NumPy on drawn arguments, then eye, linspace, meshgrid, tril and triu on fixed cases and
strided input against NumPy and array-api-strict."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import array_api_strict as xs
import candlewick as cw
from _oracle import check, on, transposed
from array_api_support import (
    ALL, INTEGER, NUMERIC, REAL_FLOAT, any_arrays, arrays, dt, shapes, to_np,
)


# === NumPy: drawn arguments ===============================================================

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


# === eye, linspace, meshgrid, tril, triu: fixed cases =====================================

@pytest.mark.parametrize("n_rows,n_cols,k", [
    (3, None, 0), (3, 5, 1), (5, 3, -2), (4, 4, 4), (4, 4, -4), (4, 6, 10), (0, 3, 0), (3, 0, 0), (1, 1, 0),
])
def test_eye_matches_numpy(dev, n_rows, n_cols, k):
    check(cw.eye(n_rows, n_cols, k=k, device=dev), np.eye(n_rows, n_cols, k=k))


@pytest.mark.parametrize("dtype", ["bool", "int32", "uint8", "float32", "complex64"])
def test_eye_dtypes(dev, dtype):
    out = cw.eye(3, 4, k=-1, dtype=getattr(cw, dtype), device=dev)
    check(out, np.eye(3, 4, k=-1, dtype=dtype))
    assert out.device is dev


def test_eye_rejects_bad_arguments(dev):
    with pytest.raises(ValueError, match="n_rows"):
        cw.eye(-1, device=dev)
    with pytest.raises(TypeError, match="n_cols"):
        cw.eye(2, 2.0, device=dev)
    with pytest.raises(TypeError, match="k"):
        cw.eye(2, k=True, device=dev)


@pytest.mark.parametrize("start,stop,num,endpoint", [
    (0, 1, 5, True), (0, 1, 5, False), (-3.5, 10, 7, True), (2, -2, 4, False), (1, 1, 3, True),
    (0, 1, 1, True), (0, 1, 1, False), (0, 1, 0, True), (1e10, 1e10 + 1, 11, True), (5, 0, 6, True),
])
def test_linspace_matches_numpy(dev, start, stop, num, endpoint):
    check(cw.linspace(start, stop, num, endpoint=endpoint, device=dev),
          np.linspace(start, stop, num, endpoint=endpoint), rtol=1e-15, atol=1e-15)


def test_linspace_last_value_is_stop_exactly(dev):
    out = cw.to_numpy(cw.linspace(0.1, 0.7, 7, device=dev))
    assert out[-1] == 0.7 and out[0] == 0.1


@given(data=st.data())
def test_linspace_of_narrow_numpy_bounds_is_numpys_bit_for_bit(dev, data):
    """float32/float16 NumPy scalars as bounds: NumPy computes in that dtype (step, then
    arange * step + start, two roundings, stop stored in it), and so does candlewick;
    SciPy's histogram compares its bin edges with np.histogram's."""
    kind = data.draw(st.sampled_from([np.float32, np.float16]), label="kind")
    floats = st.floats(-1e4, 1e4, width=16 if kind is np.float16 else 32)
    start, stop = (data.draw(floats, label=label) for label in ("start", "stop"))
    num = data.draw(st.integers(0, 300), label="num")
    endpoint = data.draw(st.booleans(), label="endpoint")
    weak_stop = data.draw(st.booleans(), label="stop a Python float")
    bounds = (kind(start), float(kind(stop)) if weak_stop else kind(stop))
    for name in ("float32", "float64"):
        expected = np.linspace(*bounds, num, endpoint=endpoint, dtype=name)
        got = cw.to_numpy(cw.linspace(*bounds, num, endpoint=endpoint, dtype=getattr(cw, name), device=dev))
        np.testing.assert_array_equal(got, expected)


def test_linspace_float32_and_complex(dev):
    check(cw.linspace(0, 3, 7, dtype=cw.float32, device=dev),
          np.asarray(xs.linspace(0, 3, 7, dtype=xs.float32)))
    check(cw.linspace(0, 2 + 4j, 5, device=dev), np.linspace(0, 2 + 4j, 5), rtol=1e-15)
    check(cw.linspace(1j, -1, 4, endpoint=False, dtype=cw.complex64, device=dev),
          np.linspace(1j, -1, 4, endpoint=False).astype(np.complex64), rtol=1e-6)


def test_linspace_rejects_bad_arguments(dev):
    with pytest.raises(TypeError, match="dtype"):
        cw.linspace(0, 1, 3, dtype=cw.bool, device=dev)
    with pytest.raises(TypeError, match="complex"):
        cw.linspace(0, 1j, 3, dtype=cw.float64, device=dev)
    with pytest.raises(ValueError, match="num"):
        cw.linspace(0, 1, -1, device=dev)
    with pytest.raises(TypeError, match="num"):
        cw.linspace(0, 1, 2.0, device=dev)
    with pytest.raises(TypeError, match="start"):
        cw.linspace("0", 1, 2, device=dev)


def test_linspace_and_arange_take_numpys_numbers(dev):
    """NumPy's scalars and 0-d arrays as bounds, an integer dtype (floored), a complex arange."""
    assert cw.linspace(0, 10, 4, dtype=cw.int32, device=dev).tolist() == np.linspace(0, 10, 4, dtype=np.int32).tolist()
    got = cw.linspace(cw.asarray(1.0, device=dev), np.float32(2.0), 3, device=dev)
    assert got.tolist() == [1.0, 1.5, 2.0]
    assert cw.arange(np.int64(3), device=dev).tolist() == [0, 1, 2]
    assert cw.arange(0, cw.asarray(2, device=dev), device=dev).tolist() == [0, 1]
    assert cw.arange(3, dtype=cw.complex64, device=dev).tolist() == [0j, 1 + 0j, 2 + 0j]


@pytest.mark.parametrize("indexing", ["xy", "ij"])
@pytest.mark.parametrize("sizes", [(3,), (2, 3), (2, 3, 4), (0, 3), (1, 4, 2)])
def test_meshgrid_matches_numpy(dev, indexing, sizes):
    hosts = [np.arange(n, dtype=np.int32) * (i + 1) for i, n in enumerate(sizes)]
    arrays = [on(dev, h) for h in hosts]
    outs = cw.meshgrid(*arrays, indexing=indexing)
    expected = np.meshgrid(*hosts, indexing=indexing)
    assert isinstance(outs, tuple if cw.__array_api_version__ >= "2025.12" else list)
    assert len(outs) == len(expected)
    for got, want in zip(outs, expected):
        check(got, want)


def test_meshgrid_outputs_are_independent_copies(dev):
    a, b = on(dev, [1.0, 2.0]), on(dev, [3.0, 4.0, 5.0])
    gx, gy = cw.meshgrid(a, b)
    gx[0, 0] = 100.0
    assert cw.to_numpy(gx)[1, 0] == 1.0
    assert cw.to_numpy(a)[0] == 1.0


def test_meshgrid_of_strided_input(dev):
    base = on(dev, np.arange(10.0))
    check(cw.meshgrid(base[::3], indexing="ij")[0], np.arange(10.0)[::3])


def test_meshgrid_rejects_bad_input(dev):
    a = on(dev, [1, 2])
    with pytest.raises(TypeError):
        cw.meshgrid(a, on(dev, [1.0]))
    with pytest.raises(ValueError, match="1-D"):
        cw.meshgrid(a, on(dev, [[1, 2]]))
    with pytest.raises(ValueError, match="indexing"):
        cw.meshgrid(a, indexing="xz")
    assert list(cw.meshgrid()) == []


@pytest.mark.parametrize("fname", ["tril", "triu"])
@pytest.mark.parametrize("shape", [(3, 4), (4, 3), (2, 3, 3), (0, 3), (2, 0, 2), (1, 1)])
def test_triangles_match_numpy(dev, fname, shape):
    host = np.arange(1, np.prod(shape) + 1, dtype=np.float64).reshape(shape)
    x = on(dev, host)
    for k in (-5, -1, 0, 1, 2, 5):
        check(getattr(cw, fname)(x, k=k), getattr(np, fname)(host, k=k))


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint64", "complex128"])
def test_triangles_dtypes_and_views(dev, dtype):
    host = (np.arange(12).reshape(3, 4) % 3).astype(dtype)
    check(cw.tril(on(dev, host), k=1), np.tril(host, k=1))
    check(cw.triu(transposed(dev, host), k=-1), np.triu(host, k=-1))
    big = np.iinfo(np.int64).max
    check(cw.tril(on(dev, host), k=big), host)
    check(cw.triu(on(dev, host), k=-big), host)


def test_triangles_reject_bad_input(dev):
    with pytest.raises(ValueError, match="2 dimensions"):
        cw.tril(on(dev, [1, 2, 3]))
    with pytest.raises(TypeError, match="k"):
        cw.triu(on(dev, np.ones((2, 2))), k=1.5)
    with pytest.raises(TypeError):
        cw.tril(np.ones((2, 2)))
