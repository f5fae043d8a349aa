"""A bool mask's kept positions through mask_count/mask_select (hip/mask_select.hip) on a
rocm device, against NumPy: masks of one tile, many and a partial last one, strided and
reversed views, nothing or everything kept; x[mask] of LDA's shape; unique without and with
inverse; nonzero of one and several axes; a mask past MASK_TILES_MAX tiles (the scan path)
giving the same results."""

import numpy as np
import pytest

import candlewick as cw
from candlewick.layout import Layout
from rocm_backend.families import joins

TILE = joins.MASK_TILE


def _mask(n, keep, seed=0):
    rng = np.random.default_rng(seed)
    return {"some": rng.random(n) < 0.3, "none": np.zeros(n, bool), "all": np.ones(n, bool),
            "runs": (np.arange(n) // 1000) % 3 == 1}[keep]


@pytest.mark.parametrize("n", [1, TILE - 1, TILE, TILE + 1, 200_000, joins.MASK_TILES_MAX * TILE])
@pytest.mark.parametrize("keep", ["some", "none", "all", "runs"])
def test_kept_positions_against_flatnonzero(rocm, n, keep):
    mask = _mask(n, keep, n)
    m = cw.asarray(mask, device=rocm)
    positions, count, _ = joins.kept_positions(m._storage, Layout.contiguous((n,)))
    assert count == mask.sum()
    np.testing.assert_array_equal(positions.to_host(Layout.contiguous((count,))), np.flatnonzero(mask))


def test_kept_positions_of_views(rocm):
    base = _mask(5 * TILE + 321, "some", 7)
    m = cw.asarray(base, device=rocm)._storage
    for view, layout in ((base[::3], Layout(((base.size + 2) // 3,), (3,), 0)),
                         (base[::-1], Layout((base.size,), (-1,), base.size - 1)),
                         (base[17:3 * TILE], Layout((3 * TILE - 17,), (1,), 17))):
        positions, count, _ = joins.kept_positions(m, layout)
        assert count == view.sum()
        np.testing.assert_array_equal(positions.to_host(Layout.contiguous((count,))), np.flatnonzero(view))


@pytest.mark.parametrize("past_limit", [False, True])
def test_rows_under_labels_as_lda_takes_them(rocm, monkeypatch, past_limit):
    """X[y == i] of 200000 x 256 float32 (bench/pydata_e2e.py's LDA), and a vector under the
    same mask; past_limit: the scan path (MASK_TILES_MAX 1), the same rows."""
    if past_limit:
        monkeypatch.setattr(joins, "MASK_TILES_MAX", 1)
    rng = np.random.default_rng(1)
    host = rng.standard_normal((200_000, 256), dtype=np.float32)
    labels = (host[:, 0] > 0).astype(np.int64) + (host[:, 1] > 0)
    X, y = cw.asarray(host, device=rocm), cw.asarray(labels, device=rocm)
    for i in range(3):
        np.testing.assert_array_equal(cw.to_numpy(X[y == i]), host[labels == i])
        np.testing.assert_array_equal(cw.to_numpy(X[:, 5][y == i]), host[:, 5][labels == i])
    np.testing.assert_array_equal(cw.to_numpy(X[::-2][y[::2] == 1]), host[::-2][labels[::2] == 1])


@pytest.mark.parametrize("past_limit", [False, True])
def test_unique_functions(rocm, monkeypatch, past_limit):
    if past_limit:
        monkeypatch.setattr(joins, "MASK_TILES_MAX", 1)
    rng = np.random.default_rng(2)
    host = rng.integers(0, 50, 300_000).astype(np.int64)
    floats = rng.integers(-3, 4, 70_000).astype(np.float32)
    floats[::97] = np.nan
    for data in (host, floats):
        x = cw.asarray(data, device=rocm)
        values, first, inverse, counts = np.unique(data, return_index=True, return_inverse=True,
                                                   return_counts=True, equal_nan=False)
        np.testing.assert_array_equal(cw.to_numpy(cw.unique_values(x)), values)
        got = cw.unique_counts(x)
        np.testing.assert_array_equal(cw.to_numpy(got.values), values)
        np.testing.assert_array_equal(cw.to_numpy(got.counts), counts)
        got = cw.unique_inverse(x)
        np.testing.assert_array_equal(cw.to_numpy(got.inverse_indices), inverse.reshape(data.shape))
        got = cw.unique_all(x)
        np.testing.assert_array_equal(cw.to_numpy(got.indices), first)
        np.testing.assert_array_equal(cw.to_numpy(got.counts), counts)
    assert cw.unique_values(cw.asarray(np.zeros(0, np.int64), device=rocm)).shape == (0,)


@pytest.mark.parametrize("past_limit", [False, True])
def test_nonzero(rocm, monkeypatch, past_limit):
    """nonzero of a vector, a matrix, a column and a 3-D bool array (its flat positions by
    kept_positions, then one coordinate array per axis); past_limit: the scan path."""
    if past_limit:
        monkeypatch.setattr(joins, "MASK_TILES_MAX", 1)
    rng = np.random.default_rng(5)
    data = np.where(rng.random(300_000) < 0.2, rng.standard_normal(300_000), 0).astype(np.float32)
    data[::1001] = np.nan
    for shape in ((300_000,), (600, 500), (300_000, 1), (30, 100, 100)):
        host = data.reshape(shape)
        for values in (host, host != 0):
            got = cw.nonzero(cw.asarray(values, device=rocm))
            want = np.nonzero(values)
            assert len(got) == len(want)
            for axis, expected in zip(got, want):
                np.testing.assert_array_equal(cw.to_numpy(axis), expected)
