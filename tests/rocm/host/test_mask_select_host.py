"""compress's kept positions through mask_count/mask_select (hip/index.hip), run on the CPU
with the real kernels compiled for the host (host_exec.py), against NumPy: masks of one
tile, of several and a partial last one, strided and reversed, nothing or everything kept,
blocks run in any order; the launches compress and unique (its inverse too) make with them;
masks past MASK_TILES_MAX tiles keep the scan."""

import numpy as np
import pytest

from candlewick.layout import Layout
from host_exec import build_scan_sort, device_factory
from rocm_backend.families import joins

import test_lean_primitives_host as lean
import test_sets_host as sets_host

TILE = joins.MASK_TILE


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    return build_scan_sort(tmp_path_factory.mktemp("mask_select"),
                           lambda key: sets_host._wanted(key) or lean._wanted(key))


@pytest.fixture
def exec_device(lib, monkeypatch, tmp_path):
    from rocm_backend.abi import structs
    from rocm_backend.families import scans

    monkeypatch.setattr(scans, "SCAN_ITEMS", 1)
    monkeypatch.setattr(scans, "SCAN_TILE", structs.EW_BLOCK)
    return device_factory(lib, monkeypatch, tmp_path)(warp=64)


def _names(rt):
    return [name.decode() if isinstance(name, bytes) else name for name, _, _ in rt.launches]


def _mask(n, keep, seed):
    rng = np.random.default_rng(seed)
    return {"some": rng.random(n) < 0.3, "none": np.zeros(n, bool), "all": np.ones(n, bool),
            "runs": (np.arange(n) // 37) % 3 == 1}[keep]


@pytest.mark.parametrize("order", ["forward", "reverse", "shuffle"])
@pytest.mark.parametrize("n", [1, 255, TILE, TILE + 1, 2 * TILE + 777])
@pytest.mark.parametrize("keep", ["some", "none", "all", "runs"])
def test_kept_positions_against_flatnonzero(exec_device, n, keep, order):
    rt, dev = exec_device
    rt.order = order
    mask = _mask(n, keep, n)
    positions, count = joins.kept_positions(dev.storage_from_host(mask), Layout.contiguous((n,)))
    assert count == mask.sum()
    np.testing.assert_array_equal(positions.to_host(Layout.contiguous((count,))), np.flatnonzero(mask))
    assert _names(rt) == ["mask_count", "mask_select"]


@pytest.mark.parametrize("view", ["strided", "reversed", "offset"])
def test_kept_positions_of_a_mask_view(exec_device, view):
    _, dev = exec_device
    base = _mask(3 * TILE + 11, "some", 4)
    got_view, layout = {
        "strided": (base[::3], Layout(((base.size + 2) // 3,), (3,), 0)),
        "reversed": (base[::-1], Layout((base.size,), (-1,), base.size - 1)),
        "offset": (base[5:TILE + 9], Layout((TILE + 4,), (1,), 5)),
    }[view]
    positions, count = joins.kept_positions(dev.storage_from_host(base), layout)
    assert count == got_view.sum()
    np.testing.assert_array_equal(positions.to_host(Layout.contiguous((count,))), np.flatnonzero(got_view))


@pytest.mark.parametrize("rows", [(), (3,)])
def test_compress_takes_the_mask_kernels_and_one_gather(exec_device, rows):
    """x[mask] over a mask of a few tiles: mask_count, mask_select, then one gather (row_copy
    or take) of the kept positions: three launches (the scan path's were six)."""
    rt, dev = exec_device
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
def test_a_mask_past_the_tile_limit_keeps_the_scan(exec_device, monkeypatch, rows):
    """Past MASK_TILES_MAX tiles (one here) compress scans the mask as before: same rows."""
    rt, dev = exec_device
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
def test_unique_takes_the_mask_kernels(exec_device, monkeypatch, asked, past_limit):
    """unique's run starts: their positions (and with inverse each element's run) by
    mask_count/mask_select, no scan; past MASK_TILES_MAX tiles the scan. NumPy's results."""
    rt, dev = exec_device
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
def test_unique_of_nothing(exec_device, inverse):
    _, dev = exec_device
    empty = dev.storage_from_host(np.zeros(0, np.float32))
    values, count, first, got_inverse, sizes = empty.unique(Layout.contiguous((0,)), True, inverse, True)
    assert count == 0 and values.size == 0 and first.size == 0 and sizes.size == 0
    assert got_inverse.size == 0 if inverse else got_inverse is None


@pytest.mark.parametrize("case, sweeps", [("labels", 1), ("two bytes", 2), ("all equal", 1), ("signs", 8)])
@pytest.mark.parametrize("carried", [False, True], ids=["values", "positions"])
def test_unique_sorts_in_the_passes_of_the_digits_that_differ(exec_device, case, sweeps, carried):
    """unique's sort of int64 keys past a range tile reads the digit totals back and runs
    only the passes whose digit is not the same for every key: labels 0..4 take one of
    eight (LDA's y), values under 2^16 two, equal values one (a pass still writes them),
    values of both signs all eight (their sign bit differs, so every byte of the key does).
    NumPy's results, with and without the positions carried (the inverse)."""
    rt, dev = exec_device
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
