"""Arrays past 2^31 elements on a rocm device: every primitive family with element
indices and offsets that do not fit an int32.

N = 1024 * 2_098_179 = 2^31 + 1_051_648 elements. A kernel that indexed with 32 bits
would wrap at 2^31 (fault, or read and write the wrong elements), so the values are
checked at the indices around 2^31 and at the end, and, where a closed form exists,
over every element (a sum). The base pattern x[i] = i % 251 has a period that does not
divide 2^31, so an element read from i - 2^31 differs from the right one.

Each test frees what it allocated and the caching allocator's blocks (they are large
and of many sizes); the module needs about 60 GB of free device memory and skips
with the amount when there is less.
"""

import numpy as np
import pytest

import candlewick as cw
from candlewick.layout import Layout

PAST = 2**31  # the first element index an int32 cannot hold
ROWS, COLS = 2_098_179, 1024
N = ROWS * COLS
MID_ROW = PAST // COLS  # the row whose first element is element 2^31
PERIOD = 251
POINTS = [0, 1, PAST - 2, PAST - 1, PAST, PAST + 1, PAST + 777, N - 2, N - 1]
NEEDED = 60 << 30

assert N > PAST


@pytest.fixture
def dev(rocm):
    free = rocm.memory_info()[0]  # the allocator's cache counted in
    if free < NEEDED:
        pytest.skip(f"needs {NEEDED >> 30} GiB of free device memory, {free >> 30} GiB free")
    yield rocm
    rocm.synchronize()
    rocm.allocator.release_cache()


def pattern(i):
    return np.asarray(i, np.int64) % PERIOD


def pattern_sum(n):
    full, rest = divmod(n, PERIOD)
    return full * (PERIOD * (PERIOD - 1) // 2) + rest * (rest - 1) // 2


def at(x, index):
    """Elements of a 1-D array at ``index`` (a host read of a one-element view each:
    a copy at a byte offset, no kernel)."""
    return np.array([cw.to_numpy(x[int(i)]) for i in index])


def base(dev):
    """x[i] = i % 251 as uint8, through arange (int64), remainder by a scalar and astype."""
    i = cw.arange(N, dtype=cw.int64, device=dev)
    x = (i % PERIOD).astype(cw.uint8)
    del i
    return x


def test_creation_elementwise_and_whole_array_values(dev):
    x = base(dev)
    host = cw.to_numpy(x)
    expected = np.tile(np.arange(PERIOD, dtype=np.uint8), N // PERIOD + 1)[:N]
    np.testing.assert_array_equal(host, expected)  # every element, on the host
    p = pattern(POINTS)
    y = x + x
    np.testing.assert_array_equal(at(y, POINTS), (2 * p) % 256)
    np.testing.assert_array_equal(at(cw.bitwise_invert(x), POINTS), 255 - p)
    np.testing.assert_array_equal(at(x * 3, POINTS), (3 * p) % 256)
    c = x > 125
    np.testing.assert_array_equal(at(c, POINTS), p > 125)
    w = cw.where(c, x, y)
    np.testing.assert_array_equal(at(w, POINTS), np.where(p > 125, p, (2 * p) % 256))
    np.testing.assert_array_equal(at(cw.clip(x, 10, 200), POINTS), np.clip(p, 10, 200))
    np.testing.assert_array_equal(at(x.astype(cw.int16), POINTS), p)
    assert int(cw.to_numpy(cw.sum(x))) == pattern_sum(N)
    assert int(cw.to_numpy(cw.sum(w == cw.where(x > 125, x, x + x)))) == N
    assert int(cw.to_numpy(cw.sum(x.astype(cw.int16)))) == pattern_sum(N)
    ones = cw.ones(N, dtype=cw.uint8, device=dev)
    full = cw.full(N, 7, dtype=cw.uint8, device=dev)
    np.testing.assert_array_equal(at(ones, POINTS), 1)
    np.testing.assert_array_equal(at(full, POINTS), 7)
    assert int(cw.to_numpy(cw.sum(full))) == 7 * N


def test_strided_broadcast_and_transposed_layouts(dev):
    x = base(dev)
    r = cw.bitwise_invert(x[::-1])  # negative stride, offset N - 1
    np.testing.assert_array_equal(at(r, POINTS), 255 - pattern(N - 1 - np.array(POINTS)))
    m = cw.reshape(x, (ROWS, COLS))
    col = (cw.arange(ROWS, dtype=cw.int64, device=dev) % 5).astype(cw.uint8)
    b = m + col[:, None]  # broadcast along the rows; at most 250 + 4, no wrap
    for i, j in ((0, 0), (ROWS - 1, COLS - 1), (MID_ROW, 5), (MID_ROW + 3, 1000)):
        assert int(cw.to_numpy(b[i, j])) == pattern(i * COLS + j) + i % 5
    col_total = 10 * (ROWS // 5) + sum(range(ROWS % 5))
    assert int(cw.to_numpy(cw.sum(b))) == pattern_sum(N) + COLS * col_total
    t = cw.reshape(cw.permute_dims(m, (1, 0)), (-1,))  # a tiled transposed copy
    for j, i in ((0, 0), (COLS - 1, ROWS - 1), (1023, MID_ROW), (512, ROWS - 5)):
        assert int(cw.to_numpy(t[j * ROWS + i])) == pattern(i * COLS + j)
    s = m[:, 1::2] * 2  # a strided view
    for i, j in ((ROWS - 1, 511), (MID_ROW, 7)):
        assert int(cw.to_numpy(s[i, j])) == (2 * pattern(i * COLS + 2 * j + 1)) % 256


def test_reductions_over_all_and_each_axis(dev):
    m = cw.reshape(base(dev), (ROWS, COLS))
    rows = cw.sum(m, axis=1)
    for i in (0, ROWS - 1, MID_ROW + 1):
        assert int(cw.to_numpy(rows[i])) == int(pattern(i * COLS + np.arange(COLS)).sum())
    cols = cw.to_numpy(cw.sum(m, axis=0))
    # 1024 is invertible mod 251, so each full period of rows covers every residue once
    periods, rest = divmod(ROWS, PERIOD)
    tail = pattern((periods * PERIOD + np.arange(rest))[:, None] * COLS + np.arange(COLS)).sum(axis=0)
    np.testing.assert_array_equal(cols, periods * (PERIOD * (PERIOD - 1) // 2) + tail)
    half = m.astype(cw.float16)
    mean = float(cw.to_numpy(cw.mean(half)))
    assert mean == pytest.approx(pattern_sum(N) / N, rel=1e-3)
    del m, rows, half
    z = cw.zeros(N, dtype=cw.uint8, device=dev)
    k = PAST + (N - PAST) // 2
    z[k] = 9  # a fill through a view at an offset past 2^31
    assert int(cw.to_numpy(cw.argmax(z))) == k
    assert int(cw.to_numpy(cw.max(z))) == 9
    assert int(cw.to_numpy(cw.count_nonzero(z))) == 1
    assert bool(cw.to_numpy(cw.any(z))) and not bool(cw.to_numpy(cw.all(z)))
    o = cw.ones(N, dtype=cw.uint8, device=dev)
    o[N - 1] = 0
    assert int(cw.to_numpy(cw.argmin(o))) == N - 1


def test_scans_along_each_axis(dev):
    m = cw.reshape(base(dev), (ROWS, COLS))
    along_rows = cw.cumulative_sum(m, axis=1, dtype=cw.uint8)
    for i in (0, MID_ROW, ROWS - 1):
        expected = np.cumsum(pattern(i * COLS + np.arange(COLS)), dtype=np.uint64) % 256
        np.testing.assert_array_equal(cw.to_numpy(along_rows[i]), expected)
    del along_rows
    along_cols = cw.cumulative_sum(m, axis=0, dtype=cw.uint8)
    column_sums = cw.to_numpy(cw.sum(m, axis=0))
    np.testing.assert_array_equal(cw.to_numpy(along_cols[ROWS - 1]), column_sums % 256)
    del along_cols
    flat = cw.cumulative_sum(cw.reshape(m, (-1,)), dtype=cw.uint8)  # one row: tiles of tiles
    for i in POINTS:
        assert int(cw.to_numpy(flat[i])) == pattern_sum(i + 1) % 256, i


def test_take_gather_and_scatters_past_int32(dev):
    x = base(dev)
    far = np.array([PAST + 3, 0, N - 1, PAST - 1, PAST], np.int64)
    idx = cw.asarray(far, device=dev)
    np.testing.assert_array_equal(cw.to_numpy(cw.take(x, idx)), pattern(far))
    np.testing.assert_array_equal(cw.to_numpy(x[idx]), pattern(far))
    m = cw.reshape(x, (ROWS, COLS))
    rows = np.array([ROWS - 1, MID_ROW + 9], np.int64)
    picked = cw.to_numpy(cw.take(m, cw.asarray(rows, device=dev), axis=0))
    np.testing.assert_array_equal(picked, pattern(rows[:, None] * COLS + np.arange(COLS)))
    cols = np.array([[1023, 0], [5, 6], [511, 512]], np.int64)
    tail = m[ROWS - 3:]  # offset past 2^31
    got = cw.to_numpy(cw.take_along_axis(tail, cw.asarray(cols, device=dev), axis=1))
    np.testing.assert_array_equal(got, pattern((ROWS - 3 + np.arange(3))[:, None] * COLS + cols))
    x[idx] = cw.asarray(np.array([200, 201, 202, 203, 204], np.uint8), device=dev)
    np.testing.assert_array_equal(at(x, far), [200, 201, 202, 203, 204])
    bad = cw.asarray(np.array([PAST + 1, N], np.int64), device=dev)
    with pytest.raises(IndexError, match="scatter"):
        x[bad] = cw.asarray(np.array([9, 9], np.uint8), device=dev)
        dev.synchronize()  # rocm raises here, at the next synchronization
    assert int(cw.to_numpy(x[PAST + 1])) == pattern(PAST + 1)  # the check pass wrote nothing


def test_accumulating_scatters_past_int32(dev):
    dst = cw.zeros((ROWS, COLS), dtype=cw.uint8, device=dev)
    store, dl = dst._storage, dst._layout
    idx = np.array([[ROWS - 1] * COLS, [MID_ROW + 1] * COLS], np.int64)
    src = np.ones((2, COLS), np.uint8)
    store.scatter_add(dl, dev.storage_from_host(idx), Layout.contiguous(idx.shape),
                      dev.storage_from_host(src), Layout.contiguous(src.shape), 0)
    row_idx = np.array([ROWS - 1, ROWS - 1], np.int64)
    store.index_add(dl, dev.storage_from_host(row_idx), Layout.contiguous((2,)),
                    dev.storage_from_host(src), Layout.contiguous(src.shape), 0)
    np.testing.assert_array_equal(cw.to_numpy(dst[ROWS - 1]), np.full(COLS, 3, np.uint8))
    np.testing.assert_array_equal(cw.to_numpy(dst[MID_ROW + 1]), np.ones(COLS, np.uint8))
    assert int(cw.to_numpy(cw.sum(dst))) == 4 * COLS


def test_sort_and_argsort_rows_of_a_large_array(dev):
    m = cw.reshape(base(dev), (ROWS, COLS))
    values = cw.sort(m, axis=1)
    for i in (0, MID_ROW + 2, ROWS - 1):
        np.testing.assert_array_equal(cw.to_numpy(values[i]), np.sort(pattern(i * COLS + np.arange(COLS))))
    del values
    order = cw.argsort(m, axis=1, descending=True)
    for i in (MID_ROW + 2, ROWS - 1):
        row = pattern(i * COLS + np.arange(COLS))
        np.testing.assert_array_equal(cw.to_numpy(order[i]), np.argsort(-row, kind="stable"))


def test_searchsorted_in_a_sorted_array_past_int32(dev):
    i = cw.arange(N, dtype=cw.int64, device=dev)
    step = PAST >> 11
    steps = (i // step).astype(cw.uint16)  # non-decreasing: value v first at v * step, up to 2049
    del i
    mid = PAST // step
    v = np.array([0, 1, 1000, mid - 1, mid, mid + 1, mid + 2], np.uint16)
    first = np.minimum(v.astype(np.int64) * step, N)
    after = np.minimum((v.astype(np.int64) + 1) * step, N)
    values = cw.asarray(v, device=dev)
    np.testing.assert_array_equal(cw.to_numpy(cw.searchsorted(steps, values)), first)
    np.testing.assert_array_equal(cw.to_numpy(cw.searchsorted(steps, values, side="right")), after)
    assert first[5] > PAST and after[4] > PAST  # the answers themselves need 64 bits


@pytest.mark.parametrize("dtype", ["int8", "float16"])
def test_batched_matmul_past_int32(dev, dtype):
    k = 64
    batch = PAST // (k * k) + 1  # batch * k * k = 2^31 + 4096 elements per operand
    flat = (cw.arange(batch * k * k, dtype=cw.int64, device=dev) % 3).astype(getattr(cw, dtype))
    a = cw.reshape(flat, (batch, k, k))
    del flat
    b = cw.flip(a, axis=0)
    c = cw.matmul(a, b)
    ct = cw.matmul(a, cw.matrix_transpose(b))  # a transposed operand
    ah = cw.to_numpy(a[-2:]).astype(np.int64)
    bh = cw.to_numpy(b[-2:]).astype(np.int64)
    for got, want in ((c, ah @ bh), (ct, ah @ np.swapaxes(bh, 1, 2))):
        want = want.astype(np.int8) if dtype == "int8" else want  # int8 wraps; the f16 sums are exact
        np.testing.assert_array_equal(cw.to_numpy(got[-2:]).astype(want.dtype), want)


@pytest.mark.parametrize("kind", ["uniform", "normal"])
def test_random_stream_past_int32(dev, kind):
    """Element e of a draw is Philox block e // 4 of the stream (float32): the same
    numbers come from a small draw whose counter starts at that block."""
    big_gen, small_gen = cw.random.Generator(1234), cw.random.Generator(1234)
    big = getattr(big_gen, kind)(size=(N,), dtype=cw.float32, device=dev)
    for start in (PAST, N - 8):
        small_gen.counter = start // 4
        small = getattr(small_gen, kind)(size=(8,), dtype=cw.float32, device=dev)
        np.testing.assert_array_equal(cw.to_numpy(big[start:start + 8]), cw.to_numpy(small))
    head = cw.to_numpy(big[:8])
    assert not np.array_equal(head, cw.to_numpy(big[PAST:PAST + 8]))  # no wrap to the start


def test_host_writes_and_device_copies_at_far_offsets(dev):
    x = base(dev)
    x[PAST - 4:PAST + 4] = cw.asarray(np.arange(100, 108, dtype=np.uint8), device=dev)
    np.testing.assert_array_equal(cw.to_numpy(x[PAST - 4:PAST + 4]), np.arange(100, 108))
    y = cw.asarray(x[PAST - 4:], copy=True)  # a contiguous device copy from a far offset
    np.testing.assert_array_equal(cw.to_numpy(y[:8]), np.arange(100, 108))
    assert y.shape == (N - PAST + 4,)
    assert int(cw.to_numpy(y[-1])) == pattern(N - 1)
