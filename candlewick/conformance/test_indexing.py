"""index_select, gather, concat, compress, scatter, scatter_add, index_add, and their
IndexError."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from candlewick import dtypes as dt
from candlewick.layout import Layout

from .checks import Expected, assert_bitwise_equal, eps_of, read_flat, read_result, sum_tolerance
from .strategies import covered_mask, dtype_params, host_arrays, index_arrays, shapes, view_of

ALL = dtype_params(dt.ALL_DTYPES)
ADDABLE = dtype_params(dt.NUMERIC)  # scatter_add / index_add add: numeric dtypes


@pytest.mark.parametrize("dtype", ALL)
@given(data=st.data())
def test_index_select(device, dtype, data):
    shape = data.draw(shapes(min_dims=1, max_dims=3))
    axis = data.draw(st.integers(0, len(shape) - 1), label="axis")
    n = shape[axis]
    idx_shape = data.draw(shapes(max_dims=2, allow_empty=True) if n else st.just((0,)))
    x = data.draw(host_arrays(dtype, shape), label="x")
    idx = data.draw(index_arrays(idx_shape, n), label="indices")
    out = x.upload(device).index_select(x.layout, idx.upload(device), idx.layout, axis)
    out_shape = shape[:axis] + idx_shape + shape[axis + 1:]
    expected = np.take(x.value(), idx.value(), axis=axis)
    assert_bitwise_equal(read_result(out, dtype, out_shape), expected)


@pytest.mark.parametrize("dtype", ALL)
@given(data=st.data())
def test_gather(device, dtype, data):
    shape = data.draw(shapes(min_dims=1, max_dims=3))
    axis = data.draw(st.integers(0, len(shape) - 1), label="axis")
    n = shape[axis]
    m = data.draw(st.integers(0, 5)) if n else 0
    idx_shape = shape[:axis] + (m,) + shape[axis + 1:]
    x = data.draw(host_arrays(dtype, shape), label="x")
    idx = data.draw(index_arrays(idx_shape, n), label="indices")
    out = x.upload(device).gather(x.layout, idx.upload(device), idx.layout, axis)
    expected = np.take_along_axis(x.value(), idx.value(), axis=axis)
    assert_bitwise_equal(read_result(out, dtype, idx_shape), expected)


@pytest.mark.parametrize("dtype", ALL)
@given(data=st.data())
def test_concat(device, dtype, data):
    shape = data.draw(shapes(min_dims=1, max_dims=3))
    axis = data.draw(st.integers(0, len(shape) - 1), label="axis")
    sizes = data.draw(st.lists(st.integers(0, 4), min_size=1, max_size=4), label="sizes along axis")
    parts = [data.draw(host_arrays(dtype, shape[:axis] + (n,) + shape[axis + 1:]), label=f"part {i}")
             for i, n in enumerate(sizes)]
    first, *rest = [p.upload(device) for p in parts]
    out = first.concat(parts[0].layout, [(s, p.layout) for s, p in zip(rest, parts[1:])], axis)
    expected = np.concatenate([p.value() for p in parts], axis=axis)
    assert_bitwise_equal(read_result(out, dtype, expected.shape), expected)


@pytest.mark.parametrize("dtype", ALL)
@given(data=st.data())
def test_compress(device, dtype, data):
    shape = data.draw(shapes(min_dims=1, max_dims=3))
    x = data.draw(host_arrays(dtype, shape), label="x")
    mask = data.draw(host_arrays(dt.bool_, shape[:1]), label="mask")
    out, count = x.upload(device).compress(x.layout, mask.upload(device), mask.layout)
    expected = x.value()[mask.value()]
    assert count == expected.shape[0]
    assert_bitwise_equal(read_result(out, dtype, expected.shape), expected)


@st.composite
def scatter_cases(draw, dtype, values="any"):
    """dst (writable view), indices and src for put-along-axis: the index/src shape
    fits inside dst on every axis but ``axis``."""
    shape = draw(shapes(min_dims=1, max_dims=3))
    axis = draw(st.integers(0, len(shape) - 1), label="axis")
    n = shape[axis]
    idx_shape = tuple(
        (draw(st.integers(0, 5)) if n else 0) if a == axis else draw(st.integers(0, s))
        for a, s in enumerate(shape)
    )
    dst = draw(host_arrays(dtype, shape, writable=True, values=values), label="dst")
    idx = draw(index_arrays(idx_shape, n), label="indices")
    src = draw(host_arrays(dtype, idx_shape, values=values), label="src")
    return dst, idx, src, axis


def _targets(idx, axis, n):
    """For each position p of idx: the dst position it addresses."""
    for p in np.ndindex(*idx.shape):
        target = list(p)
        target[axis] = int(idx[p]) % n
        yield p, tuple(target)


@pytest.mark.parametrize("dtype", ALL)
@given(data=st.data())
def test_scatter(device, dtype, data):
    dst, idx, src, axis = data.draw(scatter_cases(dtype), label="dst, indices, src, axis")
    target = dst.upload(device)
    assert target.scatter(dst.layout, idx.upload(device), idx.layout, src.upload(device),
                          src.layout, axis) is None
    got_flat = read_flat(target)
    outside = ~covered_mask(dst.flat.size, dst.layout)
    assert_bitwise_equal(got_flat[outside], dst.flat[outside])
    # with duplicate indices any one of the writes may win
    candidates = {}
    s, n = src.value(), dst.layout.shape[axis]
    for p, t in _targets(idx.value(), axis, n):
        candidates.setdefault(t, set()).add(s[p].tobytes())
    got, before = view_of(got_flat, dst.layout), dst.value()
    for t in np.ndindex(*dst.layout.shape):
        allowed = candidates.get(t, {before[t].tobytes()})
        assert got[t].tobytes() in allowed, (
            f"dst{t} = {got[t]!r}; expected one of "
            f"{[np.frombuffer(b, dtype.numpy)[0] for b in allowed]}"
        )


def _accumulate_expected(dtype, before, contributions):
    """``before`` plus every (position, value) contribution, computed exactly (wide or
    wrapping) and rounded once; the tolerance covers any accumulation order.

    The order in which duplicates accumulate is unspecified (as for torch
    ``index_add_`` and CuPy ``scatter_add``: a GPU adds them atomically, in whatever
    order its threads arrive), and each addition is rounded to the destination's own
    dtype: the contract promises float32 accumulation for reductions and matmul, not
    here. A destination with c contributions thus sees up to c roundings, each at most
    eps/2 of a partial sum, and every partial sum is bounded by |before| + sum |v|
    (``mag``), so |got - exact| <= c * eps/2 * mag. For float16/bfloat16 that bound is
    far above ``sum_tolerance``'s float32 one (a bfloat16 partial 4.2988 rounds to
    4.3125, and the final sum lands 2 ulp from the once-rounded 1.5625), so it is used
    per destination; a destination with no duplicate (c <= 1) keeps the tight check."""
    count = np.zeros(before.shape, np.int64)
    if dtype.is_integer:
        acc = before.copy()
        for t, v in contributions:
            acc[t] += v
        return Expected(acc)
    wide = np.complex128 if dtype.is_complex else np.float64
    acc = before.astype(wide)
    mag = np.abs(acc)
    for t, v in contributions:
        acc[t] += wide(v)
        mag[t] += abs(wide(v))
        count[t] += 1
    atol = sum_tolerance(mag, int(count.max(initial=0)) + 1, dtype)
    if dtype in (dt.float16, dt.bfloat16):
        own_rounding = np.where(count > 1, count * (eps_of(dtype) / 2) * mag, 0.0)
        atol = np.maximum(atol, own_rounding)
    return Expected(acc.astype(dtype.numpy), ulps=1, atol=np.where(np.isfinite(atol), atol, 0.0))


def _check_accumulated(target, dst, expected):
    got_flat = read_flat(target)
    outside = ~covered_mask(dst.flat.size, dst.layout)
    assert_bitwise_equal(got_flat[outside], dst.flat[outside])
    expected.check(np.array(view_of(got_flat, dst.layout)))


@pytest.mark.parametrize("dtype", ADDABLE)
@given(data=st.data())
def test_scatter_add(device, dtype, data):
    dst, idx, src, axis = data.draw(scatter_cases(dtype, values="moderate"),
                                    label="dst, indices, src, axis")
    target = dst.upload(device)
    target.scatter_add(dst.layout, idx.upload(device), idx.layout, src.upload(device),
                       src.layout, axis)
    s = src.value()
    n = dst.layout.shape[axis]
    with np.errstate(all="ignore"):
        expected = _accumulate_expected(
            dtype, dst.value(), [(t, s[p]) for p, t in _targets(idx.value(), axis, n)])
    _check_accumulated(target, dst, expected)


@pytest.mark.parametrize("dtype", ADDABLE)
@given(data=st.data())
def test_index_add(device, dtype, data):
    shape = data.draw(shapes(min_dims=1, max_dims=3))
    axis = data.draw(st.integers(0, len(shape) - 1), label="axis")
    n = shape[axis]
    k = data.draw(st.integers(0, 6)) if n else 0  # k > n guarantees duplicates
    src_shape = shape[:axis] + (k,) + shape[axis + 1:]
    dst = data.draw(host_arrays(dtype, shape, writable=True, values="moderate"), label="dst")
    idx = data.draw(index_arrays((k,), n), label="indices")
    src = data.draw(host_arrays(dtype, src_shape, values="moderate"), label="src")
    target = dst.upload(device)
    target.index_add(dst.layout, idx.upload(device), idx.layout, src.upload(device),
                     src.layout, axis)
    s = src.value()
    contributions = []
    for j, i in enumerate(idx.value()):
        for p in np.ndindex(*src_shape):
            if p[axis] == j:
                t = p[:axis] + (int(i) % n,) + p[axis + 1:]
                contributions.append((t, s[p]))
    with np.errstate(all="ignore"):
        expected = _accumulate_expected(dtype, dst.value(), contributions)
    _check_accumulated(target, dst, expected)


# --- out-of-range indices ------------------------------------------------------------


INDEXING_CALLS = {
    "index_select": lambda x, xl, i, il, src: x.index_select(xl, i, il, 0),
    "gather": lambda x, xl, i, il, src: x.gather(xl, i, il, 0),
    "scatter": lambda x, xl, i, il, src: x.scatter(xl, i, il, src, Layout.contiguous((3,)), 0),
    "scatter_add": lambda x, xl, i, il, src: x.scatter_add(xl, i, il, src, Layout.contiguous((3,)), 0),
    "index_add": lambda x, xl, i, il, src: x.index_add(xl, i, il, src, Layout.contiguous((3,)), 0),
}


WRITING_CALLS = {"scatter", "scatter_add", "index_add"}


@pytest.mark.primitive(param="name")
@pytest.mark.parametrize("bad", [4, -5, 2**40], ids=["past_end", "before_start", "huge"])
@pytest.mark.parametrize("name", sorted(INDEXING_CALLS))
def test_out_of_range_index_raises(device, name, bad):
    x = device.storage_from_host(np.arange(4, dtype=np.float32))
    src = device.storage_from_host(np.ones(3, dtype=np.float32))
    idx = device.storage_from_host(np.array([0, bad, 1], np.int64))
    with pytest.raises(IndexError):
        # an asynchronous backend may raise at the next synchronizing call
        out = INDEXING_CALLS[name](x, Layout.contiguous((4,)), idx, Layout.contiguous((3,)), src)
        device.synchronize()
        read_flat(out if out is not None else x)
    if name in WRITING_CALLS:  # a scatter with a bad index writes nothing, as NumPy's
        assert_bitwise_equal(read_flat(x), np.arange(4, dtype=np.float32))
    # the error leaves the device usable
    ok = device.storage_from_host(np.arange(3, dtype=np.float32))
    got = read_result(ok.copy(Layout.contiguous((3,))), dt.float32, (3,))
    assert_bitwise_equal(got, np.arange(3, dtype=np.float32))


def test_accumulate_tolerance_covers_any_order_of_half_precision_duplicates():
    """The GPU run's case: bfloat16 4.5625 + (-0.263672) + (-2.73438) at one destination.
    Sequential order gives the once-rounded 1.5625; adding -0.263672 first rounds the
    partial sum 4.298828 up to 4.3125 and ends at 1.578125 (2 ulp away). Both are
    correct accumulations; a value beyond c * eps/2 * mag is not."""
    bf16 = dt.bfloat16.numpy.type
    before = np.array([4.5625], bf16)
    values = [bf16(-0.263672), bf16(-2.73438)]
    expected = _accumulate_expected(dt.bfloat16, before, [((0,), v) for v in values])
    for order in (values, values[::-1]):
        acc = before.copy()
        for v in order:
            acc[0] = bf16(np.float32(acc[0]) + np.float32(v))
        expected.check(acc)
    with pytest.raises(AssertionError):
        expected.check(np.array([1.75], bf16))


@pytest.mark.parametrize("dtype", ALL)
@given(data=st.data())
def test_nonzero(device, dtype, data):
    shape = data.draw(shapes(min_dims=1, max_dims=3))
    x = data.draw(host_arrays(dtype, shape), label="x")
    coords, count = x.upload(device).nonzero(x.layout)
    value = x.value()
    expected = np.nonzero(value != np.zeros((), value.dtype))  # != 0: NaN counts, -0.0 does not
    assert isinstance(coords, tuple) and len(coords) == len(shape), "one coordinate storage per axis"
    assert count == expected[0].size
    for got, want in zip(coords, expected):
        assert_bitwise_equal(read_result(got, dt.int64, (count,)), want.astype(np.int64))
