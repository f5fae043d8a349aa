"""Sums, products, means and running sums into a requested dtype (``sum(x, dtype=float64)``
of float32 data: scikit-learn's accumulators): against NumPy's ``dtype=`` on each backend
under test, through the optional "reduce_dtype" primitives where the device declares
them and through the documented fallback (``astype``, then ``reduce``/``scan``) where the
tracing backend withholds the group. The recorder shows which ran: no converted copy of
the input where the group is declared."""

import numpy as np
import pytest

import candlewick as cw


WITHHELD_GROUP = "reduce_dtype"  # (the conftest's traced fixture withholds it)


def _calls(backend):
    return {primitive: t.calls for primitive, _, _, t in backend.recorder.rows()}


def _data():
    rng = np.random.default_rng(7)
    return rng.uniform(-3.0, 3.0, (37, 5)).astype(np.float32)


CALLS = [  # (name, candlewick call, NumPy call)
    ("sum axis 0", lambda x: cw.sum(x, axis=0, dtype=cw.float64), lambda h: np.sum(h, axis=0, dtype=np.float64)),
    ("sum all keepdims", lambda x: cw.sum(x, dtype=cw.float64, keepdims=True),
     lambda h: np.sum(h, dtype=np.float64, keepdims=True)),
    ("prod axis 1", lambda x: cw.prod(x[:, :3], axis=1, dtype=cw.float64),
     lambda h: np.prod(h[:, :3], axis=1, dtype=np.float64)),
    ("mean of a view", lambda x: cw.mean(x[::2, 1:], axis=0, dtype=cw.float64),
     lambda h: np.mean(h[::2, 1:], axis=0, dtype=np.float64)),
    ("cumulative_sum", lambda x: cw.cumulative_sum(x, axis=0, dtype=cw.float64),
     lambda h: np.cumsum(h, axis=0, dtype=np.float64)),
    ("cumulative_prod", lambda x: cw.cumulative_prod(x[:4], axis=0, dtype=cw.float64),
     lambda h: np.cumprod(h[:4], axis=0, dtype=np.float64)),
]


@pytest.mark.parametrize("name,call,expected", CALLS, ids=[c[0] for c in CALLS])
def test_float32_into_float64_matches_numpy(traced, name, call, expected):
    backend, dev = traced
    h = _data()
    x = cw.asarray(h, device=dev)
    backend.recorder.reset()
    got = call(x)
    calls = _calls(backend)
    assert got.dtype == cw.float64
    np.testing.assert_allclose(cw.to_numpy(got), expected(h), rtol=1e-12, atol=1e-12)
    if "reduce_dtype" in dev.capabilities:  # converted as read: no float64 copy of x
        assert "astype" not in calls and (calls.get("reduce_as") or calls.get("scan_as")) == 1
    else:
        assert calls["astype"] == 1 and "reduce_as" not in calls and "scan_as" not in calls


@pytest.mark.parametrize("dtype,into", [("int8", cw.int64), ("int64", cw.int32), ("bool", cw.float32),
                                        ("int16", cw.float64), ("complex64", cw.complex128)])
def test_other_conversions_match_numpy(traced, dtype, into):
    """Integers widen or wrap (int64 into int32), bool counts, complex widens: NumPy's values."""
    _, dev = traced
    h = (np.arange(-30, 30).reshape(6, 10) * (3 if dtype == "int64" else 1)).astype(dtype)
    if dtype == "int64":
        h = h * (2 ** 30)
    x = cw.asarray(h, device=dev)
    np.testing.assert_array_equal(cw.to_numpy(cw.sum(x, axis=1, dtype=into)), np.sum(h, axis=1, dtype=into.numpy))
    np.testing.assert_array_equal(cw.to_numpy(cw.cumulative_sum(x, axis=0, dtype=into)),
                                  np.cumsum(h, axis=0, dtype=into.numpy))


def test_integer_mean_and_empty_sums(traced):
    """An integer mean reads into the default float; a sum over nothing is 0 and a mean NaN."""
    _, dev = traced
    x = cw.asarray(np.arange(12, dtype=np.int32).reshape(3, 4), device=dev)
    np.testing.assert_array_equal(cw.to_numpy(cw.mean(x, axis=0)), np.arange(12).reshape(3, 4).mean(axis=0))
    empty = cw.zeros((0, 3), dtype=cw.float32, device=dev)
    np.testing.assert_array_equal(cw.to_numpy(cw.sum(empty, axis=0, dtype=cw.float64)), np.zeros(3))
    assert np.isnan(cw.to_numpy(cw.mean(empty, axis=0, dtype=cw.float64))).all()


def test_lazy_and_fused_give_the_eager_values(device):
    """The fusion tracer records a converting sum as astype then reduce; lazy mode too."""
    h = _data()
    x = cw.asarray(h, device=device)

    def centred_sum(a):
        return cw.sum(a * 2.0 - 1.0, axis=0, dtype=cw.float64)

    eager = cw.to_numpy(centred_sum(x))
    with cw.lazy():
        lazy = cw.to_numpy(centred_sum(x))
    fused = cw.to_numpy(cw.fuse(centred_sum)(x))
    np.testing.assert_allclose(lazy, eager, rtol=1e-12)
    np.testing.assert_allclose(fused, eager, rtol=1e-12)
    np.testing.assert_allclose(eager, np.sum(h.astype(np.float64) * 2 - 1, axis=0), rtol=1e-6)


@pytest.mark.parametrize("fn", ["sum", "prod"])
def test_every_argument_form_gives_numpys_result_or_the_general_error(device, fn):
    """sum/prod's one-step path (all axes or one int, keepdims a bool, dtype None, x's own
    or a float accumulator) and the general path agree with NumPy; what the one-step path
    does not take (a tuple, a bool or out-of-range axis, a non-bool keepdims, dtype names
    and NumPy dtypes) gets the general path's result or error."""
    h = _data()[:6] / 2
    x = cw.asarray(h, device=device)
    ours, theirs = getattr(cw, fn), getattr(np, fn)
    for axis in (None, 0, 1, -1, -2, (0,), (1, 0)):
        for keepdims in (False, True):
            for dtype in (None, cw.float32, cw.float64, "float64", np.float64):
                got = ours(x, axis=axis, keepdims=keepdims, dtype=dtype)
                want = theirs(h, axis=axis, keepdims=keepdims, dtype=np.dtype(dtype or np.float32))
                assert got.dtype == want.dtype and got.shape == want.shape, (axis, keepdims, dtype)
                np.testing.assert_allclose(cw.to_numpy(got), want, rtol=1e-6)
    ints = cw.asarray(np.arange(12, dtype=np.int8).reshape(3, 4), device=device)
    assert ours(ints, axis=1).dtype == cw.int64 and ours(ints, axis=-1, dtype=cw.float64).dtype == cw.float64
    for bad in ({"axis": 2}, {"axis": -3}, {"axis": True}, {"axis": 1.0}, {"keepdims": 1}, {"dtype": cw.bool}):
        with pytest.raises(cw.errors.CandlewickError) as raised:
            ours(x, **bad)
        assert fn in str(raised.value)
