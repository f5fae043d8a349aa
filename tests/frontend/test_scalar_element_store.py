"""x[i, j] = a Python bool, int or float, one int index per axis: candlewick._native's
element store writes it from C where the conversion is exact and asks nothing of the
promotion mode (cw_element_put), and leaves every other value to the Python method. On
every backend under test, in both promotion modes, with the module bound or not, the
array left and the error raised are those of the Python method's store of the same value
through a slice key (conversion and fill, never the element path)."""

import enum
import threading

import numpy as np
import pytest

import candlewick as cw
from candlewick import _core
from candlewick import array as array_module
from candlewick.errors import OutOfRangeError, ReadOnlyError

native = pytest.mark.skipif(_core._native is None, reason="candlewick._native was not built here")

DTYPES = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
          "float16", "float32", "float64", "complex64", "complex128"]
F32_MAX = float(np.finfo(np.float32).max)
INTS = [0, 1, -1, 127, 128, -128, -129, 255, 256, 2**15, -(2**15) - 1, 2**16, 2**31 - 1, 2**31, -(2**31) - 1,
        2**32, 2**53 + 1, 2**63 - 1, 2**63, -(2**63), -(2**63) - 1, 2**64 - 1, 2**64, 10**400]
FLOATS = [0.0, -0.0, 0.1, -2.75, 1e-45, 1e-320, F32_MAX, np.nextafter(F32_MAX, np.inf).item(), 1e300,
          float("inf"), float("-inf"), float("nan")]
VALUES = INTS + FLOATS + [True, False, 1j, 2 + 0j]


class Level(enum.IntEnum):
    ONE = 1


def _outcome(store, dtype, device, value):
    x = cw.asarray(np.zeros((2, 3)), dtype=getattr(cw, dtype), device=device)
    try:
        store(x, value)
    except Exception as exc:  # noqa: BLE001 - the two paths' errors are compared
        return type(exc), str(exc)
    return cw.to_numpy(x).tobytes()


def _element(x, value):
    x[1, 2] = value


def _through_a_slice(x, value):
    x[1:2, 2:3] = value  # (setitem_value's conversion and the storage's fill)


@pytest.mark.parametrize("bound", [True, False])
@pytest.mark.parametrize("mode", ["default", "strict"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_element_stores_leave_what_the_python_method_leaves(device, dtype, mode, bound):
    if not bound and _core._native is None:
        pytest.skip("candlewick._native was not built here")
    if not bound:
        _core._native.unbind()
    try:
        with cw.promotion_mode(mode):
            for value in VALUES + [np.float64(0.5), Level.ONE]:
                want = _outcome(_through_a_slice, dtype, device, value)
                assert _outcome(_element, dtype, device, value) == want, (dtype, mode, value)
    finally:
        if not bound:
            _core.bind_native(array_module.Array)


def test_element_stores_convert_and_refuse_as_documented(device):
    x = cw.asarray(np.zeros((2, 2)), dtype=cw.float32, device=device)
    x[0, 1] = 0.1
    x[1, -1] = 2**24 + 1  # an int through float(), then rounded to float32
    assert cw.to_numpy(x).tolist() == [[0, np.float32(0.1)], [0, 2**24]]
    i = cw.asarray(np.zeros((2, 2), np.int8), device=device)
    i[1, 0], i[0, 1] = -128, 127
    with pytest.raises(OutOfRangeError, match="out of range for int8"):
        i[0, 0] = 128
    with pytest.raises(ValueError, match="integers have no NaN"):
        i[0, 0] = float("inf")
    with pytest.raises(cw.errors.DTypeError, match="complex"):
        x[0, 0] = 1j
    with cw.promotion_mode("strict"), pytest.raises(cw.errors.DTypeError, match="strict"):
        i[0, 0] = 1.5
    assert cw.to_numpy(i).tolist() == [[0, 127], [-128, 0]]
    u = cw.asarray(np.zeros(2, np.uint64), device=device)
    u[1] = 2**64 - 1
    assert cw.to_numpy(u).tolist() == [0, 2**64 - 1]


EXACT = {
    "bool": [True, False],
    "int8": [-128, 127, 0], "uint8": [255, 0], "int16": [-(2**15), 2**15 - 1], "uint16": [2**16 - 1],
    "int32": [-(2**31), 2**31 - 1], "uint32": [2**32 - 1], "int64": [-(2**63), 2**63 - 1, -1],
    "uint64": [2**64 - 1, 2**63],
    "float32": [0, 0.1, -0.0, F32_MAX, -F32_MAX, float("inf"), float("nan"), 2**24 + 1, 10**38],
    "float64": [0, 0.5, -0.0, 1e300, float("-inf"), float("nan"), 2**53 + 1, 10**308],
}
# each value the Python method converts: another kind (mode-dependent), out of range,
# float16 and complex dtypes, past float32's range, a subclass or NumPy scalar
DECLINED = {
    "bool": [1, 0.0], "int8": [128, -129, True, 1.0], "uint8": [-1, 256], "int64": [2**63, 0.5],
    "uint64": [-1, 2**64], "float32": [np.nextafter(F32_MAX, np.inf).item(), 1e300, 10**39, True, np.float64(1.0)],
    "float64": [10**400, 1j, Level.ONE, False], "float16": [0.5, 1], "complex64": [1.0, 1, 1j],
}


def _refuse(*args):
    raise AssertionError("the Python method ran")


@native
@pytest.mark.parametrize("dtype", sorted(EXACT))
def test_exact_stores_never_reach_the_python_method(dtype, monkeypatch):
    x = cw.asarray(np.zeros((3, 4)), dtype=getattr(cw, dtype))
    host = cw.to_numpy(x).copy()
    monkeypatch.setattr(array_module._indexing, "setitem", _refuse)
    for k, value in enumerate(EXACT[dtype]):
        x[k % 3, -1 - k % 4] = value
        host[k % 3, -1 - k % 4] = float(value) if dtype.startswith("float") else value
    assert cw.to_numpy(x).tobytes() == host.tobytes()


@native
@pytest.mark.parametrize("dtype", sorted(DECLINED))
def test_other_stores_are_the_python_methods(dtype, monkeypatch):
    x = cw.asarray(np.zeros((3, 4)), dtype=getattr(cw, dtype))
    monkeypatch.setattr(array_module._indexing, "setitem", _refuse)
    for value in DECLINED[dtype]:
        with pytest.raises(AssertionError, match="the Python method ran"):
            x[1, 1] = value
    assert not cw.to_numpy(x).any()


@native
def test_what_the_c_store_leaves_to_the_storage_and_lazy_mode():
    ro = np.zeros((2, 2), np.float32)
    ro.flags.writeable = False
    with pytest.raises(ReadOnlyError, match="read-only"):
        cw.from_dlpack(ro)[0, 1] = 1.0
    x = cw.asarray(np.zeros((2, 2), np.float32))
    base = type(x._storage)
    filled = []

    class Frozen(base):
        __slots__ = ()
        read_only = property(lambda self: True)

    class OwnFill(base):
        __slots__ = ()

        def fill(self, layout, value):
            filled.append(value)
            return base.fill(self, layout, value)

    x._storage.__class__ = Frozen
    with pytest.raises(ReadOnlyError, match="read-only"):
        x[0, 1] = 1.0
    x._storage.__class__ = OwnFill
    x[0, 1] = 2.0
    x._storage.__class__ = base
    x._storage._lock = threading.Lock()  # (not the module's Lock: the Python method's `with`)
    x[1, 0] = 3
    assert filled == [2.0] and cw.to_numpy(x).tolist() == [[0, 2], [3, 0]]
    with cw.lazy():
        y = x * 2.0
        y[1, 1] = 5.0  # (the pending product runs first)
        assert cw.to_numpy(y).tolist() == [[0, 4], [6, 5]]
