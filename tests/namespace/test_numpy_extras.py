"""The functions of NumPy's names and signatures in candlewick's namespace (cumsum,
cumprod, transpose, the nan* functions, quantile/percentile/median and their nan* forms,
pad, einsum, gradient, lib.stride_tricks.sliding_window_view): each result equals
NumPy's for the same call on the same data, in value, shape and dtype, on every backend."""

import warnings

import numpy as np
import pytest
from numpy.lib.stride_tricks import sliding_window_view as np_windows

import candlewick as cw
from candlewick.errors import ArgumentTypeError, ArgumentValueError, DTypeError

RNG = np.random.default_rng(7)
DATA = RNG.normal(size=(4, 5, 3))
NAN_DATA = DATA.copy()
NAN_DATA[1, 2, 0] = np.nan
NAN_DATA[2, :, 1] = np.nan  # a slice of NaN only
INTS = RNG.integers(-5, 9, size=(3, 6))


def _check(got, expected, exact_dtype=True):
    if isinstance(expected, (tuple, list)):
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            _check(g, e, exact_dtype)
        return
    assert isinstance(got, cw.Array), type(got)
    host = cw.to_numpy(got)
    expected = np.asarray(expected)
    assert host.shape == expected.shape
    if exact_dtype:
        assert host.dtype == expected.dtype, (host.dtype, expected.dtype)
    np.testing.assert_allclose(host, expected, rtol=3e-5 if host.dtype == np.float32 else 1e-12, atol=1e-12,
                               equal_nan=True)


def _numpy(fn, *args, **kwargs):
    with warnings.catch_warnings():  # NumPy warns on slices of NaN only; candlewick does not
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
@pytest.mark.parametrize("kwargs", [{}, {"axis": 1}, {"axis": -1, "dtype": "float32"}])
def test_cumulative(name, kwargs, device):
    _check(getattr(cw, name)(cw.asarray(DATA, device=device), **kwargs), getattr(np, name)(DATA, **kwargs))
    _check(getattr(cw, name)(cw.asarray(INTS.astype(np.int32), device=device), axis=0),
           getattr(np, name)(INTS.astype(np.int32), axis=0))


def test_cumsum_writes_out(device):
    out = cw.zeros(60, device=device)
    assert cw.cumsum(cw.asarray(DATA, device=device), out=out) is out
    _check(out, np.cumsum(DATA))
    with pytest.raises(cw.errors.ShapeError, match="cumsum: out has shape"):
        cw.cumsum(cw.asarray(DATA, device=device), out=cw.zeros(3, device=device))


@pytest.mark.parametrize("axes", [None, (1, 0, 2), [2, 0, 1]])
def test_transpose(axes, device):
    _check(cw.transpose(cw.asarray(DATA, device=device), axes), np.transpose(DATA, axes))


NAN_NAMES = ["nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nanmax", "nanmin"]


@pytest.mark.parametrize("name", NAN_NAMES)
@pytest.mark.parametrize("kwargs", [{}, {"axis": 1}, {"axis": (0, 2), "keepdims": True}])
def test_nan_reductions(name, kwargs, device):
    _check(getattr(cw, name)(cw.asarray(NAN_DATA, device=device), **kwargs),
           _numpy(getattr(np, name), NAN_DATA, **kwargs))


@pytest.mark.parametrize("name", NAN_NAMES + ["nanargmax", "nanargmin", "nancumsum", "nancumprod"])
def test_nan_functions_of_integers_are_the_plain_ones(name, device):
    _check(getattr(cw, name)(cw.asarray(INTS, device=device), axis=1), getattr(np, name)(INTS, axis=1))


@pytest.mark.parametrize("name", ["nanargmax", "nanargmin", "nancumsum", "nancumprod"])
def test_nan_index_and_running_functions(name, device):
    data = NAN_DATA[:, :, 0]  # no slice of NaN only along axis 1
    _check(getattr(cw, name)(cw.asarray(data, device=device), axis=1), getattr(np, name)(data, axis=1))


def test_nanargmax_refuses_a_slice_of_nan_only(device):
    with pytest.raises(ArgumentValueError, match="nanargmax: All-NaN slice"):
        cw.nanargmax(cw.asarray(NAN_DATA, device=device), axis=1)


def test_nanvar_ddof_and_dtype(device):
    x = cw.asarray(NAN_DATA, device=device)
    _check(cw.nanvar(x, axis=0, ddof=1), _numpy(np.nanvar, NAN_DATA, axis=0, ddof=1))
    _check(cw.nanstd(x, axis=1, dtype="float32"), _numpy(np.nanstd, NAN_DATA, axis=1, dtype=np.float32),
           exact_dtype=False)
    with pytest.raises(ArgumentValueError, match="correction or ddof"):
        cw.nanvar(x, ddof=1, correction=1)


QUANTILE_METHODS = ["linear", "lower", "higher", "nearest", "midpoint", "inverted_cdf", "averaged_inverted_cdf",
                    "closest_observation", "interpolated_inverted_cdf", "hazen", "weibull", "median_unbiased",
                    "normal_unbiased"]


@pytest.mark.parametrize("method", QUANTILE_METHODS)
@pytest.mark.parametrize("q", [0.3, [0.0, 0.25, 0.5, 1.0]])
@pytest.mark.parametrize("axis,keepdims", [(None, False), (1, True), ((0, 2), False)])
def test_quantiles_match_numpy(method, q, axis, keepdims, device):
    for data in (DATA, NAN_DATA):
        x = cw.asarray(data, device=device)
        for mine, theirs in ((cw.quantile, np.quantile), (cw.nanquantile, np.nanquantile)):
            _check(mine(x, q, axis=axis, method=method, keepdims=keepdims),
                   _numpy(theirs, data, q, axis=axis, method=method, keepdims=keepdims))


@pytest.mark.parametrize("method", ["linear", "lower", "nearest", "inverted_cdf"])
def test_quantiles_of_integers(method, device):
    """Integers: the float64 quantile, or the integer value itself for the methods that pick one."""
    x = cw.asarray(INTS, device=device)
    _check(cw.quantile(x, [0.1, 0.5, 0.9], axis=1, method=method), np.quantile(INTS, [0.1, 0.5, 0.9], axis=1,
                                                                                 method=method))


def test_percentile_and_median(device):
    x, f32 = cw.asarray(NAN_DATA, device=device), cw.asarray(DATA.astype(np.float32), device=device)
    _check(cw.percentile(x, [10, 90], axis=0), np.percentile(NAN_DATA, [10, 90], axis=0))
    _check(cw.nanpercentile(x, 50, axis=2), _numpy(np.nanpercentile, NAN_DATA, 50, axis=2))
    _check(cw.median(x, axis=1), np.median(NAN_DATA, axis=1))
    _check(cw.nanmedian(x, axis=(0, 1), keepdims=True), _numpy(np.nanmedian, NAN_DATA, axis=(0, 1), keepdims=True))
    # NumPy's weak q: a Python float keeps float32, an array of q promotes
    _check(cw.median(f32), np.median(DATA.astype(np.float32)))
    _check(cw.quantile(f32, np.array([0.5])), np.quantile(DATA.astype(np.float32), np.array([0.5])))


@pytest.mark.parametrize("shape,axis", [((0,), None), ((3, 0), 1), ((0, 3), 0)])
@pytest.mark.parametrize("dtype", [np.float32, np.uint64])
def test_quantiles_of_an_empty_axis(shape, axis, dtype, device):
    """NumPy's answers, checked before any gather (a GPU reports a gather from an empty axis
    only at the next synchronization, after out= was written): NaN for median and the
    NaN-skipping forms, IndexError for quantile and percentile, out= left as it was."""
    data = np.zeros(shape, dtype)
    x = cw.asarray(data, device=device)
    for mine, theirs, q in ((cw.median, np.median, ()), (cw.nanmedian, np.nanmedian, ()),
                            (cw.nanquantile, np.nanquantile, (0.5,)), (cw.nanpercentile, np.nanpercentile, (50,))):
        _check(mine(x, *q, axis=axis, keepdims=True), _numpy(theirs, data, *q, axis=axis, keepdims=True))
    for mine, q in ((cw.quantile, 0.5), (cw.percentile, 50)):
        out = cw.full((1,), 7.0, device=device)
        with pytest.raises(IndexError, match=mine.__name__):
            mine(x, q, axis=axis, out=out)
            cw.to_numpy(out)  # (a deferred error would come here)
        np.testing.assert_array_equal(cw.to_numpy(out), [7.0])


@pytest.mark.parametrize("call,error", [
    (lambda x: cw.quantile(x, 1.5), ArgumentValueError), (lambda x: cw.percentile(x, -1), ArgumentValueError),
    (lambda x: cw.quantile(x, 0.5, method="bogus"), ArgumentValueError),
    (lambda x: cw.quantile(x, 0.5, weights=x), ArgumentValueError),
    (lambda x: cw.quantile(x, "half"), ArgumentTypeError),
    (lambda x: cw.median(x.astype(cw.complex128)), DTypeError),
])
def test_quantile_errors(call, error, device):
    with pytest.raises(error):
        call(cw.asarray(DATA, device=device))


PAD_CASES = [
    ((1, 2), {}), (2, {"constant_values": (5, 7)}), (((1, 0), (2, 3), (0, 1)), {"mode": "edge"}),
    (((4, 1), (7, 9), (2, 2)), {"mode": "reflect"}), (((4, 1), (7, 9), (1, 3)), {"mode": "symmetric"}),
    (((4, 1), (7, 9), (3, 3)), {"mode": "wrap"}),
    (((4, 1), (7, 9), (2, 5)), {"mode": "reflect", "reflect_type": "odd"}),
    (((4, 1), (7, 9), (2, 5)), {"mode": "symmetric", "reflect_type": "odd"}),
    (((2, 3), (1, 4), (0, 2)), {"mode": "linear_ramp", "end_values": ((0, 5), (-3, 2), (1, 1))}),
    (3, {"mode": "maximum"}), (3, {"mode": "minimum", "stat_length": 2}),
    (3, {"mode": "mean", "stat_length": ((1, 2), (3, 1), (2, 2))}), (3, {"mode": "median"}),
]


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64"])
@pytest.mark.parametrize("width,kwargs", PAD_CASES, ids=[str(i) for i in range(len(PAD_CASES))])
def test_pad_matches_numpy(width, kwargs, dtype, device):
    data = (DATA * 10).astype(dtype)
    _check(cw.pad(cw.asarray(data, device=device), width, **kwargs), np.pad(data, width, **kwargs))


def test_pad_errors(device):
    x = cw.asarray(DATA, device=device)
    with pytest.raises(ArgumentValueError, match="pad: mode"):
        cw.pad(x, 1, mode="bogus")
    with pytest.raises(ArgumentValueError, match="does not take"):
        cw.pad(x, 1, mode="edge", constant_values=3)
    with pytest.raises(ArgumentValueError, match="non-negative"):
        cw.pad(x, -1)
    with pytest.raises(ArgumentValueError, match="empty axis"):
        cw.pad(cw.zeros((0, 2), device=device), 1, mode="edge")


EINSUM_CASES = [
    ("ij,jk->ik", [(3, 4), (4, 5)]), ("ij,jk", [(3, 4), (4, 5)]), ("ij->ji", [(3, 4)]), ("ii", [(4, 4)]),
    ("ii->i", [(4, 4)]), ("ij,jk,k->i", [(3, 4), (4, 5), (5,)]), ("...ii->...i", [(2, 3, 3)]),
    ("bij,bjk->bik", [(2, 3, 3), (2, 3, 4)]), ("i,i", [(5,), (5,)]), ("i,j->ij", [(3,), (4,)]), ("ij->", [(3, 4)]),
    ("...j,j->...", [(2, 3, 4), (4,)]), ("bii->b", [(2, 3, 3)]), ("ij,kj->ik", [(3, 4), (2, 4)]),
]


@pytest.mark.parametrize("subscripts,shapes", EINSUM_CASES, ids=[c[0] for c in EINSUM_CASES])
def test_einsum_matches_numpy(subscripts, shapes, device):
    operands = [RNG.normal(size=s) for s in shapes]
    _check(cw.einsum(subscripts, *(cw.asarray(o, device=device) for o in operands)),
           np.einsum(subscripts, *operands))


def test_einsum_interleaved_form_and_dtypes(device):
    a, b = RNG.normal(size=(3, 4)), RNG.normal(size=(4, 2))
    _check(cw.einsum(cw.asarray(a, device=device), [0, 1], cw.asarray(b, device=device), [1, 2], [0, 2]),
           np.einsum(a, [0, 1], b, [1, 2], [0, 2]))
    _check(cw.einsum("ij->j", cw.asarray(INTS, device=device)), np.einsum("ij->j", INTS))
    flags = np.array([[True, False], [True, True]])
    _check(cw.einsum("ij,jk->ik", cw.asarray(flags, device=device), cw.asarray(flags, device=device)),
           np.einsum("ij,jk->ik", flags, flags))
    with pytest.raises(ArgumentValueError, match="einsum"):
        cw.einsum("ij,jk->ik", cw.asarray(a, device=device))


@pytest.mark.parametrize("dtype,out_dtype,casting", [
    ("float32", None, "safe"), ("float32", None, "same_kind"), ("int64", None, "same_kind"), ("int64", None, "unsafe"),
    (None, "float32", "safe"), (None, "float32", "same_kind"), (None, "int64", "same_kind"),
    (None, "int64", "unsafe"), (None, "float64", "no"), ("float64", "float64", "equiv"),
])
def test_einsum_casting_is_numpys_rule(dtype, out_dtype, casting, device):
    """``casting`` governs the operands' cast to ``dtype`` and the result's to out's dtype:
    refused where NumPy refuses, else NumPy's values in out's dtype."""
    data = RNG.normal(size=(3, 4)) * 4
    kwargs = {"casting": casting, "dtype": dtype}
    np_out = None if out_dtype is None else np.zeros(3, dtype=out_dtype)
    try:
        expected = np.einsum("ij->i", data, out=np_out, **kwargs)
    except TypeError:
        expected = None
    out = None if out_dtype is None else cw.zeros(3, dtype=getattr(cw, out_dtype), device=device)
    call = lambda: cw.einsum("ij->i", cw.asarray(data, device=device), out=out, **kwargs)  # noqa: E731
    if expected is None:
        with pytest.raises(DTypeError, match="einsum: cannot cast .* casting="):
            call()
        if out is not None:
            assert not cw.to_numpy(out).any(), "a refused cast wrote out"
    else:
        result = call()
        assert out is None or result is out
        _check(result, expected)


@pytest.mark.parametrize("args,kwargs", [
    ((), {}), ((2.0,), {}), ((np.arange(4.0) * 2, np.cumsum([1.0, 0.5, 2.0, 1.5, 1.0])), {}),
    ((np.cumsum([1.0, 0.5, 2.0, 1.5, 1.0]),), {"axis": 1, "edge_order": 2}), ((), {"axis": 0, "edge_order": 2}),
])
def test_gradient_matches_numpy(args, kwargs, device):
    data = RNG.normal(size=(4, 5))
    _check(cw.gradient(cw.asarray(data, device=device), *args, **kwargs), np.gradient(data, *args, **kwargs))


def test_gradient_takes_candlewick_coordinates(device):
    data, x = RNG.normal(size=6), np.cumsum(RNG.uniform(0.5, 1.5, size=6))
    _check(cw.gradient(cw.asarray(data, device=device), cw.asarray(x, device=device)), np.gradient(data, x))
    with pytest.raises(ArgumentValueError, match="edge_order"):
        cw.gradient(cw.asarray(data, device=device), edge_order=3)


@pytest.mark.parametrize("window,axis", [(3, 1), ((2, 3), None), ((2, 2), (0, 0)), (2, -1)])
def test_sliding_window_view(window, axis, device):
    data = np.arange(24.0).reshape(4, 6)
    _check(cw.lib.stride_tricks.sliding_window_view(cw.asarray(data, device=device), window, axis=axis),
           np_windows(data, window, axis=axis))
