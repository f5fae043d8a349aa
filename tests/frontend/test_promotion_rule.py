"""The promotion rule of docs/promotion.md, on every backend under test: where the Array
API standard defines a result both modes follow it; where it leaves kinds mixed the
default mode gives the higher kind (a Python scalar of a higher kind: that kind's default
dtype) and strict mode raises; float-only functions, ``where`` and ``x[...] = v`` follow
the same rule."""

import itertools
import os
import subprocess
import sys

import numpy as np
import pytest

import candlewick as cw
from candlewick import dtypes as dt
from candlewick.errors import DTypeError
from candlewick.type_promotion import standard_promotion

NAMES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
         "float16", "bfloat16", "float32", "float64", "complex64", "complex128"]
LEVEL = {"b": 0, "i": 1, "u": 1, "f": 2, "c": 3}


def _level(name):
    return LEVEL[np.dtype(dt.from_name(name).numpy).kind] if name != "bfloat16" else 2


def _expected_default(a, b):
    """The rule written out independently of the library: the standard's table where it
    has an entry, else the higher kind; signed with uint64 has no result."""
    standard = standard_promotion(dt.from_name(a), dt.from_name(b))
    if standard is not None:
        return standard.name
    if _level(a) == _level(b):
        return None
    return a if _level(a) > _level(b) else b


def _sample(name, device):
    host = np.ones(2, dtype=bool) if name == "bool" else np.ones(2, dtype=dt.from_name(name).numpy)
    return cw.asarray(host, device=device)


@pytest.mark.parametrize("first", NAMES)
def test_every_dtype_pair_in_both_modes(device, first):
    for second in NAMES:
        a, b = _sample(first, device), _sample(second, device)
        expected = _expected_default(first, second)
        standard = standard_promotion(dt.from_name(first), dt.from_name(second))
        op = cw.logical_and if first == second == "bool" else cw.multiply
        if expected is None:
            for mode in ("default", "strict"):
                with cw.promotion_mode(mode), pytest.raises(DTypeError, match="no integer dtype"):
                    op(a, b)
            continue
        assert cw.result_type(a, b).name == expected, (first, second)
        assert op(a, b).dtype.name == expected, (first, second)
        assert cw.where(cw.asarray([True, False], device=device), a, b).dtype.name == expected
        assert cw.concat([a, b]).dtype.name == expected
        with cw.promotion_mode("strict"):
            if standard is None:
                with pytest.raises(DTypeError, match="strict promotion mode"):
                    op(a, b)
            else:
                assert op(a, b).dtype is standard
    # can_cast stays the standard's: no cross-kind casts are "safe"
    assert not cw.can_cast(cw.int32, cw.float32) and cw.can_cast(cw.int8, cw.int16)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("scalar", [True, 3, 2.5, 1j])
def test_python_scalars(device, name, scalar):
    x = _sample(name, device)
    array_level, scalar_level = _level(name), LEVEL[type(scalar).__name__[0]]
    if scalar_level <= array_level:
        expected = name
    elif scalar_level == 3 and array_level == 2:
        expected = "complex128" if name == "float64" else "complex64"
    else:
        expected = {1: "int64", 2: "float64", 3: "complex128"}[scalar_level]
    op = cw.logical_and if name == "bool" and scalar is True else cw.multiply
    assert op(x, scalar).dtype.name == expected
    assert op(scalar, x).dtype.name == expected
    assert cw.result_type(x, scalar).name == expected
    np.testing.assert_allclose(cw.to_numpy(op(x, scalar).astype(cw.complex128)),
                               np.full(2, complex(scalar)))
    standard_case = (scalar_level <= array_level and not (scalar_level == 0 and array_level > 0)) or (
        scalar_level == 3 and array_level == 2)
    with cw.promotion_mode("strict"):
        if standard_case:
            assert op(x, scalar).dtype.name == expected
        else:
            with pytest.raises(DTypeError, match="strict promotion mode"):
                op(x, scalar)


def test_the_first_day_examples(device):
    x = cw.asarray([[1, 2], [3, 4]], dtype=cw.int32, device=device)
    host = np.array([[1, 2], [3, 4]], np.int32)
    for got, want in [(x + 1.5, host + 1.5), (x * 0.5, host * 0.5), (2.5 - x, 2.5 - host),
                      (x / 2, host / 2), (cw.sqrt(x), np.sqrt(host.astype(np.float64))),
                      (cw.exp(x), np.exp(host.astype(np.float64))),
                      (cw.atan2(x, x + 1), np.arctan2(host, host + 1.0)),
                      (cw.where(x > 2, x, 0.5), np.where(host > 2, host, 0.5))]:
        assert got.dtype is cw.float64
        np.testing.assert_allclose(cw.to_numpy(got), want)
    assert (x == 1.5).dtype is cw.bool and not cw.to_numpy(x == 1.5).any()
    np.testing.assert_array_equal(cw.to_numpy(cw.clip(x, 1.5, 3.5)), np.clip(host, 1.5, 3.5))
    bound = cw.asarray([1.5, 2.5], device=device)
    clipped = cw.clip(x, bound, cw.asarray(3, dtype=cw.int8, device=device))
    assert clipped.dtype is cw.float64
    np.testing.assert_array_equal(cw.to_numpy(clipped), np.clip(host, [1.5, 2.5], 3))
    f32 = cw.asarray([0.5, 0.25], dtype=cw.float32, device=device)
    got = x[0] + f32
    assert got.dtype is cw.float32
    np.testing.assert_array_equal(cw.to_numpy(got), np.array([1.5, 2.25], np.float32))
    assert cw.sqrt(cw.asarray([True, False], device=device)).dtype is cw.float64
    assert (cw.asarray([True, False], device=device) + 1).dtype is cw.int64
    with pytest.raises(DTypeError, match="imag"):  # its integer answer would be all zeros
        cw.imag(x)
    with pytest.raises(DTypeError, match="clip: min and max must be real"):  # not the backend's refusal
        cw.clip(x, max=2.5 - 1j)


def test_storing_converts_to_the_target_dtype(device):
    x = cw.asarray([0, 0, 0, 0], dtype=cw.int32, device=device)
    x[0] = 7.9
    x[1] = -7.9
    x[2] = np.float32(2.5)
    x[3:] = cw.asarray([9.99], dtype=cw.float64, device=device)
    assert x.dtype is cw.int32
    assert cw.to_numpy(x).tolist() == [7, -7, 2, 9]  # truncated toward zero, as NumPy and PyTorch
    b = cw.asarray([False, False], device=device)
    b[0] = 0.5
    assert cw.to_numpy(b).tolist() == [True, False]
    with pytest.raises(ValueError, match="NaN or infinity"):
        x[0] = float("nan")
    with pytest.raises(OverflowError, match="out of range for int32"):
        x[0] = 1e20
    with pytest.raises(DTypeError, match="real part"):
        x[0] = 1 + 2j
    assert cw.to_numpy(x).tolist() == [7, -7, 2, 9]  # failed stores wrote nothing
    np.testing.assert_array_equal(cw.to_numpy(cw.full((2,), 1.5, dtype=cw.int32, device=device)), [1, 1])
    assert cw.to_numpy(cw.asarray(-2.7, dtype=cw.int8, device=device)) == -2
    with cw.promotion_mode("strict"):
        with pytest.raises(DTypeError) as info:
            cw.full((2,), 1.5, dtype=cw.int32, device=device)
        assert "cast the array" not in str(info.value) and "strict promotion mode" in str(info.value)
        with pytest.raises(DTypeError):
            x[0] = 1.5
        with pytest.raises(DTypeError):
            cw.clip(x, cw.asarray([0.5], device=device))


def test_in_place_operators_keep_the_left_dtype(device):
    x = cw.asarray([1, 2], dtype=cw.int32, device=device)
    with pytest.raises(DTypeError, match="keep the left operand's dtype"):
        x += 1.5
    assert cw.to_numpy(x).tolist() == [1, 2]


def test_numpy_scalars_are_named_as_numpy_scalars(device):
    x = cw.asarray([1, 2], dtype=cw.int32, device=device)
    assert (x + np.float32(0.5)).dtype is cw.float64  # taken by kind, as a Python float
    with cw.promotion_mode("strict"):
        with pytest.raises(DTypeError, match="a NumPy float32 scalar") as info:
            x + np.float32(0.5)
        assert "Python float" not in str(info.value)
        with pytest.raises(DTypeError, match="a Python float"):
            x + 0.5


def test_strict_mode_switches(device):
    x = cw.asarray([1, 2], dtype=cw.int32, device=device)
    assert cw.get_promotion_mode() == "default"
    cw.set_promotion_mode("strict")
    try:
        assert cw.get_promotion_mode() == "strict"
        with pytest.raises(DTypeError, match="astype"):
            cw.sqrt(x)
        with cw.promotion_mode("default"):  # a block overrides the process-wide mode
            assert cw.sqrt(x).dtype is cw.float64
    finally:
        cw.set_promotion_mode("default")
    with pytest.raises(ValueError, match="mode must be one of"):
        cw.set_promotion_mode("loose")
    with pytest.raises(ValueError, match="mode must be one of"):
        with cw.promotion_mode("numpy"):
            pass


@pytest.mark.parametrize("value, expect", [("strict", "strict"), ("", "default"), ("lenient", "default")])
def test_strict_mode_from_the_environment(value, expect):
    code = ("import warnings; warnings.simplefilter('always')\n"
            "import candlewick as cw; print(cw.get_promotion_mode())")
    env = dict(os.environ, CANDLEWICK_PROMOTION=value)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60,
                         cwd=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    assert out.returncode == 0, out.stderr
    assert out.stdout.split()[-1] == expect
    assert ("is not one of" in out.stderr) == (value == "lenient")
