"""The rocm backend's radix sort (families/sort.py, hip/sort.hip and the radix files), run
on the CPU end to end through the backend's host code and its kernels compiled for the host (host_exec.py),
against the cpu backend's stable sort (NumPy's, descending as its reverse with ties in
their order): every sortable dtype, empty to multi-range rows, NaN and -0.0, descending,
batched rows and strided views; values compared bit for bit (zeros' signs, NaN payloads).

Built with 2 keys per thread (a tile of 512) so that short rows already take the
multi-tile, multi-range passes; one build with the kernels' own tile checks that size."""

import numpy as np
import pytest

from candlewick import dtypes as dt
from candlewick import registry
from candlewick.layout import Layout
from eight_byte_keys import tie_halves
from host_exec import build, device_factory
from rocm_backend import ops
from rocm_backend.abi import structs
from rocm_backend.codegen.sources import MODULE_FILES
from rocm_backend.families import sort as sort_family

SMALL_ITEMS = 2
SMALL_RANGE_ITEMS = {4: 3, 8: 3}  # radix_block's rows and a onesweep's ranges: at most 768 keys
SMALL_CARRY_ITEMS = {4: 2, 8: 3}  # a onesweep's ranges with positions: other sizes than without
SMALL_PACK_ITEMS = 2  # an argsort's ranges of the items of keys up to 4 bytes: other than the 8-byte keys'
SMALL_GATHER_MAX = 1024  # 8-byte argsorts of longer rows carry their high halves (radix_sweep.hip's PACK)
DTYPES = [d for d in dt.ALL_DTYPES if not d.is_complex]


def _lib(tmp, items, range_items, sweep_items, carry_items, gather_max, pack_items):
    specs = [s for s in ops.TABLE.values() if s.key[0] in ("radix", "radix_keys", "radix_out", "radix_values")]
    return build(tmp, ["sort.hip", *MODULE_FILES[ops.SORT_MODULE]], specs,
                 defines=[f"CW_RADIX_ITEMS {items}", f"CW_RADIX_GATHER_MAX {gather_max}", f"CW_RADIX_RANGE_ITEMS_K4 {range_items[4]}",
                          f"CW_RADIX_RANGE_ITEMS_K8 {range_items[8]}", f"CW_RADIX_SWEEP_ITEMS_K4 {sweep_items[4]}",
                          f"CW_RADIX_SWEEP_ITEMS_K8 {sweep_items[8]}",
                          f"CW_RADIX_SWEEP_CARRY_ITEMS_K4 {carry_items[4]}",
                          f"CW_RADIX_SWEEP_CARRY_ITEMS_K8 {carry_items[8]}", f"CW_RADIX_PACK_ITEMS {pack_items}"])


@pytest.fixture(scope="module")
def small_lib(tmp_path_factory):
    return _lib(tmp_path_factory.mktemp("sort_small"), SMALL_ITEMS, SMALL_RANGE_ITEMS, SMALL_RANGE_ITEMS,
                SMALL_CARRY_ITEMS, SMALL_GATHER_MAX, SMALL_PACK_ITEMS)


@pytest.fixture(scope="module")
def full_lib(tmp_path_factory):
    return _lib(tmp_path_factory.mktemp("sort_full"), structs.RADIX_ITEMS, structs.RADIX_RANGE_ITEMS,
                structs.RADIX_SWEEP_ITEMS, structs.RADIX_SWEEP_CARRY_ITEMS, structs.RADIX_GATHER_MAX,
                structs.RADIX_PACK_ITEMS)


def _device(lib, monkeypatch, tmp_path, items, warp=64):
    monkeypatch.setattr(sort_family, "TILE", structs.RADIX_BLOCK * items)
    full = items == structs.RADIX_ITEMS
    if not full:  # a counted row's fill in ranges of a tile: runs that span ranges
        monkeypatch.setattr(sort_family, "FILL_TILE", structs.RADIX_BLOCK * items)
        monkeypatch.setattr(sort_family, "GATHER_MAX", SMALL_GATHER_MAX)
    for name, sizes in (("RANGE_TILE", structs.RADIX_RANGE_ITEMS if full else SMALL_RANGE_ITEMS),
                        ("SWEEP_TILE", structs.RADIX_SWEEP_ITEMS if full else SMALL_RANGE_ITEMS),
                        ("CARRY_TILE", structs.RADIX_SWEEP_CARRY_ITEMS if full else SMALL_CARRY_ITEMS)):
        monkeypatch.setattr(sort_family, name, {k: structs.RADIX_BLOCK * v for k, v in sizes.items()})
    pack_items = structs.RADIX_PACK_ITEMS if full else SMALL_PACK_ITEMS
    monkeypatch.setattr(sort_family, "PACK_TILE", structs.RADIX_BLOCK * pack_items)
    return device_factory(lib, monkeypatch, tmp_path)(warp=warp)


@pytest.fixture
def dev(small_lib, monkeypatch, tmp_path):
    """Rows past a range tile take radix_digits, then one radix_sweep a pass; warps of 64 lanes."""
    return _device(small_lib, monkeypatch, tmp_path, SMALL_ITEMS)[1]


@pytest.fixture(params=["warp64", "warp32"])
def any_dev(request, small_lib, monkeypatch, tmp_path):
    """dev with warps of 64 lanes (AMD's) or 32 (CUDA's: the ranking's votes)."""
    return _device(small_lib, monkeypatch, tmp_path, SMALL_ITEMS, 64 if request.param == "warp64" else 32)[1]


def _data(dtype, shape, rng):
    """Values with many ties; floats with NaNs (two payloads, both signs), -0.0 and 0.0, infs."""
    n = int(np.prod(shape))
    if dtype.is_bool:
        return rng.random(shape) < 0.5
    npd = dtype.numpy
    if dtype.is_floating:
        x = rng.integers(-20, 20, n).astype(np.float32) * np.float32(0.5)
        x = x.astype(npd)
        x[rng.random(n) < 0.1] = -0.0
        special = rng.random(n)
        x[special < 0.03] = np.inf
        x[(special >= 0.03) & (special < 0.06)] = -np.inf
        nan_at = np.flatnonzero((special >= 0.06) & (special < 0.1))
        bits = x.view(np.uint16 if npd.itemsize == 2 else np.uint32 if npd.itemsize == 4 else np.uint64)
        for k, i in enumerate(nan_at):  # quiet NaNs of both signs and two payloads
            bits[i] = np.array(np.nan, npd).view(bits.dtype) | (k % 2) | ((k % 3 == 0) << (8 * npd.itemsize - 1))
        return x.reshape(shape)
    info = np.iinfo(npd)
    wide = rng.integers(info.min, info.max, n, dtype=npd, endpoint=True)
    narrow = rng.integers(max(info.min, -5), 6, n).astype(npd)
    return np.where(rng.random(n) < 0.5, wide, narrow).reshape(shape)


def _check(dev, base, view, axis, descending, every_call=True):
    """sort's values (bitwise) and indices against the cpu backend's stable sort; with
    ``every_call``, argsort's and sort_values' too (the same passes, other outputs)."""
    item = base.dtype.itemsize
    layout = Layout(view.shape, tuple(s // item for s in view.strides),
                    (view.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // item)
    s = dev.storage_from_host(base)
    out = Layout.contiguous(view.shape)
    want_idx = registry.get_device("cpu").storage_from_host(base).argsort(layout, axis, descending, True).to_host(out)
    want = np.take_along_axis(view, want_idx, axis)
    values, idx = s.sort(layout, axis, descending, True)
    raw = np.dtype(f"u{item}") if item > 1 else np.uint8
    np.testing.assert_array_equal(idx.to_host(out), want_idx)
    np.testing.assert_array_equal(values.to_host(out).view(raw), want.view(raw))
    if not every_call:
        return
    np.testing.assert_array_equal(s.argsort(layout, axis, descending, False).to_host(out), want_idx)
    np.testing.assert_array_equal(s.sort_values(layout, axis, descending, False).to_host(out).view(raw),
                                  want.view(raw))


def _check_argsort(dev, base, view, descending):
    """argsort along the last axis against the cpu backend's stable argsort."""
    item = base.dtype.itemsize
    layout = Layout(view.shape, tuple(s // item for s in view.strides),
                    (view.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // item)
    out = Layout.contiguous(view.shape)
    axis = view.ndim - 1
    want = registry.get_device("cpu").storage_from_host(base).argsort(layout, axis, descending, True).to_host(out)
    np.testing.assert_array_equal(dev.storage_from_host(base).argsort(layout, axis, descending, False).to_host(out),
                                  want)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("descending", [False, True])
def test_every_dtype_short_and_multi_range_rows(dev, dtype, descending):
    rng = np.random.default_rng(hash((dtype.name, descending)) % 2**32)
    for length in (1, 7, 512, 700, 3 * 512 + 1):  # one tile; one range tile; several ranges of several tiles
        x = _data(dtype, (length,), rng)
        _check(dev, x, x, 0, descending, length < 1000)


@pytest.mark.parametrize("length", [0, 1, 2, 255, 511, 512, 513, 1023, 1025, 4097])
def test_lengths_around_tiles_float32(any_dev, length):
    rng = np.random.default_rng(length)
    x = _data(dt.float32, (length,), rng)
    for descending in (False, True):
        _check(any_dev, x, x, 0, descending, length < 1000)


@pytest.mark.parametrize("dtype, length", [(dt.float32, 20_011), (dt.int16, 16_385)], ids=str)
def test_tens_of_tiles(any_dev, dtype, length):  # 10^5 and more: tests/rocm/gpu/test_radix_sort.py
    x = _data(dtype, (length,), np.random.default_rng(3))
    _check(any_dev, x, x, 0, dtype is dt.int16, False)


def test_many_ranges(any_dev):
    """Rows of 200 range tiles (and 40): each range looks back over many before it, and
    radix_digits' blocks count several ranges each, of one row and across rows."""
    x = _data(dt.uint8, (200 * 768 + 5,), np.random.default_rng(4))
    _check(any_dev, x, x, 0, True, False)
    x = _data(dt.uint8, (2, 40 * 768 + 5), np.random.default_rng(5))
    _check(any_dev, x, x, 1, False, False)


@pytest.mark.parametrize("dtype", [dt.float64, dt.float32], ids=lambda d: d.name)
def test_argsort_over_many_ranges(any_dev, dtype):
    """An argsort's passes over rows of 40 ranges (8-byte keys: carried, then items; 4-byte:
    items), with digits of every skew: each range's counts are posted before it ranks its keys,
    and each block takes its next range's ticket while it reads the keys of the one it has."""
    rng = np.random.default_rng(6)
    x = _data(dtype, (40 * 768 + 5,), rng)
    for view, descending in ((x, False), (x[::-1], True)):
        _check_argsort(any_dev, x, view, descending)
    ones = np.array(0x0101010101010101 if dtype.itemsize == 8 else 0x01010101, f"u{dtype.itemsize}")
    j = np.arange(20 * 768 + 3)
    y = ((j // 700) % 3).astype(ones.dtype) * ones | (j % 2).astype(ones.dtype)  # long runs of one digit
    _check_argsort(any_dev, y.view(dtype.numpy), y.view(dtype.numpy), False)


@pytest.mark.parametrize("shape, axis", [((6, 300), 1), ((4, 1300), 1), ((1300, 3), 0), ((2, 3, 40), 1),
                                         ((40, 5), 1), ((700, 3), 1), ((5, 600), 1), ((600, 4), 0)])
def test_batched_rows_along_any_axis(any_dev, shape, axis):
    rng = np.random.default_rng(sum(shape))
    for dtype in (dt.float32, dt.int8):
        x = _data(dtype, shape, rng)
        _check(any_dev, x, x, axis, False, False)
        _check(any_dev, x, x, axis, True, False)


def _check_values(dev, base, view, axis, descending):
    """sort_values against the cpu backend's stable sort, bit for bit."""
    item = base.dtype.itemsize
    layout = Layout(view.shape, tuple(s // item for s in view.strides),
                    (view.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // item)
    out = Layout.contiguous(view.shape)
    got = dev.storage_from_host(base).sort_values(layout, axis, descending, False).to_host(out)
    want_idx = registry.get_device("cpu").storage_from_host(base).argsort(layout, axis, descending, True).to_host(out)
    raw = np.dtype(f"u{item}")
    np.testing.assert_array_equal(got.view(raw), np.take_along_axis(view, want_idx, axis).view(raw))


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.name)
def test_values_without_positions(any_dev, dtype):
    """sort_values past a tile moves the keys alone (no positions: a float's keys keep
    zeros' signs and NaN payloads, its passes take them as equal), the last pass decoding
    them in place, or radix_values along another axis or from rows not evenly spaced: rows
    of 2+ tiles, batched, along a first axis, from strided views, both ways."""
    rng = np.random.default_rng(7)
    for shape, axis in (((513,), 0), ((1537,), 0), ((3, 600), 1), ((600, 2), 0)):
        x = _data(dtype, shape, rng)
        for descending in (False, True):
            _check_values(any_dev, x, x, axis, descending)
    x = _data(dtype, (5, 1300), rng)
    _check_values(any_dev, x, x[::2, ::-2], 1, True)
    _check_values(any_dev, x, x[1:, 3:], 1, False)
    y = _data(dtype, (3, 4, 600), rng)
    _check_values(any_dev, y, y[:, 1:3, ::-1], 2, True)  # rows not evenly spaced


@pytest.mark.parametrize("dtype", [dt.float32, dt.float64, dt.int8, dt.bool_], ids=lambda d: d.name)
def test_argsort_writes_its_indices_in_the_last_pass(dev, dtype):
    """argsort along the last axis: the last pass (or the one-tile kernel) writes the int64
    indices in place; along another axis through radix_out."""
    rng = np.random.default_rng(11)
    for shape, axis in (((300,), 0), ((1537,), 0), ((3, 600), 1), ((700, 3), 1), ((600, 2), 0)):
        x = _data(dtype, shape, rng)
        item = x.dtype.itemsize
        for view in (x, x[..., ::-1] if axis == x.ndim - 1 else x[::-1]):
            layout = Layout(view.shape, tuple(s // item for s in view.strides),
                            (view.__array_interface__["data"][0] - x.__array_interface__["data"][0]) // item)
            for descending in (False, True):
                want = registry.get_device("cpu").storage_from_host(x).argsort(layout, axis, descending, True)
                got = dev.storage_from_host(x).argsort(layout, axis, descending, False)
                out = Layout.contiguous(view.shape)
                np.testing.assert_array_equal(got.to_host(out), want.to_host(out))


@pytest.mark.parametrize("shift", [16, 24, 32])
@pytest.mark.parametrize("dtype", [dt.float64, dt.int64, dt.uint64], ids=lambda d: d.name)
def test_eight_byte_argsort_items_from_any_pass(dev, monkeypatch, dtype, shift):
    """An 8-byte argsort of rows past GATHER_MAX moves keys and positions until the positions
    fit below the next digit (_item_shift: 16 for these rows; 24 past 2^16 keys, 32 past 2^24),
    then items of both: any shift that leaves them room sorts the same (stable: ties in either
    half in their order). Rows up to GATHER_MAX (900) gather their high halves."""
    monkeypatch.setattr(sort_family, "_item_shift", lambda length: shift)
    rng = np.random.default_rng(shift)
    for shape in ((1537,), (3, 1100), (2, 900)):
        x = tie_halves(dtype.numpy, int(np.prod(shape)), rng).reshape(shape)
        layout, axis = Layout.contiguous(shape), len(shape) - 1
        for descending in (False, True):
            want = registry.get_device("cpu").storage_from_host(x).argsort(layout, axis, descending, True)
            got = dev.storage_from_host(x).argsort(layout, axis, descending, False)
            np.testing.assert_array_equal(got.to_host(layout), want.to_host(layout))


@pytest.mark.parametrize("dtype", [dt.float64, dt.int64], ids=lambda d: d.name)
def test_eight_byte_argsort_positions_past_two_bytes(dev, dtype):
    """An 8-byte argsort of a row past 2^16 keys (17-bit positions): three passes of the carry
    sweep (radix_sweep_carry, the third writing the items), then the items'; zeros of both signs,
    NaNs and ties of either half keep their order."""
    rng = np.random.default_rng(17)
    n = (1 << 16) + 4099
    x = np.where(rng.random(n) < 0.5, tie_halves(dtype.numpy, n, rng), _data(dtype, (n,), rng))
    layout = Layout.contiguous((n,))
    for view, descending in ((x, False), (x, True)):
        want = registry.get_device("cpu").storage_from_host(view).argsort(layout, 0, descending, True)
        got = dev.storage_from_host(view).argsort(layout, 0, descending, False)
        np.testing.assert_array_equal(got.to_host(layout), want.to_host(layout))


def test_strided_and_offset_views(any_dev):
    x = _data(dt.float32, (9, 1400), np.random.default_rng(8))
    _check(any_dev, x, x[1::2, ::-3], 1, False, False)
    _check(any_dev, x, x[::-1, 5:100:2], 0, True, False)
    y = _data(dt.int16, (3, 4, 600), np.random.default_rng(9))
    _check(any_dev, y, y[:, 1:3, ::-1], 2, False)  # rows not evenly spaced: radix_out gathers
    _check(any_dev, y, y[1:, ::2, 3:], 2, True)  # evenly spaced rows (1200 apart): in place


@pytest.mark.parametrize("dtype", [dt.float32, dt.float64, dt.int16, dt.bool_, dt.uint8], ids=lambda d: d.name)
def test_keys_made_from_strided_sources(dev, dtype):
    """Rows past a tile, one stride apart (any stride, negative too): no radix_keys, the keys
    are made from the source (radix_digits_enc and the first onesweep pass, or radix_block)."""
    rng = np.random.default_rng(12)
    x = _data(dtype, (5, 2400), rng)
    for view in (x[1::2, ::-3], x[::-1, 3:1400:2], x[:, ::-1]):  # 800 keys: passes; 699: radix_block; 2400
        for descending in (False, True):
            _check(dev, x, view, 1, descending)
    t = _data(dtype, (1700, 3), rng)  # along another axis, the rows 1 apart and the keys 3 or -6
    _check(dev, t, t, 0, True)
    _check(dev, t, t[::-2], 0, False)


def test_all_equal_and_presorted_rows(any_dev):
    for x in (np.zeros(2000, np.float32), np.full(2000, -0.0, np.float32), np.arange(2000, dtype=np.int32),
              np.arange(2000, dtype=np.int32)[::-1].copy(), np.full(1500, np.nan, np.float64)):
        _check(any_dev, x, x, 0, False, False)
        _check(any_dev, x, x, 0, True, False)


@pytest.mark.parametrize("dtype", [dt.uint32, dt.uint64], ids=lambda d: d.name)
def test_peers_in_a_warp(any_dev, dtype):
    """The ranking finds a key's lanes of the same digit from its warp's word of the digit in
    shared memory (two sets of words, items alternating, each cleared by its digit's lowest
    lane): every digit byte the same pattern of the key's place, so that all lanes share a
    word, each has its own, neighbours alternate, or one lane's items alternate (places a
    warp apart); in one tile and in several ranges, with positions carried and without."""
    ones = np.array(0x0101010101010101 if dtype.itemsize == 8 else 0x01010101, dtype.numpy)
    for length in (700, 2500):
        j = np.arange(length)
        for digit in (j % 1, j % 2, j % 3, j % 33, j % 256, (j // 32) % 2, (j // 64) % 3, (j * 7) % 64):
            x = digit.astype(dtype.numpy) * ones
            _check(any_dev, x, x, 0, False)
            _check(any_dev, x, x, 0, True, False)


def _launches(rt, device, x, indices=True, indices_only=False):
    rt.launches.clear()
    s = device.storage_from_host(x)
    if indices_only:
        s.argsort(Layout.contiguous(x.shape), x.ndim - 1, False, True)
    elif indices:
        s.sort(Layout.contiguous(x.shape), x.ndim - 1, False, True)
    else:
        s.sort_values(Layout.contiguous(x.shape), x.ndim - 1, False, True)
    return [name for name, _, _ in rt.launches]


def test_launches_per_row_length(monkeypatch, tmp_path, small_lib):
    """Rows of one tile: radix_keys, then one launch. Rows past a tile, one stride apart: no
    radix_keys (the first kernel that reads the keys makes them from the source): one range
    tile a row, one launch; longer, a count launch, then one a pass. Along the last axis the
    last one writes the values and indices; along another, radix_out; a sort without indices
    past a tile moves keys alone, written back as values by the last pass along the last axis,
    by radix_values along another. Rows not evenly spaced: radix_keys first."""
    rt, device = _device(small_lib, monkeypatch, tmp_path, SMALL_ITEMS)
    x = _data(dt.float32, (3, 2049), np.random.default_rng(1))
    sweep = ["radix_digits_enc_k4_b4"] + ["radix_sweep_k4_b4"] * 4
    assert _launches(rt, device, x) == sweep  # the last pass writes both outputs
    # an argsort of 4-byte keys: items of key and position through the keys-only pass (radix_sweep_pack)
    assert _launches(rt, device, x[:, :769].copy(), indices_only=True) == \
        ["radix_digits_enc_k4_b4"] + ["radix_sweep_pack_k8_b4"] * 4
    for cut in (768, 513):  # a row in a range tile: one launch
        assert _launches(rt, device, x[:, :cut].copy()) == ["radix_block_k4_b4"]
        assert _launches(rt, device, x[:, :cut].copy(), False) == ["radix_block_keys_k4_b4"]
    assert _launches(rt, device, x[:, :512].copy()) == ["radix_keys_float32", "radix_rows_k4_b4"]
    assert _launches(rt, device, x[:, :512].copy(), indices_only=True) == ["radix_keys_float32", "radix_rows_k4_b4"]
    rt.launches.clear()  # along another axis: radix_out gathers
    device.storage_from_host(x).sort(Layout.contiguous(x.shape), 0, False, True)
    assert [name for name, _, _ in rt.launches] == ["radix_keys_float32", "radix_rows_k4_b4", "radix_out_b4"]
    i = _data(dt.int16, (2, 2100), np.random.default_rng(2))  # keys alone
    assert _launches(rt, device, i, False) == ["radix_digits_enc_k4_b2"] + ["radix_sweep_keys_k4_b2"] * 2
    rt.launches.clear()
    device.storage_from_host(x).sort_values(Layout.contiguous(x.shape), 0, False, True)  # rows of 3: one tile
    device.storage_from_host(x).sort_values(Layout((2049, 3), (1, 2049), 0), 1, False, True)  # evenly spaced
    assert [name for name, _, _ in rt.launches] == ["radix_keys_float32", "radix_rows_k4_b4", "radix_out_b4",
                                                     "radix_keys_float32", "radix_rows_k4_b4"]
    rt.launches.clear()
    device.storage_from_host(x).sort_values(Layout((2049, 3), (1, 2049), 0), 0, False, True)
    assert [name for name, _, _ in rt.launches] == \
        ["radix_digits_enc_k4_b4"] + ["radix_sweep_keys_k4_b4"] * 4 + ["radix_values_float32"]
    rt.launches.clear()  # y[:, 1:3, ::-1]: rows not evenly spaced
    y = _data(dt.int32, (3, 4, 600), np.random.default_rng(5))
    device.storage_from_host(y).sort(Layout((3, 2, 600), (2400, 600, -1), 1199), 2, False, True)
    assert [name for name, _, _ in rt.launches] == ["radix_keys_int32", "radix_block_k4_b4", "radix_out_b4"]
    assert _launches(rt, device, _data(dt.float64, (900,), np.random.default_rng(3)), False) == \
        ["radix_digits_enc_k8_b8"] + ["radix_sweep_keys_k8_b8"] * 8
    assert _launches(rt, device, _data(dt.float64, (700,), np.random.default_rng(3)), False) == \
        ["radix_block_keys_k8_b8"]
    # an argsort of 8-byte keys: items of each half and position in turn (radix_sweep_pack, b8); in
    # rows past GATHER_MAX keys and positions (radix_sweep_carry) until the positions fit below the
    # next digit (a row of 1100: 11 bits, two passes), then items of both
    assert _launches(rt, device, _data(dt.float64, (900,), np.random.default_rng(3)), indices_only=True) == \
        ["radix_digits_enc_k8_b8"] + ["radix_sweep_pack_k8_b8"] * 8
    assert _launches(rt, device, _data(dt.float64, (1100,), np.random.default_rng(3)), indices_only=True) == \
        ["radix_digits_enc_k8_b8"] + ["radix_sweep_carry_k8_b8"] * 2 + ["radix_sweep_pack_k8_b8"] * 6
    for dtype in (dt.uint8, dt.int8, dt.bool_):  # 1-byte values alone past a range tile: counted, no keys
        b = _data(dtype, (2, 2100), np.random.default_rng(4))
        assert _launches(rt, device, b, False) == ["radix_digits_enc_k4_b1", "radix_fill_b1"]
        block = "radix_block_k4_b1" if dtype == dt.bool_ else "radix_block_keys_k4_b1"  # a bool's values: gathered
        assert _launches(rt, device, b[:, :700].copy(), False) == [block]
    rt.launches.clear()  # 170 rows of 3 share a tile of 512: 5 blocks for 700 rows
    device.storage_from_host(x[:, :3].copy()).sort(Layout.contiguous((3, 3)), 1, False, True)
    device.storage_from_host(x.reshape(-1)[:2100].reshape(700, 3)).sort(Layout.contiguous((700, 3)), 1, False, True)
    assert [grid for name, grid, _ in rt.launches if name == "radix_rows_k4_b4"] == [(1, 1), (5, 1)]


@pytest.mark.parametrize("dtype, made", [(dt.int8, ()), (dt.bool_, ()), (dt.int16, (8,)), (dt.float32, (8, 8)),
                                         (dt.float64, (8, 8)), (dt.float32, None)])
def test_argsort_buffers(monkeypatch, tmp_path, small_lib, dtype, made):
    """An argsort past a range tile along the last axis makes no buffer but the indices, the
    passes' state and the ping-pong buffers of items (bytes a key) that a later pass reads:
    none for one pass (1-byte keys), one for two. ``made`` None: a sort with values."""
    device = _device(small_lib, monkeypatch, tmp_path, SMALL_ITEMS)[1]
    x = _data(dtype, (2, 2100), np.random.default_rng(6))
    sizes = []
    storage = device.storage_type
    empty = storage.empty.__func__

    def counted(cls, dev, dtype_, size):
        sizes.append(dtype_.itemsize * size)
        return empty(cls, dev, dtype_, size)

    s = device.storage_from_host(x)
    monkeypatch.setattr(storage, "empty", classmethod(counted))
    if made is None:
        got = s.sort(Layout.contiguous(x.shape), 1, False, True)[1]
    else:
        got = s.argsort(Layout.contiguous(x.shape), 1, False, True)
    monkeypatch.setattr(storage, "empty", classmethod(empty))
    n = x.size
    want = registry.get_device("cpu").storage_from_host(x).argsort(Layout.contiguous(x.shape), 1, False, True)
    np.testing.assert_array_equal(got.to_host(Layout.contiguous(x.shape)), want.to_host(Layout.contiguous(x.shape)))
    state = [b for b in sizes if b % n]  # the passes' state words (8 + rows x 256 x (passes + ranges))
    buffers = sorted(b for b in sizes if b % n == 0)
    if made is None:  # values, indices, two buffers of 4-byte keys, two of positions
        assert sorted(buffers) == sorted([4 * n, 8 * n, 4 * n, 4 * n, 4 * n, 4 * n]) and len(state) == 1
        return
    assert buffers == sorted([8 * n, *(b * n for b in made)]) and len(state) == 1


def test_the_kernels_own_tile(full_lib, monkeypatch, tmp_path):
    device = _device(full_lib, monkeypatch, tmp_path, structs.RADIX_ITEMS)[1]
    rng = np.random.default_rng(2)
    for dtype, shape in ((dt.float32, (3, 2048)), (dt.int64, (2, 2049)), (dt.float16, (6000,)), (dt.bool_, (5000,)),
                          (dt.float32, (300, 7)), (dt.float32, (2, 4096)), (dt.int16, (3001,))):
        x = _data(dtype, shape, rng)
        _check(device, x, x, x.ndim - 1, False, False)
        _check(device, x, x, x.ndim - 1, True, False)
    for dtype, shape in ((dt.bool_, (5000,)), (dt.int8, (2, 9000)), (dt.uint8, (3, 4097))):  # counted
        x = _data(dtype, shape, rng)
        _check_values(device, x, x, x.ndim - 1, False)
        _check_values(device, x, x[..., ::-1], x.ndim - 1, True)


def test_eight_byte_rows_by_halves(full_lib, small_lib, monkeypatch, tmp_path):
    """A sort, argsort or sort_values of 8-byte keys along the last axis, rows past a tile up
    to the 4-byte keys' range tile: one launch, a block a row (radix_block_halves: the low
    halves' passes, then the high halves gathered by position; the values gathered by position,
    bit for bit), at the kernels' own tile and a small one."""
    rt, device = _device(small_lib, monkeypatch, tmp_path / "small", SMALL_ITEMS)
    x = _data(dt.float64, (2, 700), np.random.default_rng(3))
    assert _launches(rt, device, x, indices_only=True) == ["radix_block_halves_k8_b8"]
    assert _launches(rt, device, x) == ["radix_block_k8_b8"]  # with values: radix_block where it holds the row
    rng = np.random.default_rng(12)
    for dtype, shape in ((dt.float64, (3, 700)), (dt.int64, (2, 513)), (dt.uint64, (2, 768))):
        x = _data(dtype, shape, rng)
        for view, descending in ((x, False), (x[..., ::-1], True), (x[:, 1:], False)):
            _check_argsort(device, x, view, descending)
    rt, device = _device(full_lib, monkeypatch, tmp_path / "full", structs.RADIX_ITEMS)
    x = _data(dt.float64, (2, 2049), np.random.default_rng(4))
    for how in ({"indices_only": True}, {}, {"indices": False}):
        assert _launches(rt, device, x, **how) == ["radix_block_halves_k8_b8"], how
    for dtype, shape in ((dt.float64, (3, 4096)), (dt.int64, (2, 2049)), (dt.uint64, (2, 3001))):
        x = _data(dtype, shape, rng)
        for view, descending in ((x, False), (x[..., ::-1], True), (x[:, 1:], False)):
            _check(device, x, view, 1, descending)
