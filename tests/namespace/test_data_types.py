"""astype, can_cast, finfo, iinfo and result_type against array-api-strict and NumPy."""

import itertools

import array_api_strict as xp
import numpy as np
import pytest

import candlewick as cw
from _oracle import check, on, transposed

NAMES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
         "float32", "float64", "complex64", "complex128"]


def _strict_or_error(fn, *args):
    try:
        return fn(*args)
    except (TypeError, ValueError, OverflowError) as exc:
        return type(exc)


@pytest.mark.parametrize("src", NAMES)
def test_astype_every_pair(device, src):
    host = np.array([0, 1, 3, 7, 100], dtype=np.int64).astype(src)
    x = on(device, host)
    for dst in NAMES:
        if np.dtype(src).kind == "c" and np.dtype(dst).kind not in "cb":
            with pytest.raises(TypeError):
                cw.astype(x, getattr(cw, dst))
            continue
        check(cw.astype(x, getattr(cw, dst)), host.astype(dst))


def test_astype_copy_semantics_and_views(device):
    x = on(device, np.arange(6.0).reshape(2, 3))
    assert cw.astype(x, cw.float64, copy=False) is x
    y = cw.astype(x, cw.float64)
    assert y is not x
    y[0, 0] = 42.0
    assert cw.to_numpy(x)[0, 0] == 0.0
    check(cw.astype(transposed(device, np.arange(6).reshape(2, 3)), cw.float32),
          np.arange(6).reshape(2, 3).astype(np.float32))
    check(cw.astype(on(device, [-1.7, 2.9, 0.0]), cw.int32), np.array([-1, 2, 0], np.int32))


def test_astype_device_argument(device):
    x = on(device, [1, 2, 3])
    out = cw.astype(x, cw.float64, device=device)
    assert out.device is device
    check(out, np.array([1.0, 2.0, 3.0]))
    other = cw.get_device("cpu")
    moved = cw.astype(x, cw.int64, device=other, copy=False)
    assert moved.device is other
    check(moved, np.array([1, 2, 3]))


def test_astype_rejects_bad_arguments(device):
    x = on(device, [1, 2])
    with pytest.raises(TypeError, match="dtype"):
        cw.astype(x, "not-a-dtype")
    with pytest.raises(TypeError, match="x"):
        cw.astype([1, 2], cw.float32)


def test_can_cast_matches_strict(device):
    for a, b in itertools.product(NAMES, NAMES):
        assert cw.can_cast(getattr(cw, a), getattr(cw, b)) == xp.can_cast(getattr(xp, a), getattr(xp, b)), (a, b)
    x = on(device, np.zeros(2, np.int16))
    assert cw.can_cast(x, cw.int32) and not cw.can_cast(x, cw.uint16)
    # NumPy dtypes and dtype names are read as the candlewick dtype of the same type
    assert cw.can_cast("int8", cw.int16) and cw.can_cast(cw.int8, np.int16)
    with pytest.raises(TypeError, match="can_cast: to"):
        cw.can_cast(cw.int8, np.dtype("datetime64[s]"))
    with pytest.raises(TypeError, match="can_cast: from_"):
        cw.can_cast(3, cw.int16)


@pytest.mark.parametrize("name", ["float32", "float64", "complex64", "complex128"])
def test_finfo_matches_strict(device, name):
    got, want = cw.finfo(getattr(cw, name)), xp.finfo(getattr(xp, name))
    for field in ("bits", "eps", "max", "min", "smallest_normal"):
        assert getattr(got, field) == getattr(want, field), field
        assert type(getattr(got, field)) is (int if field == "bits" else float)
    assert got.dtype is {"complex64": cw.float32, "complex128": cw.float64}.get(name, getattr(cw, name))
    assert cw.finfo(on(device, np.zeros(1, name))) == got


def test_finfo_of_half_precision_types():
    assert cw.finfo(cw.float16).eps == float(np.finfo(np.float16).eps)
    assert cw.finfo(cw.bfloat16).bits == 16 and cw.finfo(cw.bfloat16).eps == 2.0 ** -7


@pytest.mark.parametrize("name", ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"])
def test_iinfo_matches_numpy(device, name):
    got, want = cw.iinfo(getattr(cw, name)), np.iinfo(name)
    assert (got.bits, got.min, got.max) == (want.bits, int(want.min), int(want.max))
    assert got.dtype is getattr(cw, name)
    assert cw.iinfo(on(device, np.zeros(1, name))) == got


def test_info_functions_reject_wrong_kinds():
    with pytest.raises(TypeError, match="floating"):
        cw.finfo(cw.int32)
    with pytest.raises(TypeError, match="integer"):
        cw.iinfo(cw.float32)
    with pytest.raises(TypeError):
        cw.iinfo(int)


@cw.promotion_mode("strict")
def test_result_type_of_dtype_pairs_matches_strict():
    for a, b in itertools.product(NAMES, NAMES):
        want = _strict_or_error(xp.result_type, getattr(xp, a), getattr(xp, b))
        if isinstance(want, type):
            with pytest.raises(TypeError):
                cw.result_type(getattr(cw, a), getattr(cw, b))
        else:
            assert cw.result_type(getattr(cw, a), getattr(cw, b)).name == want._np_dtype.name, (a, b)


@cw.promotion_mode("strict")
def test_result_type_with_python_scalars_matches_strict(device):
    for name, scalar in itertools.product(NAMES, [True, 1, -1, 2.5, 1j]):
        want = _strict_or_error(xp.result_type, getattr(xp, name), scalar)
        if isinstance(want, type):
            with pytest.raises(want):
                cw.result_type(getattr(cw, name), scalar)
        else:
            assert cw.result_type(getattr(cw, name), scalar).name == want._np_dtype.name, (name, scalar)
    # a scalar never widens an integer dtype: one out of its range is an error
    assert cw.result_type(cw.int8, 127) is cw.int8
    with pytest.raises(OverflowError):
        cw.result_type(cw.int8, 128)
    # uint8 and int8 promote to int16, which a Python float does not join
    with pytest.raises(TypeError):
        cw.result_type(on(device, [1], np.uint8), on(device, [1], np.int8), 1.0)
    assert cw.result_type(on(device, [1], np.uint8), cw.int8, 3) is cw.int16
    assert cw.result_type(cw.float32, 1, 2.0, 3j) is cw.complex64


def test_result_type_rejects_bad_arguments():
    with pytest.raises(ValueError, match="at least one"):
        cw.result_type(1, 2.0)
    with pytest.raises(ValueError, match="at least one"):
        cw.result_type()
    with pytest.raises(TypeError):
        cw.result_type(cw.int8, "not-a-dtype")
    with pytest.raises(TypeError, match="no candlewick equal"):
        cw.result_type(cw.int8, np.dtype(object))
    assert cw.result_type(cw.int8, "int16", np.int32) is cw.int32
