"""The nn primitives against naive loop references on small inputs."""

import itertools

import numpy as np
import pytest

from candlewick import dtypes as dt
from candlewick.errors import ShapeError

from cpu_helpers import download, upload


def naive_conv2d(x, w, stride, padding, dilation, groups):
    n, cin, h, wd = x.shape
    cout, cg, kh, kw = w.shape
    oh = (h + 2 * padding[0] - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wd + 2 * padding[1] - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.zeros((n, cout, oh, ow))
    per_group = cout // groups
    for b, co, i, j in itertools.product(range(n), range(cout), range(oh), range(ow)):
        g = co // per_group
        acc = 0.0
        for ci, a, c in itertools.product(range(cg), range(kh), range(kw)):
            y = i * stride[0] - padding[0] + a * dilation[0]
            z = j * stride[1] - padding[1] + c * dilation[1]
            if 0 <= y < h and 0 <= z < wd:
                acc += x[b, g * cg + ci, y, z] * w[co, ci, a, c]
        out[b, co, i, j] = acc
    return out


def naive_conv_transpose2d(x, w, stride, padding, output_padding, dilation, groups):
    n, cin, h, wd = x.shape
    _, coutg, kh, kw = w.shape
    cig = cin // groups
    oh = (h - 1) * stride[0] - 2 * padding[0] + dilation[0] * (kh - 1) + output_padding[0] + 1
    ow = (wd - 1) * stride[1] - 2 * padding[1] + dilation[1] * (kw - 1) + output_padding[1] + 1
    out = np.zeros((n, coutg * groups, oh, ow))
    for b, ci, i, j, co, a, c in itertools.product(
        range(n), range(cin), range(h), range(wd), range(coutg), range(kh), range(kw)
    ):
        y = i * stride[0] - padding[0] + a * dilation[0]
        z = j * stride[1] - padding[1] + c * dilation[1]
        if 0 <= y < oh and 0 <= z < ow:
            out[b, (ci // cig) * coutg + co, y, z] += x[b, ci, i, j] * w[ci, co, a, c]
    return out


def windows(h, w, kernel, stride, padding, dilation):
    oh = (h + 2 * padding[0] - dilation[0] * (kernel[0] - 1) - 1) // stride[0] + 1
    ow = (w + 2 * padding[1] - dilation[1] * (kernel[1] - 1) - 1) // stride[1] + 1
    for i, j in itertools.product(range(oh), range(ow)):
        cells = [
            (i * stride[0] - padding[0] + a * dilation[0], j * stride[1] - padding[1] + c * dilation[1])
            for a, c in itertools.product(range(kernel[0]), range(kernel[1]))
        ]
        yield i, j, oh, ow, cells


def naive_avg_pool2d(x, kernel, stride, padding, count_include_pad):
    n, ch, h, w = x.shape
    out = None
    for i, j, oh, ow, cells in windows(h, w, kernel, stride, padding, (1, 1)):
        if out is None:
            out = np.zeros((n, ch, oh, ow))
        inside = [(y, z) for y, z in cells if 0 <= y < h and 0 <= z < w]
        total = sum(x[:, :, y, z] for y, z in inside)
        out[:, :, i, j] = total / (len(cells) if count_include_pad else len(inside))
    return out


def naive_max_pool2d(x, kernel, stride, padding, dilation):
    n, ch, h, w = x.shape
    out = None
    for i, j, oh, ow, cells in windows(h, w, kernel, stride, padding, dilation):
        if out is None:
            out = np.zeros((n, ch, oh, ow))
        for b, c in itertools.product(range(n), range(ch)):
            vals = [x[b, c, y, z] for y, z in cells if 0 <= y < h and 0 <= z < w]
            out[b, c, i, j] = np.nan if any(np.isnan(vals)) else max(vals, default=-np.inf)
    return out


CONV_CASES = [
    # (N, Cin, H, W), (Cout, K h, K w), stride, padding, dilation, groups
    ((2, 3, 7, 6), (4, 3, 2), (1, 1), (0, 0), (1, 1), 1),
    ((1, 4, 8, 9), (6, 3, 3), (2, 3), (1, 2), (2, 1), 2),
    ((2, 6, 5, 7), (6, 2, 3), (1, 2), (2, 0), (1, 3), 3),
    ((1, 2, 4, 4), (2, 1, 1), (3, 3), (0, 1), (1, 1), 2),
]


@pytest.mark.parametrize("xshape, wspec, stride, padding, dilation, groups", CONV_CASES)
def test_conv2d_matches_loops(xshape, wspec, stride, padding, dilation, groups):
    rng = np.random.default_rng(0)
    cout, kh, kw = wspec
    x = rng.standard_normal(xshape)
    w = rng.standard_normal((cout, xshape[1] // groups, kh, kw))
    sx, lx = upload(x)
    sw, lw = upload(w)
    expected = naive_conv2d(x, w, stride, padding, dilation, groups)
    got = download(sx.conv2d(lx, sw, lw, stride, padding, dilation, groups), expected.shape)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("xshape, wspec, stride, padding, dilation, groups", CONV_CASES)
def test_conv1d_is_conv2d_with_height_one(xshape, wspec, stride, padding, dilation, groups):
    rng = np.random.default_rng(1)
    n, cin, _, length = xshape
    cout, _, k = wspec
    x = rng.standard_normal((n, cin, length))
    w = rng.standard_normal((cout, cin // groups, k))
    sx, lx = upload(x)
    sw, lw = upload(w)
    expected = naive_conv2d(x[:, :, None], w[:, :, None], (1, stride[1]), (0, padding[1]), (1, dilation[1]), groups)[:, :, 0]
    got = download(sx.conv1d(lx, sw, lw, stride[1], padding[1], dilation[1], groups), expected.shape)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


TRANSPOSE_CASES = [
    # (N, Cin, H, W), (Cout/groups, K h, K w), stride, padding, output_padding, dilation, groups
    ((2, 3, 4, 3), (2, 3, 2), (1, 1), (0, 0), (0, 0), (1, 1), 1),
    ((1, 4, 3, 5), (3, 2, 3), (2, 3), (1, 0), (1, 2), (1, 2), 2),
    ((2, 6, 3, 3), (1, 3, 3), (3, 2), (2, 1), (0, 1), (2, 1), 3),
]


@pytest.mark.parametrize("xshape, wspec, stride, padding, output_padding, dilation, groups", TRANSPOSE_CASES)
def test_conv_transpose2d_matches_loops(xshape, wspec, stride, padding, output_padding, dilation, groups):
    rng = np.random.default_rng(2)
    coutg, kh, kw = wspec
    x = rng.standard_normal(xshape)
    w = rng.standard_normal((xshape[1], coutg, kh, kw))
    sx, lx = upload(x)
    sw, lw = upload(w)
    expected = naive_conv_transpose2d(x, w, stride, padding, output_padding, dilation, groups)
    got = download(sx.conv_transpose2d(lx, sw, lw, stride, padding, output_padding, dilation, groups),
                   expected.shape)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("xshape, wspec, stride, padding, output_padding, dilation, groups", TRANSPOSE_CASES)
def test_conv_transpose1d_matches_loops(xshape, wspec, stride, padding, output_padding, dilation, groups):
    rng = np.random.default_rng(3)
    n, cin, _, length = xshape
    coutg, _, k = wspec
    x = rng.standard_normal((n, cin, length))
    w = rng.standard_normal((cin, coutg, k))
    sx, lx = upload(x)
    sw, lw = upload(w)
    expected = naive_conv_transpose2d(x[:, :, None], w[:, :, None], (1, stride[1]), (0, padding[1]),
                                      (0, output_padding[1]), (1, dilation[1]), groups)[:, :, 0]
    got = download(sx.conv_transpose1d(lx, sw, lw, stride[1], padding[1], output_padding[1],
                                       dilation[1], groups), expected.shape)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


def test_conv_transpose_is_the_adjoint_of_conv():
    """<conv(x, w), y> == <x, conv_transpose(y, w)>: the gradient w.r.t. the input."""
    rng = np.random.default_rng(4)
    stride, padding, dilation, groups = (2, 1), (1, 2), (1, 2), 2
    x = rng.standard_normal((2, 4, 10, 8))
    w = rng.standard_normal((6, 2, 3, 2))
    sx, lx = upload(x)
    sw, lw = upload(w)
    conv = download(sx.conv2d(lx, sw, lw, stride, padding, dilation, groups), (2, 6, 5, 10))
    y = rng.standard_normal(conv.shape)
    sy, ly = upload(y)
    # output_padding recovers the row the strided conv dropped (10 rows -> 5 -> 9 + 1)
    back = download(sy.conv_transpose2d(ly, sw, lw, stride, padding, (1, 0), dilation, groups), x.shape)
    assert np.vdot(conv, y) == pytest.approx(np.vdot(x, back), rel=1e-12)


@pytest.mark.parametrize("kernel, stride, padding", [((2, 2), (2, 2), (0, 0)), ((3, 2), (1, 2), (1, 1)),
                                                     ((3, 3), (2, 1), (1, 0))])
@pytest.mark.parametrize("count_include_pad", [True, False])
def test_avg_pool2d_matches_loops(kernel, stride, padding, count_include_pad):
    x = np.random.default_rng(5).standard_normal((2, 3, 6, 5))
    sx, lx = upload(x)
    expected = naive_avg_pool2d(x, kernel, stride, padding, count_include_pad)
    got = download(sx.avg_pool2d(lx, kernel, stride, padding, count_include_pad), expected.shape)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("kernel, stride, padding, dilation", [((2, 2), (2, 2), (0, 0), (1, 1)),
                                                               ((3, 2), (1, 2), (1, 1), (2, 1)),
                                                               ((2, 3), (2, 1), (1, 1), (1, 2))])
def test_max_pool2d_matches_loops_and_propagates_nan(kernel, stride, padding, dilation):
    x = np.random.default_rng(6).standard_normal((2, 2, 7, 6))
    x[0, 1, 3, 2] = np.nan
    x[1, 0, 0, 0] = np.inf
    sx, lx = upload(x)
    expected = naive_max_pool2d(x, kernel, stride, padding, dilation)
    got = download(sx.max_pool2d(lx, kernel, stride, padding, dilation), expected.shape)
    np.testing.assert_array_equal(got, expected)
    assert np.isnan(got).any() or not np.isnan(expected).any()


@pytest.mark.parametrize("out_h, out_w", [(7, 3), (2, 9), (4, 4)])
def test_upsample_nearest2d_uses_floor_of_dst_times_in_over_out(out_h, out_w):
    x = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
    sx, lx = upload(x)
    got = download(sx.upsample_nearest2d(lx, out_h, out_w), (2, 3, out_h, out_w))
    for i, j in itertools.product(range(out_h), range(out_w)):
        np.testing.assert_array_equal(got[:, :, i, j], x[:, :, i * 4 // out_h, j * 5 // out_w])


@pytest.mark.parametrize("dtype", [dt.float16, dt.bfloat16, dt.float32])
def test_low_precision_conv_is_float32_rounded_once(dtype):
    rng = np.random.default_rng(7)
    x = rng.standard_normal((1, 2, 5, 5)).astype(dtype.numpy)
    w = rng.standard_normal((3, 2, 3, 3)).astype(dtype.numpy)
    sx, lx = upload(x)
    sw, lw = upload(w)
    got = download(sx.conv2d(lx, sw, lw, (1, 1), (1, 1), (1, 1), 1), (1, 3, 5, 5))
    assert got.dtype == dtype.numpy
    exact = naive_conv2d(x.astype(np.float64), w.astype(np.float64), (1, 1), (1, 1), (1, 1), 1)
    np.testing.assert_allclose(got.astype(np.float64), exact, rtol=2e-2 if dtype != dt.float32 else 1e-5,
                               atol=5e-2 if dtype != dt.float32 else 1e-5)


def test_kernel_larger_than_input_is_a_shape_error():
    sx, lx = upload(np.zeros((1, 1, 2, 2)))
    sw, lw = upload(np.zeros((1, 1, 3, 3)))
    with pytest.raises(ShapeError, match="conv2d"):
        sx.conv2d(lx, sw, lw, (1, 1), (0, 0), (1, 1), 1)
