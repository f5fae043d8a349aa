"""candlewick._native.copy_crossed, the cpu backend's tiled 2-D copy between a side contiguous
along rows and one contiguous along columns (cpu_backend/copies.py's assign and copy of a
transposed view): NumPy's copy bit for bit for 4- and 8-byte items, around the 8 x 8 / 4 x 4
register blocks and the 128-item tiles, either orientation, flipped and offset views;
declined (nothing written) for every pair it does not take (1-, 2- and 16-byte items, fewer
than 8 items a side, a broadcast side included); and through the front end,
``x[a, b] = y.T``, the store of a transposed view of the same array, and a copy of ``x.T``."""

import numpy as np
import pytest

import candlewick as cw
from cpu_backend import copies

native = pytest.mark.skipif(copies._copy_crossed is None, reason="candlewick._native not built")
DTYPES = (np.int32, np.float32, np.float64, np.complex64)
SHAPES = ((8, 8), (8, 9), (9, 8), (13, 17), (127, 129), (128, 128), (300, 257))


def values(shape, dtype, rng):
    """Random bit patterns (NaN payloads included), compared as bits."""
    n = int(np.prod(shape)) * np.dtype(dtype).itemsize
    return rng.integers(0, 256, n, dtype=np.uint8).view(dtype).reshape(shape)


def bits(a):
    return np.ascontiguousarray(a).view(np.uint8)


def padded(rows, cols, dtype, rng):
    """A rows x cols view of random values whose rows lie a multiple of 4 KiB apart."""
    step = 4096 // np.dtype(dtype).itemsize
    return values((rows, -(-cols // step) * step), dtype, rng)[:, :cols]


@native
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_crossed_copy_is_numpys(dtype, shape):
    rng = np.random.default_rng(sum(shape))
    n0, n1 = shape
    big = values((n0 + 5, n1 + 7), dtype, rng)
    src = padded(n1 + 3, n0 + 4, dtype, rng)  # (NumPy's slow case: the source's rows 4 KiB apart)
    pairs = [
        (big[2:2 + n0, 3:3 + n1], src[1:1 + n1, 2:2 + n0].T),  # a block of rows from a transposed block
        (big[2:2 + n0, 3:3 + n1][::-1], src[1:1 + n1, 2:2 + n0].T),  # the target's rows flipped
        (big[2:2 + n0, 3:3 + n1], src[1:1 + n1, 2:2 + n0][::-1].T),  # the source's columns flipped
    ]
    for target, source in pairs:
        expected = big.copy()
        view = expected[2:2 + n0, 3:3 + n1]
        np.copyto(view[::-1] if target.strides[0] < 0 else view, source)
        assert copies._copy_crossed(target, source) is True
        np.testing.assert_array_equal(bits(big), bits(expected))
    # the other orientation: a column-major target from a row-major source
    target = np.zeros((n1, n0), dtype).T
    source = padded(n0, n1, dtype, rng)
    assert copies._copy_crossed(target, source) is True
    np.testing.assert_array_equal(bits(target), bits(source))


@native
@pytest.mark.parametrize("dtype", DTYPES)
def test_wide_rows_are_taken_anywhere(dtype):
    """A target whose rows are 4x its columns or longer, whatever the source's step."""
    rng = np.random.default_rng(3)
    for n0, n1 in ((8, 32), (9, 200), (13, 1000)):
        target = np.zeros((n0, n1), dtype)
        source = values((n1, n0), dtype, rng).T
        assert copies._copy_crossed(target, source) is True
        np.testing.assert_array_equal(bits(target), bits(source))


@native
def test_pairs_it_does_not_take_are_left_alone():
    rng = np.random.default_rng(1)
    a = values((16, 16), np.float32, rng)
    untouched = a.copy()
    declined = [
        values((16, 16), np.float32, rng),  # both row-major
        values((16, 32), np.float32, rng)[:, ::2].T,  # a column step of two items
        values((16, 16), np.float64, rng).T,  # another item size
        values((16, 8), np.float32, rng).T[:, :8],  # another shape
        values((16,), np.float32, rng),  # another ndim
        np.broadcast_to(values((16, 1), np.float32, rng), (16, 16)),  # a column broadcast (stride 0)
    ]
    for source in declined:
        assert copies._copy_crossed(a, source) is False
        np.testing.assert_array_equal(bits(a), bits(untouched))
    for dtype in (np.int8, np.float16, np.complex128):  # other item sizes: NumPy's copy as fast
        small = values((16, 16), dtype, rng)
        kept = small.copy()
        assert copies._copy_crossed(small, values((16, 16), dtype, rng).T) is False
        np.testing.assert_array_equal(bits(small), bits(kept))
    square = np.zeros((100, 100), np.float32)  # rows not 4 KiB apart, not wide: NumPy's copy as fast
    assert copies._copy_crossed(square, values((100, 100), np.float32, rng).T) is False
    assert not square.any()
    for shape in ((7, 16), (16, 7), (2, 300)):  # under one register block a side
        target = np.zeros(shape, np.float32)
        assert copies._copy_crossed(target, values(shape[::-1], np.float32, rng).T) is False
        assert not target.any()
    read_only = np.zeros((16, 16), np.float32)
    read_only.flags.writeable = False
    assert copies._copy_crossed(read_only, a.T) is False
    assert not read_only.any()


@pytest.mark.parametrize("dtype", ["float32", "float64", "int16", "complex64", "complex128", "bool"])
def test_front_end_transposed_stores_and_copies(dtype, monkeypatch):
    taken = []
    kernel = copies._copy_crossed
    if kernel is not None:  # (counted: the 4- and 8-byte cases below must reach the tiles)
        monkeypatch.setattr(copies, "_copy_crossed", lambda t, s: taken.append(kernel(t, s)) or taken[-1])
    rng = np.random.default_rng(2)
    host = (rng.standard_normal((300, 1024)) * 100).astype(dtype)  # rows a multiple of 4 KiB apart
    other = (rng.standard_normal((200, 1024)) * 100).astype(dtype)
    x, y = cw.asarray(host.copy()), cw.asarray(other)
    expected = host.copy()
    x[10:260, 20:220] = y[:, :250].T  # another array's transposed view
    expected[10:260, 20:220] = other[:, :250].T
    np.testing.assert_array_equal(np.asarray(x), expected)
    x[:120, 150:300] = x[150:300, :120].T  # the same array's, not overlapping (scikit-learn's symmetric fill)
    expected[:120, 150:300] = expected[150:300, :120].T
    np.testing.assert_array_equal(np.asarray(x), expected)
    x[:200, :200] = x[50:250, 60:260].T  # overlapping: read out first
    expected[:200, :200] = expected[50:250, 60:260].T.copy()
    np.testing.assert_array_equal(np.asarray(x), expected)
    flat = cw.reshape(x[:40, 7:290].T, (-1,))  # a copy of a transposed view
    np.testing.assert_array_equal(np.asarray(flat), expected[:40, 7:290].T.reshape(-1))
    if kernel is not None and np.dtype(dtype).itemsize in (4, 8):
        assert taken.count(True) >= 3
