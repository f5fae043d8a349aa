"""The scan kernels of rocm_backend/hip/scan.hip, run on the CPU end to end (host_exec.py):
rows by groups of threads (every group size, several rows per block), long rows in
tiles (the tiles' totals scanned by the same code, and in tiles again when there are
many), complex products one thread per row. Inputs are small integers (products:
mostly 1, some -1 and 2), so every result is exact and the comparisons are bitwise,
whatever the block order.

The main library is built with CW_SCAN_ITEMS=1 (a tile of 256 elements instead of the
device's 2048) so that rows of a few thousand elements already need tiles of tiles; a
second one with CW_SCAN_ITEMS=4 has each thread fold several elements.
"""

import numpy as np
import pytest

from candlewick import dtypes as dt
from candlewick.layout import Layout
from candlewick.opdefs import ScanOp
from host_exec import build, device_factory
from rocm_backend import ops
from rocm_backend.abi import structs
from rocm_backend.families import scans

DTYPES = [dt.int8, dt.uint16, dt.int64, dt.float16, dt.bfloat16, dt.float32, dt.float64, dt.complex64,
          dt.complex128]
CASES = [(ScanOp.SUM, d) for d in DTYPES] + [(ScanOp.PROD, d) for d in (dt.int32, dt.float64, dt.complex128)]
CASE_KEYS = {ops.kernel_key(op, d) for op, d in CASES}
HOST_TILE = structs.EW_BLOCK  # CW_SCAN_ITEMS=1


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    specs = [s for s in ops.TABLE.values() if s.key[0].startswith("scan") and tuple(s.key[1:]) in CASE_KEYS]
    return build(tmp_path_factory.mktemp("scan_host"), ["scan.hip"], specs, defines=["CW_SCAN_ITEMS 1"])


GROUP_CASES = [(ScanOp.SUM, dt.int64), (ScanOp.SUM, dt.float16), (ScanOp.PROD, dt.float64)]
GROUP_KEYS = {ops.kernel_key(op, d) for op, d in GROUP_CASES}


@pytest.fixture(scope="module")
def lib_items4(tmp_path_factory):
    specs = [s for s in ops.TABLE.values() if s.key[0] == "scan" and tuple(s.key[1:]) in GROUP_KEYS]
    return build(tmp_path_factory.mktemp("scan_host4"), ["scan.hip"], specs, defines=["CW_SCAN_ITEMS 4"])


def _host_items(monkeypatch, items):
    monkeypatch.setattr(scans, "SCAN_ITEMS", items)
    monkeypatch.setattr(scans, "SCAN_TILE", structs.EW_BLOCK * items)


@pytest.fixture
def device(lib, monkeypatch, tmp_path):
    _host_items(monkeypatch, 1)
    return device_factory(lib, monkeypatch, tmp_path)


def _values(op, dtype, shape, rng):
    n = int(np.prod(shape))
    if op is ScanOp.PROD:
        a = np.where(rng.random(n) < 0.97, 1, np.where(rng.random(n) < 0.5, -1, 2))
        if dtype.numpy.kind == "u":
            a = np.abs(a)
    else:
        a = rng.integers(0 if dtype.numpy.kind == "u" else -3, 4, n)
    if dtype.is_complex:
        a = a + 1j * (rng.integers(-2, 3, n) if op is ScanOp.SUM else 0)
    return a.astype(dtype.numpy).reshape(shape)


def _expected(op, view, axis):
    fn = np.cumsum if op is ScanOp.SUM else np.cumprod
    if view.dtype.kind in "iu":
        return fn(view, axis=axis, dtype=view.dtype)  # wrapping, as the kernels do
    wide = np.complex128 if view.dtype.kind == "c" else np.float64
    return fn(view.astype(wide), axis=axis).astype(view.dtype)


def _check(dev, op, base, view, axis):
    itemsize = base.dtype.itemsize
    layout = Layout(view.shape, tuple(s // itemsize for s in view.strides),
                    (view.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // itemsize)
    got = dev.storage_from_host(base).scan(op, layout, axis).to_host(Layout.contiguous(view.shape))
    want = _expected(op, view, axis)
    if want.dtype.kind in "iu":
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_array_equal(got.astype(np.complex128), want.astype(np.complex128))
    return got


def _kinds(rt):
    return {name.split("_")[0] + "_" + name.split("_")[1] for name, _, _ in rt.launches}


@pytest.mark.parametrize("op,dtype", CASES, ids=[f"{o.value}-{d.name}" for o, d in CASES])
def test_rows_long_and_short_every_layout(device, op, dtype):
    rt, dev = device(warp=64)
    rng = np.random.default_rng(abs(hash((op.value, dtype.name))) % 2**32)
    flat = _values(op, dtype, (1201,), rng)
    _check(dev, op, flat, flat, 0)  # one row of 5 tiles
    _check(dev, op, flat, flat[::-3], 0)  # reversed, strided
    m = _values(op, dtype, (2, 700), rng)
    _check(dev, op, m, m, 1)  # a few long rows
    _check(dev, op, m, m[:, 7:], 1)  # starting off a tile boundary
    mt = np.ascontiguousarray(m.T)
    _check(dev, op, mt, mt, 0)  # along the slow axis: the input strided, the output too
    for length in (HOST_TILE, HOST_TILE + 1, 2 * HOST_TILE):
        r = _values(op, dtype, (2, length), rng)
        _check(dev, op, r, r, 1)  # exactly one tile (no tiles) / one element into a second
    short = _values(op, dtype, (40, 9), rng)
    _check(dev, op, short, short, 1)  # many short rows: a block each
    _check(dev, op, short, short, 0)
    kinds = _kinds(rt)
    if op is ScanOp.PROD and dtype.is_complex:
        assert kinds == {"scan_seq"}
    else:
        assert kinds == {"scan_tiles", "scan_" + op.value}, kinds


@pytest.mark.parametrize("op,dtype", [(ScanOp.SUM, dt.float16)])
def test_tiles_of_tiles(device, op, dtype):
    """A row of 274 tiles: the scan of its tile totals is itself tiled (float16 totals
    are float32)."""
    rt, dev = device(warp=64)
    flat = _values(op, dtype, (70_001,), np.random.default_rng(3))
    _check(dev, op, flat, flat, 0)
    assert sum(name.startswith("scan_tiles") for name, _, _ in rt.launches) == 4


def test_many_rows_in_tiles_and_grid_loops(device, monkeypatch):
    """Rows and tiles past the grid's caps: the kernel loops over both; the totals of
    each row are kept apart (rows of a 3-d array, reduced axis in the middle)."""
    monkeypatch.setattr(scans, "GRID_CAP", (2, 3))
    rt, dev = device(warp=32)
    rng = np.random.default_rng(11)
    for dtype in (dt.int64, dt.float32):
        c = _values(ScanOp.SUM, dtype, (3, 1100, 2), rng)
        _check(dev, ScanOp.SUM, c, c, 1)
        _check(dev, ScanOp.SUM, c, c[::-1, :, ::-1], 1)
    grids = {g for name, g, _ in rt.launches if name.startswith("scan_tiles")}
    assert grids == {(2, 3)}, grids


def test_block_order_changes_no_bit(device):
    rt, dev = device(warp=32)
    rng = np.random.default_rng(5)
    a = rng.standard_normal(3000).astype(np.float32)
    s = dev.storage_from_host(a)
    results = []
    for order in ("forward", "reverse", "shuffle", "shuffle"):
        rt.order = order
        results.append(s.scan(ScanOp.SUM, Layout.contiguous(a.shape), 0).to_host(Layout.contiguous(a.shape)))
    for r in results[1:]:
        np.testing.assert_array_equal(r, results[0])
    np.testing.assert_allclose(results[0], np.cumsum(a.astype(np.float64)), rtol=1e-4, atol=1e-3)


def test_many_rows_use_the_row_kernel(device, monkeypatch):
    monkeypatch.setattr(scans, "TILED_ROWS_MAX", 4)
    rt, dev = device(warp=64)
    a = _values(ScanOp.SUM, dt.int64, (5, 600), np.random.default_rng(2))
    _check(dev, ScanOp.SUM, a, a, 1)
    assert _kinds(rt) == {"scan_sum"}


@pytest.mark.parametrize("items", [1, 4])
@pytest.mark.parametrize("group", [1, 2, 8, 64, 256])
def test_row_groups_every_layout(request, monkeypatch, tmp_path, items, group):
    """cw_scan with each group size forced: rows of one element, of three chunks and a
    bit, shorter than a chunk; rows not filling the last block; rows strided (along the
    slow axis, reversed); the middle axis of a 3-d array; a grid looping over blocks."""
    lib = request.getfixturevalue("lib" if items == 1 else "lib_items4")
    _host_items(monkeypatch, items)
    monkeypatch.setattr(scans, "FORCE_KERNEL", "rows")
    monkeypatch.setattr(scans, "FORCE_THREADS_PER_ROW", group)
    monkeypatch.setattr(scans, "GRID_CAP", (2, 65535))
    rt, dev = device_factory(lib, monkeypatch, tmp_path)(warp=32)
    rng = np.random.default_rng(group * 10 + items)
    per_block = structs.EW_BLOCK // group
    rows, length = 2 * per_block + 1, 2 * group * items + 3  # three blocks of rows, three chunks
    for op, dtype in GROUP_CASES:
        one = _values(op, dtype, (1,), rng)
        _check(dev, op, one, one, 0)
        m = _values(op, dtype, (rows, length), rng)
        _check(dev, op, m, m, 1)
        _check(dev, op, m, m[::-1, ::-2], 1)  # reversed and strided both ways
        mt = _values(op, dtype, (length, rows), rng)
        _check(dev, op, mt, mt, 0)  # along the slow axis: rows strided, neighbours adjacent
        _check(dev, op, mt, mt[1:, ::-1], 0)
        short = _values(op, dtype, (rows, 3), rng)
        _check(dev, op, short, short, 1)
        c = _values(op, dtype, (2, length, per_block + 1), rng)
        _check(dev, op, c, c[:, ::-1, :], 1)  # the middle axis of a 3-d array
    assert _kinds(rt) == {"scan_sum", "scan_prod"}
    assert {g for name, g, _ in rt.launches} == {(1, 1), (2, 1)}  # capped: the kernel loops


@pytest.mark.parametrize("length,stride,rows,group", [
    (1, 1, 10, 1), (8, 1, 10, 1), (9, 1, 10, 2), (256, 1, 10, 32), (2048, 1, 10, 256), (10**6, 1, 10, 256),
    (3, -7, 10, 1),  # strided, short: one step of one thread covers the row
    (4096, 4096, 65536, 8),  # strided, many rows: 32 neighbouring rows per block
    (4096, 4096, 4096, 32),  # strided, fewer rows: 8 per block keep 2 blocks per multiprocessor
    (4096, 4096, 5, 256),  # strided, a handful of rows: a block each
])
def test_threads_per_row(length, stride, rows, group):
    """One step of SCAN_ITEMS per thread covers the row, at most a block; strided rows
    take up to STRIDED_ROWS_MAX rows per block while the grid keeps 2 blocks per
    multiprocessor (132 of them here)."""
    assert scans.threads_per_row(length, stride, rows, 132) == group


@pytest.mark.parametrize("rows,length,stride,tiles", [
    (1, 2049, 1, True), (4096, 2049, 1, True), (4097, 2049, 1, False), (1, 2048, 1, False),
    (256, 2049, 9, True), (257, 2049, -9, False),
])
def test_use_tiles(rows, length, stride, tiles, monkeypatch):
    """Rows longer than a tile are tiled up to TILED_ROWS_MAX unit-stride rows, and up to
    TILED_STRIDED_ROWS_MAX strided ones (strided tiles load uncoalesced). Forced, tiles
    are still only for rows longer than a tile."""
    assert scans.use_tiles(rows, length, stride) is tiles
    monkeypatch.setattr(scans, "FORCE_KERNEL", "tiles")
    assert scans.use_tiles(rows, length, stride) is (length > scans.SCAN_TILE)
    monkeypatch.setattr(scans, "FORCE_KERNEL", "rows")
    assert scans.use_tiles(rows, length, stride) is False


def test_forced_tiles_end_their_recursion(device, monkeypatch):
    """Tiles forced: the scan of the tile totals (one tile) uses cw_scan."""
    monkeypatch.setattr(scans, "FORCE_KERNEL", "tiles")
    rt, dev = device(warp=32)
    a = _values(ScanOp.SUM, dt.int64, (3, 3001), np.random.default_rng(4))
    _check(dev, ScanOp.SUM, a, a, 1)
    assert _kinds(rt) == {"scan_tiles", "scan_sum"}
