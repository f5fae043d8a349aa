"""NumPy's dispatch protocols on candlewick arrays (NEP 13 ``__array_ufunc__``, NEP 18
``__array_function__``): NumPy calls that candlewick has an equal of return candlewick
arrays on the same device; the rest run NumPy on host copies (refused where arrays do
not convert implicitly), and mixing with NumPy arrays never moves data silently."""

import numpy as np
import pytest

import candlewick as cw
from candlewick import numpy_protocols

DATA = np.array([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])


def _same(got, expected, device):
    assert isinstance(got, cw.Array) and got.device == device
    np.testing.assert_allclose(cw.to_numpy(got), expected, rtol=1e-12)


UFUNC_CASES = [
    ("sin", lambda m, x: m.sin(x)), ("add", lambda m, x: m.add(x, 2.5)),
    ("power", lambda m, x: m.power(abs(x), 2)), ("arctan2", lambda m, x: m.arctan2(x, 1.0)),
    ("maximum", lambda m, x: m.maximum(x, 0.0)), ("greater", lambda m, x: m.greater(x, 0.0)),
    ("matmul", lambda m, x: m.matmul(x, x.T)), ("add.reduce", lambda m, x: m.add.reduce(x, axis=1)),
    ("maximum.reduce", lambda m, x: m.maximum.reduce(x)), ("numpy scalar", lambda m, x: np.float64(2.0) * x),
    ("dtype=None", lambda m, x: m.multiply(x, x, dtype=None)),
]
FUNCTION_CASES = [
    ("sum", lambda x: np.sum(x, axis=0)), ("sum keepdims", lambda x: np.sum(x, axis=1, keepdims=True)),
    ("mean", lambda x: np.mean(x)), ("std ddof", lambda x: np.std(x, axis=0, ddof=1)),
    ("max", lambda x: np.max(x, axis=1)), ("argmin", lambda x: np.argmin(x, axis=0)),
    ("transpose", lambda x: np.transpose(x)), ("concatenate", lambda x: np.concatenate([x, x], axis=1)),
    ("stack", lambda x: np.stack([x, x])), ("reshape", lambda x: np.reshape(x, (3, 2))),
    ("squeeze", lambda x: np.squeeze(x[:1])), ("expand_dims", lambda x: np.expand_dims(x, 0)),
    ("broadcast_to", lambda x: np.broadcast_to(x[0], (4, 3))), ("where", lambda x: np.where(x > 0, x, 0.0)),
    ("clip", lambda x: np.clip(x, -1.0, 1.0)), ("cumsum", lambda x: np.cumsum(x, axis=1)),
    ("cumsum flat", lambda x: np.cumsum(x)), ("tensordot", lambda x: np.tensordot(x, x.T, axes=1)),
    ("zeros_like", lambda x: np.zeros_like(x)), ("full_like", lambda x: np.full_like(x, 7.0)),
    ("empty_like shape", lambda x: np.zeros_like(x, shape=(2, 2)) * 0),
    ("sort", lambda x: np.sort(x, axis=1)), ("argsort", lambda x: np.argsort(x, axis=0)),
]


@pytest.mark.parametrize("name,call", UFUNC_CASES, ids=[c[0] for c in UFUNC_CASES])
def test_ufuncs_run_candlewick(name, call, device):
    x = cw.asarray(DATA, device=device)
    _same(call(np, x), call(np, DATA), device)


@pytest.mark.parametrize("name,call", FUNCTION_CASES, ids=[c[0] for c in FUNCTION_CASES])
def test_functions_run_candlewick(name, call, device):
    x = cw.asarray(DATA, device=device)
    _same(call(x), call(DATA), device)


NAN_DATA = np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, np.nan], [0.5, 2.0, -1.0]])
NAN_CASES = [(name, kwargs, dtype)
             for name in ("nansum", "nanmean", "nanvar", "nanstd", "nanmax", "nanmin")
             for kwargs in ({}, {"axis": 1}, {"axis": 0, "keepdims": True})
             for dtype in ("float64", "float32", "complex128")
             if not (dtype == "complex128" and name in ("nanmax", "nanmin"))]  # complex: no order
NAN_CASES += [("nanvar", {"axis": 1, "ddof": 1}, "float64"), ("nanstd", {"axis": 0, "ddof": 2}, "float64")]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy warns on the all-NaN row
@pytest.mark.parametrize("name,kwargs,dtype", NAN_CASES, ids=[f"{n}-{k}-{d}" for n, k, d in NAN_CASES])
def test_nan_reductions_run_candlewick(name, kwargs, dtype, device):
    data = NAN_DATA.astype(dtype) * (1 - 1j if dtype == "complex128" else 1)
    got = getattr(np, name)(cw.asarray(data, device=device), **kwargs)
    expected = getattr(np, name)(data, **kwargs)
    assert isinstance(got, cw.Array)
    np.testing.assert_allclose(cw.to_numpy(got), expected, rtol=1e-5 if dtype == "float32" else 1e-12,
                               equal_nan=True)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy warns on the all-NaN row
def test_positional_ddof_of_nanvar(device):
    got = np.nanvar(cw.asarray(NAN_DATA, device=device), 1, None, None, 1)
    assert isinstance(got, cw.Array)
    np.testing.assert_allclose(cw.to_numpy(got), np.nanvar(NAN_DATA, 1, None, None, 1), equal_nan=True)


def test_shape_queries_need_no_host_copy(device):
    x = cw.asarray(DATA, device=device)
    assert np.shape(x) == (2, 3) and np.ndim(x) == 2 and np.size(x) == 6 and np.size(x, 1) == 3


def test_candlewick_errors_are_not_hidden(device):
    x = cw.asarray(DATA, device=device)
    with pytest.raises(IndexError):
        np.sum(x, axis=5)


def _host_readable(device):
    try:
        np.asarray(cw.asarray([1.0], device=device))
        return True
    except TypeError:
        return False


@pytest.mark.parametrize("call", [
    lambda x: np.ptp(x, axis=1),                     # no candlewick equal
], ids=["ptp"])
def test_other_calls_run_numpy_on_host_copies(call, device):
    x = cw.asarray(DATA, device=device)
    if _host_readable(device):
        got = call(x)
        assert not isinstance(got, cw.Array)
        np.testing.assert_allclose(np.asarray(got), call(DATA))
    else:  # implicit device-to-host stays refused, by an error naming NumPy's function
        with pytest.raises(TypeError, match=r"numpy\.ptp: .*implicit conversion"):
            call(x)


@pytest.mark.parametrize("call", [
    lambda x: np.add(x, 1.0, out=np.empty((2, 3))),  # a NumPy array as out
    lambda x: np.add(np.ones(3), x),
    lambda x: np.ones(3) + x,                        # NumPy's operator defers to the ufunc
    lambda x: x + np.ones(3),
], ids=["out", "mixed ufunc", "ndarray + x", "x + ndarray"])
def test_operators_and_ufuncs_mixing_numpy_arrays_raise_candlewicks_type_error(call, device):
    """One rule for NumPy arrays as operands of operators and ufuncs (docs/errors.md):
    candlewick's TypeError, whichever side the NumPy array is on."""
    x = cw.asarray(DATA, device=device)
    with pytest.raises(cw.errors.ArgumentTypeError, match="candlewick"):
        call(x)


@pytest.mark.parametrize("call,expected", [
    (lambda x: np.float64(1.0) == x[0, 0], True),   # NumPy makes its scalar a 0-d array first
    (lambda x: np.float32(2.5) < x[0], [False, False, True]),
    (lambda x: np.int64(2) * x[1], [1.0, 8.0, -3.0]),
    (lambda x: np.add(np.asarray(1.0), x[0]), [2.0, -1.0, 4.0]),
], ids=["scalar == x", "scalar < x", "scalar * x", "0-d array operand"])
def test_numpy_scalars_are_scalars_beside_candlewick_arrays(call, expected, device):
    """A NumPy scalar (which NumPy's operators hand to the ufunc as a 0-d array) is a scalar
    operand, as a Python one is: no mixing of arrays, the result stays on the device
    (SciPy's tests compare np.float64 elements with candlewick ones)."""
    x = cw.asarray(DATA, device=device)
    got = call(x)
    assert isinstance(got, cw.Array) and got.device == x.device
    assert cw.to_numpy(got).tolist() == expected


@pytest.mark.parametrize("call", [
    lambda x: np.sum(x, where=np.ones((2, 3), bool)),
    lambda x: np.concatenate([x, DATA]),
    lambda x: np.average(x, axis=1, weights=np.arange(1.0, 4.0)),  # scikit-learn's metrics
], ids=["where", "concatenate", "average with weights"])
def test_numpy_functions_mixing_numpy_arrays_run_on_host_copies(call, device):
    """A NumPy *function* given candlewick and NumPy arrays together runs as NumPy on host
    copies (NumPy's result, as for lists) where the memory is host-readable, and is refused
    with candlewick's TypeError where it is not (no implicit device-to-host copy)."""
    x = cw.asarray(DATA, device=device)
    if _host_readable(device):
        got = call(x)
        assert isinstance(got, (np.ndarray, np.generic))
        np.testing.assert_allclose(got, call(DATA))
    else:
        with pytest.raises(TypeError, match="implicit conversion"):
            call(x)


def test_memory_queries_take_a_numpy_array_beside_a_candlewick_one(device):
    """``np.may_share_memory``/``np.shares_memory`` compute nothing from the elements, so a
    NumPy array beside a candlewick one is no mixed operation (scikit-learn asks this)."""
    x = cw.asarray(DATA, device=device)
    other = np.ones(3)
    if _host_readable(device):
        assert np.may_share_memory(x, other) is False and np.shares_memory(x, other) is False
    else:  # implicit device-to-host stays refused
        with pytest.raises(TypeError, match="implicit conversion"):
            np.may_share_memory(x, other)


def test_dispatch_is_made_once_per_name():
    """A ufunc or function call looks its candlewick function up through one cached caller
    per name, not a new closure per call."""
    assert numpy_protocols._cw.sum is numpy_protocols._cw.sum
    assert numpy_protocols._ufunc_function(np.add) is numpy_protocols._ufunc_function(np.add)
    assert numpy_protocols._ufunc_function(np.add) is numpy_protocols._cw.add
    x = cw.asarray([1.0, 2.0])
    assert np.add(x, x).tolist() == [2.0, 4.0]
    assert np.add.reduce(x).item() == 3.0
