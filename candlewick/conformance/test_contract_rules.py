"""The rules backend.py spells out, as literal cases: deterministic, so every run checks
them whatever hypothesis draws, and independent of NumPy (the expected values are
written down from the contract text, not computed by the oracle)."""

import math

import numpy as np
import pytest

from candlewick import dtypes as dt
from candlewick.layout import Layout
from candlewick.opdefs import BinaryOp, ReduceOp, UnaryOp

from . import elementwise_reference as ref
from .checks import Expected, read_result
from .strategies import dtype_params, finfo

FLOATS = dtype_params(dt.REAL_FLOATING)
SIGNED = dtype_params(dt.SIGNED)
INTEGERS = dtype_params(dt.INTEGER)


def _storage(device, values, dtype):
    host = np.array(values, dtype=dtype.numpy)
    return device.storage_from_host(host.reshape(-1)), Layout.contiguous(host.shape)


def _binary(device, op, dtype, lhs, rhs):
    a, layout = _storage(device, lhs, dtype)
    b, _ = _storage(device, rhs, dtype)
    return read_result(a.binary(op, layout, b, layout), dtype, layout.shape)


def _unary(device, op, dtype, values):
    a, layout = _storage(device, values, dtype)
    return read_result(a.unary(op, layout), op.result_dtype(dtype), layout.shape)


@pytest.mark.primitive("binary")
@pytest.mark.parametrize("dtype", INTEGERS)
def test_integer_division_by_zero_gives_zero(device, dtype):
    info = np.iinfo(dtype.numpy)
    x = [5, 0, int(info.max), int(info.min)] + ([-5] if info.min < 0 else [])
    zeros = [0] * len(x)
    for op in (BinaryOp.FLOOR_DIVIDE, BinaryOp.REMAINDER):
        Expected(np.zeros(len(x), dtype.numpy)).check(_binary(device, op, dtype, x, zeros))


@pytest.mark.primitive("binary")
@pytest.mark.parametrize("dtype", SIGNED)
def test_integer_floor_division_and_remainder_signs(device, dtype):
    lo = int(np.iinfo(dtype.numpy).min)
    lhs, rhs = [-7, 7, -7, 7, lo, lo], [3, -3, -3, 3, -1, 1]
    floor = [-3, -3, 2, 2, lo, lo]  # lo // -1 wraps to lo
    rem = [2, -2, -1, 1, 0, 0]  # the divisor's sign
    Expected(np.array(floor, dtype.numpy)).check(_binary(device, BinaryOp.FLOOR_DIVIDE, dtype, lhs, rhs))
    Expected(np.array(rem, dtype.numpy)).check(_binary(device, BinaryOp.REMAINDER, dtype, lhs, rhs))


@pytest.mark.primitive("binary")
@pytest.mark.parametrize("dtype", FLOATS)
def test_float_remainder_takes_the_divisor_sign(device, dtype):
    got = _binary(device, BinaryOp.REMAINDER, dtype, [-7.0, 7.0, -7.0, 7.0], [3.0, -3.0, -3.0, 3.0])
    Expected(np.array([2.0, -2.0, -1.0, 1.0], dtype.numpy)).check(got)


@pytest.mark.primitive("binary")
@pytest.mark.parametrize("dtype", SIGNED)
def test_integer_pow_negative_exponent(device, dtype):
    base = [1, 1, -1, -1, 2, -2, 0, 5]
    exponent = [-1, -4, -3, -2, -1, -5, -1, -2]
    expected = [1, 1, -1, 1, 0, 0, 0, 0]
    Expected(np.array(expected, dtype.numpy)).check(_binary(device, BinaryOp.POW, dtype, base, exponent))


@pytest.mark.primitive("binary")
@pytest.mark.parametrize("dtype", INTEGERS)
def test_integer_pow_wraps(device, dtype):
    bits = dtype.bits
    got = _binary(device, BinaryOp.POW, dtype, [2, 3, 0, 7], [bits, 0, 0, 1])
    Expected(np.array([0, 1, 1, 7], dtype.numpy)).check(got)  # 2**bits wraps to 0; 0**0 is 1


@pytest.mark.primitive("binary")
@pytest.mark.parametrize("dtype", INTEGERS)
def test_shift_counts_out_of_range(device, dtype):
    bits = dtype.bits
    signed = dtype.category == "signed integer"
    counts = [bits, bits + 1] + ([-1] if signed else [])
    ones = [1] * len(counts)
    zeros = np.zeros(len(counts), dtype.numpy)
    Expected(zeros).check(_binary(device, BinaryOp.BITWISE_LEFT_SHIFT, dtype, ones, counts))
    Expected(zeros).check(_binary(device, BinaryOp.BITWISE_RIGHT_SHIFT, dtype, ones, counts))
    if signed:
        minus = [-8] * len(counts)
        Expected(np.full(len(counts), -1, dtype.numpy)).check(
            _binary(device, BinaryOp.BITWISE_RIGHT_SHIFT, dtype, minus, counts))
    top = _binary(device, BinaryOp.BITWISE_LEFT_SHIFT, dtype, [1], [bits - 1])
    # the top bit: for signed dtypes that is the most negative value (wrapping)
    Expected(np.array([1 << (bits - 1)], np.uint64).astype(dtype.numpy)).check(top)


@pytest.mark.primitive("binary")
@pytest.mark.parametrize("dtype", FLOATS)
def test_maximum_minimum_propagate_nan(device, dtype):
    lhs, rhs = [np.nan, 1.0, np.nan, -np.inf], [1.0, np.nan, np.nan, np.nan]
    for op in (BinaryOp.MAXIMUM, BinaryOp.MINIMUM):
        Expected(np.full(4, np.nan, dtype.numpy)).check(_binary(device, op, dtype, lhs, rhs))


@pytest.mark.primitive("reduce")
@pytest.mark.parametrize("dtype", FLOATS)
def test_min_max_reductions_propagate_nan(device, dtype):
    x, layout = _storage(device, [[1.0, np.nan, 3.0], [1.0, 2.0, 3.0]], dtype)
    for op in (ReduceOp.MIN, ReduceOp.MAX):
        got = read_result(x.reduce(op, layout, (1,)), dtype, (2,))
        expected = [np.nan, 1.0 if op is ReduceOp.MIN else 3.0]
        Expected(np.array(expected, dtype.numpy)).check(got)


@pytest.mark.primitive("reduce")
@pytest.mark.parametrize("dtype", FLOATS)
def test_argmin_argmax_first_extreme_and_first_nan(device, dtype):
    x, layout = _storage(device, [[3.0, 1.0, 1.0, 3.0], [2.0, np.nan, 0.0, np.nan]], dtype)
    argmin = read_result(x.reduce(ReduceOp.ARGMIN, layout, (1,)), dt.int64, (2,))
    argmax = read_result(x.reduce(ReduceOp.ARGMAX, layout, (1,)), dt.int64, (2,))
    Expected(np.array([1, 1])).check(argmin)
    Expected(np.array([0, 1])).check(argmax)


@pytest.mark.primitive("unary")
@pytest.mark.parametrize("dtype", FLOATS)
def test_round_half_to_even(device, dtype):
    values = [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.5]
    expected = np.array([0.0, 2.0, 2.0, -0.0, -2.0, -2.0, 4.0], dtype.numpy)
    Expected(expected, zero_sign=True).check(_unary(device, UnaryOp.ROUND, dtype, values))


@pytest.mark.primitive("unary")
@pytest.mark.parametrize("dtype", dtype_params(dt.COMPLEX))
def test_complex_sign_is_z_over_abs(device, dtype):
    got = _unary(device, UnaryOp.SIGN, dtype, [3 + 4j, 0j, -2j])
    Expected(np.array([0.6 + 0.8j, 0j, -1j], dtype.numpy), ulps=4).check(got)


@pytest.mark.primitive("unary")
@pytest.mark.parametrize("dtype", FLOATS)
def test_gelu_is_the_erf_form_and_silu_is_x_sigmoid(device, dtype):
    # the tanh approximation gives 0.841192 at 1 and -0.158808 at -1: not these
    gelu = [0.5 * x * (1 + math.erf(x / math.sqrt(2))) for x in (1.0, -1.0, 3.0)]
    got = _unary(device, UnaryOp.GELU, dtype, [1.0, -1.0, 3.0])
    Expected(np.array(gelu, np.float64).astype(dtype.numpy), ulps=2).check(got)
    silu = [x / (1 + math.exp(-x)) for x in (1.0, -1.0, 3.0)]
    got = _unary(device, UnaryOp.SILU, dtype, [1.0, -1.0, 3.0])
    Expected(np.array(silu, np.float64).astype(dtype.numpy), ulps=2).check(got)


@pytest.mark.primitive("unary")
@pytest.mark.parametrize("dtype", FLOATS)
def test_gelu_of_the_largest_floats_stays_finite(device, dtype):
    """gelu(x) is x for large x: the largest finite value gives itself, not the inf of
    an intermediate x * (1 + erf) (issue 23: the float64 oracle computed inf there)."""
    big = float(finfo(dtype).max)
    values = np.array([big, big / 2, -big, 4.0], np.float64).astype(dtype.numpy)
    expected = ref.unary(UnaryOp.GELU, dtype, values)
    assert np.asarray(expected.values)[0] == values[0] and np.isfinite(np.asarray(expected.values, np.float64)).all()
    got = _unary(device, UnaryOp.GELU, dtype, values)
    expected.check(got)
    assert got[0] == values[0] and got[1] == values[1]


@pytest.mark.primitive("astype")
@pytest.mark.parametrize("dtype", FLOATS)
def test_float_to_int_truncates_and_anything_to_bool_is_nonzero(device, dtype):
    x, layout = _storage(device, [-1.75, 1.75, -0.5, 0.0, 7.0], dtype)
    got = read_result(x.astype(layout, dt.int32), dt.int32, (5,))
    Expected(np.array([-1, 1, 0, 0, 7], np.int32)).check(got)
    x, layout = _storage(device, [0.0, -0.0, np.nan, 0.125, -np.inf], dtype)
    got = read_result(x.astype(layout, dt.bool_), dt.bool_, (5,))
    Expected(np.array([False, False, True, True, True])).check(got)


@pytest.mark.primitive("sort")
@pytest.mark.parametrize("dtype", FLOATS)
def test_sort_places_nan_above_inf(device, dtype):
    x, layout = _storage(device, [np.nan, 1.0, np.inf, -np.inf, np.nan, 0.0], dtype)
    ascending, _ = x.sort(layout, 0, False, True)
    descending, _ = x.sort(layout, 0, True, True)
    asc = [-np.inf, 0.0, 1.0, np.inf, np.nan, np.nan]
    Expected(np.array(asc, dtype.numpy)).check(read_result(ascending, dtype, (6,)))
    Expected(np.array(asc[::-1], dtype.numpy)).check(read_result(descending, dtype, (6,)))


@pytest.mark.primitive("clip")
@pytest.mark.parametrize("dtype", FLOATS)
def test_clip_keeps_nan(device, dtype):
    x, layout = _storage(device, [np.nan, -5.0, 5.0, 0.5], dtype)
    got = read_result(x.clip(layout, 0.0, 1.0), dtype, (4,))
    Expected(np.array([np.nan, 0.0, 1.0, 0.5], dtype.numpy)).check(got)
