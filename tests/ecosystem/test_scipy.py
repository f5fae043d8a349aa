"""SciPy's Array API functions (SCIPY_ARRAY_API=1) on candlewick arrays, across special,
stats, fft, signal, ndimage, cluster, integrate and interpolate; each result compared with
the same call on NumPy arrays."""

import numpy as np
import pytest

pytest.importorskip("scipy")

import scipy  # noqa: E402
from scipy import cluster, fft, integrate, interpolate, ndimage, signal, special, stats  # noqa: E402

import candlewick as cw  # noqa: E402

pytestmark = pytest.mark.ecosystem("scipy")

_RNG = np.random.default_rng(0)
VEC = _RNG.uniform(0.1, 2.0, 16)
VEC2 = _RNG.uniform(0.1, 2.0, 16)
MAT = _RNG.uniform(0.1, 2.0, (6, 5))
IMG = _RNG.uniform(0.0, 1.0, (8, 8))
PROB = VEC / VEC.sum()

# (module, name, call(function, *arrays), NumPy inputs)
CASES = [
    ("special", "erf", lambda f, x: f(x), (VEC,)),
    ("special", "gammaln", lambda f, x: f(x), (VEC,)),
    ("special", "expit", lambda f, x: f(x), (VEC,)),
    ("special", "logit", lambda f, x: f(x), (PROB,)),
    ("special", "ndtr", lambda f, x: f(x), (VEC,)),
    ("special", "log_ndtr", lambda f, x: f(x), (VEC,)),
    ("special", "xlogy", lambda f, x, y: f(x, y), (VEC, VEC2)),
    ("special", "entr", lambda f, x: f(x), (VEC,)),
    ("special", "rel_entr", lambda f, x, y: f(x, y), (VEC, VEC2)),
    ("special", "logsumexp", lambda f, x: f(x, axis=1), (MAT,)),
    ("special", "softmax", lambda f, x: f(x, axis=0), (MAT,)),
    ("stats", "moment", lambda f, x: f(x, order=3), (VEC,)),
    ("stats", "skew", lambda f, x: f(x), (VEC,)),
    ("stats", "kurtosis", lambda f, x: f(x), (VEC,)),
    ("stats", "zscore", lambda f, x: f(x), (VEC,)),
    ("stats", "gmean", lambda f, x: f(x), (VEC,)),
    ("stats", "hmean", lambda f, x: f(x), (VEC,)),
    ("stats", "variation", lambda f, x: f(x), (VEC,)),
    ("stats", "sem", lambda f, x: f(x), (VEC,)),
    ("stats", "entropy", lambda f, x: f(x), (PROB,)),
    ("stats", "describe", lambda f, x: tuple(f(x))[2:], (VEC,)),
    ("stats", "pearsonr", lambda f, x, y: tuple(f(x, y)), (VEC, VEC2)),
    ("stats", "ttest_1samp", lambda f, x: tuple(f(x, 1.0)), (VEC,)),
    ("stats", "ttest_ind", lambda f, x, y: tuple(f(x, y)), (VEC, VEC2)),
    ("fft", "fft", lambda f, x: f(x), (VEC,)),
    ("fft", "rfft", lambda f, x: f(x), (VEC,)),
    ("fft", "ifft", lambda f, x: f(x), (VEC,)),
    ("fft", "fftn", lambda f, x: f(x), (MAT,)),
    ("fft", "dct", lambda f, x: f(x), (VEC,)),
    ("signal", "convolve", lambda f, x, y: f(x, y), (VEC, VEC2[:5])),
    ("signal", "correlate", lambda f, x, y: f(x, y), (VEC, VEC2[:5])),
    ("signal", "fftconvolve", lambda f, x, y: f(x, y), (VEC, VEC2[:5])),
    ("signal", "detrend", lambda f, x: f(x), (VEC,)),
    ("signal", "lfilter", lambda f, b, a, x: f(b, a, x), (VEC2[:3], np.array([1.0, 0.2]), VEC)),
    ("ndimage", "gaussian_filter", lambda f, x: f(x, 1.0), (IMG,)),
    ("ndimage", "uniform_filter", lambda f, x: f(x, 3), (IMG,)),
    ("ndimage", "median_filter", lambda f, x: f(x, 3), (IMG,)),
    ("ndimage", "sobel", lambda f, x: f(x), (IMG,)),
    ("cluster", "vq.whiten", lambda f, x: f(x), (MAT,)),
    ("cluster", "vq.vq", lambda f, x, c: f(x, c)[1], (MAT, MAT[:2])),
    ("cluster", "hierarchy.linkage", lambda f, x: f(x), (MAT,)),
    ("integrate", "trapezoid", lambda f, y: f(y), (VEC,)),
    ("integrate", "simpson", lambda f, y: f(y), (VEC,)),
    ("integrate", "cumulative_trapezoid", lambda f, y: f(y), (VEC,)),
    ("interpolate", "make_interp_spline", lambda f, x, y: f(x, y)(x + 0.5), (np.arange(16.0), VEC)),
    ("interpolate", "CubicSpline", lambda f, x, y: f(x, y)(x + 0.5), (np.arange(16.0), VEC)),
]


def _function(module, name):
    fn = {"special": special, "stats": stats, "fft": fft, "signal": signal, "ndimage": ndimage,
          "cluster": cluster, "integrate": integrate, "interpolate": interpolate}[module]
    for part in name.split("."):
        fn = getattr(fn, part)
    return fn


def test_scipy_array_api_is_on():
    assert scipy._lib._array_api.SCIPY_ARRAY_API, "SCIPY_ARRAY_API=1 must be set before SciPy is imported"


@pytest.mark.parametrize("module,name,call,inputs", CASES, ids=[f"{m}.{n}" for m, n, _, _ in CASES])
def test_scipy_function(module, name, call, inputs, device, matches_numpy, needs_host_data):
    fn = _function(module, name)
    expected = call(fn, *inputs)
    arrays = [cw.asarray(a, device=device) for a in inputs]
    with needs_host_data:
        got = call(fn, *arrays)
    matches_numpy(got, expected, rtol=1e-9, atol=1e-12)
