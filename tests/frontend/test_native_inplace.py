"""The in-place operators' short path (candlewick.inplace.updater: candlewick._native.Update
in C, inplace.update in Python) writes what the general path writes, takes only its own
case (anything else returns None, for the general path), and keeps the errors: a
read-only or broadcast destination, a dtype change, lazy mode. ``np.add(x, y, out=x)``
takes it too. (test_native_module.py: the binding.)"""

import functools
import threading
import warnings

import numpy as np
import pytest

import candlewick as cw
from candlewick import _core, inplace
from candlewick.array import Array
from candlewick.errors import DTypeError, ReadOnlyError
from candlewick.elementwise_dispatch import binary
from candlewick.opdefs import BinaryOp
from cpu_backend.storage_slice import lock_of

DTYPES = ["bool", "int32", "float32", "float64", "float16", "complex64"]
OPS = ["__iadd__", "__isub__", "__imul__", "__itruediv__", "__ipow__", "__iand__", "__imod__"]


@pytest.fixture(params=["c", "python"])
def path(request, monkeypatch):
    """Which short path the operators take: C where built (skipped where not), or the
    Python one (the module unbound: the C path declines every call)."""
    if request.param == "c":
        if _core._native is None:
            pytest.skip("candlewick._native was not built here (no C compiler)")
        return "c"
    if _core._native is not None:
        _core._native.unbind()
        request.addfinalizer(lambda: _core.bind_native(Array))
    return "python"


def _host(dtype, seed):
    values = np.array([[1, 2, 3, 0], [3, 1, 2, 2], [0, 1, 5, 4]]) + seed
    if dtype in ("float32", "float64", "float16", "complex64"):
        values = values / 8 + 0.125
    return values.astype(dtype)


def _operands(device, dtype, layout, other):
    base = cw.asarray(_host(dtype, 0), device=device)
    x = {"contiguous": base, "transposed": base.T, "stepped": base[:, ::2]}[layout]
    if other == "array":
        other = cw.asarray(_host(dtype, 1), device=device)
        other = {"contiguous": other, "transposed": other.T, "stepped": other[:, 1::2]}[layout]
    elif other in ("row", "column", "0-d"):  # broadcast onto x's shape
        values = _host(dtype, 1).reshape(-1)
        shape = {"row": x.shape[1:], "column": (x.shape[0], 1), "0-d": ()}[other]
        other = cw.asarray(values[: int(np.prod(shape))].reshape(shape), device=device)
    return base, x, other


def _outcome(update, device, dtype, layout, other):
    """What ``update(x, other)`` leaves: whether it returned x, x's memory, or the error."""
    base, x, other = _operands(device, dtype, layout, other)
    try:
        result = update(x, other)
    except Exception as exc:  # all paths must fail alike
        return ("raised", type(exc), str(exc))
    return (result is x, cw.to_numpy(base).tobytes())


OP_OF = {"__iadd__": BinaryOp.ADD, "__isub__": BinaryOp.SUBTRACT, "__imul__": BinaryOp.MULTIPLY,
         "__itruediv__": BinaryOp.DIVIDE, "__ipow__": BinaryOp.POW, "__iand__": BinaryOp.BITWISE_AND,
         "__imod__": BinaryOp.REMAINDER}


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped"])
@pytest.mark.parametrize("name", OPS)
def test_short_path_writes_what_the_general_path_writes(device, path, name, layout):
    """The short path alone (where it takes the case) and the operator (short path first)
    against the general path alone: ``binary`` with ``out``, what the operator runs when
    the short path declines."""
    op = OP_OF[name]
    short = _update(path, op)

    def general(x, other):
        return binary(op, x, other, name, x)

    with np.errstate(all="ignore"):
        for dtype in DTYPES:
            for other in ("array", "row", "column", "0-d", 2.0, 3, True, 1e300, -0.0):
                want = _outcome(general, device, dtype, layout, other)
                taken = _outcome(short, device, dtype, layout, other)
                if taken[0] is False:  # declined: returned None
                    assert taken[1] == cw.to_numpy(_operands(device, dtype, layout, other)[0]).tobytes()
                else:
                    assert taken == want, (name, dtype, layout, other)
                got = _outcome(getattr(Array, name), device, dtype, layout, other)
                if got[0] == "raised":  # (the operator words its own message, of the same family)
                    assert want[0] == "raised" and issubclass(want[1], got[1]), (dtype, other, got, want)
                else:
                    assert got == want, (name, dtype, layout, other)


def _update(path, op=BinaryOp.ADD):
    results = _core.RESULT_BY_NAME[op]
    return inplace.updater(op, results) if path == "c" else functools.partial(inplace.update, op, results)


def test_declines_what_is_not_its_case(device, path):
    update = _update(path)
    f32 = cw.asarray(np.ones(4, np.float32), device=device)
    declined = [
        (f32, cw.asarray(np.ones(4, np.float64), device=device)),  # another dtype: promotion
        (f32, cw.asarray(np.ones((2, 4), np.float32), device=device)),  # a shape not x's after broadcasting
        (f32, cw.asarray(np.ones(3, np.float32), device=device)),  # a shape that does not broadcast
        (cw.asarray(np.ones(4, np.int32), device=device), 2.0),  # a float into an integer array
        (f32, 2j), (f32, np.float32(2)), (f32, [1, 2, 3, 4]), (f32, "a"),
        (cw.broadcast_to(cw.asarray(np.ones(1, np.float32), device=device), (4,)), 1.0),  # a broadcast view
        (cw.asarray(np.ones(4, bool), device=device), True),
    ]
    for x, other in declined:
        before = cw.to_numpy(x).copy()
        assert update(x, other) is None, other
        assert np.array_equal(cw.to_numpy(x), before)
    x = cw.asarray(np.ones(4, np.float32), device=device)
    assert update(x, f32) is x and update(x, 2.0) is x and update(x, 1) is x
    assert update(x, cw.asarray(np.ones(1, np.float32), device=device)) is x  # broadcast onto x
    assert cw.to_numpy(x).tolist() == [6.0] * 4


def test_errors_stay_the_general_paths(path):
    device = "cpu"  # (a read-only import: host memory)
    ro = np.ones(4, np.float32)
    ro.flags.writeable = False
    x = cw.from_dlpack(ro)
    for other in (1.0, cw.asarray(np.ones(4, np.float32), device=device)):
        with pytest.raises(ReadOnlyError, match="read-only"):
            x += other
        lock_of(x._storage)  # (the second time the C primitive takes the case: NumPy refuses)
    assert ro.tolist() == [1.0] * 4
    b = cw.broadcast_to(cw.asarray(np.ones(1, np.float32), device=device), (4,))
    with pytest.raises(ReadOnlyError, match="broadcast"):
        b += cw.asarray(np.ones(4, np.float32), device=device)
    i = cw.asarray(np.ones(4, np.int32), device=device)
    with pytest.raises(DTypeError, match="would change x's dtype"):
        i += 1.5
    assert cw.to_numpy(i).tolist() == [1] * 4


def test_the_operator_is_the_short_path_where_built():
    """Where C was built ``Array.__iadd__`` is ``_native.Update`` itself (no Python frame
    before its case), named and documented as the Python method it falls back to."""
    method = Array.__iadd__
    expected = "Update" if _core._native is not None else "function"
    assert type(method).__name__ == expected
    assert method.__name__ == "__iadd__" and "written into x" in method.__doc__
    x = cw.asarray(np.ones(4, np.float32), device="cpu")
    assert x.__iadd__(1.0) is x and method(x, x) is x and cw.to_numpy(x).tolist() == [4.0] * 4
    with pytest.raises(TypeError):
        x.__iadd__(1.0, 2.0)


def test_the_python_method_without_c(monkeypatch):
    """Without candlewick._native the method is a Python function: update's case, then
    general's, named as general."""
    monkeypatch.setattr(inplace, "_native", None)
    calls = []

    def general(x, other, /):
        calls.append(other)
        return "general"

    general.__name__ = general.__qualname__ = "__iadd__"
    method = inplace.inplace_method(BinaryOp.ADD, _core.RESULT_BY_NAME[BinaryOp.ADD], general)
    assert method.__name__ == "__iadd__" and not hasattr(method, "__wrapped__")
    x = cw.asarray(np.ones(4, np.float32), device="cpu")
    assert method(x, 1.0) is x and calls == []
    assert method(x, "a") == "general" and calls == ["a"]
    assert cw.to_numpy(x).tolist() == [2.0] * 4


def test_numpy_out_takes_it(device, path):
    x = cw.asarray(np.arange(4, dtype=np.float32), device=device)
    y = cw.asarray(np.ones(4, np.float32), device=device)
    assert np.add(x, y, out=x) is x
    assert np.multiply(x, 2.0, out=x) is x
    assert np.subtract(x, y, out=(x,)) is x
    assert cw.to_numpy(x).tolist() == [1.0, 3.0, 5.0, 7.0]
    i8 = cw.asarray(np.ones(4, np.int8), device=device)
    with pytest.raises(DTypeError):
        np.add(i8, 1.5, out=i8, casting="no")


def test_lazy_mode_records_instead(device, path):
    x = cw.asarray(np.ones(4, np.float32), device=device)
    with cw.lazy():
        x += 1.0
        x *= 3.0
    assert cw.to_numpy(x).tolist() == [6.0] * 4


# --- x[mask] = v's short path (advanced_indexing.mask_fill) --------------------------------

def _mask_fill_outcome(setter, device, dtype, layout, value, mask_of):
    base = cw.asarray(_host(dtype, 0), device=device)
    x = {"contiguous": base, "transposed": base.T, "stepped": base[:, ::2]}[layout]
    m = cw.asarray(mask_of(cw.to_numpy(x).shape), device=device)
    try:
        setter(x, m, value)
    except Exception as exc:  # both paths must fail alike
        return ("raised", type(exc), str(exc))
    return cw.to_numpy(base).tolist()


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped"])
@pytest.mark.parametrize("dtype", DTYPES + ["int8"])
def test_mask_fill_writes_what_the_general_path_writes(device, dtype, layout, monkeypatch):
    from candlewick import indexing

    def operator(x, m, v):
        x[m] = v

    def general(x, m, v):
        with monkeypatch.context() as patch:
            patch.setattr(indexing, "mask_fill", lambda *args: False)
            x[m] = v

    masks = [lambda s: np.arange(np.prod(s)).reshape(s) % 3 == 1, lambda s: np.ones(s[:1], bool),
             lambda s: np.zeros(s, bool)]
    for value in (0.5, -2.0, float("nan"), 1e300, 3, True):
        for mask_of in masks:
            short = _mask_fill_outcome(operator, device, dtype, layout, value, mask_of)
            expected = _mask_fill_outcome(general, device, dtype, layout, value, mask_of)
            np.testing.assert_equal(short, expected, err_msg=f"{value} {dtype} {layout}")


def test_mask_fill_takes_only_its_case(device, monkeypatch):
    from candlewick import advanced_indexing
    from candlewick.fusion import lazy_mode

    def x_and_mask(dtype=np.float32, shape=(4,)):
        return (cw.asarray(np.ones(shape, dtype), device=device),
                cw.asarray(np.arange(np.prod(shape)).reshape(shape) % 2 == 0, device=device))

    x, m = x_and_mask()
    assert advanced_indexing.mask_fill(x, m, 0.5) is True
    assert cw.to_numpy(x).tolist() == [0.5, 1.0, 0.5, 1.0]
    x2, m2 = x_and_mask(shape=(2, 2))
    declined = [
        (*x_and_mask(np.int32), 0.5),  # a float into an integer array: converted on the general path
        (*x_and_mask(np.complex64), 0.5),
        (x2, m2[0], 0.5),  # a mask of the leading axes
        (x, cw.asarray(np.arange(4), device=device), 0.5),  # an index array
        (cw.asarray(np.float32(1), device=device), cw.asarray(np.bool_(True), device=device), 0.5),  # 0-d
    ]
    for x, m, v in declined:
        before = cw.to_numpy(x).copy()
        assert advanced_indexing.mask_fill(x, m, v) is False
        np.testing.assert_array_equal(cw.to_numpy(x), before)
    x, m = x_and_mask()
    monkeypatch.setattr(lazy_mode, "RECORD_EVERYWHERE", True)  # (cpu records too: a pending graph)
    with cw.lazy():
        assert advanced_indexing.mask_fill(x, m, 0.75) is True  # nothing pending: eager mode's step
        y = x * 2.0  # recorded
        assert advanced_indexing.mask_fill(x, m, 0.5) is False  # the general path runs y first
        x[m] = 0.25
    assert cw.to_numpy(x).tolist() == [0.25, 1.0, 0.25, 1.0]
    assert cw.to_numpy(y).tolist() == [1.5, 2.0, 1.5, 2.0]


def test_mask_fill_keeps_the_errors():
    ro = np.ones(4, np.float32)
    ro.flags.writeable = False
    x = cw.from_dlpack(ro)
    m = cw.asarray(np.array([True, False, True, False]))
    with pytest.raises(ReadOnlyError, match="read-only"):
        x[m] = 0.5
    assert ro.tolist() == [1.0] * 4
    b = cw.broadcast_to(cw.asarray(np.ones(1, np.float32)), (4,))
    with pytest.raises(ReadOnlyError, match="broadcast"):
        b[m] = 0.5


# --- the cpu backend's binary_into / binary_scalar_into in C (_native.UfuncInto) ----------

needs_c = pytest.mark.skipif(_core._native is None, reason="candlewick._native was not built here (no C compiler)")


class Recorder:
    def __init__(self):
        self.calls = []

    def __call__(self, *args):
        self.calls.append(args)


def _ufunc_into(scalar, ufunc, general):
    from candlewick.fp_state import QUIET, STATE_VAR

    f32 = cw.asarray(np.ones(1, np.float32), device="cpu")._dtype
    table = {id(BinaryOp.ADD): {id(f32): ufunc}}
    return _core._native.UfuncInto(scalar, table, STATE_VAR, QUIET, lambda exc: cw.errors.DeviceMemoryError(
        "cpu", 0, None, f"binary_into: {exc}"), general)


@needs_c
def test_ufunc_into_runs_the_common_case_and_hands_on_the_rest():
    general = Recorder()
    seen = []

    def ufunc(a, b, out):
        seen.append((a, b, out))
        np.add(a, b, out=out)

    into = _ufunc_into(False, ufunc, general)
    x = cw.asarray(np.arange(4, dtype=np.float32), device="cpu")
    y = cw.asarray(np.ones(4, np.float32), device="cpu")
    s, lay = x._storage, x._layout
    assert not hasattr(s, "_lock")  # a fresh storage: its lock is made on its first write, here
    assert into(s, BinaryOp.ADD, lay, s, lay, y._storage, y._layout) is None
    assert general.calls == [] and cw.to_numpy(x).tolist() == [1, 2, 3, 4]
    assert seen[0][0] is s.buf and seen[0][2] is s.buf and seen[0][1] is y._storage.buf
    assert type(s._lock) is _core._native.Lock and lock_of(s) is s._lock and not s._lock.locked()
    stepped = x[::2]._layout  # 1-D views: NumPy's slices of the buffers
    seen.clear()
    assert into(s, BinaryOp.ADD, stepped, s, stepped, y._storage, y[1::2]._layout) is None and general.calls == []
    assert cw.to_numpy(x).tolist() == [2, 2, 4, 4] and seen[0][0].base is s.buf and seen[0][2] is seen[0][0]
    np.add(np.asarray(x)[::2], -1, out=np.asarray(x)[::2])
    m = cw.asarray(np.ones((2, 2), np.float32), device="cpu")
    lock_of(m._storage)
    i32 = cw.asarray(np.ones(4, np.int32), device="cpu")
    handed_on = [
        (m._storage, BinaryOp.ADD, m.T._layout, m._storage, m.T._layout, m._storage, m._layout),  # 2-D, not C order
        (s, BinaryOp.SUBTRACT, lay, s, lay, y._storage, y._layout),  # not in the table
        (i32._storage, BinaryOp.ADD, lay, i32._storage, lay, i32._storage, lay),  # another dtype
        (s, BinaryOp.ADD, lay, s, lay, i32._storage, lay),  # operands of two dtypes
        (s, "add", lay, s, lay, y._storage, y._layout),  # not an op
    ]
    for args in handed_on:
        into(*args)
    assert general.calls == handed_on
    scalar = _ufunc_into(True, ufunc, general)
    general.calls.clear()
    assert scalar(s, BinaryOp.ADD, lay, s, lay, 0.5, False) is None and general.calls == []
    assert cw.to_numpy(x).tolist() == [1.5, 2.5, 3.5, 4.5]
    for args in ((s, BinaryOp.ADD, lay, s, lay, 0.5, True), (s, BinaryOp.ADD, lay, s, lay, 1, False)):
        scalar(*args)
    assert len(general.calls) == 2
    # the storage's class binds it as a method
    assert type(s).binary_into.__get__(s, type(s))(BinaryOp.ADD, lay, s, lay, y._storage, y._layout) is None



@needs_c
def test_ufunc_into_runs_a_broadcast_update_in_c():
    # x op= other with other's layout broadcast onto x's (X -= mean): x viewed with its
    # shape, other with 1 on its stretched axes, NumPy broadcasting them
    general = Recorder()
    seen = []

    def ufunc(a, b, out):
        seen.append((a.shape, b.shape, out is a))
        np.add(a, b, out=out)

    into = _ufunc_into(False, ufunc, general)
    m = cw.asarray(np.zeros((3, 2), np.float32), device="cpu")
    s, lay = m._storage, m._layout
    lock_of(s)
    row = cw.asarray(np.array([10, 20], np.float32), device="cpu")
    column = cw.asarray(np.array([[1], [2], [3]], np.float32), device="cpu")
    assert into(s, BinaryOp.ADD, lay, s, lay, row._storage, row._layout.broadcast_to((3, 2))) is None
    assert into(s, BinaryOp.ADD, lay, s, lay, column._storage, column._layout.broadcast_to((3, 2))) is None
    assert general.calls == [] and seen == [((3, 2), (1, 2), True), ((3, 2), (3, 1), True)]
    assert cw.to_numpy(m).tolist() == [[11, 21], [12, 22], [13, 23]]
    other = cw.asarray(np.ones((3, 2), np.float32), device="cpu")
    wide = cw.asarray(np.ones((3, 4), np.float32), device="cpu")
    stretched = row._layout.broadcast_to((3, 2))
    handed_on = [
        (s, BinaryOp.ADD, lay, other._storage, other._layout, row._storage, stretched),  # left operand not x
        (row._storage, BinaryOp.ADD, stretched, row._storage, stretched, s, lay),  # x itself stretched
        (s, BinaryOp.ADD, lay, s, lay, wide._storage, wide[:, ::2]._layout),  # other stepped, not broadcast
    ]
    lock_of(row._storage)
    for args in handed_on:
        into(*args)
    assert general.calls == handed_on and len(seen) == 2


@needs_c
def test_ufunc_into_hands_the_ufunc_the_converted_scalar_and_keeps_the_last():
    seen = []

    def ufunc(a, b, out):
        seen.append(b)
        np.add(a, b, out=out)

    made = []

    def convert(value, dtype):
        made.append((value, dtype))
        return np.array(value, dtype.numpy)

    from candlewick.fp_state import QUIET, STATE_VAR

    f32 = cw.asarray(np.ones(1, np.float32), device="cpu")._dtype
    into = _core._native.UfuncInto(True, {id(BinaryOp.ADD): {id(f32): ufunc}}, STATE_VAR, QUIET,
                                   lambda exc: exc, Recorder(), convert=convert)
    x = cw.asarray(np.zeros(3, np.float32), device="cpu")
    s, lay = x._storage, x._layout
    lock_of(s)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # 1e39 past float32's range: converted in the quiet state
        for v in (0.5, 0.5, -0.0, 0.0, 0.0, float("nan"), 1e39):
            into(s, BinaryOp.ADD, lay, s, lay, v, False)
    # a 0-d float32 array each time; made again only where the value's bits change
    assert all(type(b) is np.ndarray and b.shape == () and b.dtype == np.float32 for b in seen)
    bits = [np.float64(v).tobytes() for v in (0.5, -0.0, 0.0, float("nan"), 1e39)]
    assert [np.float64(m[0]).tobytes() for m in made] == bits and all(m[1] is f32 for m in made)
    assert seen[0] is seen[1] and seen[1] is not seen[2] and seen[3] is seen[4]
    assert np.signbit(seen[2]) and not np.signbit(seen[3]) and np.isnan(seen[5]) and np.isinf(seen[6])
    assert np.isnan(cw.to_numpy(x)).all()


@needs_c
def test_ufunc_into_runs_a_one_operand_ufunc_at_its_values():
    # an entry {value: ufunc} (cpu_backend.ops.AT_SCALAR: x **= 2 as np.square) runs
    # ufunc(x, out=x) where the scalar is one of its values, not reflected; the rest is general's
    from candlewick.fp_state import QUIET, STATE_VAR

    general = Recorder()
    seen = []

    def square(a, out):
        seen.append((a, out))
        np.square(a, out=out)

    f32 = cw.asarray(np.ones(1, np.float32), device="cpu")._dtype
    into = _core._native.UfuncInto(True, {id(BinaryOp.POW): {id(f32): {2.0: square}}}, STATE_VAR, QUIET,
                                   lambda exc: exc, general, convert=lambda v, d: np.array(v, d.numpy))
    x = cw.asarray(np.array([1.5, -3, 4], np.float32), device="cpu")
    s, lay = x._storage, x._layout
    assert into(s, BinaryOp.POW, lay, s, lay, 2.0, False) is None
    assert general.calls == [] and seen[0][0] is s.buf and seen[0][1] is s.buf
    assert cw.to_numpy(x).tolist() == [2.25, 9, 16]
    handed_on = [(s, BinaryOp.POW, lay, s, lay, 3.0, False), (s, BinaryOp.POW, lay, s, lay, 2.0, True)]
    for args in handed_on:
        into(*args)
    assert general.calls == handed_on and len(seen) == 1
    # the cpu primitive's table holds it: x **= 2 runs no Python frame (x **= 3 does)
    import sys

    for exponent, python in ((2.0, False), (3.0, True)):
        y = cw.asarray(np.array([1.5, -3], np.float64), device="cpu")
        frames = []
        sys.setprofile(lambda frame, event, arg: frames.append(frame.f_code.co_name) if event == "call" else None)
        try:
            y._storage.binary_scalar_into(BinaryOp.POW, y._layout, y._storage, y._layout, exponent, False)
        finally:
            sys.setprofile(None)
        assert bool(frames) is python, frames
        assert cw.to_numpy(y).tolist() == [1.5 ** exponent, (-3) ** exponent]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_scalar_updates_equal_numpys_through_either_path(dtype, path):
    values = (2.0, 2.0, -0.0, 0.5, 1e39, -3.25, float("nan"), 1e-45)
    start = np.array([1.0, -2.0, 0.0, 3.5, -0.0, 7.0], dtype)
    x = cw.asarray(start.copy(), device="cpu")
    expected = start.copy()
    with np.errstate(all="ignore"):
        for v in values:
            x *= v
            expected *= v
            x += v
            expected += v
    np.testing.assert_array_equal(cw.to_numpy(x), expected)


@needs_c
def test_ufunc_into_keeps_errors_the_lock_and_the_state():
    from candlewick.fp_state import STATE_VAR

    def no_memory(a, b, out):
        assert STATE_VAR.get() is not before  # (the quiet state while it runs)
        raise MemoryError("no room")

    def broken(a, b, out):
        raise ValueError("broken")

    before = STATE_VAR.get()
    x = cw.asarray(np.arange(4, dtype=np.float32), device="cpu")
    s, lay = x._storage, x._layout
    lock_of(s)
    with pytest.raises(cw.errors.DeviceMemoryError, match="no room") as info:
        _ufunc_into(False, no_memory, Recorder())(s, BinaryOp.ADD, lay, s, lay, s, lay)
    assert isinstance(info.value.__cause__, MemoryError)
    with pytest.raises(ValueError, match="broken"):
        _ufunc_into(False, broken, Recorder())(s, BinaryOp.ADD, lay, s, lay, s, lay)
    assert not s._lock.locked() and STATE_VAR.get() is before


def test_cpu_binary_into_is_the_c_primitive_where_built():
    from cpu_backend.storage import CpuStorage

    expected = "UfuncInto" if _core._native is not None else "function"
    assert type(CpuStorage.__dict__["binary_into"]).__name__ == expected
    assert type(CpuStorage.__dict__["binary_scalar_into"]).__name__ == expected


@needs_c
def test_ufunc_into_runs_quiet_on_every_thread_and_nested():
    """The quiet state through each thread's kept context, the set / reset form where a
    ufunc writes again through a primitive (a finalizer would): quiet inside every call,
    the caller's state after; the lock a _native.Lock taken and given back."""
    from candlewick.fp_state import QUIET, STATE_VAR

    x = cw.asarray(np.arange(4, dtype=np.float32), device="cpu")
    y = cw.asarray(np.arange(4, dtype=np.float32), device="cpu")
    s, lay, t = x._storage, x._layout, y._storage
    lock_of(s), lock_of(t)
    assert type(s._lock) is _core._native.Lock
    states = []

    def inner(a, b, out):
        states.append(STATE_VAR.get() is QUIET)
        np.add(a, b, out=out)

    inner_into = _ufunc_into(False, inner, Recorder())

    def outer(a, b, out):
        states.append(STATE_VAR.get() is QUIET)
        inner_into(t, BinaryOp.ADD, lay, t, lay, t, lay)
        states.append(STATE_VAR.get() is QUIET)
        np.add(a, b, out=out)

    outer_into = _ufunc_into(False, outer, Recorder())
    before = STATE_VAR.get()

    def work():
        for _ in range(50):
            outer_into(s, BinaryOp.ADD, lay, s, lay, s, lay)

    workers = [threading.Thread(target=work) for _ in range(3)]
    for w in workers:
        w.start()
    work()
    for w in workers:
        w.join()
    assert len(states) == 4 * 50 * 3 and all(states)
    assert STATE_VAR.get() is before and not s._lock.locked() and not t._lock.locked()
    assert cw.to_numpy(y).tolist() == [0.0, np.inf, np.inf, np.inf]  # (doubled 200 times, quietly)


@needs_c
def test_native_lock_is_a_lock():
    lock = _core._native.Lock()
    with lock:
        assert lock.locked()
    assert not lock.locked()
    with pytest.raises(RuntimeError):
        lock.release()
    counter = [0]

    def work():
        for _ in range(2000):
            with lock:
                value = counter[0]
                counter[0] = value + 1

    workers = [threading.Thread(target=work) for _ in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert counter[0] == 8000


@needs_c
def test_ufunc_into_enters_nothing_where_the_state_is_already_quiet():
    """Under np.errstate(all="ignore") the ufunc runs in the caller's own state (nothing
    entered, nothing to undo); under any state that would warn or raise, in QUIET."""
    from candlewick.fp_state import QUIET, STATE_VAR

    x = cw.asarray(np.arange(4, dtype=np.float32), device="cpu")
    s, lay = x._storage, x._layout
    lock_of(s)
    states = []

    def ufunc(a, b, out):
        states.append(STATE_VAR.get())
        np.add(a, b, out=out)

    into = _ufunc_into(False, ufunc, Recorder())
    with np.errstate(all="ignore"):
        caller = STATE_VAR.get()
        into(s, BinaryOp.ADD, lay, s, lay, s, lay)
        assert STATE_VAR.get() is caller
    for loud in ({"over": "raise"}, {"under": "warn"}, {"all": "warn"}):
        with np.errstate(**loud):
            caller = STATE_VAR.get()
            into(s, BinaryOp.ADD, lay, s, lay, s, lay)
            assert STATE_VAR.get() is caller
    assert states[0] is not QUIET and all(state is QUIET for state in states[1:]) and len(states) == 4
    big = cw.asarray(np.full(4, 3e38, np.float32), device="cpu")
    with np.errstate(all="raise"):  # (the operator: quiet inside, the caller's state kept)
        big += big
        big *= 2.0
    assert cw.to_numpy(big).tolist() == [np.inf] * 4


def test_array_ufunc_takes_only_its_first_step_in_c():
    """np.add(x, y, out=x) reaches Array.__array_ufunc__ (_native.Override where built:
    its first step in C, the Python method for the rest): every call gives what the
    Python method gives."""
    method = Array.__array_ufunc__
    python = getattr(method, "__wrapped__", method)
    assert method.__name__ == "__array_ufunc__" and "NEP 13" in method.__doc__
    calls = [
        lambda x, y: np.add(x, y, out=x), lambda x, y: np.multiply(x, 2.0, out=(x,)),
        lambda x, y: np.add(y, x, out=x), lambda x, y: np.add(x, y, out=y),
        lambda x, y: np.subtract(x, y, out=x, where=True), lambda x, y: np.add(x, 1.5, out=x, casting="unsafe"),
        lambda x, y: np.sqrt(x, out=x), lambda x, y: np.add.reduce(x), lambda x, y: np.add(x, y),
        lambda x, y: np.add(x[::2], y[1::2], out=x[::2]), lambda x, y: np.maximum(x, y, out=x),
    ]
    for dtype in ("float32", "int32"):
        for call in calls:
            got = []
            for swap in (False, True):
                if swap:
                    Array.__array_ufunc__ = python  # (the Python method alone)
                try:
                    x = cw.asarray(np.arange(6).astype(dtype), device="cpu")
                    y = cw.asarray(np.ones(6, dtype), device="cpu")
                    try:
                        result = call(x, y)
                        got.append(("ok", result is x, result is y, cw.to_numpy(x).tolist(), cw.to_numpy(y).tolist(),
                                    None if isinstance(result, Array) else np.asarray(result).tolist()))
                    except Exception as exc:  # noqa: BLE001 - both must fail alike
                        got.append(("raised", type(exc), str(exc)))
                finally:
                    Array.__array_ufunc__ = method
            assert got[0] == got[1], (dtype, got)
