"""The standard's special cases (NaN, ±infinity, ±0) of every element-wise function.

The expected results are the tables in ``special_case_tables`` (written from the
standard's text). All inputs of one function go through one call, as one array, in each
floating dtype; every row that disagrees is listed in the failure message.
"""

import math

import numpy as np
import pytest

import candlewick as cw
from array_api_support import to_np
from special_case_tables import BINARY_COMPLEX, BINARY_REAL, UNARY_COMPLEX, UNARY_REAL, matches


def _host(values, name):
    if name.startswith("complex"):
        return np.array([complex(*v) for v in values], dtype=name)
    return np.array(values, dtype=name)


def _report(fname, name, rows, outs):
    bad = [f"  {fname}{row[:-1]!r} -> {out!r}, expected {row[-1]!r}"
           for row, out in zip(rows, outs) if not matches(out, row[-1])]
    assert not bad, f"{fname} ({name}) breaks {len(bad)} special case(s):\n" + "\n".join(bad)


@pytest.mark.parametrize("name", ["float32", "float64"])
@pytest.mark.parametrize("fname", sorted(UNARY_REAL))
def test_unary_real_special_cases(fname, name):
    rows = UNARY_REAL[fname]
    x = cw.asarray(_host([r[0] for r in rows], name))
    out = to_np(getattr(cw, fname)(x))
    _report(fname, name, rows, out.tolist())


@pytest.mark.parametrize("name", ["float32", "float64"])
@pytest.mark.parametrize("fname", sorted(BINARY_REAL))
def test_binary_real_special_cases(fname, name):
    rows = BINARY_REAL[fname]
    x1 = cw.asarray(_host([r[0] for r in rows], name))
    x2 = cw.asarray(_host([r[1] for r in rows], name))
    out = to_np(getattr(cw, fname)(x1, x2))
    _report(fname, name, rows, out.tolist())


@pytest.mark.parametrize("name", ["complex64", "complex128"])
@pytest.mark.parametrize("fname", sorted(UNARY_COMPLEX))
def test_unary_complex_special_cases(fname, name):
    rows = UNARY_COMPLEX[fname]
    x = cw.asarray(_host([r[0] for r in rows], name))
    out = to_np(getattr(cw, fname)(x))
    _report(fname, name, rows, out.tolist())


@pytest.mark.parametrize("name", ["complex64", "complex128"])
@pytest.mark.parametrize("fname", sorted(BINARY_COMPLEX))
def test_binary_complex_special_cases(fname, name):
    rows = BINARY_COMPLEX[fname]
    x1 = cw.asarray(_host([r[0] for r in rows], name))
    x2 = cw.asarray(_host([r[1] for r in rows], name))
    out = to_np(getattr(cw, fname)(x1, x2))
    _report(fname, name, rows, out.tolist())


@pytest.mark.parametrize("name", ["float32", "float64"])
def test_clip_propagates_nan_from_x_min_and_max(name):
    """clip: "If x_i / min_i / max_i is NaN, the result is NaN" (array and scalar bounds)."""
    nan = float("nan")
    x = cw.asarray(np.array([nan, 1.0, 1.0], dtype=name))
    lo = cw.asarray(np.array([0.0, nan, 0.0], dtype=name))
    hi = cw.asarray(np.array([2.0, 2.0, nan], dtype=name))
    assert np.isnan(to_np(cw.clip(x, lo, hi))).all()
    assert np.isnan(to_np(cw.clip(cw.asarray(np.array([1.0], dtype=name)), nan, 2.0))).all()
    assert np.isnan(to_np(cw.clip(cw.asarray(np.array([1.0], dtype=name)), 0.0, nan))).all()
    assert np.isnan(to_np(cw.clip(cw.asarray(np.array([nan], dtype=name)), 0.0, 2.0))).all()


@pytest.mark.parametrize("name", ["float32", "float64"])
def test_special_cases_hold_through_operators(name):
    """The operators are the functions: a few rows of each table through x op y."""
    nan, inf = float("nan"), float("inf")
    a = cw.asarray(np.array([inf, -0.0, 2.0, nan], dtype=name))
    b = cw.asarray(np.array([-inf, -0.0, -0.0, 1.0], dtype=name))
    s = to_np(a + b)
    assert math.isnan(s[0]) and s[1] == 0 and math.copysign(1, s[1]) == -1 and s[2] == 2.0 and math.isnan(s[3])
    q = to_np(a / b)
    assert math.isnan(q[0]) and math.isnan(q[1]) and q[2] == -inf and math.isnan(q[3])
    p = to_np(a ** b)
    assert p[0] == 0 and p[1] == 1.0 and p[2] == 1.0 and math.isnan(p[3])


@pytest.mark.parametrize("name", ["float32", "float64"])
def test_floor_divide_infinities_through_operators(name):
    """//, its reflected form with a Python scalar and //= give the standard's primary
    results for infinite operands (inf // 2 = inf, 1 // -inf = -0), not Python's."""
    inf = float("inf")
    x = cw.asarray(np.array([inf, -inf, 1.0, -1.0], dtype=name))
    y = cw.asarray(np.array([2.0, 2.0, -inf, inf], dtype=name))
    want = [inf, -inf, -0.0, -0.0]
    for got in (to_np(x // y), to_np(cw.floor_divide(x, y))):
        assert got.tolist() == want and np.signbit(got).tolist() == [False, True, True, True]
    assert to_np(x // 2.0).tolist() == [inf, -inf, 0.5 // 2.0, -1.0]
    r = to_np(1.0 // y)
    assert r[2] == 0 and np.signbit(r[2]) and r[3] == 0 and not np.signbit(r[3])
    z = cw.asarray(np.array([inf, 1.0], dtype=name))
    z //= cw.asarray(np.array([-2.0, -inf], dtype=name))
    got = to_np(z)
    assert got[0] == -inf and got[1] == 0 and np.signbit(got[1])


@pytest.mark.parametrize("name", ["complex64", "complex128"])
def test_complex_zero_and_infinity_signs_are_fixed(name):
    """The known differences of the issue: sign of a signed complex zero is 0 + 0j,
    tanh(+inf + 2j) is 1 + 0j (sin 4 < 0), expm1(-0 + 0j) is +0 + 0j."""
    def parts(fn, re, im):
        z = cw.asarray(np.array([complex(re, im)], dtype=name))
        out = complex(to_np(fn(z))[0])
        return (out.real, math.copysign(1.0, out.real)), (out.imag, math.copysign(1.0, out.imag))

    assert parts(cw.sign, -0.0, -0.0) == ((0.0, 1.0), (0.0, 1.0))
    assert parts(cw.tanh, float("inf"), 2.0) == ((1.0, 1.0), (0.0, 1.0))
    assert parts(cw.tanh, float("inf"), -2.0) == ((1.0, 1.0), (0.0, -1.0))
    assert parts(cw.expm1, -0.0, 0.0) == ((0.0, 1.0), (0.0, 1.0))
