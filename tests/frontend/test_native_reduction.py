"""sum, prod, max, min, any and all's fast path in C (candlewick._native.Reduction) gives
what their Python path gives, field for field; it hands every other case to the Python path
with the same arguments (errors and references pass through it intact:
test_native_elementwise.py's test of every C path's)."""

import numpy as np
import pytest

import candlewick as cw
from candlewick import _core, statistical, utility
from candlewick.array import Array
from candlewick.opdefs import ReduceOp
from _native_paths import Recorder, both_paths

pytest.importorskip("candlewick._native", reason="candlewick._native was not built here (no C compiler)")

NAMES = ["sum", "prod", "max", "min", "any", "all"]
DTYPES = ["bool", "uint8", "int32", "int64", "float16", "float32", "float64", "complex64"]


def _operand(dtype, layout):
    values = np.array([[1, 2, 3, 0], [3, 1, 2, 2], [0, 1, 5, 4]])
    if dtype.startswith(("float", "complex")):
        values = values / 8 + 0.125
    x = cw.asarray(values.astype(dtype))
    return {"contiguous": x, "transposed": x.T, "offset": x[1:], "strided": x[:, ::2], "row": x[1],
            "0-d": x[1, 2], "empty": x[:0], "broadcast": cw.broadcast_to(x[:1], (3, 4))}[layout]


def test_every_reduction_has_the_fast_path():
    for name in NAMES:
        fn = getattr(cw, name)
        module = utility if name in ("any", "all") else statistical
        assert fn is getattr(module, name) and fn.__wrapped__.__name__ == name == fn.__name__
        assert fn.__code__.co_name == name  # (an error raised inside names the function)
        fast = [c.cell_contents for c in fn.__closure__]
        assert [type(f) for f in fast] == [_core._native.Reduction] and fast[0].fallback is fn.__wrapped__


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "offset", "strided", "row", "0-d", "empty",
                                    "broadcast"])
@pytest.mark.parametrize("name", NAMES)
def test_equals_the_python_path(name, layout):
    fn = getattr(cw, name)
    dtypes = [None, "same", cw.float32, cw.float64, cw.int64] if name in ("sum", "prod") else [None]
    for dtype_name in DTYPES:
        x = _operand(dtype_name, layout)
        for axis in (None, 0, 1, -1, -2, 2, (0,), True, 0.0):
            for keepdims in (False, True):
                for dtype in dtypes:
                    kwargs = {"axis": axis, "keepdims": keepdims}
                    if dtype is not None:
                        kwargs["dtype"] = x.dtype if dtype == "same" else dtype
                    fast, python = both_paths(fn, (x,), kwargs)
                    assert fast == python, (name, dtype_name, kwargs)


def _sum(fallback):
    return _core._native.Reduction(ReduceOp.SUM, statistical._SAME_ACCUMULATION[ReduceOp.SUM],
                                   (cw.float32, cw.float64), statistical._FLOATS, _core._ALL_DTYPES, True, fallback)


def test_the_common_cases_run_in_c(monkeypatch):
    fallback = Recorder()
    total = _sum(fallback)
    x = cw.asarray(np.arange(12, dtype=np.float32).reshape(3, 4))
    seen = []
    cls = type(x._storage)
    for method in ("reduce", "reduce_as"):
        real = getattr(cls, method)
        monkeypatch.setattr(cls, method, lambda *args, real=real, method=method: seen.append(method) or real(*args))
    cases = [({}, (), cw.float32, "reduce"), ({"axis": 0}, (4,), cw.float32, "reduce"),
             ({"axis": -1, "keepdims": True}, (3, 1), cw.float32, "reduce"),
             ({"axis": None, "keepdims": True}, (1, 1), cw.float32, "reduce"),
             ({"axis": 0, "dtype": cw.float64}, (4,), cw.float64, "reduce_as"),
             ({"dtype": cw.float32}, (), cw.float32, "reduce")]
    for kwargs, shape, dtype, method in cases:
        out = total(x, **kwargs)
        assert fallback.calls == [] and seen[-1] == method
        assert type(out) is Array and out._layout is _core.contiguous_layout(shape) and out._dtype is dtype
        want = np.sum(np.arange(12, dtype=np.float32).reshape(3, 4), axis=kwargs.get("axis"),
                      keepdims=kwargs.get("keepdims", False), dtype=dtype.numpy)
        assert np.array_equal(cw.to_numpy(out), want)


def test_everything_else_goes_to_the_fallback_unchanged():
    fallback = Recorder()
    total = _sum(fallback)
    x = cw.asarray(np.ones((2, 3), np.float32))

    class Sub(Array):
        __slots__ = ()

    sub = _core.new_array(Sub, x._storage, (2, 3), x._dtype, x._device)
    ints = cw.asarray(np.ones((2, 3), np.int32))
    cases = [((x, 0), {}), ((x,), {"axis": (0,)}), ((x,), {"axis": True}), ((x,), {"axis": 2}),
             ((x,), {"keepdims": 1}), ((x,), {"dtype": cw.int64}), ((x,), {"dtype": "float64"}),
             ((x,), {"where": None}), ((ints,), {}), ((ints,), {"dtype": cw.float64}), ((sub,), {}),
             ((np.ones(3),), {}), ((), {"x": x})]
    for args, kwargs in cases:
        assert total(*args, **kwargs) == "fallback"
        assert fallback.calls[-1] == (args, kwargs)
    assert total.fallback is fallback


def test_max_and_min_decline_an_empty_axis():
    fallback = Recorder()
    top = _core._native.Reduction(ReduceOp.MAX, {"float32": cw.float32}, (), statistical._FLOATS,
                                  _core._ALL_DTYPES, False, fallback)
    empty = cw.zeros((0, 3), dtype=cw.float32)
    assert top(empty, axis=0) == "fallback" and top(empty) == "fallback"
    assert fallback.calls == [((empty,), {"axis": 0}), ((empty,), {})]
    assert top(empty, axis=1).shape == (0,) and len(fallback.calls) == 2  # (no element reduced)


def test_a_device_without_the_group_or_a_dtype_declines_the_conversion():
    class Device:
        def __init__(self, dtypes, capabilities):
            self.dtypes, self.capabilities = dtypes, capabilities

    fallback = Recorder()
    total = _sum(fallback)
    x = cw.asarray(np.ones((2, 3), np.float32))
    for device in (Device(_core._ALL_DTYPES, frozenset()), Device((cw.float32, cw.float64), {"reduce_dtype"})):
        y = _core.new_array(Array, x._storage, (2, 3), x._dtype, device)
        assert total(y, axis=0, dtype=cw.float64) == "fallback"


@pytest.mark.parametrize("record", [True, False])
def test_lazy_mode_calls_lazy_modes_operand(monkeypatch, record):
    """Inside lazy(), recorded (a device that records) or run at once: the primitive called
    through lazy mode's operand, as the Python path calls it, the values eager mode's; a
    Reduction made with operand False (any, all) hands lazy mode's calls on."""
    from candlewick.fusion import lazy_mode

    monkeypatch.setattr(lazy_mode, "RECORD_EVERYWHERE", record)
    fallback = Recorder()
    total = _sum(fallback)
    either = _core._native.Reduction(ReduceOp.ANY, {"bool": cw.bool}, (), statistical._FLOATS, _core._ALL_DTYPES,
                                     True, fallback, operand=False)
    x = cw.asarray(np.arange(6, dtype=np.float32).reshape(2, 3))
    with cw.lazy():
        rows, wide = total(x * 2.0, axis=1), total(x, axis=0, dtype=cw.float64)
        assert fallback.calls == []
        assert {type(r._storage).__name__ for r in (rows, wide)} == ({"LazyStorage"} if record else {"CpuStorage"})
        mask = x > 2.0
        assert either(mask) == "fallback" and fallback.calls == [((mask,), {})]
    host = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(cw.to_numpy(rows), (host * 2).sum(axis=1))
    assert wide.dtype is cw.float64
    np.testing.assert_array_equal(cw.to_numpy(wide), host.sum(axis=0, dtype=np.float64))
    assert either(x > 2.0).item() is True and len(fallback.calls) == 1  # (out of lazy mode: in C)


def test_construction_is_checked():
    with pytest.raises(TypeError):
        _core._native.Reduction(ReduceOp.SUM, {}, [], {}, (), True, print)
    with pytest.raises(TypeError, match="fallback must be callable"):
        _core._native.Reduction(ReduceOp.SUM, {}, (), {}, (), True, None)
