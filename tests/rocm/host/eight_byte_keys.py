"""8-byte sort keys that tie in either 32-bit half, for the radix sort's tests on the host
kernels and on the GPU (tests/rocm/host is on pytest's pythonpath): the 8-byte argsort
ranks the low and the high halves in passes of their own, so stability must hold for ties
in each half apart."""

import numpy as np


def tie_halves(npd, n, rng):
    """``n`` values of dtype ``npd`` (float64, int64, uint64) whose high halves and low halves
    are each one of a few (int64's extremes, uint64's, -1; a float's +-0.0, +-inf, and NaNs
    and subnormals from low bits set under them), drawn from ``rng``."""
    if np.dtype(npd).kind == "f":
        hi = np.array([1.0, -1.0, 2.0, -0.0, 0.0, np.inf, -np.inf, -3.5]).view(np.uint64)  # low halves 0
        low = np.where(rng.random(n) < 0.5, rng.integers(0, 3, n), 0).astype(np.uint64)
        raw = hi[rng.integers(0, len(hi), n)] | low
    else:
        hi = np.array([0, 1, 0xFFFFFFFF, 0x7FFFFFFF, 0x80000000], np.uint64)
        lo = np.array([0, 1, 0xFFFFFFFF, 0x80000000], np.uint64)
        raw = hi[rng.integers(0, len(hi), n)] << np.uint64(32) | lo[rng.integers(0, len(lo), n)]
    return raw.view(npd)
