"""Integer semantics where the contract differs from raw NumPy: pow with negative
exponents, shift counts outside [0, bits), division and remainder by zero."""

import warnings

import numpy as np
import pytest

from candlewick import dtypes as dt
from candlewick.opdefs import BinaryOp

from cpu_helpers import download, upload


def contract_pow(base, exp, np_dtype):
    bits = np.dtype(np_dtype).itemsize * 8
    if exp < 0:
        if base == 1:
            return 1
        if base == -1:
            return -1 if exp % 2 else 1
        return 0
    value = pow(int(base), int(exp), 2**bits)
    if np.dtype(np_dtype).kind == "i" and value >= 2 ** (bits - 1):
        value -= 2**bits
    return value


@pytest.mark.parametrize("dtype", dt.SIGNED)
def test_pow_negative_exponent(dtype):
    info = np.iinfo(dtype.numpy)
    bases = np.array([1, -1, 2, -2, 0, 3, info.min, info.max, -1, 1], dtype.numpy)
    exps = np.array([-3, -3, -1, -2, -1, 4, -1, -5, -4, info.min], dtype.numpy)
    a, la = upload(bases)
    b, lb = upload(exps)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = download(a.binary(BinaryOp.POW, la, b, lb), bases.shape)
    expected = [contract_pow(x, e, dtype.numpy) for x, e in zip(bases.tolist(), exps.tolist())]
    assert got.tolist() == expected


@pytest.mark.parametrize("dtype", [dt.int8, dt.int64])
@pytest.mark.parametrize("reflected", [False, True])
def test_pow_scalar_negative_exponent(dtype, reflected):
    values = np.array([1, -1, 5, -7, 0, -2], dtype.numpy)
    a, la = upload(values)
    if reflected:  # scalar base, tensor exponent
        out = a.binary_scalar(BinaryOp.POW, la, -1, True)
        expected = [contract_pow(-1, e, dtype.numpy) for e in values.tolist()]
    else:
        out = a.binary_scalar(BinaryOp.POW, la, -3, False)
        expected = [contract_pow(x, -3, dtype.numpy) for x in values.tolist()]
    assert download(out, values.shape).tolist() == expected


@pytest.mark.parametrize("dtype", dt.INTEGER)
def test_shift_counts_outside_the_width(dtype):
    bits = dtype.bits
    signed = dtype in dt.SIGNED
    values = np.array([5, 5, 5, 5, -5 if signed else 250, -5 if signed else 250, 1], dtype.numpy)
    counts = [-1 if signed else 0, bits, bits + 3, 1, bits, -2 if signed else bits + 1, bits - 1]
    counts = np.array(counts, dtype.numpy)
    a, la = upload(values)
    c, lc = upload(counts)
    left = download(a.binary(BinaryOp.BITWISE_LEFT_SHIFT, la, c, lc), values.shape).tolist()
    right = download(a.binary(BinaryOp.BITWISE_RIGHT_SHIFT, la, c, lc), values.shape).tolist()
    for v, n, got_l, got_r in zip(values.tolist(), counts.tolist(), left, right):
        if 0 <= n < bits:
            wrapped = (v << n) % 2**bits
            if signed and wrapped >= 2 ** (bits - 1):
                wrapped -= 2**bits
            assert (got_l, got_r) == (wrapped, v >> n)
        else:
            assert (got_l, got_r) == (0, -1 if v < 0 else 0)


@pytest.mark.parametrize("dtype", dt.INTEGER)
def test_division_and_remainder_by_zero_give_zero_silently(dtype):
    values = np.array([7, 0, 1, 100], dtype.numpy)
    zeros = np.zeros(4, dtype.numpy)
    a, la = upload(values)
    z, lz = upload(zeros)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for op in (BinaryOp.FLOOR_DIVIDE, BinaryOp.REMAINDER):
            assert download(a.binary(op, la, z, lz), (4,)).tolist() == [0, 0, 0, 0]
            assert download(a.binary_scalar(op, la, 0, False), (4,)).tolist() == [0, 0, 0, 0]


@pytest.mark.parametrize("dtype", dt.SIGNED)
def test_min_divided_by_minus_one_wraps(dtype):
    lo = np.iinfo(dtype.numpy).min
    a, la = upload(np.array([lo, -7], dtype.numpy))
    m, lm = upload(np.array([-1, 2], dtype.numpy))
    assert download(a.binary(BinaryOp.FLOOR_DIVIDE, la, m, lm), (2,)).tolist() == [lo, -4]
    assert download(a.binary(BinaryOp.REMAINDER, la, m, lm), (2,)).tolist() == [0, 1]
