"""A bool mask's kept positions through mask_count/mask_select (hip/mask_select.hip), run on
the CPU with the real kernels compiled for the host (host_exec.py), against NumPy: masks of
one tile, of several and a partial last one, strided and reversed, nothing or everything
kept, blocks run in any order; the launches compress, unique (its inverse too) and nonzero
make with them; masks past MASK_TILES_MAX tiles keep the scan (joins.kept_positions either way)."""

import numpy as np
import pytest

from candlewick.layout import Layout
from rocm_backend.families import joins

TILE = joins.MASK_TILE


def _names(rt):
    return [name.decode() if isinstance(name, bytes) else name for name, _, _ in rt.launches]


def _mask(n, keep, seed):
    rng = np.random.default_rng(seed)
    return {"some": rng.random(n) < 0.3, "none": np.zeros(n, bool), "all": np.ones(n, bool),
            "runs": (np.arange(n) // 37) % 3 == 1}[keep]


@pytest.mark.parametrize("order", ["forward", "reverse", "shuffle"])
@pytest.mark.parametrize("n", [1, 255, TILE, TILE + 1, 2 * TILE + 777])
@pytest.mark.parametrize("keep", ["some", "none", "all", "runs"])
def test_kept_positions_against_flatnonzero(scan_sort_exec, n, keep, order):
    rt, dev = scan_sort_exec
    rt.order = order
    mask = _mask(n, keep, n)
    positions, count, runs = joins.kept_positions(dev.storage_from_host(mask), Layout.contiguous((n,)))
    assert runs is None
    assert count == mask.sum()
    np.testing.assert_array_equal(positions.to_host(Layout.contiguous((count,))), np.flatnonzero(mask))
    assert _names(rt) == ["mask_count", "mask_select"]


@pytest.mark.parametrize("view", ["strided", "reversed", "offset"])
def test_kept_positions_of_a_mask_view(scan_sort_exec, view):
    _, dev = scan_sort_exec
    base = _mask(3 * TILE + 11, "some", 4)
    got_view, layout = {
        "strided": (base[::3], Layout(((base.size + 2) // 3,), (3,), 0)),
        "reversed": (base[::-1], Layout((base.size,), (-1,), base.size - 1)),
        "offset": (base[5:TILE + 9], Layout((TILE + 4,), (1,), 5)),
    }[view]
    positions, count, _ = joins.kept_positions(dev.storage_from_host(base), layout)
    assert count == got_view.sum()
    np.testing.assert_array_equal(positions.to_host(Layout.contiguous((count,))), np.flatnonzero(got_view))


@pytest.mark.parametrize("rows", [(), (3,)])
def test_compress_takes_the_mask_kernels_and_one_gather(scan_sort_exec, rows):
    """x[mask] over a mask of a few tiles: mask_count, mask_select, then one gather (row_copy
    or take) of the kept positions: three launches (the scan path's were six)."""
    rt, dev = scan_sort_exec
    n = TILE + 300
    x = np.arange(n * int(np.prod(rows)), dtype=np.float32).reshape((n,) + rows)
    mask = _mask(n, "some", 9)
    s, m = dev.storage_from_host(x), dev.storage_from_host(mask)
    del rt.launches[:]
    out, count = s.compress(Layout.contiguous(x.shape), m, Layout.contiguous((n,)))
    assert count == mask.sum()
    np.testing.assert_array_equal(out.to_host(Layout.contiguous((count,) + rows)), x[mask])
    names = _names(rt)
    assert names[:2] == ["mask_count", "mask_select"] and len(names) == 3
    assert names[2].startswith(("row_copy", "take"))


@pytest.mark.parametrize("rows", [(), (3,)])
def test_a_mask_past_the_tile_limit_keeps_the_scan(scan_sort_exec, monkeypatch, rows):
    """Past MASK_TILES_MAX tiles (one here) compress scans the mask as before: same rows."""
    rt, dev = scan_sort_exec
    monkeypatch.setattr(joins, "MASK_TILES_MAX", 1)
    n = TILE + 5
    x = np.arange(n * int(np.prod(rows)), dtype=np.int64).reshape((n,) + rows)
    mask = _mask(n, "some", 10)
    del rt.launches[:]
    out, count = dev.storage_from_host(x).compress(Layout.contiguous(x.shape), dev.storage_from_host(mask),
                                                   Layout.contiguous((n,)))
    assert count == mask.sum()
    np.testing.assert_array_equal(out.to_host(Layout.contiguous((count,) + rows)), x[mask])
    names = _names(rt)
    assert "mask_count" not in names and any(name.startswith("scan") for name in names)


@pytest.mark.parametrize("past_limit", [False, True])
@pytest.mark.parametrize("asked", [(False, False, False), (True, False, True), (False, True, False),
                                   (True, True, True)])
def test_unique_takes_the_mask_kernels(scan_sort_exec, monkeypatch, asked, past_limit):
    """unique's run starts: their positions (and with inverse each element's run) by
    mask_count/mask_select, no scan; past MASK_TILES_MAX tiles the scan. NumPy's results."""
    rt, dev = scan_sort_exec
    if past_limit:
        monkeypatch.setattr(joins, "MASK_TILES_MAX", 1)
    labels = np.random.default_rng(3).integers(0, 5, TILE + 100).astype(np.int64)
    labels[::7] = 9
    line = Layout.contiguous(labels.shape)
    del rt.launches[:]
    values, count, first, inverse, sizes = dev.storage_from_host(labels).unique(line, *asked)
    want = np.unique(labels, return_index=True, return_inverse=True, return_counts=True)
    assert count == want[0].size
    np.testing.assert_array_equal(values.to_host(Layout.contiguous((count,))), want[0])
    for flag, storage, expected in zip(asked, (first, inverse, sizes), want[1:]):
        if flag:
            np.testing.assert_array_equal(storage.to_host(Layout.contiguous(expected.shape)), expected)
        else:
            assert storage is None
    names = _names(rt)
    assert ("mask_select" in names) != past_limit
    assert any(name.startswith("scan") for name in names) == past_limit


@pytest.mark.parametrize("inverse", [False, True])
def test_unique_of_nothing(scan_sort_exec, inverse):
    _, dev = scan_sort_exec
    empty = dev.storage_from_host(np.zeros(0, np.float32))
    values, count, first, got_inverse, sizes = empty.unique(Layout.contiguous((0,)), True, inverse, True)
    assert count == 0 and values.size == 0 and first.size == 0 and sizes.size == 0
    assert got_inverse.size == 0 if inverse else got_inverse is None


@pytest.mark.parametrize("past_limit", [False, True])
@pytest.mark.parametrize("ends", [False, True])
def test_kept_positions_with_runs_and_ends(scan_sort_exec, monkeypatch, past_limit, ends):
    """The run counts (unique's inverse) and the two kept ends (unique's run starts) by the
    mask kernels and, past MASK_TILES_MAX tiles, by the scan: the same positions and runs."""
    rt, dev = scan_sort_exec
    if past_limit:
        monkeypatch.setattr(joins, "MASK_TILES_MAX", 1)
    inner = _mask(TILE + 40, "runs", 5)
    full = np.concatenate([[True], inner, [True]]) if ends else inner
    del rt.launches[:]
    positions, count, runs = joins.kept_positions(dev.storage_from_host(inner), Layout.contiguous(inner.shape),
                                                  True, ends=ends)
    assert count == full.sum()
    np.testing.assert_array_equal(positions.to_host(Layout.contiguous((count,))), np.flatnonzero(full))
    np.testing.assert_array_equal(runs.to_host(Layout.contiguous(full.shape)), np.cumsum(full) - 1)
    assert ("mask_select" in _names(rt)) != past_limit


@pytest.mark.parametrize("past_limit", [False, True])
@pytest.mark.parametrize("shape", [(TILE + 9,), (3, 7, TILE // 16), (TILE + 9, 1), (1, TILE + 9)])
def test_nonzero_takes_kept_positions(scan_sort_exec, monkeypatch, shape, past_limit):
    """nonzero's flat positions by mask_count/mask_select (past MASK_TILES_MAX tiles the
    scan), then one coordinate array per axis of exactly ``count`` elements: NumPy's."""
    rt, dev = scan_sort_exec
    if past_limit:
        monkeypatch.setattr(joins, "MASK_TILES_MAX", 1)
    x = np.where(_mask(int(np.prod(shape)), "some", 6), np.arange(np.prod(shape)) % 5, 0)
    x = x.astype(np.float32).reshape(shape)
    del rt.launches[:]
    coords, count = dev.storage_from_host(x).nonzero(Layout.contiguous(shape))
    want = np.nonzero(x)
    assert count == want[0].size and len(coords) == len(shape)
    for got, expected in zip(coords, want):
        assert got.size == count
        np.testing.assert_array_equal(got.to_host(Layout.contiguous((count,))), expected)
    names = _names(rt)
    assert ("mask_select" in names) != past_limit
    assert any(name.startswith("scan") for name in names) == past_limit


@pytest.mark.parametrize("case, sweeps", [("labels", 1), ("two bytes", 2), ("all equal", 1), ("signs", 8)])
@pytest.mark.parametrize("carried", [False, True], ids=["values", "positions"])
def test_unique_sorts_in_the_passes_of_the_digits_that_differ(scan_sort_exec, case, sweeps, carried):
    """unique's sort of int64 keys past a range tile reads the digit totals back and runs
    only the passes whose digit is not the same for every key: labels 0..4 take one of
    eight (LDA's y), values under 2^16 two, equal values one (a pass still writes them),
    values of both signs all eight (their sign bit differs, so every byte of the key does).
    NumPy's results, with and without the positions carried (the inverse)."""
    rt, dev = scan_sort_exec
    rng = np.random.default_rng(7)
    n = 3 * TILE + 5
    x = {"labels": rng.integers(0, 5, n), "two bytes": rng.integers(0, 60000, n),
         "all equal": np.full(n, 3), "signs": rng.integers(-3, 3, n)}[case].astype(np.int64)
    line = Layout.contiguous(x.shape)
    del rt.launches[:]
    values, count, first, got_inverse, sizes = dev.storage_from_host(x).unique(line, carried, carried, True)
    want = np.unique(x, return_index=True, return_inverse=True, return_counts=True)
    assert count == want[0].size
    np.testing.assert_array_equal(values.to_host(Layout.contiguous((count,))), want[0])
    np.testing.assert_array_equal(sizes.to_host(Layout.contiguous((count,))), want[3])
    if carried:  # (the first indices and the inverse come from the positions)
        np.testing.assert_array_equal(first.to_host(Layout.contiguous((count,))), want[1])
        np.testing.assert_array_equal(got_inverse.to_host(Layout.contiguous((n,))), want[2])
    assert sum(name.startswith("radix_sweep") for name in _names(rt)) == sweeps
