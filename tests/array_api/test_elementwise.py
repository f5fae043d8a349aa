"""Every element-wise function against array-api-strict on the same inputs.

Checked: result dtype (the standard's promotion), values (NaN positions, infinities,
finite values within a dtype tolerance), broadcasting, strided/broadcast views as
inputs, Python scalar operands (2024.12), inputs left unmodified, and TypeError for
dtypes outside each function's domain.
"""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import array_api_strict as xs
import candlewick as cw
from array_api_support import (
    ALL, BOOL, COMPLEX, INTEGER, REAL_FLOAT, VIEW_KINDS, assert_matches_oracle, bits_of, dt,
    finite_arrays, operand_elements, quiet, sdt, shapes, strict_oracle, strict_result_name,
    to_np, to_strict, view_pair, xps,
)
from spec_tables import BINARY, PERMITTED_EXTENSIONS, UNARY

# Functions whose results are exact (no rounding beyond IEEE basic operations).
EXACT = {"abs", "bitwise_invert", "ceil", "conj", "floor", "imag", "isfinite", "isinf", "isnan",
         "logical_not", "negative", "positive", "real", "round", "sign", "signbit", "trunc",
         "add", "subtract", "multiply", "bitwise_and", "bitwise_or", "bitwise_xor",
         "bitwise_left_shift", "bitwise_right_shift", "maximum", "minimum", "logical_and",
         "logical_or", "logical_xor", "equal", "not_equal", "less", "less_equal", "greater",
         "greater_equal", "copysign", "nextafter"}


def _rtol(fname, name):
    """Exact for EXACT functions on real dtypes; complex sign/abs/multiply round."""
    return 0.0 if fname in EXACT and name not in COMPLEX else None


def _strict_pairs(fname):
    """Dtype pairs in the function's domain that promote under the standard."""
    domain = BINARY[fname]
    pairs = []
    for a in domain:
        for b in domain:
            if fname == "nextafter" and a != b:
                continue
            try:
                result = xs.result_type(sdt(a), sdt(b))
            except TypeError:
                continue
            if str(result).rsplit(".", 1)[-1] in domain:
                pairs.append((a, b))
    return pairs


PAIRS = {fname: _strict_pairs(fname) for fname in BINARY}


def _array(data, fname, name, shape, role, partner_bits=64, label=None):
    elements = operand_elements(fname, name, role, partner_bits)
    return data.draw(xps.arrays(dt(name), shape, elements=elements), label=label or role)


# --- unary ------------------------------------------------------------------------------

@pytest.mark.parametrize("fname", sorted(UNARY))
@given(data=st.data())
def test_unary_matches_strict(fname, data):
    name = data.draw(st.sampled_from(UNARY[fname]), label="dtype")
    x = _array(data, fname, name, data.draw(shapes(), label="shape"), "x")
    before = to_np(x).copy()
    out = getattr(cw, fname)(x)
    ref = strict_oracle(fname, getattr(xs, fname), xs.asarray(before))
    assert_matches_oracle(out, ref, rtol=_rtol(fname, name), what=f"{fname}({name}): ")
    np.testing.assert_array_equal(to_np(x), before, err_msg=f"{fname} modified its input")
    assert out.device == x.device


@pytest.mark.parametrize("fname", sorted(UNARY))
@given(data=st.data())
def test_unary_on_strided_views(fname, data):
    name = data.draw(st.sampled_from(UNARY[fname]), label="dtype")
    shape = data.draw(shapes(min_dims=2, max_dims=2, min_side=1), label="shape")
    x = _array(data, fname, name, shape, "x")
    view, host_view = view_pair(x, data.draw(st.sampled_from(VIEW_KINDS), label="view"))
    out = getattr(cw, fname)(view)
    ref = strict_oracle(fname, getattr(xs, fname), xs.asarray(np.ascontiguousarray(host_view)))
    assert_matches_oracle(out, ref, rtol=_rtol(fname, name), what=f"{fname}(view of {name}): ")


@pytest.mark.parametrize("fname", sorted(UNARY))
def test_unary_rejects_dtypes_outside_domain(fname):
    fn = getattr(cw, fname)
    for name in ALL:
        if name in UNARY[fname]:
            continue
        x = cw.asarray([0, 1], dtype=dt(name)) if name != "bool" else cw.asarray([False, True])
        if name in PERMITTED_EXTENSIONS.get(fname, ()):
            _check_permitted_extension(fname, fn, (x,))
            continue
        with pytest.raises(TypeError):
            fn(x)
            pytest.fail(f"{fname} accepted dtype {name}, outside its domain {UNARY[fname]}")


# --- binary -----------------------------------------------------------------------------

@pytest.mark.parametrize("fname", sorted(BINARY))
@given(data=st.data())
def test_binary_matches_strict(fname, data):
    n1, n2 = data.draw(st.sampled_from(PAIRS[fname]), label="dtypes")
    s1, s2 = data.draw(xps.mutually_broadcastable_shapes(2, max_dims=3, max_side=4),
                       label="shapes").input_shapes
    bits = min(bits_of(n1), bits_of(n2))
    x1 = _array(data, fname, n1, s1, "x1", bits)
    x2 = _array(data, fname, n2, s2, "x2", bits)
    b1, b2 = to_np(x1).copy(), to_np(x2).copy()
    out = getattr(cw, fname)(x1, x2)
    ref = strict_oracle(fname, getattr(xs, fname), xs.asarray(b1), xs.asarray(b2))
    assert_matches_oracle(out, ref, rtol=_rtol(fname, strict_result_name(ref[0])), what=f"{fname}({n1}, {n2}): ")
    np.testing.assert_array_equal(to_np(x1), b1, err_msg=f"{fname} modified x1")
    np.testing.assert_array_equal(to_np(x2), b2, err_msg=f"{fname} modified x2")


@pytest.mark.parametrize("fname", sorted(BINARY))
@given(data=st.data())
def test_binary_on_strided_views(fname, data):
    name = data.draw(st.sampled_from(BINARY[fname]), label="dtype")
    shape = data.draw(shapes(min_dims=2, max_dims=2, min_side=1), label="shape")
    bits = bits_of(name)
    x1 = _array(data, fname, name, shape, "x1", bits)
    x2 = _array(data, fname, name, shape, "x2", bits)
    kind1 = data.draw(st.sampled_from(VIEW_KINDS), label="view1")
    v1, h1 = view_pair(x1, kind1)
    # the second operand: same view kind, or a plain contiguous copy of a matching shape
    v2, h2 = view_pair(x2, kind1)
    out = getattr(cw, fname)(v1, v2)
    ref = strict_oracle(fname, getattr(xs, fname), xs.asarray(np.ascontiguousarray(h1)),
                        xs.asarray(np.ascontiguousarray(h2)))
    assert_matches_oracle(out, ref, rtol=_rtol(fname, name), what=f"{fname}(views, {name}): ")


def _scalar_for(data, fname, name, role, array_bits):
    """A Python scalar that the standard allows next to an array of dtype ``name``."""
    if name == "bool":
        return data.draw(st.booleans(), label="scalar")
    if name in INTEGER:
        return data.draw(operand_elements(fname, name, role, array_bits), label="scalar")
    kinds = [st.integers(-8, 8), operand_elements(fname, "float64" if name in COMPLEX or name == "float64" else "float32", role)]
    if name in COMPLEX:
        kinds.append(st.builds(complex, st.floats(-4, 4), st.floats(-4, 4)))
    return data.draw(st.one_of(*kinds), label="scalar")


@pytest.mark.parametrize("fname", sorted(BINARY))
@given(data=st.data())
def test_binary_with_python_scalar(fname, data):
    name = data.draw(st.sampled_from(BINARY[fname]), label="dtype")
    scalar_first = data.draw(st.booleans(), label="scalar_first")
    array_role, scalar_role = ("x2", "x1") if scalar_first else ("x1", "x2")
    bits = bits_of(name)
    x = _array(data, fname, name, data.draw(shapes(), label="shape"), array_role, bits)
    scalar = _scalar_for(data, fname, name, scalar_role, bits)
    args = (scalar, x) if scalar_first else (x, scalar)
    strict_args = (scalar, to_strict(x)) if scalar_first else (to_strict(x), scalar)
    out = getattr(cw, fname)(*args)
    ref = strict_oracle(fname, getattr(xs, fname), *strict_args)
    assert_matches_oracle(out, ref, rtol=_rtol(fname, strict_result_name(ref[0])), what=f"{fname}({args[0]!r}, {args[1].dtype if scalar_first else args[1]!r}): ")


@pytest.mark.parametrize("fname", sorted(BINARY))
def test_binary_rejects_dtypes_outside_domain(fname):
    fn = getattr(cw, fname)
    for name in ALL:
        if name in BINARY[fname]:
            continue
        x = cw.asarray([1, 2], dtype=dt(name)) if name != "bool" else cw.asarray([False, True])
        if name in PERMITTED_EXTENSIONS.get(fname, ()):
            _check_permitted_extension(fname, fn, (x, x))
            continue
        with pytest.raises(TypeError):
            fn(x, x)
            pytest.fail(f"{fname} accepted dtype {name}, outside its domain {BINARY[fname]}")


@pytest.mark.parametrize("fname", sorted(BINARY))
def test_binary_needs_an_array_operand(fname):
    with pytest.raises(TypeError):
        getattr(cw, fname)(1, 2)


@pytest.mark.parametrize("fname", sorted(BINARY))
def test_binary_rejects_shapes_that_do_not_broadcast(fname):
    name = BINARY[fname][-1]
    a = cw.ones((2, 3), dtype=dt(name))
    b = cw.ones((4,), dtype=dt(name))
    with pytest.raises(ValueError):
        getattr(cw, fname)(a, b)


def _check_permitted_extension(fname, fn, args):
    """An accepted out-of-domain call must give NumPy's result for it."""
    try:
        out = fn(*args)
    except TypeError:
        return
    hosts = [to_np(a) for a in args]
    expected = quiet(getattr(np, fname), *hosts)
    if fname == "divide":
        assert cw.isdtype(out.dtype, "real floating"), f"divide on integers gave {out.dtype}"
    if fname.startswith("logical_"):
        assert out.dtype == cw.bool, f"{fname} gave {out.dtype}"
    np.testing.assert_allclose(to_np(out), expected, err_msg=f"{fname} on {args[0].dtype}")


# --- clip -------------------------------------------------------------------------------

def _clip_bound(data, name, shape, label):
    """None, a Python scalar of x's kind, or an array of x's dtype (no NaN: clip's NaN
    bounds are tests/array_api/test_special_cases.py's) of a shape broadcasting with x's."""
    kind = data.draw(st.sampled_from(["none", "scalar", "array", "array"]), label=f"{label} kind")
    if kind == "none":
        return None, None
    if kind == "scalar":
        ints = st.integers(0 if name.startswith("u") else -3, 3)
        value = data.draw(ints if name in INTEGER else st.floats(-3, 3), label=label)
        return value, value
    bound = data.draw(finite_arrays(name, shape), label=label)
    return bound, to_np(bound)


@given(data=st.data())
def test_clip_is_minimum_of_maximum_and_broadcasts(data):
    """clip(x, min, max) is minimum(maximum(x, min), max) (NumPy's order; the standard's
    definition), its array bounds broadcasting with x: the result may be larger than x
    (data-apis/array-api#715)."""
    name = data.draw(st.sampled_from(INTEGER + REAL_FLOAT), label="dtype")
    sx, s_lo, s_hi = data.draw(xps.mutually_broadcastable_shapes(3, max_dims=3, max_side=4),
                               label="shapes").input_shapes
    x = data.draw(xps.arrays(dt(name), sx, elements=operand_elements("clip", name, "x")), label="x")
    lo, host_lo = _clip_bound(data, name, s_lo, "min")
    hi, host_hi = _clip_bound(data, name, s_hi, "max")
    before = to_np(x).copy()
    out = cw.clip(x, lo, hi)
    expected = before
    with np.errstate(all="ignore"):
        if host_lo is not None:
            expected = np.maximum(expected, np.asarray(host_lo, dtype=before.dtype))
        if host_hi is not None:
            expected = np.minimum(expected, np.asarray(host_hi, dtype=before.dtype))
    assert out.dtype == x.dtype
    assert_matches_oracle(out, (xs.asarray(expected), expected), rtol=0.0, what=f"clip({name}): ")
    np.testing.assert_array_equal(to_np(x), before, err_msg="clip modified its input")


def test_clip_with_bounds_that_do_not_broadcast_raises():
    with pytest.raises(ValueError):
        cw.clip(cw.zeros((4, 2)), min=cw.zeros(3))


# --- algebraic properties the standard states for complex inputs -----------------------

CONJ_SYMMETRIC = ("acos", "acosh", "asin", "asinh", "atan", "atanh", "cos", "cosh", "exp",
                  "expm1", "log", "log1p", "log2", "log10", "sin", "sinh", "sqrt", "tan", "tanh")


@pytest.mark.parametrize("fname", CONJ_SYMMETRIC)
@given(data=st.data())
def test_complex_functions_commute_with_conj(fname, data):
    """The standard: ``f(conj(x))`` must equal ``conj(f(x))``."""
    name = data.draw(st.sampled_from(COMPLEX), label="dtype")
    x = data.draw(finite_arrays(name, shapes(max_dims=1), magnitude=50.0), label="x")
    fn = getattr(cw, fname)
    lhs, rhs = fn(cw.conj(x)), cw.conj(fn(x))
    np.testing.assert_allclose(to_np(lhs), to_np(rhs), rtol=1e-5 if name == "complex64" else 1e-12,
                               atol=1e-6 if name == "complex64" else 1e-13, equal_nan=True)


@pytest.mark.parametrize("name", REAL_FLOAT + BOOL + INTEGER[:1])
def test_namespace_dtype_objects_are_distinct_and_named(name):
    d = dt(name)
    assert d == dt(name)
    assert all(d != dt(other) for other in ALL if other != name)
