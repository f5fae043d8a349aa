"""Temporary elision (candlewick.elision, candlewick/_native_temporary.c): ``-2 * (a @ b)`` and ``(a @ b) * 2.0``
writes into the product's memory (no second buffer at the peak) with the values a new
array would hold; an operand that anything else can read again is never written: a
variable, a parameter, a list's element during a sort's key call, memory shared with a
NumPy view, an import or another array, a weakly referenced array, a small array."""

import functools
import operator
import tracemalloc
import weakref

import numpy as np
import pytest

import candlewick as cw
from candlewick import _core, elision

pytestmark = pytest.mark.skipif(getattr(_core._native, "temporary", None) is None,
                                reason="candlewick._native was not built here (no C compiler)")

N = 256  # 256 x 256 float64: 512 KiB, above elision.FROM_BYTES
HOST = np.random.default_rng(0).standard_normal((N, N))


def _a():
    return cw.asarray(HOST)


def _peak_buffers(fn):
    """fn()'s result and its peak memory above the start, in operand-sized buffers."""
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        out = fn()
        return out, (tracemalloc.get_traced_memory()[1] - before) / HOST.nbytes
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("expression, expected", [
    (lambda a: -2 * (a + 1.0), lambda h: -2 * (h + 1.0)),
    (lambda a: 2.0 - (a * 3.0), lambda h: 2.0 - (h * 3.0)),
    (lambda a: 1.5 / (a + 4.0), lambda h: 1.5 / (h + 4.0)),
    (lambda a: 0.5 + (a @ a), lambda h: 0.5 + (h @ h)),
    (lambda a: (a @ a) * 2.0, lambda h: (h @ h) * 2.0),
    (lambda a: (a + 1.0) - 3, lambda h: (h + 1.0) - 3),
    (lambda a: (a * 3.0) / 7.0, lambda h: (h * 3.0) / 7.0),
    (lambda a: (a - 1.0) + 0.25, lambda h: (h - 1.0) + 0.25),
])
def test_a_temporary_is_written_in_place_with_a_new_arrays_values(expression, expected):
    a = _a()
    expression(a)  # (records the operator's path)
    out, peak = _peak_buffers(lambda: expression(a))
    np.testing.assert_array_equal(np.asarray(out), expected(HOST))
    assert peak < 1.5  # the inner result's buffer only


def test_float32_keeps_its_dtype_and_values():
    a = cw.asarray(HOST.astype(np.float32))
    _ = -2 * (a + 1.0)  # (records the operator's path: alone, the first call's record is in the peak)
    out, peak = _peak_buffers(lambda: -2 * (a + 1.0))
    assert out.dtype == cw.float32
    np.testing.assert_array_equal(np.asarray(out), -2 * (HOST.astype(np.float32) + np.float32(1.0)))
    assert peak < 1.5 / 2 * 1.01 + 0.01


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("scalar", [-2, 0.5, -0.0, float("inf"), float("nan")])
def test_a_reflected_sum_or_product_gives_a_new_arrays_bits(dtype, scalar):
    # scalar * t and scalar + t run as t * scalar and t + scalar (the primitive's forward
    # form, in C where built) unless the scalar is NaN: the bits of a new array's result
    host = HOST.astype(dtype)
    host[0, :4] = [np.nan, -0.0, np.inf, -np.inf]
    a = cw.asarray(host)
    for expression, expected in ((lambda t: scalar * (t + 0.0), lambda h: dtype(scalar) * (h + dtype(0.0))),
                                 (lambda t: scalar + (t * 1.0), lambda h: dtype(scalar) + h * dtype(1.0))):
        expression(a)  # (records the operator's path)
        out, peak = _peak_buffers(lambda: expression(a))
        with np.errstate(all="ignore"):
            want = expected(host)
        assert np.asarray(out).tobytes() == want.tobytes()
        assert peak < 1.5


def test_a_reflected_product_runs_the_forward_primitive(monkeypatch):
    seen = []
    storage_class = type(_a()._storage)
    real = storage_class.binary_scalar_into

    def spy(self, *args):
        seen.append(args[-1])  # reflected
        return real.__get__(self, storage_class)(*args)

    monkeypatch.setattr(storage_class, "binary_scalar_into", spy)
    a = _a()
    for scalar in (-2, float("nan")):
        _ = scalar * (a + 0.0)  # (records the operator's path)
        seen.clear()
        _ = scalar * (a + 0.0)
        assert seen == [scalar != scalar]  # forward (reflected False) but for NaN


def test_a_variable_is_not_written():
    a = _a()
    t = a + 1.0
    out = -2 * t
    forward = t / 4.0
    np.testing.assert_array_equal(np.asarray(t), HOST + 1.0)
    np.testing.assert_array_equal(np.asarray(out), -2 * (HOST + 1.0))
    np.testing.assert_array_equal(np.asarray(forward), (HOST + 1.0) / 4.0)


def test_a_parameter_is_not_written():
    a = _a()
    kept = []

    def scale(t):
        out = -2 * t
        kept.append(t)
        return out

    out = scale(a + 1.0)
    np.testing.assert_array_equal(np.asarray(kept[0]), HOST + 1.0)
    np.testing.assert_array_equal(np.asarray(out), -2 * (HOST + 1.0))


def test_a_list_element_under_a_sort_key_call_is_not_written():
    """list.sort holds its elements with one reference each while it calls the key (no
    other), then puts them back: the path check refuses this call."""
    a = _a()
    for key in (functools.partial(operator.mul, 2), operator.methodcaller("__mul__", 2.0)):
        items = [a + 1.0, a + 2.0]
        with pytest.raises(Exception):  # noqa: B017 - comparing two arrays' keys has no truth value
            items.sort(key=key)
        np.testing.assert_array_equal(np.asarray(items[0]), HOST + 1.0)
        np.testing.assert_array_equal(np.asarray(items[1]), HOST + 2.0)


def test_operator_functions_give_the_same_values():
    a = _a()
    np.testing.assert_array_equal(np.asarray(operator.mul(2, a + 1.0)), 2 * (HOST + 1.0))
    np.testing.assert_array_equal(np.asarray(functools.partial(operator.sub, 2.0)(a + 1.0)), 2.0 - (HOST + 1.0))


def test_memory_shared_elsewhere_is_not_written():
    a = _a()
    numpy_views, array_views = [], []

    def with_numpy_view():
        y = a + 1.0
        numpy_views.append(np.asarray(y))  # NumPy's view of y's memory
        return y

    def with_array_view():
        y = a + 2.0
        array_views.append(y[1:])  # another array on y's storage
        return y

    host = HOST.copy()
    for make, value in ((with_numpy_view, HOST + 1.0), (with_array_view, HOST + 2.0),
                        (lambda: cw.from_dlpack(host), HOST)):  # (an import: host's memory)
        np.testing.assert_array_equal(np.asarray(-2 * make()), -2 * value)
        np.testing.assert_array_equal(np.asarray(make() * 3.0), value * 3.0)
    for view in numpy_views:
        np.testing.assert_array_equal(view, HOST + 1.0)
    for view in array_views:
        np.testing.assert_array_equal(np.asarray(view), (HOST + 2.0)[1:])
    np.testing.assert_array_equal(host, HOST)


def test_a_weakly_referenced_array_is_not_reused():
    a = _a()
    refs = []

    def make():
        y = a + 1.0
        refs.append(weakref.ref(y))
        return y

    out = -2 * make()
    assert refs[0]() is None  # the temporary died: out is a new array
    np.testing.assert_array_equal(np.asarray(out), -2 * (HOST + 1.0))


def test_small_and_integer_operands_make_new_arrays():
    small = cw.asarray(HOST[:4, :4])
    ints = cw.asarray(np.arange(N * N, dtype=np.int64).reshape(N, N))
    np.testing.assert_array_equal(np.asarray(-2 * (small + 1.0)), -2 * (HOST[:4, :4] + 1.0))
    _, peak = _peak_buffers(lambda: 2 * (ints + 1))
    assert peak > 1.5  # (integers are not elided: a second buffer)


def test_lazy_mode_gives_the_same_values():
    a = _a()
    with cw.lazy():
        out = -2 * (a @ a)
        shifted = 1.0 - (a + 1.0)
    np.testing.assert_array_equal(np.asarray(out), -2 * (HOST @ HOST))
    np.testing.assert_array_equal(np.asarray(shifted), 1.0 - (HOST + 1.0))


@pytest.mark.parametrize("fn", [lambda y: cw.tanh(y) * 2.0, lambda y: 2.0 - cw.exp(y), lambda y: (y + 1.0) / 3.0],
                         ids=["forward", "reflected", "divide"])
def test_a_fused_functions_temporaries_are_traced_not_elided(fn):
    """Inside cw.fuse's trace a temporary's storage is the tracer's, which refuses any
    primitive it does not trace: the elision check must not ask it for ``unshared``."""
    a = _a()
    fn(a)  # (records the operator's path outside the trace)
    got = cw.fuse(fn)(a)
    np.testing.assert_allclose(np.asarray(got), np.asarray(fn(cw.asarray(HOST))), rtol=1e-12)


def test_without_the_c_module_nothing_is_elided(monkeypatch):
    monkeypatch.setattr(elision, "_temporary", None)
    a = _a()
    out, peak = _peak_buffers(lambda: -2 * (a + 1.0))
    np.testing.assert_array_equal(np.asarray(out), -2 * (HOST + 1.0))
    assert peak > 1.5


def test_the_c_functions_check_their_arguments():
    with pytest.raises(ValueError, match="key must be in"):
        _core._native.temporary(_a(), 10**6)
    with pytest.raises(TypeError, match="takes"):
        _core._native.temporary(_a())
    with pytest.raises(ValueError, match="evals"):
        _core._native.calibrate_temporary(0, 0, 4, lambda: None)
