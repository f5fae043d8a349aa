"""The rocm backend's lean-path primitives (compare_scalar, concat, compress, sort_values,
argsort), run on the CPU end to end through the backend's own host code and its real
kernels compiled for the host (host_exec.py), against NumPy."""

import numpy as np
import pytest

from candlewick.layout import Layout
from candlewick.opdefs import CompareOp
from candlewick.errors import IndexOutOfBoundsError
from host_exec import build_scan_sort, device_factory, scan_sort_device
from rocm_backend.families.copies import padded_copy

KEYS = {("compare", "greater", "float32"), ("compare", "less_equal", "int32"), ("copy", 4), ("copy", 8),
        ("transpose", 4), ("take", 4), ("put", 4), ("put", 8), ("astype", "bool", "int64"), ("binary", "multiply", "int64"),
        ("radix_keys", "float32"), ("arange", "int64"), ("compact",)} | {("mask", "count"), ("mask", "select"), ("take", 8)} | {("row_copy", size) for size in (1, 2, 4, 8, 16)}


def _wanted(key):
    return key in KEYS or key[0] in ("radix", "radix_out", "radix_values") or (key[0].startswith("scan") and key[1:] == ("sum", "int64"))


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    return build_scan_sort(tmp_path_factory.mktemp("lean_host"), _wanted)


@pytest.fixture
def dev(lib, monkeypatch, tmp_path):
    return scan_sort_device(lib, monkeypatch, tmp_path)


def _layout(base, view):
    item = base.dtype.itemsize
    return Layout(view.shape, tuple(s // item for s in view.strides),
                  (view.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // item)


def test_compare_scalar_both_ways_contiguous_and_strided(dev):
    base = np.linspace(-3, 3, 1001, dtype=np.float32)
    s = dev.storage_from_host(base)
    for view in (base, base[::-3]):
        layout = _layout(base, view)
        got = s.compare_scalar(CompareOp.GREATER, layout, 0.5, False).to_host(Layout.contiguous(view.shape))
        np.testing.assert_array_equal(got, view > np.float32(0.5))
        got = s.compare_scalar(CompareOp.GREATER, layout, 0.5, True).to_host(Layout.contiguous(view.shape))
        np.testing.assert_array_equal(got, np.float32(0.5) > view)
    ints = np.arange(-40, 40, dtype=np.int32)
    got = dev.storage_from_host(ints).compare_scalar(CompareOp.LESS_EQUAL, Layout.contiguous((80,)), 7, False)
    np.testing.assert_array_equal(got.to_host(Layout.contiguous((80,))), ints <= 7)


def test_concat_of_contiguous_strided_and_empty_operands(dev):
    a = np.arange(60, dtype=np.float32).reshape(6, 10)
    b = np.arange(100, 142, dtype=np.float32).reshape(6, 7)
    sa, sb = dev.storage_from_host(a), dev.storage_from_host(b)
    empty = dev.storage_from_host(np.zeros((6, 0), np.float32))
    view = b[:, ::-2]
    out = sa.concat(_layout(a, a), [(empty, Layout.contiguous((6, 0))), (sb, _layout(b, view))], 1)
    want = np.concatenate([a, view], axis=1)
    np.testing.assert_array_equal(out.to_host(Layout.contiguous(want.shape)), want)


@pytest.mark.parametrize("keep", ["some", "none", "all"])
@pytest.mark.parametrize("rows", ["rows of 3", "elements", "strided rows"])
def test_compress_rows_under_a_mask(dev, keep, rows):
    """Elements go through the scatter of their ranks, rows of several elements through
    the kept rows' numbers and a gather: both give NumPy's x[mask]."""
    rng = np.random.default_rng(5)
    base = rng.standard_normal((700, 6)).astype(np.float32)
    view = {"rows of 3": base[:, :3], "elements": base[:, 2], "strided rows": base[::-1, ::2]}[rows]
    mask = {"some": rng.random(700) < 0.4, "none": np.zeros(700, bool), "all": np.ones(700, bool)}[keep]
    out, count = dev.storage_from_host(base).compress(_layout(base, view), dev.storage_from_host(mask),
                                                      Layout.contiguous((700,)))
    assert count == mask.sum()
    want = view[mask]
    np.testing.assert_array_equal(out.to_host(Layout.contiguous(want.shape)), want)


@pytest.mark.parametrize("descending", [False, True])
def test_sort_values_and_argsort(dev, descending):
    rng = np.random.default_rng(6)
    x = rng.integers(-50, 50, (3, 100)).astype(np.float32)
    x[0, :4] = np.nan
    s, layout = dev.storage_from_host(x), Layout.contiguous(x.shape)
    want = np.flip(np.sort(np.flip(x, 1), axis=1, kind="stable"), 1) if descending else np.sort(x, axis=1)
    values = s.sort_values(layout, 1, descending, False).to_host(layout)
    np.testing.assert_array_equal(values, want)
    order = s.argsort(layout, 1, descending, True).to_host(layout)
    np.testing.assert_array_equal(np.take_along_axis(x, order, axis=1), want)


# (source, view, axis, indices, the row_copy unit in bytes or None for the general take)
ROW_CASES = {
    "float32 rows of 6 (8-byte units)": (np.arange(240, dtype=np.float32).reshape(40, 6), None, 0, [3, -1, 0, 3], 8),
    "float32 rows of 8, 16-byte units": (np.arange(320, dtype=np.float32).reshape(40, 8), None, 0, [39, 2, 2], 16),
    "float32 rows of 3, offset view": (np.arange(123, dtype=np.float32).reshape(41, 3), np.s_[1:, :], 0, [0, 5], 4),
    "int8 rows of 3 (1-byte units)": (np.arange(60, dtype=np.int8).reshape(20, 3), None, 0, [7, 19, -20], 1),
    "int16 rows, reversed": (np.arange(80, dtype=np.int16).reshape(20, 4), np.s_[::-1], 0, [0, 1, 19], 8),
    "complex128 rows": ((np.arange(30) + 1j).reshape(10, 3), None, 0, [9, 0], 16),
    "axis 1 after a length-1 axis": (np.arange(60, dtype=np.float32).reshape(1, 12, 5), None, 1, [11, 4], 4),
    "a 1-D gather": (np.arange(50, dtype=np.float64), None, 0, [49, 0, -3], 8),
    "strided rows take the general kernel": (np.arange(120, dtype=np.float32).reshape(20, 6), np.s_[:, ::2], 0,
                                              [1, 2], None),
    "axis 1 of several rows takes the general kernel": (np.arange(60, dtype=np.float32).reshape(3, 4, 5), None, 1,
                                                         [3, 0], None),
}


@pytest.fixture
def exec_device(lib, monkeypatch, tmp_path):
    from rocm_backend.families import scans

    monkeypatch.setattr(scans, "SCAN_ITEMS", 1)
    return device_factory(lib, monkeypatch, tmp_path)(warp=64)


@pytest.mark.parametrize("case", ROW_CASES)
def test_index_select_of_contiguous_rows_moves_whole_units(exec_device, case):
    """index_select over rows that are one contiguous run (x[idx], x[mask]'s gather) runs
    row_copy, one launch, in the widest unit that divides the row, the axis stride and the
    addresses; other layouts keep the general take. NumPy's np.take is the reference."""
    rt, dev = exec_device
    base, key, axis, idx, unit = ROW_CASES[case]
    view = base if key is None else base[key]
    indices = np.array(idx, np.int64)
    s = dev.storage_from_host(base)
    del rt.launches[:]
    out = s.index_select(_layout(base, view), dev.storage_from_host(indices), Layout.contiguous(indices.shape), axis)
    want = np.take(view, indices, axis=axis)
    np.testing.assert_array_equal(out.to_host(Layout.contiguous(want.shape)), want)
    names = [name.decode() if isinstance(name, bytes) else name for name, _, _ in rt.launches]
    assert names == ([f"row_copy_b{unit}"] if unit else [f"take_b{base.dtype.itemsize}"])


def test_row_copy_with_strided_indices_and_an_index_out_of_range(exec_device):
    """Indices read with their stride; an index outside the axis writes zeros in its row
    and raises IndexOutOfBoundsError at the next synchronization, as the general take does."""
    rt, dev = exec_device
    base = np.arange(80, dtype=np.float32).reshape(20, 4)
    idx = np.array([5, 0, -1, 0, 2, 0], np.int64)
    s, si = dev.storage_from_host(base), dev.storage_from_host(idx)
    out = s.index_select(Layout.contiguous(base.shape), si, Layout((3,), (2,), 0), 0)
    np.testing.assert_array_equal(out.to_host(Layout.contiguous((3, 4))), base[[5, -1, 2]])
    bad = dev.storage_from_host(np.array([1, 20], np.int64))
    out = s.index_select(Layout.contiguous(base.shape), bad, Layout.contiguous((2,)), 0)
    with pytest.raises(IndexOutOfBoundsError):
        dev.synchronize()
    got = out.to_host(Layout.contiguous((2, 4)))
    np.testing.assert_array_equal(got, np.stack([base[1], np.zeros(4, np.float32)]))


# (destination shape, its view, source, its view, the row_copy unit in bytes or None: copy_b4)
COPY_CASES = {
    "into zero padding (fft's resize)": ((5, 12), np.s_[:, :8], np.arange(40, dtype=np.float32).reshape(5, 8), None,
                                         16),
    "a crop (fftconvolve's 'same')": ((5, 6), None, np.arange(60, dtype=np.float32).reshape(5, 12), np.s_[:, 3:9],
                                      4),
    "rows of 6 float32 from reversed rows": ((4, 6), None, np.arange(48, dtype=np.float32).reshape(8, 6),
                                             np.s_[::-2], 8),
    "rows strided in both": ((6, 10), np.s_[::2, 2:], np.arange(90, dtype=np.float32).reshape(9, 10), np.s_[::3, 1:9],
                             4),
    "columns take the element copy": ((5, 4), np.s_[:, ::2], np.arange(20, dtype=np.float32).reshape(5, 4),
                                      np.s_[:, ::2], None),
}


@pytest.mark.parametrize("case", COPY_CASES)
def test_strided_copies_of_contiguous_rows_move_whole_units(exec_device, case):
    """assign between layouts whose rows are each one contiguous run runs row_copy, one
    launch in the widest unit dividing the rows, strides and addresses; the rest keeps the
    element copy. Checked against NumPy's assignment, the elements around untouched."""
    rt, dev = exec_device
    dst_shape, dst_key, src, src_key, unit = COPY_CASES[case]
    dst = np.full(dst_shape, -1, np.float32)
    dst_view = dst if dst_key is None else dst[dst_key]
    src_view = src if src_key is None else src[src_key]
    d, s = dev.storage_from_host(dst), dev.storage_from_host(src)
    del rt.launches[:]
    d.assign(_layout(dst, dst_view), s, _layout(src, src_view))
    dst_view[...] = src_view
    np.testing.assert_array_equal(d.to_host(Layout.contiguous(dst_shape)), dst)
    names = [name.decode() if isinstance(name, bytes) else name for name, _, _ in rt.launches]
    assert names == [f"row_copy_b{unit}" if unit else "copy_b4"]


# (source, its view, the padded shape, the launches: one zero-padding row copy in that unit,
# or the fill and copy where more than the last axis grows or the rows are not runs)
PAD_CASES = {
    "rows padded (fft_pad's rfft)": (np.arange(40, dtype=np.float32).reshape(5, 8), None, (5, 12), ["row_copy_b16"]),
    "odd rows padded": (np.arange(35, dtype=np.float32).reshape(5, 7), None, (5, 9), ["row_copy_b4"]),
    "a strided crop padded (irfft's input)": (np.arange(60, dtype=np.float32).reshape(6, 10), np.s_[::2, 1:6], (3, 8),
                                              ["row_copy_b4"]),
    "complex64 rows padded": ((np.arange(12) + 1j).astype(np.complex64).reshape(3, 4), None, (3, 6), ["row_copy_b16"]),
    "a leading axis padded": (np.arange(12, dtype=np.float32).reshape(3, 4), None, (5, 4), ["memset", "copy_b4"]),
    # one row (scipy.signal.fftconvolve's kernel of shape (1, k)): coalesced to one run, still one row copy
    "one row padded": (np.arange(65, dtype=np.float32).reshape(1, 65), None, (1, 4200), ["row_copy_b4"]),
    "one row of a 1-d signal padded": (np.arange(12, dtype=np.float32), None, (20,), ["row_copy_b16"]),
    "one strided row padded (a fill and the copy)": (np.arange(20, dtype=np.float32).reshape(1, 20), np.s_[:, ::2],
                                                     (1, 16), ["memset", "copy_b4"]),
}


@pytest.mark.parametrize("case", PAD_CASES)
def test_padded_copy_writes_rows_and_zeros_in_one_launch(exec_device, case):
    """copies.padded_copy (fft_pad's padded input): the view in the leading corner of a new
    C-contiguous storage, zeros elsewhere; where only the last axis grows, one row copy
    that writes the zeros too (no fill of the buffer first). Against NumPy."""
    rt, dev = exec_device
    src, key, shape, launches = PAD_CASES[case]
    view = src if key is None else src[key]
    s = dev.storage_from_host(src)
    del rt.launches[:]
    out = padded_copy(s, _layout(src, view), shape)
    want = np.zeros(shape, src.dtype)
    want[tuple(slice(0, m) for m in view.shape)] = view
    np.testing.assert_array_equal(out.to_host(Layout.contiguous(shape)), want)
    names = [name.decode() if isinstance(name, bytes) else name for name, _, _ in rt.launches]
    assert names == [n for n in launches if n != "memset"], names
