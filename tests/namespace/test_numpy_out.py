"""NumPy's writes into candlewick arrays (docs/inplace.md): ``out=`` of ufuncs and functions,
``ufunc.at``/``reduce``/``accumulate``, ``copyto``, ``put``, ``putmask``,
``fill_diagonal``. The values land in the named array on its device and the call returns
it; what candlewick has no equal for runs NumPy on shared host memory (cpu) or raises
``UnsupportedOperation`` naming the NumPy function. Never a NumPy result beside an
untouched ``out``."""

import numpy as np
import pytest

import candlewick as cw
from candlewick.backend import holds_host_memory
from candlewick.errors import DTypeError, ShapeError, UnsupportedOperation
from tracing_backend import TracingBackend

A = np.array([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])
B = np.array([[2.0, 1.0, -1.0], [3.0, 0.25, 2.0]])


def _same(got, out, expected):
    assert got is out
    np.testing.assert_allclose(cw.to_numpy(out), expected, rtol=1e-12)


UFUNC_CASES = [  # (name, call(np-or-candlewick inputs, out)): the same call on both sides
    ("add", lambda a, b, o: np.add(a, b, out=o)),
    ("sqrt", lambda a, b, o: np.sqrt(abs(a), out=o)),
    ("multiply scalar", lambda a, b, o: np.multiply(a, 2.5, out=o)),
    ("true_divide", lambda a, b, o: np.true_divide(a, b, out=o)),
    ("power", lambda a, b, o: np.power(abs(a), b, out=o)),
    ("maximum", lambda a, b, o: np.maximum(a, b, out=o)),
    ("arctan2", lambda a, b, o: np.arctan2(a, b, out=o)),
    ("broadcast row", lambda a, b, o: np.add(a[0], 1.0, out=o)),
    ("where", lambda a, b, o: np.multiply(a, b, out=o, where=a > 0)),
]


@pytest.mark.parametrize("name,call", UFUNC_CASES, ids=[c[0] for c in UFUNC_CASES])
def test_ufunc_out_is_written_and_returned(name, call, device):
    a, b = cw.asarray(A, device=device), cw.asarray(B, device=device)
    out, expected = cw.full(A.shape, 7.0, device=device), np.full(A.shape, 7.0)
    got = call(a, b, out)
    call(A, B, expected)
    _same(got, out, expected)


def test_ufunc_out_into_an_operand_and_matmul(device):
    a = cw.asarray(A, device=device)
    assert np.subtract(a, 1.0, out=a) is a
    np.testing.assert_array_equal(cw.to_numpy(a), A - 1.0)
    m = cw.zeros((2, 2), device=device)
    _same(np.matmul(a, a.T, out=m), m, (A - 1.0) @ (A - 1.0).T)


def test_ufunc_out_makes_no_temporary():
    backend = TracingBackend(wraps="cpu")
    dev = backend.device(0)
    x, y = cw.ones(100, device=dev), cw.ones(100, device=dev)
    backend.recorder.reset()
    np.add(x, y, out=x)
    np.multiply(x, 3.0, out=x)
    np.greater(x, y, out=cw.zeros(100, dtype=cw.bool, device=dev))
    rows = {(p, o) for p, o, _, _ in backend.recorder.rows()}
    assert rows == {("binary_into", "add"), ("binary_scalar_into", "multiply"),
                    ("compare_into", "greater"), ("zeros", "")}
    np.testing.assert_array_equal(cw.to_numpy(x), np.full(100, 6.0))


def test_ufunc_out_casts_by_the_casting_rule(device):
    ints = cw.asarray([1, 2, 3], device=device)
    out = cw.zeros(3, device=device)  # float64: int64 results cast safely
    _same(np.add(ints, ints, out=out), out, [2.0, 4.0, 6.0])
    small = cw.zeros(3, dtype=cw.float32, device=device)
    _same(np.sqrt(out, out=small), small, np.sqrt([2.0, 4.0, 6.0]).astype(np.float32))
    target = cw.zeros(3, dtype=cw.int64, device=device)
    with pytest.raises(DTypeError, match=r"numpy.divide: cannot cast .*float64.* int64 .*same_kind"):
        np.true_divide(ints, ints, out=target)
    _same(np.true_divide(ints, ints, out=target, casting="unsafe"), target, [1, 1, 1])
    with pytest.raises(ShapeError, match="numpy.add"):
        np.add(ints, ints, out=cw.zeros(4, device=device))


def test_reductions_and_accumulations_with_out(device):
    a = cw.asarray(A, device=device)
    for fn, kwargs, expected in [
        (np.sum, {"axis": 0}, A.sum(axis=0)), (np.mean, {"axis": 1}, A.mean(axis=1)),
        (np.max, {"axis": 0}, A.max(axis=0)), (np.prod, {"axis": 1}, A.prod(axis=1)),
        (np.std, {"axis": 0}, A.std(axis=0)), (np.argmax, {"axis": 1}, A.argmax(axis=1)),
    ]:
        out = cw.zeros(expected.shape, device=device)
        _same(fn(a, out=out, **kwargs), out, expected)
    out = cw.zeros((2, 1), device=device)
    _same(np.add.reduce(a, axis=1, keepdims=True, out=out), out, A.sum(axis=1, keepdims=True))
    flat = cw.zeros(6, device=device)
    _same(np.cumsum(a, out=flat), flat, np.cumsum(A))
    acc = cw.zeros((2, 3), device=device)
    _same(np.multiply.accumulate(a, axis=1, out=acc), acc, np.multiply.accumulate(A, axis=1))
    clipped = cw.zeros((2, 3), device=device)
    _same(np.clip(a, -1.0, 1.0, out=clipped), clipped, np.clip(A, -1.0, 1.0))
    ints = cw.zeros(3, dtype=cw.int64, device=device)  # "cast if necessary", as NumPy's sum
    _same(np.sum(a, axis=0, out=ints), ints, A.sum(axis=0).astype(np.int64))


def test_ufunc_at_applies_every_index(device):
    x = cw.zeros(5, device=device)
    assert np.add.at(x, [0, 0, 1, 4, -1], 1.0) is None
    np.subtract.at(x, cw.asarray([2, 2], device=device), cw.asarray([0.5, 0.25], device=device))
    np.negative.at(x, slice(0, 2))
    np.multiply.at(x, 3, 10.0)
    h = np.zeros(5)
    np.add.at(h, [0, 0, 1, 4, -1], 1.0)
    np.subtract.at(h, [2, 2], [0.5, 0.25])
    np.negative.at(h, slice(0, 2))
    np.multiply.at(h, 3, 10.0)
    np.testing.assert_array_equal(cw.to_numpy(x), h)
    rows = cw.zeros((3, 2), device=device)
    np.add.at(rows, [2, 0, 2], cw.asarray([1.0, 2.0], device=device))
    np.testing.assert_array_equal(cw.to_numpy(rows), [[1, 2], [0, 0], [2, 4]])
    with pytest.raises(IndexError, match="numpy.add.at"):  # a host key: checked at the call
        np.add.at(rows, [3], 1.0)
    np.testing.assert_array_equal(cw.to_numpy(rows), [[1, 2], [0, 0], [2, 4]])
    with pytest.raises(IndexError):  # a device key: a backend may check it at the next sync
        np.add.at(rows, cw.asarray([1, -4], device=device), 1.0)
        cw.to_numpy(rows)
    np.testing.assert_array_equal(cw.to_numpy(rows), [[1, 2], [0, 0], [2, 4]])


def test_copyto_put_putmask_fill_diagonal(device):
    x = cw.zeros(5, device=device)
    np.copyto(x, 3.0)
    np.copyto(x, np.arange(5.0), where=cw.asarray([True, False, True, False, True], device=device))
    np.testing.assert_array_equal(cw.to_numpy(x), [0, 3, 2, 3, 4])
    with pytest.raises(DTypeError, match="numpy.copyto"):
        np.copyto(cw.zeros(2, dtype=cw.int64, device=device), 1.5)
    np.put(x, [0, -1], 9.0)
    np.put(x, [7], 1.0, mode="wrap")
    np.put(x, [-3, 12], [5.0, 6.0], mode="clip")
    h = np.array([0, 3, 2, 3, 4.0])
    np.put(h, [0, -1], 9.0)
    np.put(h, [7], 1.0, mode="wrap")
    np.put(h, [-3, 12], [5.0, 6.0], mode="clip")
    np.testing.assert_array_equal(cw.to_numpy(x), h)
    np.putmask(x, x > 3, cw.asarray([-1.0, -2.0], device=device))
    np.putmask(h, h > 3, [-1.0, -2.0])
    np.testing.assert_array_equal(cw.to_numpy(x), h)
    for shape, wrap in [((3, 3), False), ((5, 3), False), ((5, 3), True), ((2, 4), False), ((3, 3, 3), False)]:
        z, zh = cw.zeros(shape, device=device), np.zeros(shape)
        np.fill_diagonal(z, [1.0, 2.0], wrap=wrap)
        np.fill_diagonal(zh, [1.0, 2.0], wrap=wrap)
        np.testing.assert_array_equal(cw.to_numpy(z), zh)
    t = cw.zeros((4, 4), device=device).T[1:, :3]  # a strided view: written through
    np.fill_diagonal(t, 7.0)
    np.testing.assert_array_equal(cw.to_numpy(t), np.eye(3) * 7.0)


def test_calls_without_an_equal_write_shared_memory_or_raise(device):
    """``np.fmax`` (no candlewick equal) and ``np.add`` with ``dtype=`` (an option it does
    not take): NumPy writes host memory in place; elsewhere UnsupportedOperation."""
    a, b = cw.asarray(A, device=device), cw.asarray(B, device=device)
    calls = [(lambda o: np.fmax(a, b, out=o), np.fmax(A, B)),
             (lambda o: np.add(a, b, out=o, dtype=np.float32), (A + B).astype(np.float32))]
    for call, expected in calls:
        out = cw.zeros(A.shape, device=device)
        if holds_host_memory(device):
            _same(call(out), out, expected)
        else:
            with pytest.raises(UnsupportedOperation, match="numpy"):
                call(out)
            np.testing.assert_array_equal(cw.to_numpy(out), np.zeros(A.shape))


def test_device_memory_the_host_cannot_read_is_written_by_candlewick_or_not_at_all():
    """On a device without host memory (the tracing backend withholding ``host_memory``:
    a GPU's case), calls with an equal write on the device; the others raise, naming the
    NumPy function, and leave ``out`` untouched."""
    dev = TracingBackend(wraps="cpu", hide="host_memory").device(0)
    a = cw.asarray(A, device=dev)
    out = cw.zeros(A.shape, device=dev)
    _same(np.add(a, 1.0, out=out), out, A + 1.0)
    row = out[0]
    _same(np.sum(a, axis=0, out=row), row, A.sum(axis=0))
    np.add.at(out, [1, 1], 1.0)
    np.copyto(out, 5.0)
    np.testing.assert_array_equal(cw.to_numpy(out), np.full(A.shape, 5.0))
    for call in (lambda: np.fmax(a, a, out=out), lambda: np.fmax.at(out, [0], 1.0),
                 lambda: np.place(out, out > 0, [1.0]), lambda: np.ptp(a, axis=0, out=row)):
        with pytest.raises(UnsupportedOperation, match=r"numpy\.(fmax|place|ptp)"):
            call()
    np.testing.assert_array_equal(cw.to_numpy(out), np.full(A.shape, 5.0))
