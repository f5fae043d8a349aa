"""Type promotion for every pair of dtypes, casting, and the data type functions.

``result_type`` and the dtype of an actual operation must both follow the standard's
table (array-api-strict's ``result_type`` is the oracle); pairs the standard leaves
undefined (mixed kinds, signed with uint64) raise TypeError.
"""

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import array_api_strict as xs
import candlewick as cw
from array_api_support import (
    ALL, BOOL, COMPLEX, FLOAT, INTEGER, NUMERIC, REAL_FLOAT, dt, finite_arrays, name_of, quiet,
    sdt, shapes, to_np,
)

PAIRS = list(itertools.product(ALL, ALL))


def _strict_result(a, b):
    try:
        return name_of(xs.result_type(sdt(a), sdt(b)))
    except TypeError:
        return None


def _sample(name, shape=(2,)):
    if name == "bool":
        return cw.asarray(np.ones(shape, dtype=bool))
    return cw.ones(shape, dtype=dt(name))


@pytest.mark.parametrize("first", ALL)
def test_result_type_of_every_pair(first):
    for second in ALL:
        expected = _strict_result(first, second)
        if expected is None:
            with pytest.raises(TypeError):
                cw.result_type(dt(first), dt(second))
                pytest.fail(f"result_type({first}, {second}) is undefined in the standard")
            continue
        got = cw.result_type(dt(first), dt(second))
        assert got == dt(expected), f"result_type({first}, {second}) = {got}, expected {expected}"
        # arrays (and 0-d arrays) promote the same way as their dtypes
        assert cw.result_type(_sample(first), _sample(second, ())) == dt(expected)


@pytest.mark.parametrize("first", ALL)
def test_operations_return_the_promoted_dtype(first):
    for second in ALL:
        expected = _strict_result(first, second)
        a, b = _sample(first), _sample(second)
        op = (lambda x, y: x & y) if first == second == "bool" else (lambda x, y: x + y)
        if expected is None:
            with pytest.raises(TypeError):
                op(a, b)
                pytest.fail(f"{first} + {second} is undefined in the standard")
            continue
        assert op(a, b).dtype == dt(expected), f"{first} op {second}"
        assert cw.equal(a, b).dtype == cw.bool
        assert cw.where(cw.asarray([True, False]), a, b).dtype == dt(expected)
        assert cw.concat([a, b]).dtype == dt(expected)


@given(names=st.lists(st.sampled_from(ALL), min_size=1, max_size=5))
def test_result_type_of_many_operands_is_associative(names):
    try:
        expected = name_of(xs.result_type(*(sdt(n) for n in names)))
    except TypeError:
        with pytest.raises(TypeError):
            cw.result_type(*(dt(n) for n in names))
        return
    assert cw.result_type(*(dt(n) for n in names)) == dt(expected)
    assert cw.result_type(*(dt(n) for n in reversed(names))) == dt(expected)


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("scalar", [True, 3, 2.5, 1j])
def test_result_type_with_python_scalars(name, scalar):
    """2024.12: result_type accepts Python scalars, with the array/scalar rules."""
    try:
        expected = name_of(xs.result_type(sdt(name), scalar))
    except TypeError:
        with pytest.raises(TypeError):
            cw.result_type(dt(name), scalar)
        return
    assert cw.result_type(dt(name), scalar) == dt(expected)


def test_candlewick_extra_float_dtypes_promote_as_documented():
    """float16/bfloat16 are candlewick extras: within real floating they join the lattice;
    float16 with bfloat16 goes to float32 (neither holds the other)."""
    table = {("float16", "float32"): "float32", ("float16", "float64"): "float64",
             ("bfloat16", "float32"): "float32", ("bfloat16", "float64"): "float64",
             ("float16", "bfloat16"): "float32", ("float16", "complex64"): "complex64",
             ("bfloat16", "complex128"): "complex128", ("float16", "float16"): "float16"}
    for (a, b), expected in table.items():
        assert cw.result_type(dt(a), dt(b)) == dt(expected)
        assert cw.result_type(dt(b), dt(a)) == dt(expected)
    for other in INTEGER + BOOL:
        with pytest.raises(TypeError):
            cw.result_type(cw.float16, dt(other))


@pytest.mark.parametrize("first", ALL)
def test_can_cast_matches_strict(first):
    for second in ALL:
        expected = xs.can_cast(sdt(first), sdt(second))
        assert cw.can_cast(dt(first), dt(second)) is expected, f"can_cast({first}, {second})"
        assert cw.can_cast(_sample(first), dt(second)) is expected


def _castable_values(src, dst):
    """Values of dtype ``src`` whose cast to ``dst`` the standard defines."""
    if src == "bool":
        return [True, False]
    if dst == "bool":
        return [0, 1, 2] if src in INTEGER else [0.0, -0.0, 1.5, float("nan")] if src in REAL_FLOAT else [0j, 1 + 0j, 1j]
    if src in INTEGER:
        lo, hi = 0 if (src.startswith("u") or dst.startswith("u")) else -100, 100
        return list(range(lo, hi, 37))
    if src in COMPLEX:
        return [1 + 2j, -3.5 + 0.5j, 0j]
    if dst in INTEGER:
        return [0.0, 1.75, 99.5] + ([] if dst.startswith("u") else [-99.5, -0.0])
    return [1.5, -2.25, 0.0, float("inf"), float("nan")]


@pytest.mark.parametrize("src", ALL)
def test_astype_between_every_pair(src):
    for dst in ALL:
        host = np.asarray(_castable_values(src, dst), dtype=src)
        x = cw.asarray(host)
        if src in COMPLEX and dst not in COMPLEX and dst != "bool":
            with pytest.raises(TypeError):
                cw.astype(x, dt(dst))
            continue
        out = cw.astype(x, dt(dst))
        assert out.dtype == dt(dst)
        expected = quiet(host.astype, dst)
        np.testing.assert_array_equal(to_np(out), expected, err_msg=f"astype {src} -> {dst}")
        assert x.astype(dt(dst)).dtype == dt(dst)


def test_astype_copy_semantics():
    x = cw.asarray([1.0, 2.0])
    same = cw.astype(x, cw.float64, copy=False)
    assert same is x or to_np(same).tolist() == [1.0, 2.0]
    copied = cw.astype(x, cw.float64)  # copy=True by default: never the same memory
    copied[0] = 7.0
    assert to_np(x)[0] == 1.0
    converted = cw.astype(x, cw.float32, copy=False)  # a conversion has to copy anyway
    assert converted.dtype == cw.float32


def test_astype_to_another_device(dev):
    x = cw.asarray([1, 2, 3], dtype=cw.int32)
    out = cw.astype(x, cw.float64, device=dev)
    assert out.device == dev and out.dtype == cw.float64


@pytest.mark.parametrize("name", INTEGER)
def test_iinfo(name):
    info, ref = cw.iinfo(dt(name)), np.iinfo(name)
    assert (info.bits, info.min, info.max) == (ref.bits, int(ref.min), int(ref.max))
    assert info.dtype == dt(name)
    assert cw.iinfo(cw.ones(2, dtype=dt(name))).max == int(ref.max)


@pytest.mark.parametrize("name", FLOAT)
def test_finfo(name):
    info, ref = cw.finfo(dt(name)), np.finfo(name)
    assert info.bits == ref.bits
    for field in ("eps", "max", "min", "smallest_normal"):
        got = getattr(info, field)
        assert isinstance(got, float), f"finfo.{field} must be a Python float"
        assert got == float(getattr(ref, field)), field
    # for complex dtypes finfo describes the real component (the standard: "a real-valued
    # floating-point data type")
    assert info.dtype == dt({"complex64": "float32", "complex128": "float64"}.get(name, name))
    assert cw.finfo(cw.ones(2, dtype=dt(name))).bits == ref.bits


@pytest.mark.parametrize("fn,name", [(cw.iinfo, "float32"), (cw.iinfo, "bool"), (cw.finfo, "int8"),
                                     (cw.finfo, "bool")])
def test_info_functions_reject_the_wrong_kind(fn, name):
    with pytest.raises((TypeError, ValueError)):
        fn(dt(name))


KINDS = ["bool", "signed integer", "unsigned integer", "integral", "real floating",
         "complex floating", "numeric"]


@pytest.mark.parametrize("name", ALL)
def test_isdtype_matches_strict(name):
    for kind in KINDS:
        assert cw.isdtype(dt(name), kind) is xs.isdtype(sdt(name), kind), (name, kind)
    for other in ALL:
        assert cw.isdtype(dt(name), dt(other)) is (name == other)
    assert cw.isdtype(dt(name), ("bool", "numeric")) is True
    with pytest.raises(ValueError):
        cw.isdtype(dt(name), "floating")


@given(data=st.data())
def test_mixed_dtype_arithmetic_values_follow_the_promoted_dtype(data):
    """Operands of different dtypes are compared against strict on the same values."""
    a, b = data.draw(st.sampled_from([(x, y) for x, y in PAIRS if _strict_result(x, y)
                                      and x in NUMERIC and y in NUMERIC]), label="dtypes")
    shape = data.draw(shapes(max_dims=2), label="shape")
    x1 = data.draw(finite_arrays(a, shape, magnitude=1e3), label="x1")
    x2 = data.draw(finite_arrays(b, shape, magnitude=1e3), label="x2")
    out = x1 * x2
    ref = quiet(lambda: xs.asarray(to_np(x1)) * xs.asarray(to_np(x2)))
    assert out.dtype == dt(name_of(ref.dtype))
    np.testing.assert_allclose(to_np(out), np.asarray(ref), rtol=1e-6)
