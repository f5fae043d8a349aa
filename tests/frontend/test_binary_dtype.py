"""Element-wise ops of arrays of two dtypes (``X - mean`` with X float32 and the mean
float64, as scikit-learn's StandardScaler computes): NumPy's values on each backend under
test, through the optional "binary_dtype" primitive where the device declares it and
through the documented fallback (``astype`` of the narrower operand, then ``binary``)
where the tracing backend withholds the group; lazy mode and ``cw.fuse`` record the
conversion as steps."""

import operator

import numpy as np
import pytest

import candlewick as cw


WITHHELD_GROUP = "binary_dtype"  # (the conftest's traced fixture withholds it)


def _calls(backend):
    return {primitive: t.calls for primitive, _, _, t in backend.recorder.rows()}


PAIRS = [("float32", "float64"), ("float64", "float32"), ("int32", "float64"), ("bool", "float32"),
         ("float32", "complex128"), ("int16", "float32")]
OPS = {"-": operator.sub, "*": operator.mul, "/": operator.truediv, "+": operator.add}


@pytest.mark.parametrize("symbol", list(OPS))
@pytest.mark.parametrize("lhs,rhs", PAIRS, ids=[f"{a}-{b}" for a, b in PAIRS])
def test_mixed_dtypes_match_numpy_with_broadcasting(traced, lhs, rhs, symbol):
    backend, dev = traced
    rng = np.random.default_rng(5)
    a = rng.uniform(0.5, 4.0, (7, 5)).astype(lhs)
    b = rng.uniform(0.5, 4.0, (5,)).astype(rhs)
    x, y = cw.asarray(a, device=dev), cw.asarray(b, device=dev)
    backend.recorder.reset()
    got = OPS[symbol](x, y)
    calls = _calls(backend)
    with np.errstate(all="ignore"):  # (a False or 0 divisor: inf, as candlewick's)
        want, reflected = OPS[symbol](a, b), OPS[symbol](b, a)
    assert got.dtype.name == want.dtype.name
    np.testing.assert_allclose(cw.to_numpy(got), want, rtol=2e-7 if want.dtype.itemsize <= 8 else 1e-14)
    np.testing.assert_allclose(cw.to_numpy(OPS[symbol](y, x)), reflected, rtol=1e-6)
    if "binary_dtype" in dev.capabilities:  # converted as read: no cast copy
        assert calls == {"binary_as": 1}
    else:
        assert calls["astype"] >= 1 and "binary_as" not in calls


def test_the_scaler_step_without_a_float64_copy_of_x(traced):
    """StandardScaler's ``X - T``: the float64 result is the only new array."""
    backend, dev = traced
    h = np.random.default_rng(1).standard_normal((200, 16)).astype(np.float32)
    x = cw.asarray(h, device=dev)
    t = cw.mean(x, axis=0, dtype=cw.float64)
    backend.recorder.reset()
    centred = x - t
    written = sum(t.bytes_written for _, _, _, t in backend.recorder.rows())
    np.testing.assert_allclose(cw.to_numpy(centred), h - h.mean(axis=0, dtype=np.float64), rtol=1e-12, atol=1e-12)
    if "binary_dtype" in dev.capabilities:
        assert written == h.size * 8  # the result alone
    else:
        assert written == 2 * h.size * 8  # x cast to float64, then the result


def test_lazy_and_fused_give_the_eager_values(device):
    h = np.random.default_rng(2).standard_normal((9, 4)).astype(np.float32)
    m = h.mean(axis=0, dtype=np.float64)
    x, t = cw.asarray(h, device=device), cw.asarray(m, device=device)

    def scaled(a, b):
        return (a * 2.0 - b) / (b + 3.0)

    eager = cw.to_numpy(scaled(x, t))
    with cw.lazy():
        lazy = cw.to_numpy(scaled(x, t))
    fused = cw.to_numpy(cw.fuse(scaled)(x, t))
    np.testing.assert_allclose(eager, (h * np.float32(2.0) - m) / (m + 3.0), rtol=1e-12)
    np.testing.assert_allclose(lazy, eager, rtol=1e-12)
    np.testing.assert_allclose(fused, eager, rtol=1e-12)


def test_a_result_past_the_devices_free_memory_is_refused_in_its_own_dtype(device, monkeypatch):
    """x - mean's result (float64, twice the float32 x's bytes) is checked against the
    device's free memory before any kernel runs, as broadcast results are: a result of
    QUERY_ABOVE_BYTES or more (below it the device is not asked, on any path: the C
    module's common case takes only results below it), from a float32 x of half that,
    here a row broadcast to its shape (no memory)."""
    from candlewick import allocation

    rows = allocation.QUERY_ABOVE_BYTES // (8 * 8)
    x = cw.broadcast_to(cw.asarray(np.ones((1, 8), np.float32), device=device), (rows, 8))
    mean = cw.asarray(np.ones(8), device=device)
    monkeypatch.setattr(type(device), "memory_info", lambda self: (rows * 8 * 4, 1 << 30))  # x's bytes: not the result's
    with pytest.raises(cw.errors.DeviceMemoryError, match="float64"):
        x - mean
    monkeypatch.setattr(allocation, "QUERY_ABOVE_BYTES", 64 * 8 * 8)
    small = x[:64]
    monkeypatch.setattr(type(device), "memory_info", lambda self: (64 * 8 * 8, 1 << 30))
    np.testing.assert_array_equal(cw.to_numpy(small - mean), np.zeros((64, 8)))
