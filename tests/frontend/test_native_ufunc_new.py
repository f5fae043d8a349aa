"""The cpu backend's primitives ``unary``, ``binary``, ``compare`` and ``binary_as`` in C
(candlewick._native.UfuncNew): the result, dtype and warnings of the Python primitive for
every op whose kernel is one ufunc, on operands of one shape and operands broadcast onto
it (``unary``: on whole buffers, slices and strided views); every other call handed to the Python primitive unchanged; a MemoryError made the
backend's error; the inputs never written. (test_native_elementwise.py: the namespace
functions over it, against the whole Python path.)"""

import warnings

import numpy as np
import pytest

import candlewick as cw
from candlewick.fp_state import LOUD, QUIET, STATE_VAR
from candlewick.opdefs import BinaryOp, CompareOp, UnaryOp
from cpu_backend import elementwise
from cpu_backend.ops import AT_SCALAR, BINARY_RAW, COMPARE_RAW, UNARY_RAW
from cpu_backend.storage import CpuStorage

_native = pytest.importorskip("candlewick._native", reason="candlewick._native was not built here (no C compiler)")

DTYPES = ["bool", "uint8", "int32", "int64", "float32", "float64", "complex64", "complex128"]
SPECIAL = [0.0, -0.0, 1.0, -3.5, np.inf, -np.inf, np.nan, 3e38, 7.0, 2.0, -1.0, 1e-40]


def _array(dtype, seed, shape=(3, 4)):
    n = int(np.prod(shape))
    values = np.array([SPECIAL[(i * (seed + 2) + seed) % len(SPECIAL)] for i in range(n)])
    if dtype == "bool":
        host = values > 0
    elif np.dtype(dtype).kind in "iu":
        host = (np.nan_to_num(values, posinf=200, neginf=-7) % 250).astype(dtype)  # (zeros included)
    else:
        host = values.astype(dtype)
    return cw.asarray(host.reshape(shape))


def _pairs(dtype):
    """(lhs storage, lhs layout, rhs storage, rhs layout): one shape; a column, a row, a
    column against a row, broadcast as the front end broadcasts them; 1-D slices."""
    x, y = _array(dtype, 0), _array(dtype, 1)
    col, row = _array(dtype, 2, (3, 1)), _array(dtype, 3, (4,))
    full = (3, 4)
    yield x._storage, x._layout, y._storage, y._layout
    yield x._storage, x._layout, col._storage, col._layout.broadcast_to(full)
    yield row._storage, row._layout.broadcast_to(full), y._storage, y._layout
    yield col._storage, col._layout.broadcast_to(full), row._storage, row._layout.broadcast_to(full)
    flat_x, flat_y = cw.reshape(x, (12,)), cw.reshape(y, (12,))
    a, b = flat_x[1:7], flat_y[::2]
    yield a._storage, a._layout, b._storage, b._layout


def _outcome(primitive, storage, op, l1, rhs, l2):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            out = primitive(storage, op, l1, rhs, l2)
        except Exception as exc:  # both forms must fail alike
            return ("raised", type(exc), str(exc), [])
    assert type(out) is type(storage) and out.buf.ndim == 1
    assert not np.shares_memory(out.buf, storage.buf) and not np.shares_memory(out.buf, rhs.buf)
    return (out.dtype, out.buf.dtype, out.buf.tobytes(), [(w.category, str(w.message)) for w in seen])


def _spied(name, table, ops, **kwargs):
    """(the same C primitive as CpuStorage's ``name``, its Python primitive, the calls it
    handed on to that): the primitive built again over a spy of its general form."""
    assert type(getattr(CpuStorage, name)) is _native.UfuncNew
    general = getattr(CpuStorage, name).general
    handed_on = []

    def spy(*args):
        handed_on.append(args)
        return general(*args)

    return elementwise._in_c(spy, table, ops, **kwargs), general, handed_on


@pytest.mark.parametrize("name, table, ops", [("binary", BINARY_RAW, BinaryOp), ("compare", COMPARE_RAW, CompareOp)])
def test_equals_the_python_primitive(name, table, ops):
    primitive, general, handed_on = _spied(name, table, ops)
    before = np.geterr()
    for value, row in table.items():
        op = ops(value)
        for dtype in DTYPES:
            if dtype not in row:
                continue
            in_c = type(row[dtype][0]) is np.ufunc
            for s1, l1, s2, l2 in _pairs(dtype):
                inputs = (s1.buf.tobytes(), s2.buf.tobytes())
                handed_on.clear()
                fast = _outcome(primitive, s1, op, l1, s2, l2)
                assert bool(handed_on) is not in_c, (name, value, dtype, l1, l2)
                assert fast == _outcome(general, s1, op, l1, s2, l2), (name, value, dtype, l1, l2)
                assert (s1.buf.tobytes(), s2.buf.tobytes()) == inputs
    assert np.geterr() == before  # the quiet state left behind nowhere



def _converting_outcome(primitive, storage, op, l1, rhs, l2, dtype):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            out = primitive(storage, op, l1, rhs, l2, dtype)
        except Exception as exc:  # both forms must fail alike
            return ("raised", type(exc), str(exc), [])
    assert type(out) is type(storage) and out.buf.ndim == 1
    assert not np.shares_memory(out.buf, storage.buf) and not np.shares_memory(out.buf, rhs.buf)
    return (out.dtype, out.buf.dtype, out.buf.tobytes(), [(w.category, str(w.message)) for w in seen])


def test_the_converting_form_equals_the_python_primitive():
    """``binary_as``: operands of two dtypes (or one) converted to a floating or complex
    dtype as the ufunc reads them, on every pair of layouts ``_pairs`` makes."""
    primitive, general, handed_on = _spied("binary_as", BINARY_RAW, BinaryOp, converting=True)
    before = np.geterr()
    taken = set()
    for value, row in BINARY_RAW.items():
        op = BinaryOp(value)
        for into in ("float32", "float64", "complex64", "complex128"):
            if into not in row:
                continue
            in_c = type(row[into][0]) is np.ufunc
            for first, second in (("float32", "float64"), ("int32", "float32"), ("float64", "float64"),
                                  ("uint8", "complex64")):
                lhs = list(_pairs(first))
                for (s1, l1, _, _), (_, _, s2, l2) in zip(lhs, _pairs(second)):
                    inputs = (s1.buf.tobytes(), s2.buf.tobytes())
                    handed_on.clear()
                    dtype = getattr(cw, into)
                    fast = _converting_outcome(primitive, s1, op, l1, s2, l2, dtype)
                    assert bool(handed_on) is not in_c, (value, into, first, second, l1, l2)
                    assert fast == _converting_outcome(general, s1, op, l1, s2, l2, dtype), (value, into, l1, l2)
                    assert (s1.buf.tobytes(), s2.buf.tobytes()) == inputs
                    if in_c:
                        taken.add(value)
    assert {"add", "subtract", "multiply", "divide"} <= taken
    assert np.geterr() == before  # the quiet state left behind nowhere


def test_the_converting_form_hands_other_calls_on():
    general = Recorder()
    f64 = cw.float64
    table = {id(BinaryOp.SUBTRACT): {id(f64): (np.subtract, True, f64, (np.float64, np.float64, None))}}
    primitive = _native.UfuncNew(table, STATE_VAR, QUIET, Recorder(), general, loud=LOUD, converting=True)
    x, m = cw.asarray(np.ones((3, 4), np.float32)), cw.asarray(np.arange(4.0))
    spread = m._layout.broadcast_to((3, 4))
    out = primitive(x._storage, BinaryOp.SUBTRACT, x._layout, m._storage, spread, f64)
    assert general.calls == [] and out.dtype is f64 and out.buf.tolist() == [1.0, 0.0, -1.0, -2.0] * 3
    for args in ((x._storage, BinaryOp.ADD, x._layout, m._storage, spread, f64),  # an op not in the table
                 (x._storage, BinaryOp.SUBTRACT, x._layout, m._storage, spread, cw.float32),  # nor a dtype
                 (x._storage, BinaryOp.SUBTRACT, x.T._layout, m._storage, m[:3]._layout.broadcast_to((4, 3)), f64)):
        general.calls.clear()
        assert primitive(*args) == "general's" and general.calls == [args]
    general.calls.clear()
    assert primitive(x._storage, BinaryOp.SUBTRACT, x._layout, m._storage, spread) == "general's"
    assert len(general.calls) == 1  # (another form's count)
    with pytest.raises(TypeError, match="one form"):
        _native.UfuncNew({}, STATE_VAR, QUIET, Recorder(), general, unary=True, converting=True)


def _scalar_outcome(primitive, storage, op, layout, value, reflected):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            out = primitive(storage, op, layout, value, reflected)
        except Exception as exc:  # both forms must fail alike
            return ("raised", type(exc), str(exc), [])
    assert type(out) is type(storage) and out.buf.ndim == 1 and not np.shares_memory(out.buf, storage.buf)
    return (out.dtype, out.buf.dtype, out.buf.tobytes(), [(w.category, str(w.message)) for w in seen])


@pytest.mark.parametrize("name, table, ops", [("binary_scalar", BINARY_RAW, BinaryOp),
                                              ("compare_scalar", COMPARE_RAW, CompareOp)])
def test_the_scalar_form_equals_the_python_primitive(name, table, ops):
    primitive, general, handed_on = _spied(name, table, ops, scalar=True)
    values = {"b": [True, False], "i": [3, 0, -2], "u": [3, 0], "f": [2.0, -0.0, np.inf, np.nan, 3e38, 1e-300, -3],
              "c": [2.0, complex(1, -2), complex(np.inf, 0)]}
    for value, row in table.items():
        op = ops(value)
        for dtype in DTYPES:
            if dtype not in row:
                continue
            x = _array(dtype, 0)
            flat_x = cw.reshape(x, (12,))
            kernel = row[dtype][0]
            in_c = type(kernel) is np.ufunc and dtype in elementwise._SCALAR_DTYPE
            # a kernel that is a one-operand ufunc at some values (x ** 2 as np.square)
            at = AT_SCALAR.get(kernel, {}) if dtype in elementwise._SCALAR_DTYPE else {}
            for v, lay, taken in ((x, x._layout, True), (flat_x[1:7], flat_x[1:7]._layout, True),
                                  (flat_x[::3], flat_x[::3]._layout, True), (x.T, x.T._layout, False)):
                for scalar in values[np.dtype(dtype).kind]:
                    for reflected in (False, True):
                        before = v._storage.buf.tobytes()
                        handed_on.clear()
                        fast = _scalar_outcome(primitive, v._storage, op, lay, scalar, reflected)
                        in_c_here = in_c or (not reflected and scalar in at)
                        assert bool(handed_on) is not (in_c_here and taken), (name, value, dtype, scalar)
                        assert fast == _scalar_outcome(general, v._storage, op, lay, scalar, reflected), (
                            name, value, dtype, scalar, reflected)
                        assert v._storage.buf.tobytes() == before

def _unary_outcome(primitive, storage, op, layout):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            out = primitive(storage, op, layout)
        except Exception as exc:  # both forms must fail alike
            return ("raised", type(exc), str(exc), [])
    assert type(out) is type(storage) and out.buf.ndim == 1 and not np.shares_memory(out.buf, storage.buf)
    return (out.dtype, out.buf.dtype, out.buf.tobytes(), [(w.category, str(w.message)) for w in seen])


def test_the_unary_form_equals_the_python_primitive():
    primitive, general, handed_on = _spied("unary", UNARY_RAW, UnaryOp, unary=True)
    before = np.geterr()
    taken_somewhere = set()
    for value, row in UNARY_RAW.items():
        op = UnaryOp(value)
        for dtype in DTYPES:
            if dtype not in row:
                continue
            in_c = type(row[dtype][0]) is np.ufunc and row[dtype][0].nin == 1
            x = _array(dtype, 0)
            flat_x = cw.reshape(x, (12,))
            # the whole buffer, a slice, a strided 1-D view, one element (0-d): 1-D views; a
            # transpose: general's
            for v, taken in ((x, True), (flat_x[1:7], True), (flat_x[::3], True), (x[1, 2], True), (x.T, False)):
                inputs = v._storage.buf.tobytes()
                handed_on.clear()
                fast = _unary_outcome(primitive, v._storage, op, v._layout)
                assert bool(handed_on) is not (in_c and taken), (value, dtype, v.shape)
                assert fast == _unary_outcome(general, v._storage, op, v._layout), (value, dtype, v.shape)
                assert v._storage.buf.tobytes() == inputs
                if in_c and taken:
                    taken_somewhere.add(value)
    assert {"sqrt", "isnan", "isfinite", "exp", "negative"} <= taken_somewhere
    assert np.geterr() == before  # the quiet state left behind nowhere


def test_the_unary_form_hands_other_calls_on_and_reports_memory():
    general = Recorder()
    f32 = cw.float32

    def exhausted(a):
        raise MemoryError("no room")

    primitive = _native.UfuncNew({id(UnaryOp.SQRT): {id(f32): (exhausted, True, f32)}}, STATE_VAR, QUIET,
                                 lambda op, exc: cw.errors.DeviceMemoryError("cpu", 0, None, f"{op}: {exc}"),
                                 general, loud=LOUD, unary=True)
    x = cw.asarray(np.ones((2, 3), np.float32))
    before = np.geterr()
    with pytest.raises(cw.errors.DeviceMemoryError, match="no room") as info:
        primitive(x._storage, UnaryOp.SQRT, x._layout)
    assert isinstance(info.value.__cause__, MemoryError)
    assert np.geterr() == before
    i32 = cw.asarray(np.ones((2, 3), np.int32))
    for args in ((x._storage, UnaryOp.EXP, x._layout),  # an op not in the table
                 (i32._storage, UnaryOp.SQRT, i32._layout),  # a dtype not in the table
                 (x._storage, UnaryOp.SQRT, x.T._layout)):  # a transpose: no 1-D view
        general.calls.clear()
        assert primitive(*args) == "general's" and general.calls == [args]
    general.calls.clear()
    assert primitive(x._storage, UnaryOp.SQRT) == "general's" and len(general.calls) == 1  # (another form's count)
    with pytest.raises(TypeError, match="one form"):
        _native.UfuncNew({}, STATE_VAR, QUIET, Recorder(), general, unary=True, matrix=True)


class Recorder:
    def __init__(self):
        self.calls = []

    def __call__(self, *args):
        self.calls.append(args)
        return "general's"


def _made(general, kernel=np.add, loud=True):
    f32 = cw.float32
    table = {id(BinaryOp.ADD): {id(f32): (kernel, loud, f32)}}
    return _native.UfuncNew(table, STATE_VAR, QUIET, lambda op, exc: cw.errors.DeviceMemoryError(
        "cpu", 0, None, f"{op}: {exc}"), general, loud=LOUD)


def test_every_other_call_goes_to_the_python_primitive_unchanged():
    general = Recorder()
    primitive = _made(general)
    x = cw.asarray(np.ones((3, 4), np.float32))
    s, lay = x._storage, x._layout
    assert primitive(s, BinaryOp.ADD, lay, s, lay).buf.tolist() == [2.0] * 12 and general.calls == []
    col = cw.asarray(np.ones((1, 4), np.float32))
    i32 = cw.asarray(np.ones((3, 4), np.int32))
    stretched = col._layout.broadcast_to((3, 4))

    class Other(CpuStorage):
        __slots__ = ()

    other = Other(np.ones(12, np.float32), cw.float32)
    declined = [
        (s, BinaryOp.SUBTRACT, lay, s, lay),  # an op not in the table
        (s, BinaryOp.ADD, x.T._layout, s, x.T._layout),  # transposed: neither form's views
        (col._storage, BinaryOp.ADD, stretched, col._storage, stretched),  # one axis stretched in both
        (s, BinaryOp.ADD, lay, i32._storage, i32._layout),  # another dtype
        (s, BinaryOp.ADD, lay, other, lay),  # another class
        (i32._storage, BinaryOp.ADD, lay, i32._storage, lay),  # a dtype not in the table
    ]
    for args in declined:
        general.calls.clear()
        assert primitive(*args) == "general's" and general.calls == [args]
    general.calls.clear()
    assert primitive(s, BinaryOp.ADD, lay, s, lay, "extra") == "general's" and len(general.calls) == 1


def test_a_memory_error_becomes_the_backends_error():
    def exhausted(a, b):
        raise MemoryError("no room")

    primitive = _made(Recorder(), kernel=exhausted)
    x = cw.asarray(np.ones(4, np.float32))
    before = np.geterr()
    with pytest.raises(cw.errors.DeviceMemoryError, match="no room") as info:
        primitive(x._storage, BinaryOp.ADD, x._layout, x._storage, x._layout)
    assert isinstance(info.value.__cause__, MemoryError)
    assert np.geterr() == before  # the state restored: the next NumPy call warns as before
    with pytest.warns(RuntimeWarning):
        np.float32(3e38) * np.float32(10)


def test_loud_entries_run_quietly_and_others_do_not():
    seen = []

    def kernel(a, b):
        seen.append(np.geterr()["over"])
        return np.add(a, b)

    x = cw.asarray(np.ones(4, np.float32))
    args = (x._storage, BinaryOp.ADD, x._layout, x._storage, x._layout)
    with np.errstate(over="raise"):
        _made(Recorder(), kernel=kernel, loud=True)(*args)
        _made(Recorder(), kernel=kernel, loud=False)(*args)
        assert np.geterr()["over"] == "raise"
    assert seen == ["ignore", "raise"]


def test_a_large_overflow_warns_nowhere():
    big = cw.asarray(np.full(1 << 12, 3e38, np.float32))
    col = cw.asarray(np.full((1 << 10, 1), 3e38, np.float32))
    wide = cw.reshape(big, (1 << 10, 4))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert bool(cw.all(cw.isinf(big * big)))
        assert bool(cw.all(cw.isinf(wide * col)))
        out = elementwise.binary(big._storage, BinaryOp.MULTIPLY, big._layout, big._storage, big._layout)
        assert bool(np.all(out.buf == np.inf))


# --- the matrix form: CpuStorage.matmul's real 2-D product ----------------------------------

def _matrices(dtype):
    """(lhs, rhs, whether the C form takes them): matrices and transposes in their
    buffers (offset ones too, and size-1 axes) taken; strided or stretched ones not."""
    a, b = _array(dtype, 0, (5, 3)), _array(dtype, 1, (4, 3))
    yield a, b.T, True
    yield a.T, a, True
    yield b[1:3], a.T, True
    yield a[:, :1], b[:1, :1], False  # (a column of a matrix: strided)
    yield cw.reshape(a, (15, 1)), b[:1, :1], True
    yield a[2:3], b.T, True
    yield a[::2], b.T, False
    yield a[:, 1:], b[:, 1:].T, False
    yield cw.broadcast_to(a[:1], (5, 3)), b.T, False


def test_the_matrix_form_equals_the_python_primitive():
    primitive = CpuStorage.matmul
    assert type(primitive) is _native.UfuncNew
    general = primitive.general
    handed_on = []

    def spy(*args):
        handed_on.append(args)
        return general(*args)

    from cpu_backend import products

    fast = products._in_c(spy)
    for dtype in ("float32", "float64", "int64", "complex64"):
        for x, y, in_c in _matrices(dtype):
            args = (x._storage, y._storage, x._layout, y._layout)
            inputs = (x._storage.buf.tobytes(), y._storage.buf.tobytes())
            handed_on.clear()
            with warnings.catch_warnings():
                warnings.simplefilter("error")  # (inf and NaN among the values: quiet, as the Python form)
                out, expected = fast(*args), general(*args)
            assert bool(handed_on) is not (in_c and dtype in ("float32", "float64")), (dtype, x.shape, y.shape)
            assert type(out) is CpuStorage and out.dtype is expected.dtype and out.buf.ndim == 1
            assert out.buf.tobytes() == expected.buf.tobytes(), (dtype, x.shape, y.shape)
            assert (x._storage.buf.tobytes(), y._storage.buf.tobytes()) == inputs
            assert not np.shares_memory(out.buf, x._storage.buf) and not np.shares_memory(out.buf, y._storage.buf)


def test_the_matrix_form_hands_other_calls_on_and_reports_memory():
    general = Recorder()
    f32 = cw.float32

    def exhausted(a, b):
        raise MemoryError("no room")

    primitive = _native.UfuncNew({id(None): {id(f32): (exhausted, True, f32)}}, STATE_VAR, QUIET,
                                 lambda op, exc: cw.errors.DeviceMemoryError("cpu", 0, None, f"{op}: {exc}"),
                                 general, loud=LOUD, matrix=True)
    a = cw.asarray(np.ones((2, 3), np.float32))
    i = cw.asarray(np.ones((3, 2), np.int32))
    with pytest.raises(cw.errors.DeviceMemoryError, match="matmul: no room") as info:
        primitive(a._storage, a.T._storage, a._layout, a.T._layout)
    assert isinstance(info.value.__cause__, MemoryError)
    batched = cw.reshape(a, (1, 2, 3))
    for args in ((a._storage, i._storage, a._layout, i._layout),
                 (batched._storage, batched._storage, batched._layout, cw.matrix_transpose(batched)._layout),
                 (i._storage, i._storage, i._layout, i.T._layout)):
        general.calls.clear()
        assert primitive(*args) == "general's" and general.calls == [args]


@pytest.mark.parametrize("symbol", ["+", "-", "*", "/", "//", "%", "**"])
def test_a_reflected_scalar_takes_the_forward_operators_inline_case(symbol):
    """``2.0 * x`` (elementwise_dispatch.binary's inline case, reflected) gives what the
    general scalar path gives."""
    from candlewick import elementwise_dispatch as dispatch
    from candlewick.array_operators import _BINARY_OPS

    op = next(o for o, s in _BINARY_OPS.values() if s == symbol)
    for dtype in ("float32", "float64"):
        x = _array(dtype, 0)
        for scalar in (2.0, 3, -0.0, np.inf, -5):
            with warnings.catch_warnings(record=True) as seen:
                warnings.simplefilter("always")
                fast = eval(f"scalar {symbol} x")
                general = dispatch._binary_scalar(op, x, scalar, True, "general", None)
            assert not seen
            assert (fast.dtype, fast.shape) == (general.dtype, general.shape)
            assert cw.to_numpy(fast).tobytes() == cw.to_numpy(general).tobytes(), (symbol, dtype, scalar)
