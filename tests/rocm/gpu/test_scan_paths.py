"""cumulative_sum / cumulative_prod on a rocm device through both scan kernels (rows by
groups of threads: the chosen group size, one thread and 32 threads per row; long rows
in tiles, tiles of tiles), every dtype, against NumPy. Inputs are
small integers (products: mostly 1, some -1 and 2; no 2 in complex ones), so the results
are exact and compared bitwise."""

import numpy as np
import pytest

import candlewick as cw
from candlewick import dtypes as dt
from candlewick.opdefs import ScanOp

CASES = [(op, d) for op in ScanOp for d in op.dtypes()]


def _values(op, dtype, shape, rng):
    n = int(np.prod(shape))
    if op is ScanOp.PROD:
        # complex: no 2s, as an overflowing complex product is left undefined by the
        # contract (one part inf, the other NaN or not, by accumulation width)
        a = np.where(rng.random(n) < 0.999, 1, np.where((rng.random(n) < 0.5) | dtype.is_complex, -1, 2))
        if dtype.numpy.kind == "u":
            a = np.abs(a)
    else:
        a = rng.integers(0 if dtype.numpy.kind == "u" else -3, 4, n)
    if dtype.is_complex and op is ScanOp.SUM:
        a = a + 1j * rng.integers(-2, 3, n)
    return a.astype(dtype.numpy).reshape(shape)


def _expected(op, host, axis):
    fn = np.cumsum if op is ScanOp.SUM else np.cumprod
    if host.dtype.kind in "iu":
        return fn(host, axis=axis, dtype=host.dtype)
    wide = np.complex128 if host.dtype.kind == "c" else np.float64
    with np.errstate(all="ignore"):
        return fn(host.astype(wide), axis=axis).astype(host.dtype)


@pytest.mark.parametrize("path", ["chosen", "rows", "rows-g1", "rows-g32", "tiles"])
@pytest.mark.parametrize("op,dtype", CASES, ids=[f"{o.value}-{d.name}" for o, d in CASES])
def test_scan_paths_against_numpy(rocm, monkeypatch, op, dtype, path):
    from rocm_backend.families import scans

    if path != "chosen":
        monkeypatch.setattr(scans, "FORCE_KERNEL", "tiles" if path == "tiles" else "rows")
    if path.startswith("rows-g"):
        monkeypatch.setattr(scans, "FORCE_THREADS_PER_ROW", int(path[len("rows-g"):]))
    rng = np.random.default_rng(abs(hash((op.value, dtype.name))) % 2**32)
    fn = cw.cumulative_sum if op is ScanOp.SUM else cw.cumulative_prod
    for shape, axis in (((300_001,), 0), ((3, 20_000), 1), ((9_000, 5), 0), ((40, 33), 1)):
        host = _values(op, dtype, shape, rng)
        x = cw.asarray(host, device=rocm)
        got = cw.to_numpy(fn(x, axis=axis, dtype=dtype))
        want = _expected(op, host, axis)
        np.testing.assert_array_equal(got.astype(np.complex128) if dtype.is_complex or dtype.is_floating else got,
                                      want.astype(np.complex128) if dtype.is_complex or dtype.is_floating else want)
    view = cw.asarray(_values(op, dtype, (5000, 2), rng), device=rocm)[::-1, 1]  # strided, offset
    np.testing.assert_array_equal(cw.to_numpy(fn(view, dtype=dtype)).astype(np.complex128),
                                  _expected(op, cw.to_numpy(view), 0).astype(np.complex128))


def test_long_half_rows_accumulate_in_float32(rocm):
    """A float16 running sum past 2048 stays exact in float32 and is rounded once."""
    host = np.ones(100_000, np.float16)
    got = cw.to_numpy(cw.cumulative_sum(cw.asarray(host, device=rocm)))
    with np.errstate(over="ignore"):  # sums past 65504 are inf in float16, as intended
        expected = np.arange(1, 100_001).astype(np.float16)
    np.testing.assert_array_equal(got, expected)
