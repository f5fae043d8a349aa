"""Inputs at the edges of what NumPy answers (issue 41): more than 64 dimensions, huge
slice steps, objects with ``__index__`` as indices, NaN/infinity and out-of-range Python
numbers meeting integer dtypes, negative integer powers, allocation under a memory limit,
and the test oracles' own integer arithmetic. Each is answered as NumPy answers it or
refused with a ``candlewick.errors`` class, on every backend under test."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import array_api_strict as xs
import candlewick as cw
from array_api_support import INTEGER, SIGNED, arrays, assert_matches_oracle, dt, strict_oracle, to_np
from candlewick.backend import holds_host_memory
from candlewick.conformance import elementwise_reference
from candlewick.errors import (
    ArgumentTypeError, ArgumentValueError, CandlewickError, DeviceMemoryError, OutOfRangeError, ShapeError,
)
from candlewick.shapes import MAX_NDIM


# --- more than 64 dimensions: refused by the call that would make the array ----------------

def _too_many_dimensions():
    one = cw.ones(1)
    high = cw.ones((1,) * MAX_NDIM)
    idx = cw.zeros((1,) * 40, dtype=cw.int64)
    deep = cw.ones((1,) * 40)
    return {
        "x[None * 70]": lambda: one[(None,) * 70],
        "x[None] of 64-D": lambda: high[None],
        "reshape": lambda: cw.reshape(one, (1,) * 70),
        "expand_dims int": lambda: cw.expand_dims(high, axis=0),
        "expand_dims tuple": lambda: cw.expand_dims(one, axis=tuple(range(70))),
        "ones": lambda: cw.ones((1,) * 65),
        "full": lambda: cw.full((1,) * 65, 2.0),
        "broadcast_to": lambda: cw.broadcast_to(one, (1,) * 65),
        "stack": lambda: cw.stack([high, high]),
        "meshgrid": lambda: cw.meshgrid(*[one] * 65),
        "tensordot": lambda: cw.tensordot(deep, deep, axes=0),
        "take": lambda: cw.take(deep, idx, axis=0),
        "x[index array]": lambda: deep[idx],
        "x[index array, int, index array]": lambda: deep[idx, 0, idx],
        "random.uniform": lambda: cw.random.uniform(size=(1,) * 65),
    }


@pytest.mark.parametrize("call", sorted(_too_many_dimensions()))
def test_more_than_64_dimensions_is_refused_where_it_would_be_made(call):
    with pytest.raises(ShapeError, match="at most 64 dimensions"):
        _too_many_dimensions()[call]()


def test_64_dimensions_work_end_to_end():
    x = cw.ones((1,) * (MAX_NDIM - 1) + (2,))
    assert x.ndim == MAX_NDIM and to_np(x).shape == x.shape
    for y in (x + 1, cw.sum(x, axis=0, keepdims=True), cw.tile(x, (2,)), cw.repeat(x, 2, axis=0),
              cw.reshape(x, (2,) + (1,) * (MAX_NDIM - 1)), x[..., ::-1], cw.flip(x)):
        assert y.ndim == MAX_NDIM
        to_np(y)
    # tile's and repeat's intermediate views (an extra axis per axis) would pass 64 axes
    host = np.arange(2.0).reshape((1,) * 39 + (2,))
    reps = (2,) + (1,) * 38 + (3,)
    np.testing.assert_array_equal(to_np(cw.tile(cw.asarray(host), reps)), np.tile(host, reps))
    np.testing.assert_array_equal(to_np(cw.repeat(cw.asarray(host), 2, axis=-1)), np.repeat(host, 2, axis=-1))


def test_expand_dims_with_a_very_long_axis_tuple_is_refused_at_once():
    """10**5 axes: refused by the dimension limit before any axis is normalized (the
    insertions were quadratic in the count)."""
    with pytest.raises(ShapeError):
        cw.expand_dims(cw.ones(2), axis=tuple(range(10**5)))


# --- huge slice steps: a length-1 axis's stride does not matter ---------------------------

@pytest.mark.parametrize("key", [(slice(None), slice(None, None, 2**62)), slice(None, None, 2**62),
                                 slice(None, None, -2**62), (slice(1, None, 2**63 - 1), slice(None, None, -2**62)),
                                 slice(2**62, None), slice(-2**63, 2**63, 2**62), slice(None, None, 2**64)],
                         ids=repr)
def test_huge_slice_steps_give_numpys_views(key):
    host = np.arange(12.0).reshape(3, 4)
    x = cw.asarray(host)
    view = x[key]
    np.testing.assert_array_equal(to_np(view), host[key])
    # and the view is usable in every way: computed on, written through
    np.testing.assert_array_equal(to_np(view * 2), host[key] * 2)
    view[...] = -1.0
    host[key] = -1.0
    np.testing.assert_array_equal(to_np(x), host)


# --- an object with __index__ is an integer index -----------------------------------------

class _Index:
    def __init__(self, value):
        self.value = value

    def __index__(self):
        return self.value


def test_objects_with_index_are_integer_indices():
    host = np.arange(12).reshape(3, 4)
    x = cw.asarray(host)
    for key in [_Index(1), (_Index(-1), _Index(2)), (_Index(0), Ellipsis), (slice(None), _Index(3)),
                (_Index(1), cw.asarray([0, 2]))]:
        host_key = tuple(to_np(k) if isinstance(k, cw.Array) else k for k in key) if isinstance(key, tuple) else key
        np.testing.assert_array_equal(to_np(x[key]), host[host_key], err_msg=repr(key))
    x[_Index(2), _Index(0)] = 99
    assert int(x[2, 0]) == 99
    with pytest.raises(IndexError):
        x[_Index(5)]


def test_an_index_that_refuses_is_not_an_index():
    class Refusing:
        def __index__(self):
            raise TypeError("no")

    with pytest.raises(IndexError) as info:
        cw.ones(3)[Refusing()]
    assert isinstance(info.value, CandlewickError)


# --- Python numbers meeting integer dtypes: NaN, infinity, out of range -------------------

@pytest.mark.parametrize("obj, dtype", [([float("nan")], "int64"), (float("nan"), "int64"), (float("inf"), "int32"),
                                        ([[1.5, 2.0], [3.0, float("-inf")]], "int16"), ([1, float("nan")], "uint8")],
                         ids=repr)
def test_nan_or_infinity_into_an_integer_dtype_is_refused(obj, dtype):
    """As NumPy, array-api-strict and candlewick's own ``full`` refuse it (it gave
    INT_MIN silently)."""
    with pytest.raises(ArgumentValueError, match="integers have no NaN or infinity"):
        cw.asarray(obj, dtype=dt(dtype))
    with cw.promotion_mode("default"), pytest.raises(ArgumentValueError):  # (strict: no float into ints)
        cw.full(2, float("nan"), dtype=dt(dtype))


@pytest.mark.parametrize("obj, dtype", [(-1, "uint8"), (1e300, "int32"), ([300], "uint8"), ([2**64], "uint64"),
                                        ([2.0**63], "int64"), ([[1], [-(2**63) - 1]], "int64"), (3e9, "int32"),
                                        ([2**2000], "float32")],
                         ids=repr)
def test_python_numbers_out_of_the_dtypes_range_are_refused(obj, dtype):
    with pytest.raises(OutOfRangeError) as info:
        cw.asarray(obj, dtype=dt(dtype))
    assert isinstance(info.value, OverflowError) and len(str(info.value)) < 300


@pytest.mark.parametrize("obj, dtype, expected", [([-0.5, 2.9], "uint8", [0, 2]), ([2**64 - 1], "uint64", [2**64 - 1]),
                                                  (-2.7, "int8", -2), ([255.9], "uint8", [255])], ids=repr)
def test_python_numbers_in_range_convert_as_numpy_does(obj, dtype, expected):
    """A float truncated toward zero that fits the dtype is stored, as NumPy stores it."""
    got = to_np(cw.asarray(obj, dtype=dt(dtype)))
    np.testing.assert_array_equal(got, np.asarray(obj, dtype=dtype))
    np.testing.assert_array_equal(got, expected)


def test_arrays_cast_into_integer_dtypes_as_astype_does():
    """A NumPy array's elements are cast (NumPy's ``asarray(array, dtype=...)``): no check
    of each element, no warning."""
    host = np.array([1.5, -2.5, 7.0])
    np.testing.assert_array_equal(to_np(cw.asarray(host, dtype=cw.int32)), host.astype(np.int32))


# --- negative integer powers ----------------------------------------------------------------

@pytest.mark.parametrize("name", SIGNED)
def test_integer_to_a_negative_scalar_power_is_refused(name):
    x = cw.asarray([[1, 2, 3]], dtype=dt(name))
    for call in (lambda: x ** -1, lambda: cw.pow(x, -2), lambda: cw.pow(x, np.int64(-1))):
        with pytest.raises(ArgumentValueError, match="negative integer powers"):
            call()
    with pytest.raises(ArgumentValueError):
        x **= -1
    np.testing.assert_array_equal(to_np(x), [[1, 2, 3]])  # the refused write changed nothing
    np.testing.assert_array_equal(to_np(x ** 0), [[1, 1, 1]])
    np.testing.assert_array_equal(to_np(cw.asarray([1.0, 2.0]) ** -1), [1.0, 0.5])


@pytest.mark.parametrize("name", SIGNED)
def test_integer_to_a_negative_array_power_is_the_truncated_reciprocal(name):
    """The documented answer on every backend (checking would cost a synchronization):
    1 for base 1, +-1 for base -1 by the exponent's parity, 0 elsewhere."""
    base = cw.asarray([1, -1, -1, 2, -3, 0, 5], dtype=dt(name))
    exponent = cw.asarray([-1, -1, -2, -1, -3, 2, 0], dtype=dt(name))
    np.testing.assert_array_equal(to_np(cw.pow(base, exponent)), [1, -1, 1, 0, 0, 0, 1])
    np.testing.assert_array_equal(to_np(2 ** cw.asarray([-1, 3], dtype=dt(name))), [0, 8])


# --- allocation: a memory limit, and every kernel's allocation failure ----------------------

def test_meshgrid_checks_the_size_of_its_results(device):
    big = cw.ones(100_000, device=device)
    with pytest.raises(DeviceMemoryError, match="meshgrid"):
        cw.meshgrid(big, big, big)


_UNDER_A_LIMIT = textwrap.dedent("""
    import resource, sys
    import candlewick as cw
    from candlewick.errors import DeviceMemoryError
    device = cw.get_device(sys.argv[1])
    with open("/proc/self/status") as f:
        used = next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmSize:"))
    limit = used + 600 * 2**20
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    assert device.memory_info()[0] <= 600 * 2**20, device.memory_info()
    # refused by the size check, from the limit (the machine has far more free)
    try:
        cw.ones(2**28, device=device)
    except DeviceMemoryError:
        pass
    else:
        raise SystemExit("a 2 GiB result was made under a 600 MiB limit")
    # below the size check's threshold: each kernel's own allocation fails, reported so
    x = cw.ones(2**24, device=device)  # 128 MiB
    kept = []
    try:
        for _ in range(10):
            kept.append(x * 2.0)
        for _ in range(10):
            kept.append(cw.sum(cw.reshape(x, (2**12, 2**12)), axis=0) + cw.flip(x)[:, None][:, 0])
    except DeviceMemoryError as exc:
        print("refused:", exc)
    else:
        raise SystemExit("1.3 GiB of results were made under a 600 MiB limit")
""")


def test_allocation_under_a_process_memory_limit_raises_device_memory_error(device):
    if not holds_host_memory(cw.get_device(device)):
        pytest.skip("the process's address-space limit bounds host memory only")
    done = subprocess.run([sys.executable, "-c", _UNDER_A_LIMIT, device], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "refused: out of memory" in done.stdout


# --- the oracles' own arithmetic on integers --------------------------------------------------

def test_floor_divide_oracle_keeps_large_integers_exact():
    big = np.array([2**53 + 1, -(2**62) - 3, 2**63 - 1], dtype=np.int64)
    np.testing.assert_array_equal(elementwise_reference.floor_divide(big, 1), big)
    np.testing.assert_array_equal(elementwise_reference.floor_divide(big, np.int64(2)), big // 2)
    # the float case keeps the standard's primary results for infinities
    with np.errstate(all="ignore"):
        got = elementwise_reference.floor_divide(np.array([np.inf, 1.0]), np.array([2.0, -np.inf]))
    assert got[0] == np.inf and got[1] == 0 and np.signbit(got[1])


@given(data=st.data())
def test_floor_divide_past_2_to_the_53(data):
    """``floor_divide`` of int64 values past 2**53 against the oracle (it rounded them
    through float64 and failed candlewick's exact answer)."""
    x = data.draw(arrays("int64", (3,), min_value=2**53, max_value=2**63 - 1), label="x")
    scalar = data.draw(st.integers(1, 5), label="scalar")
    out = cw.floor_divide(x, scalar)
    assert_matches_oracle(out, strict_oracle("floor_divide", xs.floor_divide, xs.asarray(to_np(x)), scalar))
    np.testing.assert_array_equal(to_np(out), to_np(x) // scalar)


def test_int_pow_oracle_is_exact_in_its_dtype():
    for name in INTEGER:
        base = np.array([3, 2, 1], dtype=name)
        got = elementwise_reference.int_pow(base, np.array([5, 7, 9], dtype=name))
        assert got.dtype == np.dtype(name)
        np.testing.assert_array_equal(got, np.power(base, np.array([5, 7, 9], dtype=name)))


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_expm1_of_a_real_value_keeps_its_zero_imaginary_part(dtype):
    # NumPy computes exp(a) * sin(0): NaN once exp(a) overflows; the standard's inf + 0j
    # for expm1(inf + 0j) and both backends keep the zero (found by the thorough profile)
    z = np.array([710 + 0j, complex(3, -0.0), complex(float("nan"), 0.0)], dtype=dtype)
    reference = elementwise_reference.expm1(z.astype(np.complex128))
    np.testing.assert_array_equal(np.signbit(reference.imag), [False, True, False])
    assert np.all(reference.imag == 0)
    out = to_np(cw.expm1(cw.asarray(z)))
    np.testing.assert_array_equal(out.imag, z.imag)
    np.testing.assert_array_equal(np.signbit(out.imag), np.signbit(z.imag))
    assert out.real[0] == np.inf and strict_oracle("expm1", xs.expm1, xs.asarray(z))[1].imag[0] == 0


def test_the_oracle_rounds_a_python_scalar_to_the_arrays_dtype_first():
    # the standard converts the scalar to the array's dtype: 2**24 + 1 is 2**24 in
    # complex64, and 1j ** 2**24 is 1 (the oracle computed with the exact scalar: i)
    x = cw.asarray(1j, dtype=cw.complex64)
    ref = strict_oracle("pow", xs.pow, xs.asarray(1j, dtype=xs.complex64), 16777217.0)
    assert_matches_oracle(cw.pow(x, 16777217.0), ref, what="pow: ")
    assert abs(complex(ref[1]) - 1) < 1e-6


# --- settings with arrays and deep sequences: candlewick errors, bounded messages -----------

def _deep(depth):
    value = []
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize("setter", ["set_array_api_version", "set_promotion_mode", "promotion_mode",
                                    "set_implicit_host_copy"])
@pytest.mark.parametrize("value", [np.ones(3), _deep(5000), "bogus", 3], ids=["array", "deep list", "bogus", "int"])
def test_settings_type_check_first_and_raise_candlewick_errors(setter, value):
    before = (cw.array_api_version(), cw.get_promotion_mode(), cw.get_implicit_host_copy())
    with pytest.raises((ArgumentTypeError, ArgumentValueError)) as info:
        result = getattr(cw, setter)(value)
        if setter == "promotion_mode":
            with result:
                pass
    assert len(str(info.value)) < 300
    if isinstance(value, str):
        assert isinstance(info.value, (ArgumentValueError, ArgumentTypeError))
    assert (cw.array_api_version(), cw.get_promotion_mode(), cw.get_implicit_host_copy()) == before


def test_a_deep_list_as_a_dtype_is_a_dtype_error_with_a_short_message():
    with pytest.raises(TypeError) as info:
        cw.asarray([1], dtype=_deep(5000))
    assert isinstance(info.value, CandlewickError) and len(str(info.value)) < 300
