"""Array operators: forward, reflected and in-place forms, Python scalar operands, unary
operators, conversions of 0-d arrays, and the attributes of the array object."""

import math
import operator

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import array_api_strict as xs
import candlewick as cw
from candlewick.errors import ArgumentTypeError
from array_api_support import (
    INTEGER, NUMERIC, REAL_FLOAT, SIGNED, any_arrays, assert_matches_oracle, assert_matches_strict,
    assert_values, bits_of, dt, finite_arrays, int_arrays, operand_elements, quiet, shapes,
    strict_oracle, strict_result_name, to_np, to_strict, xps,
)
from spec_tables import BINARY, BINARY_OPERATORS, COMPARISON_OPERATORS, UNARY_OPERATORS
from test_elementwise import PAIRS, _rtol

OPERATORS = {**BINARY_OPERATORS, **COMPARISON_OPERATORS}
IN_PLACE = {"__add__": operator.iadd, "__sub__": operator.isub, "__mul__": operator.imul,
            "__truediv__": operator.itruediv, "__floordiv__": operator.ifloordiv,
            "__mod__": operator.imod, "__pow__": operator.ipow, "__and__": operator.iand,
            "__or__": operator.ior, "__xor__": operator.ixor, "__lshift__": operator.ilshift,
            "__rshift__": operator.irshift}


def _reflected(op):
    return "__r" + op[2:]


def _operands(data, fname, same_shape_as_first=False):
    n1, n2 = data.draw(st.sampled_from(PAIRS[fname]), label="dtypes")
    if same_shape_as_first:
        s1 = data.draw(shapes(), label="shape")
        s2 = data.draw(xps.broadcastable_shapes(s1, max_dims=len(s1), min_side=0), label="shape2")
    else:
        s1, s2 = data.draw(xps.mutually_broadcastable_shapes(2, max_dims=3, max_side=4),
                           label="shapes").input_shapes
    bits = min(bits_of(n1), bits_of(n2))
    x1 = data.draw(xps.arrays(dt(n1), s1, elements=operand_elements(fname, n1, "x1", bits)), label="x1")
    x2 = data.draw(xps.arrays(dt(n2), s2, elements=operand_elements(fname, n2, "x2", bits)), label="x2")
    return x1, x2


@pytest.mark.parametrize("op", sorted(OPERATORS))
@given(data=st.data())
def test_operator_matches_strict(op, data):
    fname = OPERATORS[op]
    x1, x2 = _operands(data, fname)
    out = getattr(x1, op)(x2)
    ref = strict_oracle(op, lambda a, b: getattr(a, op)(b), to_strict(x1), to_strict(x2))
    assert_matches_oracle(out, ref, rtol=_rtol(fname, strict_result_name(ref[0])), what=f"x1.{op}(x2): ")
    # the function gives the same result
    np.testing.assert_array_equal(to_np(getattr(cw, fname)(x1, x2)), to_np(out))


@pytest.mark.parametrize("op", sorted(BINARY_OPERATORS))
@given(data=st.data())
def test_reflected_operator_equals_forward(op, data):
    """``x2.__rop__(x1)`` computes ``x1 op x2`` (the standard requires the reflected forms)."""
    fname = BINARY_OPERATORS[op]
    x1, x2 = _operands(data, fname)
    forward = getattr(x1, op)(x2)
    reflected = getattr(x2, _reflected(op))(x1)
    assert reflected.dtype == forward.dtype
    np.testing.assert_array_equal(to_np(reflected), to_np(forward))


@pytest.mark.parametrize("op", sorted(BINARY_OPERATORS))
@given(data=st.data())
def test_python_scalar_on_either_side(op, data):
    fname = BINARY_OPERATORS[op]
    name = data.draw(st.sampled_from(BINARY[fname]), label="dtype")
    scalar_first = data.draw(st.booleans(), label="scalar_first")
    bits = bits_of(name)
    x = data.draw(xps.arrays(dt(name), shapes(), elements=operand_elements(
        fname, name, "x2" if scalar_first else "x1", bits)), label="x")
    if name == "bool":
        scalar = data.draw(st.booleans(), label="scalar")
    elif name in INTEGER:
        scalar = data.draw(operand_elements(fname, name, "x1" if scalar_first else "x2", bits), label="scalar")
    else:
        scalar = data.draw(st.one_of(st.integers(-5, 5), st.floats(-5, 5, width=32)), label="scalar")
    method = _reflected(op) if scalar_first else op
    out = getattr(x, method)(scalar)
    ref = strict_oracle(method, lambda a, s: getattr(a, method)(s), to_strict(x), scalar)
    assert_matches_oracle(out, ref, rtol=_rtol(fname, name), what=f"{method} with {scalar!r}: ")
    assert out.dtype == x.dtype, "a Python scalar must not change the array's dtype"


@pytest.mark.parametrize("op", sorted(IN_PLACE))
@given(data=st.data())
def test_in_place_operator(op, data):
    """``x1 op= x2`` updates x1 in place when the result keeps x1's dtype and shape,
    and otherwise raises without touching x1."""
    fname = BINARY_OPERATORS[op]
    x1, x2 = _operands(data, fname, same_shape_as_first=data.draw(st.booleans(), label="fits"))
    ref, ref_values = strict_oracle(op, lambda a, b: getattr(a, op)(b), to_strict(x1), to_strict(x2))
    target = cw.asarray(x1, copy=True)
    before = to_np(target).copy()
    fits = (strict_result_name(ref) == x1.dtype.name and tuple(ref.shape) == tuple(x1.shape))
    if fits:
        result = IN_PLACE[op](target, x2)
        assert result is target, f"{op[:-2]}= must return the array it updated"
        assert target.dtype == x1.dtype
        assert_values(target, ref_values, rtol=_rtol(fname, x1.dtype.name), what=f"{op} in place: ")
    else:
        with pytest.raises((TypeError, ValueError)):
            IN_PLACE[op](target, x2)
        np.testing.assert_array_equal(to_np(target), before, err_msg="a rejected in-place op wrote to x1")


@pytest.mark.parametrize("op", sorted(IN_PLACE))
def test_in_place_operator_with_python_scalar(op):
    fname = BINARY_OPERATORS[op]
    name = next(n for n in ("int16", "float32", "bool") if n in BINARY[fname])
    values = [True, False, True] if name == "bool" else [3, 1, 2]
    x = cw.asarray(values, dtype=dt(name))
    scalar = True if name == "bool" else 2
    expected = quiet(getattr(xs.asarray(np.asarray(values, dtype=name)), op), scalar)
    target = x
    result = IN_PLACE[op](target, scalar)
    assert result is x and x.dtype == dt(name)
    assert_values(x, np.asarray(expected), what=f"{op} scalar in place: ")


def test_in_place_operator_writes_through_a_view():
    base = cw.asarray([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    view = base[:, 1:]
    view += 10.0
    np.testing.assert_array_equal(to_np(base), [[1.0, 12.0, 13.0], [4.0, 15.0, 16.0]])
    column = base[:, 0]
    column *= cw.asarray([2.0, 3.0])
    np.testing.assert_array_equal(to_np(base)[:, 0], [2.0, 12.0])


def test_in_place_matmul():
    a = cw.asarray([[1.0, 2.0], [3.0, 4.0]])
    b = cw.asarray([[0.0, 1.0], [1.0, 0.0]])
    target = a
    target @= b
    assert target is a
    np.testing.assert_array_equal(to_np(a), [[2.0, 1.0], [4.0, 3.0]])
    with pytest.raises((TypeError, ValueError)):
        row = cw.asarray([[1.0, 2.0]])
        row @= cw.asarray([[1.0], [2.0]])  # would change the shape to (1, 1)


@given(data=st.data())
def test_matmul_operator_and_reflection(data):
    name = data.draw(st.sampled_from(NUMERIC), label="dtype")
    m, k, n = (data.draw(st.integers(1, 4)) for _ in range(3))
    if name in INTEGER:
        a = data.draw(int_arrays(name, (m, k), -8, 8), label="a")
        b = data.draw(int_arrays(name, (k, n), -8, 8), label="b")
    else:
        a = data.draw(finite_arrays(name, (m, k), magnitude=100.0), label="a")
        b = data.draw(finite_arrays(name, (k, n), magnitude=100.0), label="b")
    out = a @ b
    ref = quiet(operator.matmul, to_strict(a), to_strict(b))
    assert_matches_strict(out, ref, rtol=1e-4 if name in ("float32", "complex64") else 1e-10)
    np.testing.assert_array_equal(to_np(b.__rmatmul__(a)), to_np(out))


# --- Python scalar promotion rules ------------------------------------------------------

# (array dtype kind, scalar) pairs the standard defines, with the result dtype they give.
def _scalar_result(name, scalar):
    if isinstance(scalar, complex) and name in REAL_FLOAT:
        return {"float32": "complex64", "float64": "complex128"}[name]
    return name


ALLOWED_SCALARS = [("bool", True), ("int8", 3), ("uint16", 7), ("int64", -2), ("float32", 2),
                   ("float32", 2.5), ("float64", -1.5), ("complex64", 2), ("complex64", 1.5),
                   ("complex128", 1 + 2j), ("float32", 1j), ("float64", 2 - 1j)]
MIXED_KIND_SCALARS = [("int8", 1.5), ("uint8", 2.0), ("int32", 1j), ("bool", 1), ("bool", 1.0),
                      ("bool", 1j), ("int16", True), ("float32", True), ("complex64", False)]


@pytest.mark.parametrize("name,scalar", ALLOWED_SCALARS)
def test_python_scalar_keeps_the_array_dtype(name, scalar):
    x = cw.asarray([1, 0, 1], dtype=dt(name)) if name != "bool" else cw.asarray([True, False, True])
    ops = ["__eq__", "__ne__"] + (["__and__", "__or__"] if name == "bool" else ["__add__", "__mul__", "__radd__", "__rsub__"])
    for op in ops:
        out = getattr(x, op)(scalar)
        expected = "bool" if op in ("__eq__", "__ne__") else _scalar_result(name, scalar)
        assert out.dtype == dt(expected), f"{name} array {op} {scalar!r} gave {out.dtype}"
        ref = quiet(getattr(xs.asarray(to_np(x)), op), scalar)
        assert_values(out, np.asarray(ref), what=f"{name} {op} {scalar!r}: ")


@pytest.mark.parametrize("name,scalar", MIXED_KIND_SCALARS)
@pytest.mark.parametrize("op", ["__add__", "__radd__", "__mul__", "__and__", "__lt__", "__iadd__"])
def test_python_scalar_of_another_kind_is_a_type_error(name, scalar, op):
    x = cw.asarray([1, 0, 1], dtype=dt(name)) if name != "bool" else cw.asarray([True, False, True])
    with pytest.raises(TypeError):
        getattr(x, op)(scalar)


@pytest.mark.parametrize("name", INTEGER)
def test_python_int_outside_the_dtype_range_overflows(name):
    x = cw.asarray([1, 2], dtype=dt(name))
    info = np.iinfo(name)
    for value in (int(info.max) + 1, int(info.min) - 1):
        with pytest.raises(OverflowError):
            x + value
        with pytest.raises(OverflowError):
            value - x


NON_ARRAYS = ["a", [1, 2], None, object(), {1: 2}]


@pytest.mark.parametrize("other", NON_ARRAYS)
@pytest.mark.parametrize("op", sorted(set(OPERATORS) - {"__eq__", "__ne__"}) + ["__matmul__"])
def test_operators_reject_non_array_operands(op, other):
    x = cw.asarray([1, 2])
    name = op.strip("_")
    fn = getattr(operator, name + "_" if name in ("and", "or") else name)
    with pytest.raises(TypeError):
        fn(x, other)
    if isinstance(other, str) and name == "mod":
        return  # "a" % x is str formatting, which accepts any object with __getitem__
    with pytest.raises(TypeError):
        fn(other, x)


@pytest.mark.parametrize("other", NON_ARRAYS)
def test_equality_with_non_arrays_raises(other):
    """``==``/``!=`` with an unsupported operand raise candlewick's TypeError in both
    orders: Python's identity fallback would answer a silent ``False``."""
    x = cw.asarray([1, 2])
    for compare in (lambda: x == other, lambda: x != other, lambda: other == x, lambda: other != x):
        with pytest.raises(ArgumentTypeError, match="other operand"):
            compare()


def test_operators_reject_arrays_on_another_device(dev):
    others = [d for d in ("cpu",) if cw.get_device(d) is not dev]
    if not others:
        pytest.skip("needs a second device")
    a = cw.asarray([1.0, 2.0])
    b = cw.asarray([1.0, 2.0], device=others[0])
    with pytest.raises(ValueError):
        a + b


# --- unary operators ----------------------------------------------------------------

@pytest.mark.parametrize("op", sorted(UNARY_OPERATORS))
@given(data=st.data())
def test_unary_operator_matches_function(op, data):
    from spec_tables import UNARY

    fname = UNARY_OPERATORS[op]
    name = data.draw(st.sampled_from(UNARY[fname]), label="dtype")
    x = data.draw(xps.arrays(dt(name), shapes(), elements=operand_elements(fname, name, "x")), label="x")
    out = getattr(x, op)()
    ref = quiet(getattr(to_strict(x), op))
    assert_matches_strict(out, ref, rtol=_rtol(fname, name), what=f"{op}: ")


# --- conversions and attributes --------------------------------------------------------

@pytest.mark.parametrize("name", ["bool", "int8", "uint64", "int64", "float32", "float64", "complex128"])
def test_python_conversions_of_0d_arrays(name):
    value = {"bool": True, "complex128": 1.5 - 2j}.get(name, 3)
    x = cw.asarray(value, dtype=dt(name))
    assert x.shape == () and x.ndim == 0 and x.size == 1
    assert bool(x) is bool(value)
    assert complex(x) == complex(value)
    if name != "complex128":
        assert float(x) == float(value)
        assert int(x) == int(value)
    else:
        for conv in (int, float):
            with pytest.raises(TypeError):
                conv(x)
    if name in INTEGER:
        assert operator.index(x) == value
        assert [10, 20, 30, 40][x] == 40
    elif name in REAL_FLOAT:
        with pytest.raises(TypeError):
            operator.index(x)


@pytest.mark.parametrize("conv", [bool, int, float, complex])
def test_python_conversions_need_one_element(conv):
    with pytest.raises((TypeError, ValueError)):
        conv(cw.asarray([1.0, 2.0]))


def test_float_conversions_of_special_values():
    assert math.isnan(float(cw.asarray(float("nan"))))
    assert float(cw.asarray(-0.0)) == 0 and math.copysign(1, float(cw.asarray(-0.0))) == -1
    assert float(cw.asarray(float("inf"))) == float("inf")
    with pytest.raises((OverflowError, ValueError)):
        int(cw.asarray(float("inf")))
    with pytest.raises(ValueError):
        int(cw.asarray(float("nan")))


@given(x=any_arrays(shapes()))
def test_array_attributes(x):
    host = to_np(x)
    assert x.shape == host.shape and isinstance(x.shape, tuple)
    assert x.ndim == host.ndim and x.size == host.size
    assert x.dtype == cw.asarray(x).dtype
    assert x.device == cw.get_device(x.device)
    if x.ndim >= 2:
        np.testing.assert_array_equal(to_np(x.mT), np.swapaxes(host, -1, -2))
    if x.ndim == 2:
        np.testing.assert_array_equal(to_np(x.T), host.T)
    elif x.ndim != 2:
        with pytest.raises(ValueError):
            x.T
    assert x.__array_namespace__() is cw
    assert x.__array_namespace__(api_version="2024.12") is cw
    with pytest.raises(ValueError):
        x.__array_namespace__(api_version="2000.01")


def test_array_is_unhashable_and_not_constructible():
    x = cw.asarray([1, 2])
    with pytest.raises(TypeError):
        hash(x)
    with pytest.raises(TypeError):
        cw.Array([1, 2])


@pytest.mark.parametrize("name", SIGNED)
def test_len_and_iteration(name):
    x = cw.asarray([[1, 2], [3, 4], [5, 6]], dtype=dt(name))
    assert len(x) == 3
    rows = [to_np(r).tolist() for r in x]
    assert rows == [[1, 2], [3, 4], [5, 6]]
    with pytest.raises(TypeError):
        len(cw.asarray(1, dtype=dt(name)))
