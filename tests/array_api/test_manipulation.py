"""Manipulation functions, both oracles: against array-api-strict on drawn arrays, then
repeat, tile, roll, unstack (both row makers) and regression checks of the others on
fixed cases and layouts against NumPy."""

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import array_api_strict as xs
import candlewick as cw
from _namespace_helpers import LAYOUTS, assert_same, make
from array_api_support import (
    ALL, any_arrays, arrays, assert_matches_strict, shapes, to_np, to_strict, xps,
)
from candlewick import _core


# === array-api-strict: drawn arrays =======================================================

def _dtype_and_array(data, **shape_kwargs):
    name = data.draw(st.sampled_from(ALL), label="dtype")
    return name, data.draw(arrays(name, shapes(**shape_kwargs)), label="x")


@given(data=st.data())
def test_broadcast_arrays_and_broadcast_to(data):
    input_shapes, result = data.draw(xps.mutually_broadcastable_shapes(3, max_dims=3, max_side=3),
                                     label="shapes")
    xs_ = [data.draw(any_arrays(s), label=f"x{i}") for i, s in enumerate(input_shapes)]
    out = cw.broadcast_arrays(*xs_)
    ref = xs.broadcast_arrays(*(to_strict(x) for x in xs_))
    assert len(out) == 3
    for got, exp in zip(out, ref):
        assert_matches_strict(got, exp, what="broadcast_arrays: ")
    target = data.draw(xps.broadcastable_shapes(input_shapes[0], max_dims=4), label="target")
    target = tuple(np.broadcast_shapes(input_shapes[0], target))
    assert_matches_strict(cw.broadcast_to(xs_[0], target), xs.broadcast_to(to_strict(xs_[0]), target))


def test_broadcast_to_rejects_incompatible_shapes():
    with pytest.raises(ValueError):
        cw.broadcast_to(cw.ones((2, 3)), (3, 3))
    with pytest.raises(ValueError):
        cw.broadcast_to(cw.ones((2, 3)), (3,))


@given(data=st.data())
def test_concat(data):
    base = data.draw(shapes(min_dims=1, max_dims=3), label="base")
    axis = data.draw(st.none() | st.integers(-len(base), len(base) - 1), label="axis")
    count = data.draw(st.integers(1, 3), label="count")
    names = data.draw(st.lists(st.sampled_from(["int8", "int16", "int32"]) | st.just("float32"),
                               min_size=count, max_size=count), label="dtypes")
    assume(len({n[0] for n in names}) == 1)  # same kind: promotion is defined
    parts = []
    for i, name in enumerate(names):
        shape = list(base)
        if axis is not None:
            shape[axis] = data.draw(st.integers(0, 3), label=f"len{i}")
        parts.append(data.draw(arrays(name, tuple(shape)), label=f"x{i}"))
    out = cw.concat(parts, axis=axis)
    ref = xs.concat([to_strict(p) for p in parts], axis=axis)
    assert_matches_strict(out, ref, what=f"concat(axis={axis}): ")
    assert_matches_strict(cw.concat(tuple(parts), axis=axis), ref)


def test_concat_rejects_mismatched_shapes():
    with pytest.raises(ValueError):
        cw.concat([cw.ones((2, 3)), cw.ones((2, 4))], axis=0)


@given(data=st.data())
def test_stack_and_unstack(data):
    name, x = _dtype_and_array(data, max_dims=3)
    count = data.draw(st.integers(1, 3), label="count")
    parts = [x] + [data.draw(arrays(name, x.shape), label=f"x{i}") for i in range(1, count)]
    axis = data.draw(st.integers(-x.ndim - 1, x.ndim), label="axis")
    out = cw.stack(parts, axis=axis)
    assert_matches_strict(out, xs.stack([to_strict(p) for p in parts], axis=axis))
    if out.ndim:
        unstack_axis = data.draw(st.integers(-out.ndim, out.ndim - 1), label="unstack_axis")
        got = cw.unstack(out, axis=unstack_axis)
        exp = xs.unstack(to_strict(out), axis=unstack_axis)
        assert isinstance(got, tuple) and len(got) == len(exp)
        for g, e in zip(got, exp):
            assert_matches_strict(g, e)


@given(data=st.data())
def test_expand_dims_squeeze_flip(data):
    name, x = _dtype_and_array(data, max_dims=3)
    axis = data.draw(st.integers(-x.ndim - 1, x.ndim), label="expand_axis")
    expanded = cw.expand_dims(x, axis=axis)
    assert_matches_strict(expanded, xs.expand_dims(to_strict(x), axis=axis))
    squeezed = cw.squeeze(expanded, axis=axis)
    assert_matches_strict(squeezed, to_strict(x))
    flip_axis = data.draw(st.none() | st.integers(-x.ndim, x.ndim - 1) if x.ndim else st.none(),
                          label="flip_axis")
    assert_matches_strict(cw.flip(x, axis=flip_axis), xs.flip(to_strict(x), axis=flip_axis))


def test_squeeze_rejects_axes_that_are_not_1():
    with pytest.raises(ValueError):
        cw.squeeze(cw.ones((2, 1)), axis=0)


@given(data=st.data())
def test_permute_dims_and_moveaxis(data):
    name, x = _dtype_and_array(data, min_dims=1, max_dims=4)
    axes = data.draw(st.permutations(range(x.ndim)), label="axes")
    assert_matches_strict(cw.permute_dims(x, tuple(axes)), xs.permute_dims(to_strict(x), tuple(axes)))
    src = data.draw(st.integers(-x.ndim, x.ndim - 1), label="source")
    dst = data.draw(st.integers(-x.ndim, x.ndim - 1), label="destination")
    assert_matches_strict(cw.moveaxis(x, src, dst), xs.moveaxis(to_strict(x), src, dst))
    if x.ndim >= 2:
        assert_matches_strict(cw.moveaxis(x, (0, 1), (-1, 0)), xs.moveaxis(to_strict(x), (0, 1), (-1, 0)))


@given(data=st.data())
def test_reshape(data):
    name, x = _dtype_and_array(data, max_dims=3)
    size = x.size
    divisors = [d for d in range(1, size + 1) if size % d == 0] or [1]
    first = data.draw(st.sampled_from(divisors), label="first")
    shape = data.draw(st.sampled_from([(size,), (first, size // first), (first, -1), (-1,),
                                       (1, first, size // first)]) if size else st.just((0, 3)),
                      label="shape")
    view_source = data.draw(st.sampled_from(["plain", "transposed", "sliced"]), label="source")
    if view_source == "transposed":
        x = cw.matrix_transpose(x) if x.ndim >= 2 else x
    elif view_source == "sliced" and x.ndim:
        x = x[::-1]
    out = cw.reshape(x, shape)
    assert_matches_strict(out, xs.reshape(to_strict(x), shape), what=f"reshape({shape}): ")


@pytest.mark.parametrize("shape", [(5,), (2, -1, -1), (-2, 3)])
def test_reshape_rejects_impossible_shapes(shape):
    with pytest.raises(ValueError):
        cw.reshape(cw.ones((2, 3)), shape)


@given(data=st.data())
def test_repeat(data):
    name, x = _dtype_and_array(data, max_dims=3)
    axis = data.draw(st.none() | st.integers(-x.ndim, x.ndim - 1) if x.ndim else st.none(), label="axis")
    n = x.size if axis is None else x.shape[axis]
    as_array = data.draw(st.booleans(), label="array_repeats")
    if as_array:
        reps = data.draw(arrays("int64", (n,), min_value=0, max_value=3), label="repeats")
        out = cw.repeat(x, reps, axis=axis)
        ref = xs.repeat(to_strict(x), to_strict(reps), axis=axis)
    else:
        reps = data.draw(st.integers(0, 3), label="repeats")
        out = cw.repeat(x, reps, axis=axis)
        ref = xs.repeat(to_strict(x), reps, axis=axis)
    assert_matches_strict(out, ref, what=f"repeat(axis={axis}): ")


@given(data=st.data())
def test_roll(data):
    name, x = _dtype_and_array(data, max_dims=3)
    if x.ndim and data.draw(st.booleans(), label="with_axes"):
        axes = tuple(data.draw(st.lists(st.integers(-x.ndim, x.ndim - 1), min_size=1, max_size=3), label="axes"))
        shift = tuple(data.draw(st.lists(st.integers(-6, 6), min_size=len(axes), max_size=len(axes)), label="shift"))
        if len(axes) == 1:
            axes, shift = axes[0], shift[0]
    else:
        axes, shift = None, data.draw(st.integers(-6, 6), label="shift")
    assert_matches_strict(cw.roll(x, shift, axis=axes), xs.roll(to_strict(x), shift, axis=axes),
                          what=f"roll({shift}, axis={axes}): ")


@given(data=st.data())
def test_tile(data):
    name, x = _dtype_and_array(data, max_dims=3)
    reps = tuple(data.draw(st.lists(st.integers(0, 3), max_size=4), label="repetitions"))
    assert_matches_strict(cw.tile(x, reps), xs.tile(to_strict(x), reps), what=f"tile({reps}): ")


@given(data=st.data())
def test_manipulation_of_strided_views(data):
    """Views with negative and broadcast strides go through every copy path."""
    name, x = _dtype_and_array(data, min_dims=2, max_dims=2, min_side=1)
    views = {"flip": (x[::-1], lambda h: h[::-1]), "transpose": (x.mT, lambda h: h.T),
             "broadcast": (cw.broadcast_to(x[:1], (2,) + x.shape[1:]), lambda h: np.broadcast_to(h[:1], (2,) + h.shape[1:]))}
    kind = data.draw(st.sampled_from(sorted(views)), label="view")
    v, host_of = views[kind]
    h = np.ascontiguousarray(host_of(to_np(x)))
    assert_matches_strict(cw.concat([v, v], axis=0), xs.concat([xs.asarray(h)] * 2, axis=0))
    assert_matches_strict(cw.reshape(v, (-1,)), xs.reshape(xs.asarray(h), (-1,)))
    assert_matches_strict(cw.roll(v, 1, axis=1), xs.roll(xs.asarray(h), 1, axis=1))
    assert_matches_strict(cw.tile(v, (2, 1)), xs.tile(xs.asarray(h), (2, 1)))
    assert_matches_strict(cw.repeat(v, 2, axis=0), xs.repeat(xs.asarray(h), 2, axis=0))


def test_views_of_empty_arrays_with_an_offset_can_be_read():
    """unstack/select on an empty array gives a size-0 view whose offset lies past the
    (empty) buffer; every backend must still read, compute on and copy it."""
    stacked = cw.stack([cw.zeros((0, 2), dtype=cw.bool)] * 2, axis=-2)
    part = cw.unstack(stacked, axis=-1)[1]
    assert part.shape == (0, 2)
    assert to_np(part).shape == (0, 2)
    assert (part & True).shape == (0, 2)
    assert not bool(cw.any(part))


# === NumPy: fixed cases and layouts =======================================================

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
def test_repeat_int(dev, layout):
    data = np.arange(6, dtype=np.int16).reshape(2, 3)
    x = make(data, dev, layout)
    for axis in (None, 0, 1, -1):
        for r in (0, 1, 3):
            assert_same(cw.repeat(x, r, axis=axis), np.repeat(data, r, axis=axis))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_repeat_array(dev, layout):
    data = np.array([[1.5, 2.5, 3.5], [4.5, 5.5, 6.5]], np.float32)
    x = make(data, dev, layout)
    for axis, reps in ((1, [2, 0, 3]), (0, [0, 4]), (1, [2]), (None, [1, 0, 2, 0, 1, 3]),
                       (0, [0, 0]), (1, np.array(2))):
        for rdtype in (np.int8, np.int64, np.uint32):
            r = np.asarray(reps, dtype=rdtype)
            assert_same(cw.repeat(x, make(r, dev), axis=axis), np.repeat(data, r, axis=axis))


def test_repeat_special(dev):
    assert_same(cw.repeat(make(np.float64(2.0), dev), 3), np.repeat(np.float64(2.0), 3))
    assert_same(cw.repeat(make(np.zeros((0, 2)), dev), 2, axis=0), np.zeros((0, 2)))
    assert_same(cw.repeat(make(np.zeros((0, 2)), dev), make(np.array([], np.int64), dev), axis=0),
                np.zeros((0, 2)))
    b = np.array([True, False])
    assert_same(cw.repeat(make(b, dev), make(np.array([1, 2]), dev)), np.repeat(b, [1, 2]))


def test_repeat_errors(dev):
    x = make(np.arange(3), dev)
    with pytest.raises(ValueError):
        cw.repeat(x, -1)
    with pytest.raises(ValueError):
        cw.repeat(x, make(np.array([1, -1, 2]), dev))
    with pytest.raises(ValueError):
        cw.repeat(x, make(np.array([1, 2]), dev))
    with pytest.raises(ValueError):
        cw.repeat(x, make(np.ones((3, 1), np.int64), dev))
    with pytest.raises(TypeError):
        cw.repeat(x, make(np.array([1.0, 1.0, 1.0]), dev))
    with pytest.raises(TypeError):
        cw.repeat(x, 1.5)
    with pytest.raises(IndexError):
        cw.repeat(x, 2, axis=1)


# --- tile --------------------------------------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
def test_tile_layouts(dev, layout):
    data = np.arange(6, dtype=np.complex64).reshape(2, 3)
    x = make(data, dev, layout)
    for reps in ((1, 1), (2, 3), (3,), (2, 1, 2), (0, 2), (1, 0), ()):
        assert_same(cw.tile(x, reps), np.tile(data, reps))


def test_tile_special_and_errors(dev):
    assert_same(cw.tile(make(np.int8(5), dev), (2, 2)), np.tile(np.int8(5), (2, 2)))
    assert_same(cw.tile(make(np.int8(5), dev), ()), np.tile(np.int8(5), ()))
    assert_same(cw.tile(make(np.zeros((0, 2)), dev), (3, 2)), np.zeros((0, 4)))
    assert_same(cw.tile(make(np.arange(3), dev), 2), np.tile(np.arange(3), 2))
    with pytest.raises(ValueError):
        cw.tile(make(np.arange(3), dev), (-1,))
    with pytest.raises(TypeError):
        cw.tile(make(np.arange(3), dev), (1.5,))
    with pytest.raises(TypeError):
        cw.tile(make(np.arange(3), dev), "2")


# --- roll --------------------------------------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
def test_roll_layouts(dev, layout):
    data = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
    x = make(data, dev, layout)
    cases = [
        (1, None), (-5, None), (25, None), (1, 0), (-1, 2), (7, -1), (0, 1),
        ((1, 2), (0, 2)), ((1, -1, 2), (2, 2, 1)), (3, (0, 1, 2)), ((1, 2), 1),
    ]
    for shift, axis in cases:
        assert_same(cw.roll(x, shift, axis=axis), np.roll(data, shift, axis=axis))


def test_roll_special_and_errors(dev):
    assert_same(cw.roll(make(np.float32(1.0), dev), 3), np.roll(np.float32(1.0), 3))
    assert_same(cw.roll(make(np.zeros((0, 3)), dev), 2, axis=0), np.zeros((0, 3)))
    assert_same(cw.roll(make(np.zeros((0, 3)), dev), 2), np.zeros((0, 3)))
    assert_same(cw.roll(make(np.arange(5), dev), (2,)), np.roll(np.arange(5), 2))
    x = make(np.arange(6).reshape(2, 3), dev)
    with pytest.raises(ValueError):
        cw.roll(x, (1, 2, 3), axis=(0, 1))
    with pytest.raises(IndexError):
        cw.roll(x, 1, axis=2)
    with pytest.raises(TypeError):
        cw.roll(x, 1.5, axis=0)
    with pytest.raises(ValueError):
        cw.roll(x, (1, 2))


def test_roll_returns_a_copy(dev):
    x = make(np.arange(4), dev)
    y = cw.roll(x, 0)
    y[0] = 9
    assert cw.to_numpy(x).tolist() == [0, 1, 2, 3]


# --- the functions manipulation.py already had (regression checks) ----------------------------

def test_existing_manipulation(dev):
    data = np.arange(12, dtype=np.int32).reshape(3, 4)
    x = make(data, dev, "flipped")
    assert_same(cw.reshape(x, (4, 3)), data.reshape(4, 3))
    assert_same(cw.reshape(x, (np.int64(2), -1)), data.reshape(2, -1))
    assert_same(cw.permute_dims(x, (1, 0)), data.T)
    assert_same(cw.concat([x, x], axis=None), np.concatenate([data, data], axis=None))
    assert_same(cw.stack([x, x], axis=-1), np.stack([data, data], axis=-1))
    assert_same(cw.moveaxis(make(np.zeros((1, 2, 3)), dev), 0, -1), np.zeros((2, 3, 1)))
    a, b = cw.broadcast_arrays(x, make(np.arange(4, dtype=np.int32), dev))
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
def test_concat_stack_mixed_layouts(dev, layout):
    data = np.arange(24, dtype=np.float32).reshape(4, 6)
    x, y = make(data, dev, layout), make(data[::-1].copy(), dev)
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
    assert_same(cw.concat([make(empty, dev), make(empty, dev)]), np.concatenate([empty, empty]))
    assert_same(cw.stack([make(empty, dev)] * 2), np.stack([empty] * 2))


def test_concat_stack_promote_and_errors(dev):
    a = np.arange(6, dtype=np.int16)
    b = np.linspace(0, 1, 6).astype(np.float32)
    x, y = make(a, dev), make(b, dev)
    # int16 with float32 mixes kinds: the default mode's NumPy result (strict mode, this
    # folder's, refuses it)
    with cw.promotion_mode("default"):
        assert_same(cw.concat([x, y]), np.concatenate([a, b]))
        assert_same(cw.stack([x, y]), np.stack([a, b]))
    with pytest.raises(cw.errors.ShapeError, match="concat: shapes"):
        cw.concat([x, make(np.zeros((1, 6), np.int16), dev)])
    with pytest.raises(cw.errors.ShapeError, match="stack: arrays must share one shape"):
        cw.stack([x, x[1:]])
    with pytest.raises(TypeError, match="concat: arrays must be a candlewick array"):
        cw.concat([x, a])
    with pytest.raises(TypeError, match="axis must be an integer"):
        cw.stack([x, x], axis=False)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_unstack_views(dev, layout, row_maker):
    data = np.arange(24, dtype=np.float32).reshape(4, 6)
    x = make(data, dev, layout)
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
    for piece in cw.unstack(cw.broadcast_to(make(row, dev), (4, 3))):  # rows of stride 0
        assert_same(piece + 1, row + 1)
    for shape in ((3, 0), (0, 2), (1, 5)):
        empty = np.zeros(shape, np.float32)
        pieces = cw.unstack(make(empty, dev))
        assert len(pieces) == shape[0]
        for piece, expected in zip(pieces, np.unstack(empty)):
            assert_same(piece, expected)


def test_repeat_tile_edge_counts(dev):
    data = np.arange(5, dtype=np.float32)
    x = make(data, dev)
    for r in (0, 1, 2):
        assert_same(cw.repeat(x[::-2], r), np.repeat(data[::-2], r))
        assert_same(cw.tile(x[::-2], (r,)), np.tile(data[::-2], (r,)))
    assert_same(cw.tile(x[0], ()), np.tile(data[0], ()))
    assert_same(cw.tile(make(np.zeros((0, 2), np.float32), dev), (2, 3)), np.zeros((0, 6), np.float32))
    with pytest.raises(ValueError, match="repeat: repeats must be non-negative"):
        cw.repeat(x, -1)
    with pytest.raises(TypeError, match="tile: repetitions must be an int"):
        cw.tile(x, (True,))
