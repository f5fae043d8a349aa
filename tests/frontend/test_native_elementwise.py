"""The element-wise functions' fast path in C (candlewick._native.Elementwise) gives what
their Python path gives, field for field, for every generated function (two arrays of two
dtypes that convert to one too, through binary_as); it hands every
other case to the Python path with the same arguments; errors and references pass
through it intact. (test_native_module.py: the binding.)"""

import gc
import sys

import numpy as np
import pytest

import candlewick as cw
from candlewick import _core, array_operators, elementwise, elementwise_dispatch
from candlewick.array import Array
from candlewick.opdefs import BinaryOp, CompareOp, UnaryOp
from _native_paths import Recorder, both_paths

pytest.importorskip("candlewick._native", reason="candlewick._native was not built here (no C compiler)")

FAST = [n for n in elementwise.__all__ if hasattr(getattr(elementwise, n), "__wrapped__")]
UNARY = [n for n in FAST if getattr(elementwise, n).__code__.co_argcount == 1]
BINARY = [n for n in FAST if n not in UNARY]
DTYPES = ["bool", "uint8", "int32", "int64", "float32", "float64", "complex64"]


def test_every_generated_function_has_the_fast_path():
    written_by_hand = {"logical_not", "positive", "clip", "real", "imag"}  # (real, imag: views)
    assert set(FAST) == set(elementwise.__all__) - written_by_hand


def _host(dtype, seed):
    values = np.array([[1, 2, 3, 0], [3, 1, 2, 2], [0, 1, 5, 4]]) + seed
    if dtype in ("float32", "float64", "complex64"):
        values = values / 8 + 0.125
    return values.astype(dtype)


def _operand(dtype, layout, seed):
    x = cw.asarray(_host(dtype, seed))
    if layout == "transposed":
        return x.T
    if layout == "offset":
        return x[1:]
    return x


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "offset"])
@pytest.mark.parametrize("name", UNARY)
def test_unary_equals_the_python_path(name, layout):
    fn = getattr(cw, name)
    for dtype in DTYPES:
        fast, python = both_paths(fn, (_operand(dtype, layout, 0),))
        assert fast == python, (name, dtype)


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "offset"])
@pytest.mark.parametrize("name", BINARY)
def test_binary_equals_the_python_path(name, layout):
    fn = getattr(cw, name)
    for dtype in DTYPES:
        x1, x2 = _operand(dtype, layout, 0), _operand(dtype, layout, 1)
        # one operand broadcast onto the other (a row, a column, a leading axis added),
        # both onto a larger shape (a column and a row)
        for args in ((x1, x2), (x1, x1), (x1, x2[0]), (x2[0], x1), (x1, x2[:, :1]), (x2[:, 1:2], x1),
                     (x1[None], x2), (x1, x2[None]), (x1, x2[0, :1]), (x1[:, :1], x2[0]), (x2[:1], x1[:, 2:3]),
                     (x1[None, :, :1], x2[:1]), (x1[:, None, :], x2[:2, :1, None])):
            fast, python = both_paths(fn, args)
            assert fast == python, (name, dtype)


OPERATORS = [f"__{short}__" for short in (*array_operators._BINARY_OPS, *array_operators._COMPARE_OPS)]


def test_every_forward_operator_has_the_fast_path():
    assert all(hasattr(getattr(Array, name), "__wrapped__") for name in OPERATORS)
    assert not any(hasattr(getattr(Array, name), "__wrapped__") for name in ("__iadd__", "__radd__", "__neg__"))


@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
@pytest.mark.parametrize("name", OPERATORS)
def test_operator_equals_the_python_path(name, layout):
    method = getattr(Array, name)
    for dtype in DTYPES:
        x1, x2 = _operand(dtype, layout, 0), _operand(dtype, layout, 1)
        for args in ((x1, x2), (x1, 2), (x1, x2[0]), (x1[:, :1], x2[0])):
            fast, python = both_paths(method, args)
            assert fast == python, (name, dtype)


@pytest.mark.parametrize("name", ["add", "less", "logical_and", "bitwise_xor", "atan2"])
def test_other_cases_equal_the_python_path(name):
    """Cases the C path hands on: promotion, broadcasting, Python scalars, 0-d and empty
    arrays, a non-array operand."""
    fn = getattr(cw, name)
    f32, i32 = _operand("float32", "contiguous", 0), _operand("int32", "contiguous", 1)
    for args in ((f32, i32), (i32, i32[0]), (f32, 2), (3, i32), (f32[0, 0], f32[1, 1]),
                 (f32[:0], f32[:0]), (f32, [1, 2]), ("a", f32)):
        fast, python = both_paths(fn, args)
        assert fast == python, (name, args)


def _arrays():
    x = cw.asarray(np.arange(6, dtype=np.float32).reshape(2, 3))
    return x, cw.asarray(np.ones((2, 3), np.float32))


def test_the_common_case_runs_in_c():
    fallback = Recorder()
    add = _core._native.Elementwise(2, BinaryOp.ADD, _core.RESULT_BY_NAME[BinaryOp.ADD], "binary", fallback)
    exp = _core._native.Elementwise(1, UnaryOp.EXP, _core.RESULT_BY_NAME[UnaryOp.EXP], "unary", fallback)
    x, y = _arrays()
    total, e = add(x, y), exp(x)
    assert fallback.calls == []
    assert type(total) is Array and total._layout is _core.contiguous_layout((2, 3))
    assert total.tolist() == [[1, 2, 3], [4, 5, 6]]
    assert np.array_equal(cw.to_numpy(e), np.exp(np.arange(6, dtype=np.float32).reshape(2, 3)))
    assert gc.is_tracked(total) and gc.is_tracked(e)


def test_one_operand_broadcast_onto_the_other_runs_in_c(monkeypatch):
    fallback = Recorder()
    add = _core._native.Elementwise(2, BinaryOp.ADD, _core.RESULT_BY_NAME[BinaryOp.ADD], "binary", fallback)
    x, y = _arrays()
    seen = []
    cls = type(x._storage)
    real = cls.binary

    def spy(storage, op, l1, other, l2):
        seen.append((l1, l2))
        return real(storage, op, l1, other, l2)

    monkeypatch.setattr(cls, "binary", spy)
    for a, b in ((x, y[0]), (y[:, 1:2], x), (x[None], y[1]), (x.T, y[0, :2])):
        shape = a.shape if len(a.shape) >= len(b.shape) and a.size >= b.size else b.shape
        out = add(a, b)
        assert fallback.calls == []
        assert out._layout is _core.contiguous_layout(shape)
        assert np.array_equal(cw.to_numpy(out), cw.to_numpy(a) + cw.to_numpy(b))
        for got, operand in zip(seen[-1], (a, b)):
            want = operand._layout.broadcast_to(shape)  # (the operand's own where it has the shape)
            assert got is want if want is operand._layout else (
                (got.shape, got.strides, got.offset, got.dense_size)
                == (want.shape, want.strides, want.offset, -1))
            assert got._contig == got._check_contiguous()  # (where C said False, rightly)


def test_both_operands_broadcast_onto_a_larger_shape_run_in_c(monkeypatch):
    fallback = Recorder()
    equal = _core._native.Elementwise(2, CompareOp.EQUAL, _core.RESULT_BY_NAME[CompareOp.EQUAL], "compare",
                                      fallback)
    seen = []
    cls = type(_arrays()[0]._storage)
    real = cls.compare

    def spy(storage, op, l1, other, l2):
        seen.append((l1, l2))
        return real(storage, op, l1, other, l2)

    monkeypatch.setattr(cls, "compare", spy)
    nearest, clusters = cw.asarray(np.array([2, 0, 1, 2], np.int64)), cw.arange(3)
    x, y = _arrays()
    for a, b in ((nearest[:, None], clusters), (clusters, nearest[:, None]), (x[None, :, :1], y[:1]),
                 (x.T[:, None, :1], y[:, None, None]), (x[:, :1], y[0, :0])):
        shape = np.broadcast_shapes(a.shape, b.shape)
        assert shape not in (a.shape, b.shape)
        out = equal(a, b)
        assert fallback.calls == []
        assert out._dtype is cw.bool and out._layout is _core.contiguous_layout(shape)
        assert np.array_equal(cw.to_numpy(out), cw.to_numpy(a) == cw.to_numpy(b))
        for got, operand in zip(seen[-1], (a, b)):
            want = operand._layout.broadcast_to(shape)
            assert (got.shape, got.strides, got.offset) == (want.shape, want.strides, want.offset)
            # (C says False where an axis is stretched; right, as the check says)
            assert got._contig == got._check_contiguous()


CONVERTING = [("float32", "float64"), ("float64", "float32"), ("float32", "complex64"), ("complex64", "float64"),
              ("float64", "complex128"), ("float16", "float32")]


@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "divide", "pow", "atan2", "maximum", "hypot",
                                  "equal", "bitwise_and", "__sub__", "__truediv__", "__rpow__"])
def test_two_dtypes_equal_the_python_path(name):
    """Two arrays of two dtypes that convert to a floating or complex one (X - mean):
    binary_as in C where the op takes that dtype, the Python path's result and errors."""
    fn = getattr(Array, name) if name.startswith("__") else getattr(cw, name)
    for first, second in CONVERTING:
        x1, x2 = _operand(first, "contiguous", 0), _operand(second, "contiguous", 1)
        for args in ((x1, x2), (x1, x2[0]), (x1[:, :1], x2), (x1.T, x2[:, 1]), (x1[:, :1], x2[0]), (x1[1:], x2[0])):
            fast, python = both_paths(fn, args)
            assert fast == python, (name, first, second)


def _converting(fallback, op=BinaryOp.SUBTRACT):
    return _core._native.Elementwise(2, op, _core.RESULT_BY_NAME[op], "binary", fallback,
                                     converting=elementwise_dispatch._CONVERTING,
                                     all_dtypes=cw.dtypes.ALL_DTYPES)


def test_two_dtypes_run_in_c(monkeypatch):
    fallback = Recorder()
    subtract = _converting(fallback)
    x = cw.asarray(np.arange(12, dtype=np.float32).reshape(3, 4))
    mean = cw.asarray(np.arange(4.0))
    seen = []
    cls = type(x._storage)
    real = cls.binary_as
    monkeypatch.setattr(cls, "binary_as", lambda *args: seen.append(args[-1]) or real(*args))
    for a, b in ((x, mean), (mean, x), (x[:, :1], mean), (x.T[:, :3], mean[:3])):
        out = subtract(a, b)
        assert fallback.calls == [] and seen[-1] is cw.float64
        assert out._dtype is cw.float64 and out._layout is _core.contiguous_layout(out.shape)
        assert np.array_equal(cw.to_numpy(out), cw.to_numpy(a).astype(np.float64) - cw.to_numpy(b))


def test_two_dtypes_decline_where_the_python_path_decides():
    """A pair that does not convert, a device without "binary_dtype" or without every
    dtype, lazy mode, and a result the Python path checks against the device's memory."""
    fallback = Recorder()
    subtract = _converting(fallback)
    x = cw.asarray(np.ones((2, 3), np.float32))
    mean = cw.asarray(np.ones(3))

    class Device:
        def __init__(self, dtypes, capabilities):
            self.dtypes, self.capabilities = dtypes, capabilities

    def on(device, a):
        return _core.new_array(Array, a._storage, a.shape, a._dtype, device)

    rows = (1 << 28) // 16
    big = cw.broadcast_to(cw.asarray(np.ones((1, 3), np.float32)), (rows, 3))
    cases = [(x, cw.asarray(np.ones(3, np.int32))), (x, cw.asarray(np.ones(3, bool))), (big, mean)]
    for device in (Device(cw.dtypes.ALL_DTYPES, frozenset()), Device((cw.float32, cw.float64), {"binary_dtype"})):
        cases.append((on(device, x), on(device, mean)))
    for args in cases:
        assert subtract(*args) == "fallback" and fallback.calls[-1] == (args, {})
    with pytest.raises(TypeError, match="go together"):
        _core._native.Elementwise(2, BinaryOp.ADD, {}, "binary", fallback, converting={})


def test_an_array_and_a_python_scalar_run_in_c(monkeypatch):
    """A real floating array below scalar_below elements and a float or int after it: the
    storage's scalar primitive with the value as a float; anything else the fallback's
    (an int or bool array, a bool or NumPy scalar, a scalar first, a larger array, whose
    forward operator may write into it where it is a temporary, lazy mode)."""
    fallback = Recorder()
    power = _core._native.Elementwise(2, BinaryOp.POW, _core.RESULT_BY_NAME[BinaryOp.POW], "binary", fallback,
                                      scalar_below=16)
    less = _core._native.Elementwise(2, CompareOp.LESS, _core.RESULT_BY_NAME[CompareOp.LESS], "compare", fallback,
                                     scalar_below=16)
    x, _ = _arrays()
    seen = []
    cls = type(x._storage)
    for method in ("binary_scalar", "compare_scalar"):
        real = getattr(cls, method)
        monkeypatch.setattr(cls, method, lambda *args, real=real: seen.append(args[3:]) or real(*args))
    for fn, value, want in ((power, 2, np.arange(6.0) ** 2), (power, 0.5, np.arange(6.0) ** 0.5),
                            (less, 3, np.arange(6) < 3)):
        out = fn(x, value)
        assert fallback.calls == [] and seen[-1] == (float(value), False) and type(seen[-1][0]) is float
        assert out._layout is _core.contiguous_layout((2, 3)) and out._dtype is (cw.bool if fn is less else cw.float32)
        assert np.array_equal(cw.to_numpy(out).reshape(-1), want.astype(cw.to_numpy(out).dtype))
    with pytest.raises(OverflowError):
        power(x, 10 ** 400)
    big = cw.zeros((4, 4), dtype=cw.float32)
    ints = cw.asarray(np.ones((2, 3), np.int32))
    for args in ((x, True), (x, np.float32(2.0)), (2.0, x), (big, 2.0), (ints, 2), (x, "2")):
        assert power(*args) == "fallback" and fallback.calls[-1] == (args, {})
    plain = _core._native.Elementwise(2, BinaryOp.POW, _core.RESULT_BY_NAME[BinaryOp.POW], "binary", fallback)
    assert plain(x, 2.0) == "fallback"  # (scalar_below not given: no scalar case)


@pytest.mark.parametrize("record", [True, False])
def test_the_new_cases_in_lazy_mode_call_lazy_modes_operand(monkeypatch, record):
    """Two dtypes and a Python scalar inside lazy(), recorded (a device that records) or
    run at once: called through lazy mode's operand as the Python path calls them, the
    values eager mode's."""
    from candlewick.fusion import lazy_mode

    monkeypatch.setattr(lazy_mode, "RECORD_EVERYWHERE", record)
    fallback = Recorder()
    subtract = _converting(fallback)
    power = _core._native.Elementwise(2, BinaryOp.POW, _core.RESULT_BY_NAME[BinaryOp.POW], "binary", fallback,
                                      scalar_below=16)
    x = cw.asarray(np.arange(6, dtype=np.float32).reshape(2, 3))
    mean = cw.asarray(np.arange(3.0))
    with cw.lazy():
        centred, squared = subtract(x, mean), power(x, 2)
        both = subtract(squared, mean)
        stored = {type(r._storage).__name__ for r in (centred, squared, both)}
        assert stored == ({"LazyStorage"} if record else {"CpuStorage"})
    assert fallback.calls == []
    host = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(cw.to_numpy(centred), host - np.arange(3.0))
    np.testing.assert_array_equal(cw.to_numpy(both), host ** 2 - np.arange(3.0))


def test_everything_else_goes_to_the_fallback_unchanged():
    fallback = Recorder()
    divide = _core._native.Elementwise(2, BinaryOp.DIVIDE, _core.RESULT_BY_NAME[BinaryOp.DIVIDE], "binary",
                                       fallback)
    x, y = _arrays()

    class Sub(Array):
        __slots__ = ()

    other_device = _core.new_array(Array, x._storage, (2, 3), x._dtype, object())
    sub = _core.new_array(Sub, x._storage, (2, 3), x._dtype, x._device)
    ints = cw.asarray(np.ones((2, 3), np.int32))
    # shapes that do not broadcast, and a result larger than both operands that general's
    # allocation check asks the device about (2^24 float32 of a column and a row: 2^28 bytes
    # of complex128, the widest item, where the C path declines)
    column, row = cw.zeros((1 << 12, 1), dtype=cw.float32), cw.zeros((1 << 12,), dtype=cw.float32)
    cases = [(x, y.astype(cw.float64)), (x, y[:, :2]), (x[:, :2], y[:1, :, None]), (column, row), (row, column),
             (x, 2.0), (2.0, x), (ints, ints), (x, other_device), (sub, sub), (x,), (x, y, y), (None, None)]
    for args in cases:
        assert divide(*args) == "fallback"
        assert fallback.calls[-1] == (args, {})
    assert divide(x, x2=y) == "fallback" and fallback.calls[-1] == ((x,), {"x2": y})
    assert divide.fallback is fallback


@pytest.mark.parametrize("primitive, fails, runs, shares_layout", [
    ("binary", lambda bad: cw.add(bad, bad), lambda x: cw.multiply(x, x), True),
    ("binary_scalar", lambda bad: bad * 2.0, lambda x: x * 2.0, True),
    ("reduce", lambda bad: cw.sum(bad, axis=0), lambda x: cw.sum(x, axis=1), False),  # (_native.Reduction)
])
def test_errors_and_references_pass_through(primitive, fails, runs, shares_layout):
    x, _ = _arrays()

    def failing(self, *args):
        raise RuntimeError("the primitive failed")

    bad = _core.new_array(Array, type("Failing", (), {primitive: failing})(), (2, 3), x._dtype, x._device)
    parts = (bad._storage, bad._layout, bad._device)
    counts = [sys.getrefcount(p) for p in parts]
    with pytest.raises(RuntimeError, match="the primitive failed"):
        fails(bad)
    assert [sys.getrefcount(p) for p in parts] == counts

    parts = (x._storage, x._layout, x._device)  # (a dtype is referenced from everywhere)
    counts = [sys.getrefcount(p) for p in parts]
    out = runs(x)
    # the result holds one reference to its layout (x's own where the shape is x's, the
    # cache's) and device, and its storage
    assert [sys.getrefcount(p) for p in parts] == [counts[0], counts[1] + shares_layout, counts[2] + 1]
    storage = out._storage
    assert sys.getrefcount(storage) == 3  # out's slot, the local and the call's argument
    del out
    assert [sys.getrefcount(p) for p in parts] == counts
    assert sys.getrefcount(storage) == 2


def test_construction_is_checked():
    native = _core._native
    with pytest.raises(ValueError, match="arity must be 1 or 2"):
        native.Elementwise(3, BinaryOp.ADD, {}, "binary", print)
    with pytest.raises(TypeError, match="fallback must be callable"):
        native.Elementwise(2, BinaryOp.ADD, {}, "binary", None)
    with pytest.raises(TypeError):
        native.Elementwise(2, BinaryOp.ADD, [], "binary", print)


def test_a_primitive_that_unbinds_the_module_mid_call():
    """The fast path holds the binding it started with: a primitive (or a finalizer run by
    the garbage collector) that unbinds or rebinds the module cannot leave it without
    the cache and offsets it is using."""
    x, _ = _arrays()
    real = x._storage

    class Unbinding:
        def binary(self, op, l1, rhs, l2):
            _core._native.unbind()
            return real.binary(op, l1, real, l2)

    odd = _core.new_array(Array, Unbinding(), (2, 3), x._dtype, x._device)
    try:
        out = cw.add(odd, odd)
        assert _core._native.bound_class() is None
        assert type(out) is Array and out._layout is _core.contiguous_layout((2, 3))
        assert out.tolist() == [[0, 2, 4], [6, 8, 10]]
    finally:
        _core.bind_native(Array)
