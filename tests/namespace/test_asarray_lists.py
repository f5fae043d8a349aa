"""asarray of a flat Python list with an explicit float32/float64 dtype (the array
module's one-pass conversion) against NumPy, and what it hands to the long path."""

from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

import candlewick as cw
from candlewick.errors import ArgumentTypeError, DTypeError


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_flat_float_lists_round_as_numpy(device, dtype):
    values = [0.1, -2.5, 1e-45, 3.4028235677973366e38, 1e300, -1e300, float("nan"), float("inf"), -0.0,
              True, 7, 2**70, np.float64(0.3), np.float32(1.5)]
    got = cw.to_numpy(cw.asarray(values, dtype=getattr(cw, dtype), device=device))
    with np.errstate(over="ignore"):  # NumPy warns that 1e300 becomes inf in float32
        want = np.array(values, dtype=dtype)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    assert np.signbit(got[8])


def test_numbers_with_float_convert_as_numpy_does_with_a_dtype(device):
    got = cw.asarray([Fraction(1, 3), Decimal("0.25")], dtype=cw.float64, device=device)
    np.testing.assert_array_equal(cw.to_numpy(got), np.array([Fraction(1, 3), Decimal("0.25")], dtype=np.float64))


def test_what_float_refuses_gets_candlewicks_error(device):
    with pytest.raises(ArgumentTypeError, match="strings are not array data"):
        cw.asarray(["1.5", 2.0], dtype=cw.float32, device=device)
    with pytest.raises(ArgumentTypeError, match="must hold numbers"):
        cw.asarray([None, 2.0], dtype=cw.float32, device=device)
    with pytest.raises(DTypeError, match="complex"):
        cw.asarray([1 + 2j, 2.0], dtype=cw.float64, device=device)


def test_nested_and_empty_lists_keep_their_shape(device):
    assert cw.asarray([[1.0, 2.0], [3.0, 4.0]], dtype=cw.float32, device=device).shape == (2, 2)
    empty = cw.asarray([], dtype=cw.float64, device=device)
    assert empty.shape == (0,) and empty.dtype == cw.float64
