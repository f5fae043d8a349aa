"""xarray wrapping candlewick arrays (Array API duck arrays): arithmetic, reductions with
the default skipna and skipna=False, isel/sel, where, concat and alignment; each compared
with the same operations on NumPy-backed objects."""

import numpy as np
import pytest

pytest.importorskip("xarray")

import xarray as xr  # noqa: E402

import candlewick as cw  # noqa: E402

pytestmark = pytest.mark.ecosystem("xarray")

_RNG = np.random.default_rng(1)
DATA = _RNG.uniform(-1.0, 1.0, (4, 5))
DATA_NAN = DATA.copy()
DATA_NAN[1, 2] = np.nan
COORDS = {"x": [10, 20, 30, 40], "y": list("abcde")}


def _wrap(data, to):
    return xr.DataArray(to(data), dims=("x", "y"), coords=COORDS, name="v")


CASES = {
    "add": lambda a: a + a * 2.0,
    "sub_broadcast": lambda a: a - a.isel(x=0),
    "neg_abs": lambda a: abs(-a),
    "np_sin": lambda a: np.sin(a),              # xarray applies the ufunc to the data
    "xp_sin": lambda a: a.copy(data=(cw if isinstance(a.data, cw.Array) else np).sin(a.data)),
    "sum": lambda a: a.sum("x"),
    "mean": lambda a: a.mean("y"),
    "max": lambda a: a.max(),
    "std": lambda a: a.std("x"),
    "sum_skipna_false": lambda a: a.sum("x", skipna=False),
    "mean_skipna_false": lambda a: a.mean(skipna=False),
    "isel": lambda a: a.isel(x=slice(1, 3), y=[0, 2]),
    "sel": lambda a: a.sel(x=20, y=["b", "d"]),
    "where_nan_fill": lambda a: a.where(a > 0),
    "where_value": lambda a: a.where(a > 0, -1.0),
    "concat": lambda a: xr.concat([a, a.isel(x=slice(0, 2))], dim="x"),
    "align": lambda a: xr.align(a.isel(x=slice(0, 3)), a.isel(x=slice(1, 4)), join="inner")[0] * 1.0,
    "align_outer": lambda a: xr.align(a.isel(x=slice(0, 3)), a.isel(x=slice(1, 4)), join="outer")[0],
    "dataset_mean": lambda a: a.to_dataset().mean("x")["v"],
    "transpose": lambda a: a.T,
    "shift": lambda a: a.shift(x=1),
    "shift_filled": lambda a: a.shift(x=1, fill_value=0.0),
    "fillna": lambda a: a.fillna(0.0),
    "isnull": lambda a: a.isnull(),
    # NumPy's API in xarray's duck_array_ops (xp.pad, xp.einsum, xp.cumsum, xp.quantile,
    # xp.gradient, xp.lib.stride_tricks) and its dtype checks (dtype.kind, maybe_promote)
    "pad": lambda a: a.pad(x=(1, 2), mode="reflect"),
    "pad_constant": lambda a: a.pad(x=1),
    "dot": lambda a: xr.dot(a, a),
    "cumsum": lambda a: a.cumsum("x"),
    "cumprod_skipna_false": lambda a: a.cumprod("y", skipna=False),
    "std_ddof": lambda a: a.std("x", ddof=1),
    "var_skipna_false": lambda a: a.var("y", skipna=False, ddof=1),
    "median": lambda a: a.median("y"),
    "quantile": lambda a: a.quantile([0.25, 0.75], dim="x"),
    "differentiate": lambda a: a.differentiate("x"),
    "integrate": lambda a: a.integrate("x"),
    "rolling_mean": lambda a: a.rolling(x=2).mean(),
    "rolling_construct": lambda a: a.rolling(y=3).construct("w"),
    "coarsen": lambda a: a.coarsen(x=3, boundary="pad").mean(),
    "argmax": lambda a: a.argmax("y"),
    "idxmin": lambda a: a.idxmin("x"),
}
NAN_CASES = ("sum", "mean", "max", "sum_skipna_false", "mean_skipna_false", "fillna", "isnull", "cumsum",
             "median", "quantile", "std_ddof", "argmax")
THEIRS = {}


def _params(ops):
    return [pytest.param(op, marks=[pytest.mark.xfail(strict=True, reason=THEIRS[op])] if op in THEIRS else [])
            for op in ops]


def _check(op, data, device, matches_numpy):
    expected = CASES[op](_wrap(data, np.asarray))
    got = CASES[op](_wrap(data, lambda d: cw.asarray(d, device=device)))
    assert isinstance(got, xr.DataArray)
    assert got.dims == expected.dims
    for name, coord in expected.coords.items():
        np.testing.assert_array_equal(np.asarray(got.coords[name].values), coord.values)
    matches_numpy(got.data, expected.data, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("op", _params(CASES))
def test_xarray(op, device, matches_numpy):
    _check(op, DATA, device, matches_numpy)


@pytest.mark.ecosystem("xarray", variant="NaN data")
@pytest.mark.parametrize("op", _params(NAN_CASES))
def test_xarray_with_nan(op, device, matches_numpy):
    _check(op, DATA_NAN, device, matches_numpy)
