"""Manipulation functions against array-api-strict."""

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import array_api_strict as xs
import candlewick as cw
from array_api_support import (
    ALL, any_arrays, arrays, assert_matches_strict, shapes, to_np, to_strict, xps,
)


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
