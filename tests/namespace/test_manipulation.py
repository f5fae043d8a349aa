"""repeat, tile, roll (and regression checks of the other manipulation functions) on
every backend."""

import numpy as np
import pytest

import candlewick as cw
from candlewick import _core
from _namespace_helpers import LAYOUTS, assert_same, make

# unstack's rows are made by candlewick._native (C) where it was built, else in Python;
# both run every unstack test (CI requires the C one: CANDLEWICK_REQUIRE_NATIVE)
ROW_MAKERS = ["python"] + (["c"] if _core._native is not None else [])


@pytest.fixture(params=ROW_MAKERS)
def row_maker(request, monkeypatch):
    if request.param == "python":
        monkeypatch.setattr(_core, "_native", None)
    return request.param


# --- repeat ------------------------------------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
def test_repeat_int(device, layout):
    data = np.arange(6, dtype=np.int16).reshape(2, 3)
    x = make(data, device, layout)
    for axis in (None, 0, 1, -1):
        for r in (0, 1, 3):
            assert_same(cw.repeat(x, r, axis=axis), np.repeat(data, r, axis=axis))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_repeat_array(device, layout):
    data = np.array([[1.5, 2.5, 3.5], [4.5, 5.5, 6.5]], np.float32)
    x = make(data, device, layout)
    for axis, reps in ((1, [2, 0, 3]), (0, [0, 4]), (1, [2]), (None, [1, 0, 2, 0, 1, 3]),
                       (0, [0, 0]), (1, np.array(2))):
        for rdtype in (np.int8, np.int64, np.uint32):
            r = np.asarray(reps, dtype=rdtype)
            assert_same(cw.repeat(x, make(r, device), axis=axis), np.repeat(data, r, axis=axis))


def test_repeat_special(device):
    assert_same(cw.repeat(make(np.float64(2.0), device), 3), np.repeat(np.float64(2.0), 3))
    assert_same(cw.repeat(make(np.zeros((0, 2)), device), 2, axis=0), np.zeros((0, 2)))
    assert_same(cw.repeat(make(np.zeros((0, 2)), device), make(np.array([], np.int64), device), axis=0),
                np.zeros((0, 2)))
    b = np.array([True, False])
    assert_same(cw.repeat(make(b, device), make(np.array([1, 2]), device)), np.repeat(b, [1, 2]))


def test_repeat_errors(device):
    x = make(np.arange(3), device)
    with pytest.raises(ValueError):
        cw.repeat(x, -1)
    with pytest.raises(ValueError):
        cw.repeat(x, make(np.array([1, -1, 2]), device))
    with pytest.raises(ValueError):
        cw.repeat(x, make(np.array([1, 2]), device))
    with pytest.raises(ValueError):
        cw.repeat(x, make(np.ones((3, 1), np.int64), device))
    with pytest.raises(TypeError):
        cw.repeat(x, make(np.array([1.0, 1.0, 1.0]), device))
    with pytest.raises(TypeError):
        cw.repeat(x, 1.5)
    with pytest.raises(IndexError):
        cw.repeat(x, 2, axis=1)


# --- tile --------------------------------------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
def test_tile(device, layout):
    data = np.arange(6, dtype=np.complex64).reshape(2, 3)
    x = make(data, device, layout)
    for reps in ((1, 1), (2, 3), (3,), (2, 1, 2), (0, 2), (1, 0), ()):
        assert_same(cw.tile(x, reps), np.tile(data, reps))


def test_tile_special_and_errors(device):
    assert_same(cw.tile(make(np.int8(5), device), (2, 2)), np.tile(np.int8(5), (2, 2)))
    assert_same(cw.tile(make(np.int8(5), device), ()), np.tile(np.int8(5), ()))
    assert_same(cw.tile(make(np.zeros((0, 2)), device), (3, 2)), np.zeros((0, 4)))
    assert_same(cw.tile(make(np.arange(3), device), 2), np.tile(np.arange(3), 2))
    with pytest.raises(ValueError):
        cw.tile(make(np.arange(3), device), (-1,))
    with pytest.raises(TypeError):
        cw.tile(make(np.arange(3), device), (1.5,))
    with pytest.raises(TypeError):
        cw.tile(make(np.arange(3), device), "2")


# --- roll --------------------------------------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
def test_roll(device, layout):
    data = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
    x = make(data, device, layout)
    cases = [
        (1, None), (-5, None), (25, None), (1, 0), (-1, 2), (7, -1), (0, 1),
        ((1, 2), (0, 2)), ((1, -1, 2), (2, 2, 1)), (3, (0, 1, 2)), ((1, 2), 1),
    ]
    for shift, axis in cases:
        assert_same(cw.roll(x, shift, axis=axis), np.roll(data, shift, axis=axis))


def test_roll_special_and_errors(device):
    assert_same(cw.roll(make(np.float32(1.0), device), 3), np.roll(np.float32(1.0), 3))
    assert_same(cw.roll(make(np.zeros((0, 3)), device), 2, axis=0), np.zeros((0, 3)))
    assert_same(cw.roll(make(np.zeros((0, 3)), device), 2), np.zeros((0, 3)))
    assert_same(cw.roll(make(np.arange(5), device), (2,)), np.roll(np.arange(5), 2))
    x = make(np.arange(6).reshape(2, 3), device)
    with pytest.raises(ValueError):
        cw.roll(x, (1, 2, 3), axis=(0, 1))
    with pytest.raises(IndexError):
        cw.roll(x, 1, axis=2)
    with pytest.raises(TypeError):
        cw.roll(x, 1.5, axis=0)
    with pytest.raises(ValueError):
        cw.roll(x, (1, 2))


def test_roll_returns_a_copy(device):
    x = make(np.arange(4), device)
    y = cw.roll(x, 0)
    y[0] = 9
    assert cw.to_numpy(x).tolist() == [0, 1, 2, 3]


# --- the functions manipulation.py already had (regression checks) ----------------------------

def test_existing_manipulation(device):
    data = np.arange(12, dtype=np.int32).reshape(3, 4)
    x = make(data, device, "flipped")
    assert_same(cw.reshape(x, (4, 3)), data.reshape(4, 3))
    assert_same(cw.reshape(x, (np.int64(2), -1)), data.reshape(2, -1))
    assert_same(cw.permute_dims(x, (1, 0)), data.T)
    assert_same(cw.concat([x, x], axis=None), np.concatenate([data, data], axis=None))
    assert_same(cw.stack([x, x], axis=-1), np.stack([data, data], axis=-1))
    assert_same(cw.moveaxis(make(np.zeros((1, 2, 3)), device), 0, -1), np.zeros((2, 3, 1)))
    a, b = cw.broadcast_arrays(x, make(np.arange(4, dtype=np.int32), device))
    assert_same(b, np.broadcast_to(np.arange(4, dtype=np.int32), (3, 4)))
    with pytest.raises(ValueError):
        cw.reshape(x, (5, -1))
    with pytest.raises(ValueError):
        cw.squeeze(x, axis=0)
    with pytest.raises(ValueError):
        cw.permute_dims(x, (0,))
    with pytest.raises(TypeError):
        cw.reshape(x, (2.0, 6))


# --- joining: the one-dtype and leading-axis paths next to the general ones ---------------

@pytest.mark.parametrize("layout", LAYOUTS)
def test_concat_stack_mixed_layouts(device, layout):
    data = np.arange(24, dtype=np.float32).reshape(4, 6)
    x, y = make(data, device, layout), make(data[::-1].copy(), device)
    d2 = data[::-1]
    xs = data
    assert_same(cw.concat([x, y, x[1:3]]), np.concatenate([xs, d2, xs[1:3]]))
    assert_same(cw.concat([y, x], axis=1), np.concatenate([d2, xs], axis=1))
    assert_same(cw.concat([x[0], y[1], x[:, 2]]), np.concatenate([xs[0], d2[1], xs[:, 2]]))
    assert_same(cw.concat([x, y], axis=None), np.concatenate([xs, d2], axis=None))
    for axis in (0, 1, 2, -1):
        assert_same(cw.stack([x, y, x], axis=axis), np.stack([xs, d2, xs], axis=axis))
    assert_same(cw.stack([x[0, 0], y[1, 1]]), np.stack([xs[0, 0], d2[1, 1]]))
    empty = np.zeros((3, 0), np.float32)
    assert_same(cw.concat([make(empty, device), make(empty, device)]), np.concatenate([empty, empty]))
    assert_same(cw.stack([make(empty, device)] * 2), np.stack([empty] * 2))


def test_concat_stack_promote_and_errors(device):
    a = np.arange(6, dtype=np.int16)
    b = np.linspace(0, 1, 6).astype(np.float32)
    x, y = make(a, device), make(b, device)
    assert_same(cw.concat([x, y]), np.concatenate([a, b]))
    assert_same(cw.stack([x, y]), np.stack([a, b]))
    with pytest.raises(cw.errors.ShapeError, match="concat: shapes"):
        cw.concat([x, make(np.zeros((1, 6), np.int16), device)])
    with pytest.raises(cw.errors.ShapeError, match="stack: arrays must share one shape"):
        cw.stack([x, x[1:]])
    with pytest.raises(TypeError, match="concat: arrays must be a candlewick array"):
        cw.concat([x, a])
    with pytest.raises(TypeError, match="axis must be an integer"):
        cw.stack([x, x], axis=False)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_unstack_views(device, layout, row_maker):
    data = np.arange(24, dtype=np.float32).reshape(4, 6)
    x = make(data, device, layout)
    for axis in (0, 1, -1):
        pieces = cw.unstack(x, axis=axis)
        assert len(pieces) == data.shape[axis]
        for piece, expected in zip(pieces, np.unstack(data, axis=axis)):
            assert_same(piece, expected)
            assert piece._storage is x._storage  # views, as NumPy's
            # an op reads each row through its own layout (offset, and the dense test only
            # for the row that starts the buffer)
            assert_same(piece * 2, expected * 2)
    row = np.arange(3, dtype=np.float32)
    for piece in cw.unstack(cw.broadcast_to(make(row, device), (4, 3))):  # rows of stride 0
        assert_same(piece + 1, row + 1)
    for shape in ((3, 0), (0, 2), (1, 5)):
        empty = np.zeros(shape, np.float32)
        pieces = cw.unstack(make(empty, device))
        assert len(pieces) == shape[0]
        for piece, expected in zip(pieces, np.unstack(empty)):
            assert_same(piece, expected)


def test_repeat_tile_edge_counts(device):
    data = np.arange(5, dtype=np.float32)
    x = make(data, device)
    for r in (0, 1, 2):
        assert_same(cw.repeat(x[::-2], r), np.repeat(data[::-2], r))
        assert_same(cw.tile(x[::-2], (r,)), np.tile(data[::-2], (r,)))
    assert_same(cw.tile(x[0], ()), np.tile(data[0], ()))
    assert_same(cw.tile(make(np.zeros((0, 2), np.float32), device), (2, 3)), np.zeros((0, 6), np.float32))
    with pytest.raises(ValueError, match="repeat: repeats must be non-negative"):
        cw.repeat(x, -1)
    with pytest.raises(TypeError, match="tile: repetitions must be an int"):
        cw.tile(x, (True,))
