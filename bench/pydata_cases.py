"""bench/pydata_e2e.py's workloads: array code written once, as users write it, on any
Array API namespace: scikit-learn estimators under ``array_api_dispatch`` (PCA full and
randomized, Ridge, LinearDiscriminantAnalysis, StandardScaler, pairwise_distances), a
KMeans-like loop written on the namespace, scipy.fft and scipy.signal.fftconvolve
(``CASES``: {name: a function of the data}), and their data (``host_data``: NumPy arrays,
converted by each library). pydata_e2e.py times them; tests/rocm/host/pydata_fake.py
counts what they launch on the fake runtime.
"""

import warnings

import numpy as np

#: the issue's sizes on a GPU; a tenth of the samples and a quarter of the features on the
#: 2-core VM this was written on
DEFAULTS = {"cpu": (20_000, 64), "rocm": (200_000, 256)}
N_COMPONENTS, N_CLUSTERS, KMEANS_ITERATIONS, PAIRS = 16, 8, 10, 2048


def _sklearn(fn):
    """``fn`` run with scikit-learn's Array API dispatch (its array arguments' namespace)."""
    def run(d):
        import sklearn  # optional, loaded by the cases that need it

        with sklearn.config_context(array_api_dispatch=True), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # dispatch notes (solver choices), the same for every library
            return fn(d)
    return run


def pca_full(d):
    from sklearn.decomposition import PCA  # optional, as above

    return PCA(N_COMPONENTS, svd_solver="full").fit_transform(d["X"])


def pca_randomized(d):
    from sklearn.decomposition import PCA  # optional, as above

    return PCA(N_COMPONENTS, svd_solver="randomized", power_iteration_normalizer="QR",
               random_state=0).fit_transform(d["X"])


def ridge(d):
    from sklearn.linear_model import Ridge  # optional, as above

    return Ridge(alpha=1.0, solver="svd").fit(d["X"], d["target"]).predict(d["X"])


def lda(d):
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis  # optional, as above

    return LinearDiscriminantAnalysis(solver="svd").fit(d["X"], d["labels"]).predict(d["X"])


def standard_scaler(d):
    from sklearn.preprocessing import StandardScaler  # optional, as above

    return StandardScaler().fit_transform(d["X"])


def pairwise(d):
    from sklearn.metrics import pairwise_distances  # optional, as above

    return pairwise_distances(d["pairs"], d["pairs"])


def kmeans_loop(d):
    """Lloyd's iterations written on the namespace: squared distances through a matrix
    product, the nearest center, the new centers as a one-hot product."""
    from array_api_compat import array_namespace, device  # optional, as above

    X = d["X"]
    xp = array_namespace(X)
    centers = X[:N_CLUSTERS, :]
    x2 = xp.sum(X * X, axis=1, keepdims=True)
    clusters = xp.arange(N_CLUSTERS, device=device(X))  # (without it torch makes it on the CPU)
    for _ in range(KMEANS_ITERATIONS):
        dist = x2 - 2.0 * (X @ centers.T) + xp.sum(centers * centers, axis=1)
        nearest = xp.argmin(dist, axis=1)
        onehot = xp.astype(nearest[:, None] == clusters, X.dtype)
        counts = xp.sum(onehot, axis=0)
        centers = (onehot.T @ X) / xp.maximum(counts, xp.ones_like(counts))[:, None]
    return centers


def scipy_fft(d):
    import scipy.fft  # optional, as above

    return scipy.fft.irfft(scipy.fft.rfft(d["signals"], axis=-1) * d["response"], axis=-1)


def scipy_signal(d):
    import scipy.signal  # optional, as above

    return scipy.signal.fftconvolve(d["signals"], d["kernel"], mode="same", axes=-1)


CASES = {
    "PCA full": _sklearn(pca_full), "PCA randomized": _sklearn(pca_randomized), "Ridge": _sklearn(ridge),
    "LinearDiscriminantAnalysis": _sklearn(lda), "StandardScaler": _sklearn(standard_scaler),
    "pairwise_distances": _sklearn(pairwise), "KMeans-like loop": kmeans_loop,
    "scipy.fft rfft/irfft": scipy_fft, "scipy.signal.fftconvolve": scipy_signal,
}


def host_data(samples, features):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((samples, features), dtype=np.float32)
    X[:, : features // 4] *= 4  # a few strong directions, so PCA and LDA have structure to find
    signals = rng.standard_normal((max(1, samples // 256), 4096), dtype=np.float32)
    return {
        "X": X, "target": X @ rng.standard_normal(features, dtype=np.float32),
        "labels": (X[:, 0] > 0).astype(np.int64) + (X[:, 1] > 0), "pairs": X[:PAIRS],
        "signals": signals, "kernel": np.hanning(65).astype(np.float32)[None, :],
        "response": np.exp(-np.arange(2049, dtype=np.float32) / 512).astype(np.complex64),
    }
