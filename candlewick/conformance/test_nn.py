"""conv1d/2d, conv_transpose1d/2d, avg/max pool, nearest upsampling (floating dtypes),
against the naive loops of nn_reference.py."""

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from candlewick import dtypes as dt

from . import nn_reference as ref
from .checks import Expected, assert_bitwise_equal, read_result, sum_tolerance
from .strategies import dtype_params, finfo, host_arrays

FLOATING = dtype_params(dt.REAL_FLOATING)
small = st.integers


def _expected_sum(dtype, values, magnitude, terms, transform_algorithms=False, mask=None):
    atol = sum_tolerance(magnitude, terms, dtype)
    if transform_algorithms:
        # convolution libraries (MIOpen, cuDNN) may pick Winograd or FFT algorithms: their
        # transforms mix a whole tile, so the error scales with the sample's largest
        # product, not the output's own terms (float32 on an H200: 1.4e-9 off an output of
        # 2.7e-6 beside products of 0.05), and f16/bf16 hold the transformed operands in
        # the storage dtype, so it scales with that dtype's eps
        finite = np.where(np.isfinite(magnitude), np.asarray(magnitude, np.float64), 0.0)
        largest = finite.reshape(finite.shape[0], -1).max(axis=1).reshape((-1,) + (1,) * (finite.ndim - 1))
        atol = np.maximum(atol, largest * float(finfo(dtype.numpy).eps) * (terms + 1))
    return Expected(values.astype(dtype.numpy), ulps=1, atol=np.where(np.isfinite(atol), atol, 0.0), mask=mask)


def _wide(h):
    return h.value().astype(np.float64)


@st.composite
def conv_setup(draw, dims, transposed):
    groups = draw(small(1, 2), label="groups")
    cin_g, cout_g = draw(small(1, 2), label="Cin/groups"), draw(small(1, 2), label="Cout/groups")
    spatial = tuple(draw(small(1, 6), label="input size") for _ in range(dims))
    kernel = tuple(draw(small(1, 3), label="kernel") for _ in range(dims))
    stride = tuple(draw(small(1, 3), label="stride") for _ in range(dims))
    padding = tuple(draw(small(0, 2), label="padding") for _ in range(dims))
    dilation = tuple(draw(small(1, 2), label="dilation") for _ in range(dims))
    out_pad = None
    if transposed:
        out_pad = tuple(draw(small(0, s - 1), label="output_padding") for s in stride)
    for i in range(dims):
        if transposed:
            size = ((spatial[i] - 1) * stride[i] - 2 * padding[i] + dilation[i] * (kernel[i] - 1)
                    + out_pad[i] + 1)
        else:
            size = (spatial[i] + 2 * padding[i] - dilation[i] * (kernel[i] - 1) - 1) // stride[i] + 1
        assume(size > 0)
    return dict(batch=draw(small(1, 2), label="N"), groups=groups, cin_g=cin_g, cout_g=cout_g,
                spatial=spatial, kernel=kernel, stride=stride, padding=padding,
                dilation=dilation, output_padding=out_pad)


def _run_conv(device, dtype, data, dims, transposed):
    p = data.draw(conv_setup(dims, transposed), label="conv parameters")
    g, cin, cout = p["groups"], p["groups"] * p["cin_g"], p["groups"] * p["cout_g"]
    x_shape = (p["batch"], cin) + p["spatial"]
    w_shape = ((cin, p["cout_g"]) if transposed else (cout, p["cin_g"])) + p["kernel"]
    x = data.draw(host_arrays(dtype, x_shape, values="moderate"), label="x")
    w = data.draw(host_arrays(dtype, w_shape, values="moderate"), label="weight")
    unpair = (lambda v: v[0]) if dims == 1 else tuple
    args = [unpair(p["stride"]), unpair(p["padding"])]
    if transposed:
        args.append(unpair(p["output_padding"]))
    args += [unpair(p["dilation"]), g]
    name = ("conv_transpose" if transposed else "conv") + f"{dims}d"
    out = getattr(x.upload(device), name)(x.layout, w.upload(device), w.layout, *args)
    with np.errstate(all="ignore"):  # the oracle's plain loops meet inf * 0, inf - inf
        values, magnitude = getattr(ref, name)(_wide(x), _wide(w), *args)
    terms = (p["cin_g"] if not transposed else cin) * int(np.prod(p["kernel"]))
    actual = read_result(out, dtype, values.shape)
    _expected_sum(dtype, values, magnitude, terms, transform_algorithms=True,
                  mask=_defined_outputs(_wide(x), _wide(w), actual)).check(actual)


def _defined_outputs(x, w, actual):
    """Which outputs the contract defines: all, except that a sample with a non-finite
    input (or any non-finite weight) may have NaN outputs, even where the direct sum is
    finite: FFT and Winograd algorithms (cuDNN, MIOpen) transform whole tiles, so 0 * inf
    in the transform spreads NaN over the sample (seen on an H200 for conv_transpose1d)."""
    spread = ~np.isfinite(x).reshape(x.shape[0], -1).all(axis=1)
    if not np.isfinite(w).all():
        spread[:] = True
    spread = spread.reshape((-1,) + (1,) * (actual.ndim - 1))
    return ~(spread & np.isnan(actual))


@pytest.mark.parametrize("dtype", FLOATING)
@given(data=st.data())
def test_conv1d(device, dtype, data):
    _run_conv(device, dtype, data, 1, transposed=False)


@pytest.mark.parametrize("dtype", FLOATING)
@given(data=st.data())
def test_conv2d(device, dtype, data):
    _run_conv(device, dtype, data, 2, transposed=False)


@pytest.mark.parametrize("dtype", FLOATING)
@given(data=st.data())
def test_conv_transpose1d(device, dtype, data):
    _run_conv(device, dtype, data, 1, transposed=True)


@pytest.mark.parametrize("dtype", FLOATING)
@given(data=st.data())
def test_conv_transpose2d(device, dtype, data):
    _run_conv(device, dtype, data, 2, transposed=True)


@st.composite
def pool_setup(draw, with_dilation):
    kernel = (draw(small(1, 3)), draw(small(1, 3)))
    stride = (draw(small(1, 3)), draw(small(1, 3)))
    # a window never lies wholly in the padding (the usual limit: pad <= kernel / 2)
    padding = tuple(draw(small(0, k // 2)) for k in kernel)
    dilation = (draw(small(1, 2)), draw(small(1, 2))) if with_dilation else (1, 1)
    shape = (draw(small(1, 2)), draw(small(1, 3)), draw(small(1, 6)), draw(small(1, 6)))
    for i in range(2):
        assume(ref.pool_output_size(shape[2 + i], kernel[i], stride[i], padding[i], dilation[i]) > 0)
    return shape, kernel, stride, padding, dilation


@pytest.mark.parametrize("count_include_pad", [True, False], ids=["include_pad", "exclude_pad"])
@pytest.mark.parametrize("dtype", FLOATING)
@given(data=st.data())
def test_avg_pool2d(device, dtype, count_include_pad, data):
    shape, kernel, stride, padding, _ = data.draw(pool_setup(False), label="pool parameters")
    x = data.draw(host_arrays(dtype, shape, values="moderate"), label="x")
    out = x.upload(device).avg_pool2d(x.layout, kernel, stride, padding, count_include_pad)
    with np.errstate(all="ignore"):  # the oracle's plain loops meet inf * 0, inf - inf
        values, magnitude = ref.avg_pool2d(_wide(x), kernel, stride, padding, count_include_pad)
    expected = _expected_sum(dtype, values, magnitude, kernel[0] * kernel[1] + 1)
    expected.check(read_result(out, dtype, values.shape))


@pytest.mark.parametrize("dtype", FLOATING)
@given(data=st.data())
def test_max_pool2d(device, dtype, data):
    shape, kernel, stride, padding, dilation = data.draw(pool_setup(True), label="pool parameters")
    x = data.draw(host_arrays(dtype, shape), label="x")
    out = x.upload(device).max_pool2d(x.layout, kernel, stride, padding, dilation)
    with np.errstate(all="ignore"):  # the oracle's plain loops meet inf * 0, inf - inf
        values = ref.max_pool2d(_wide(x), kernel, stride, padding, dilation)
    Expected(values.astype(dtype.numpy)).check(read_result(out, dtype, values.shape))


@pytest.mark.parametrize("dtype", FLOATING)
@given(data=st.data())
def test_upsample_nearest2d(device, dtype, data):
    shape = tuple(data.draw(small(1, top), label=name) for name, top in zip("NCHW", (2, 3, 5, 5)))
    out_h, out_w = data.draw(small(1, 11), label="out_h"), data.draw(small(1, 11), label="out_w")
    x = data.draw(host_arrays(dtype, shape), label="x")
    out = x.upload(device).upsample_nearest2d(x.layout, out_h, out_w)
    expected = ref.upsample_nearest2d(x.value(), out_h, out_w)
    assert_bitwise_equal(read_result(out, dtype, expected.shape), expected)
