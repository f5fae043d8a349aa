"""Every nn primitive of the rocm backend against the cpu backend, on both nn paths
(MIOpen and the im2col+GEMM fallback), for float16/bfloat16/float32/float64, over
fixed awkward configurations (groups, dilation, stride, padding, odd sizes, strided
inputs). Convolutions are compared with the exact result of the same (rounded) inputs
in float64 under the classic summation bound; pooling maxima and upsampling are exact."""

import numpy as np
import pytest

from candlewick import dtypes as dt
from cpu_backend import nn as cpu_nn

from .gpu_helpers import eps, read, tiny, upload

FLOATING = [dt.float16, dt.bfloat16, dt.float32, dt.float64]
ids = lambda d: d.name  # noqa: E731


def _rand(shape, dtype, seed):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype.numpy)


def _check_sum(got, x, w, fn, args, terms, dtype):
    """|got - exact| <= eps_out |exact| + 4 (terms + 1) eps_acc sum|terms| (+ a subnormal)."""
    exact = fn(x.astype(np.float64), w.astype(np.float64), *args)
    mag = fn(np.abs(x.astype(np.float64)), np.abs(w.astype(np.float64)), *args)
    acc = 2.0**-52 if dtype is dt.float64 else 2.0**-23
    tol = eps(dtype) * np.abs(exact) + 4 * (terms + 1) * acc * mag + tiny(dtype)
    err = np.abs(got.astype(np.float64) - exact)
    bad = ~(err <= tol)
    assert not bad.any(), (f"{int(bad.sum())} of {bad.size} differ; worst at {np.unravel_index(np.argmax(err - tol), err.shape)}: "
                           f"got {got.ravel()[np.argmax(err - tol)]}, exact {exact.ravel()[np.argmax(err - tol)]}")


def _conv2d_ref(x, w, stride, padding, dilation, groups):
    return cpu_nn.conv("conv2d", x, w, stride, padding, dilation, groups)


def _convt_ref(stride, padding, out_pad, dilation, groups):
    return lambda x, w: cpu_nn.conv_transpose("conv_transpose2d", x, w, stride, padding, out_pad, dilation, groups)


CONV2D = [  # x shape, (Cout, KH, KW), stride, padding, dilation, groups
    ((2, 3, 9, 8), (4, 3, 3), (1, 1), (1, 1), (1, 1), 1),
    ((2, 4, 11, 9), (6, 3, 2), (2, 3), (0, 1), (1, 1), 2),
    ((1, 2, 12, 10), (3, 3, 3), (1, 2), (2, 1), (2, 3), 1),
    ((2, 4, 7, 7), (8, 3, 3), (1, 1), (1, 1), (1, 1), 4),
    ((2, 8, 6, 5), (4, 1, 1), (1, 1), (0, 0), (1, 1), 1),
    ((3, 4, 7, 7), (3, 1, 1), (2, 2), (0, 0), (1, 1), 1),
    ((1, 16, 14, 14), (16, 3, 3), (2, 2), (1, 1), (1, 1), 1),
]


@pytest.mark.parametrize("case", CONV2D, ids=lambda c: f"{c[0]}-{c[1]}-s{c[2]}-g{c[5]}")
@pytest.mark.parametrize("dtype", FLOATING, ids=ids)
def test_conv2d(rocm, nn_path, dtype, case):
    xs, (cout, kh, kw), stride, padding, dilation, groups = case
    x, w = _rand(xs, dtype, 1), _rand((cout, xs[1] // groups, kh, kw), dtype, 2)
    (xd, xl), (wd, wl) = upload(rocm, x), upload(rocm, w)
    out = xd.conv2d(xl, wd, wl, stride, padding, dilation, groups)
    ref_shape = _conv2d_ref(x, w, stride, padding, dilation, groups).shape
    _check_sum(read(out, ref_shape), x, w, lambda a, b: _conv2d_ref(a, b, stride, padding, dilation, groups),
               (), xs[1] // groups * kh * kw, dtype)


@pytest.mark.parametrize("dtype", FLOATING, ids=ids)
def test_conv2d_strided_views(rocm, nn_path, dtype):
    """Input: every other channel, rows reversed, H and W swapped; weight: a row range
    with its taps transposed. Both are views of larger storages."""
    base, wbase = _rand((2, 6, 10, 12), dtype, 3), _rand((5, 3, 3, 3), dtype, 4)
    (bd, bl), (wd, wl) = upload(rocm, base), upload(rocm, wbase)
    layout = bl.slice(1, 1, 6, 2).flip((2,)).transpose_last2()
    w_layout = wl.slice(0, 1, 5, 1).transpose_last2()
    x = np.ascontiguousarray(base[:, 1:6:2, ::-1, :].transpose(0, 1, 3, 2))
    w = np.ascontiguousarray(wbase[1:5].transpose(0, 1, 3, 2))
    out = bd.conv2d(layout, wd, w_layout, (1, 2), (1, 0), (1, 1), 1)
    fn = lambda a, b: _conv2d_ref(a, b, (1, 2), (1, 0), (1, 1), 1)  # noqa: E731
    _check_sum(read(out, fn(x, w).shape), x, w, fn, (), 3 * 9, dtype)


CONV1D = [  # x shape, (Cout, K), stride, padding, dilation, groups
    ((2, 3, 17), (4, 3), 1, 1, 1, 1),
    ((1, 4, 20), (6, 5), 3, 2, 2, 2),
    ((3, 2, 5), (2, 1), 2, 0, 1, 1),
]


@pytest.mark.parametrize("case", CONV1D, ids=lambda c: f"{c[0]}-{c[1]}")
@pytest.mark.parametrize("dtype", FLOATING, ids=ids)
def test_conv1d(rocm, nn_path, dtype, case):
    xs, (cout, k), stride, padding, dilation, groups = case
    x, w = _rand(xs, dtype, 5), _rand((cout, xs[1] // groups, k), dtype, 6)
    (xd, xl), (wd, wl) = upload(rocm, x), upload(rocm, w)
    out = xd.conv1d(xl, wd, wl, stride, padding, dilation, groups)
    fn = lambda a, b: cpu_nn.conv("conv1d", a, b, (stride,), (padding,), (dilation,), groups)  # noqa: E731
    _check_sum(read(out, fn(x, w).shape), x, w, fn, (), xs[1] // groups * k, dtype)


NONFINITE = [  # x shape, (Cout, KH, KW), stride, padding, dilation, groups, (oc, ic, kh, kw, value)
    ((2, 3, 9, 8), (4, 3, 3), (1, 1), (1, 1), (1, 1), 1, [(1, 0, 0, 0, np.nan), (2, 2, 2, 1, np.inf)]),
    ((2, 4, 11, 9), (6, 3, 2), (2, 3), (2, 1), (1, 1), 2, [(0, 1, 2, 1, -np.inf), (5, 0, 1, 0, np.inf)]),
    ((1, 2, 12, 10), (3, 3, 3), (1, 2), (2, 1), (2, 3), 1, [(1, 1, 0, 0, np.inf)]),
    ((2, 4, 7, 7), (8, 3, 3), (1, 1), (1, 1), (1, 1), 4, [(3, 0, 1, 1, np.inf), (6, 0, 0, 2, np.nan)]),
    ((1, 2, 8, 9), (3, 5, 7), (1, 1), (2, 3), (1, 1), 1, [(2, 1, 4, 6, np.inf), (0, 0, 2, 3, np.inf)]),
    ((2, 3, 1, 30), (2, 1, 5), (1, 2), (0, 2), (1, 2), 1, [(0, 2, 0, 4, -np.inf)]),  # a conv1d
]


@pytest.mark.parametrize("case", NONFINITE, ids=lambda c: f"{c[0]}-{c[1]}-s{c[2]}-p{c[3]}-g{c[5]}")
@pytest.mark.parametrize("dtype", [dt.float16, dt.bfloat16, dt.float32], ids=ids)
def test_conv2d_nonfinite_weights_over_padding(rocm, nn_path, dtype, case):
    """IEEE semantics of the zero padding: a tap with an inf/NaN weight over the padding
    makes that output NaN (MIOpen skips those taps; rocm_backend.families.nn fixes its output up).
    Where the exact result is +-inf, MIOpen's transform-based algorithms (Winograd, FFT)
    may give NaN instead: only NaN-where-NaN and the finite values are exact contracts."""
    xs, (cout, kh, kw), stride, padding, dilation, groups, bad = case
    x, w = _rand(xs, dtype, 21), _rand((cout, xs[1] // groups, kh, kw), dtype, 22)
    for oc, ic, i, j, value in bad:
        w[oc, ic, i, j] = value
    args = (stride, padding, dilation, groups)
    with np.errstate(invalid="ignore", over="ignore"):
        exact = _conv2d_ref(x.astype(np.float64), w.astype(np.float64), *args)
    if xs[2] == 1:  # through the conv1d primitive
        (xd, xl), (wd, wl) = upload(rocm, x[:, :, 0]), upload(rocm, w[:, :, 0])
        out = xd.conv1d(xl, wd, wl, stride[1], padding[1], dilation[1], groups)
    else:
        (xd, xl), (wd, wl) = upload(rocm, x), upload(rocm, w)
        out = xd.conv2d(xl, wd, wl, *args)
    got = read(out, exact.shape).astype(np.float64)
    nan = np.isnan(exact)
    assert nan.any() and np.isnan(got[nan]).all(), f"{int((~np.isnan(got[nan])).sum())} outputs should be NaN"
    inf = np.isinf(exact)
    assert (np.isnan(got[inf]) | (got[inf] == exact[inf])).all()
    fin = np.isfinite(exact)
    finite_w = np.where(np.isfinite(w), w, 0).astype(np.float64)
    mag = _conv2d_ref(np.abs(x.astype(np.float64)), np.abs(finite_w), *args)
    tol = eps(dtype) * np.abs(exact) + 4 * (xs[1] // groups * kh * kw + 1) * 2.0**-23 * mag + tiny(dtype)
    assert (np.abs(got[fin] - exact[fin]) <= tol[fin]).all()


def _nan_where_exact_nan(conv_out, x, w):
    with np.errstate(invalid="ignore", over="ignore"):
        exact = _conv2d_ref(x.astype(np.float64), w.astype(np.float64), (1, 1), (1, 1), (1, 1), 1)
    got = np.asarray(read(conv_out._storage, exact.shape), np.float64)
    nan = np.isnan(exact)
    assert nan.any() and np.isnan(got[nan]).all(), f"{int((~np.isnan(got[nan])).sum())} outputs should be NaN"


@pytest.mark.parametrize("shape", [(4, 3, 3, 3), (64, 64, 3, 3)], ids=["1-block", "9-block"])
@pytest.mark.parametrize("dtype", [dt.float16, dt.float32], ids=ids)
def test_padding_fixup_returns_after_a_write_into_a_known_finite_weight(rocm, nn_path, dtype, shape):
    """rocm_backend.families.pad_fixup_cache on the device: repeated convolutions learn that the
    weight is finite (the fix-up is then skipped); an element set to inf through the front
    end (the last one: the last block of the finite_flag check) brings the NaN of the
    padded taps back, and the check that follows must find it, so the fix-up stays."""
    import candlewick as cw

    x, w = _rand((2, shape[1], 9, 8), dtype, 31), _rand(shape, dtype, 32)
    xa, wa = cw.asarray(x, device=rocm), cw.asarray(w, device=rocm)
    for _ in range(3):
        cw.nn.conv2d(xa, wa, padding=1)
        rocm.synchronize()
    from rocm_backend.families import pad_fixup_cache

    known = wa._storage.buffer
    probe = pad_fixup_cache.probe_of(known)
    assert (probe is not None and probe.finite_at == known.version) == (nn_path == "miopen")
    wa[-1, -1, -1, -1] = float("inf")
    w[-1, -1, -1, -1] = np.inf
    for _ in range(4):
        _nan_where_exact_nan(cw.nn.conv2d(xa, wa, padding=1), x, w)
        rocm.synchronize()
    probe = pad_fixup_cache.probe_of(known)
    assert probe is None or probe.finite_at != known.version
    if nn_path == "miopen":
        assert probe.state == "non-finite"


def test_padding_fixup_trusts_no_weight_shared_through_dlpack(rocm, nn_path):
    """A weight torch can write (exported through DLPack) is never known finite."""
    torch = pytest.importorskip("torch")
    import candlewick as cw

    x, w = _rand((2, 3, 9, 8), dt.float32, 33), _rand((4, 3, 3, 3), dt.float32, 34)
    xa, wa = cw.asarray(x, device=rocm), cw.asarray(w, device=rocm)
    shared = torch.from_dlpack(wa)
    for _ in range(3):
        cw.nn.conv2d(xa, wa, padding=1)
        rocm.synchronize()
    shared[2, 1, 2, 2] = float("nan")
    torch.cuda.synchronize()
    w[2, 1, 2, 2] = np.nan
    _nan_where_exact_nan(cw.nn.conv2d(xa, wa, padding=1), x, w)


CONVT = [  # x shape, (Cout/G, KH, KW), stride, padding, output_padding, dilation, groups
    ((2, 3, 5, 4), (2, 3, 3), (2, 2), (1, 1), (1, 1), (1, 1), 1),
    ((1, 4, 4, 4), (3, 2, 3), (1, 3), (0, 1), (0, 2), (2, 1), 2),
    ((2, 2, 6, 3), (2, 3, 2), (3, 1), (1, 0), (2, 0), (1, 1), 2),
    ((1, 2, 5, 5), (2, 3, 3), (1, 1), (1, 1), (1, 0), (2, 1), 1),  # output_padding < dilation
]


@pytest.mark.parametrize("case", CONVT, ids=lambda c: f"{c[0]}-{c[1]}-s{c[2]}-g{c[6]}")
@pytest.mark.parametrize("dtype", FLOATING, ids=ids)
def test_conv_transpose2d(rocm, nn_path, dtype, case):
    xs, (coutg, kh, kw), stride, padding, out_pad, dilation, groups = case
    x, w = _rand(xs, dtype, 7), _rand((xs[1], coutg, kh, kw), dtype, 8)
    (xd, xl), (wd, wl) = upload(rocm, x), upload(rocm, w)
    out = xd.conv_transpose2d(xl, wd, wl, stride, padding, out_pad, dilation, groups)
    fn = _convt_ref(stride, padding, out_pad, dilation, groups)
    _check_sum(read(out, fn(x, w).shape), x, w, fn, (), xs[1] // groups * kh * kw, dtype)


@pytest.mark.parametrize("dtype", FLOATING, ids=ids)
def test_conv_transpose1d(rocm, nn_path, dtype):
    x, w = _rand((2, 4, 7), dtype, 9), _rand((4, 3, 3), dtype, 10)
    (xd, xl), (wd, wl) = upload(rocm, x), upload(rocm, w)
    out = xd.conv_transpose1d(xl, wd, wl, 2, 1, 1, 1, 2)
    fn = lambda a, b: cpu_nn.conv_transpose("conv_transpose1d", a, b, (2,), (1,), (1,), (1,), 2)  # noqa: E731
    _check_sum(read(out, fn(x, w).shape), x, w, fn, (), 2 * 3, dtype)


POOLS = [  # kernel, stride, padding, dilation
    ((3, 3), (2, 2), (1, 1), (1, 1)),
    ((2, 2), (2, 2), (0, 0), (1, 1)),
    ((3, 2), (1, 2), (1, 0), (2, 1)),
    ((1, 3), (3, 1), (0, 1), (1, 1)),
]


def _pool_input(dtype, seed, neg_inf=True):
    x = _rand((2, 3, 9, 10), dtype, seed)
    x[0, 0, 0, 0] = np.nan
    if neg_inf:  # windows of -inf give -inf (MIOpen's max pooling gives the lowest finite value)
        x[1, 2, 4, 4] = -np.inf
        x[1, 1, 3:6, 3:6] = -np.inf
    return x


@pytest.mark.parametrize("case", POOLS, ids=lambda c: f"k{c[0]}-s{c[1]}-p{c[2]}-d{c[3]}")
@pytest.mark.parametrize("dtype", FLOATING, ids=ids)
def test_max_pool2d(rocm, nn_path, dtype, case):
    kernel, stride, padding, dilation = case
    x = _pool_input(dtype, 11, neg_inf=nn_path != "miopen")  # "miopen": MIOpen's semantics
    xd, xl = upload(rocm, x)
    ref = cpu_nn.max_pool2d(x, kernel, stride, padding, dilation)
    got = read(xd.max_pool2d(xl, kernel, stride, padding, dilation), ref.shape)
    np.testing.assert_array_equal(got.astype(np.float64), ref.astype(np.float64))
    # a transposed view, on the same storage
    ref_t = cpu_nn.max_pool2d(np.ascontiguousarray(x.transpose(0, 1, 3, 2)), kernel, stride, padding, dilation)
    got_t = read(xd.max_pool2d(xl.transpose_last2(), kernel, stride, padding, dilation), ref_t.shape)
    np.testing.assert_array_equal(got_t.astype(np.float64), ref_t.astype(np.float64))


@pytest.mark.parametrize("include", [True, False], ids=["include_pad", "exclude_pad"])
@pytest.mark.parametrize("case", [c for c in POOLS if c[3] == (1, 1)], ids=lambda c: f"k{c[0]}-s{c[1]}-p{c[2]}")
@pytest.mark.parametrize("dtype", FLOATING, ids=ids)
def test_avg_pool2d(rocm, nn_path, dtype, case, include):
    kernel, stride, padding, _ = case
    x = _rand((2, 3, 9, 10), dtype, 12)
    xd, xl = upload(rocm, x)
    exact = cpu_nn.avg_pool2d(x.astype(np.float64), kernel, stride, padding, include)
    mag = cpu_nn.avg_pool2d(np.abs(x.astype(np.float64)), kernel, stride, padding, include)
    got = read(xd.avg_pool2d(xl, kernel, stride, padding, include), exact.shape).astype(np.float64)
    acc = 2.0**-52 if dtype is dt.float64 else 2.0**-23
    taps = kernel[0] * kernel[1]
    tol = eps(dtype) * np.abs(exact) + 4 * (taps + 2) * acc * mag
    assert (np.abs(got - exact) <= tol).all(), np.abs(got - exact).max()


@pytest.mark.parametrize("dtype", FLOATING, ids=ids)
def test_upsample_nearest2d(rocm, nn_path, dtype):
    x = (np.arange(2 * 3 * 4 * 5) * 7 % 11).reshape(2, 3, 4, 5).astype(dtype.numpy)
    xd, xl = upload(rocm, x)
    for oh, ow in ((4, 5), (9, 11), (2, 3), (1, 1), (13, 2)):
        ref = cpu_nn.upsample_nearest2d(x, oh, ow)
        assert read(xd.upsample_nearest2d(xl, oh, ow), ref.shape).tobytes() == np.ascontiguousarray(ref).tobytes()
        ref_t = cpu_nn.upsample_nearest2d(np.ascontiguousarray(x.transpose(0, 1, 3, 2)), oh, ow)
        got_t = read(xd.upsample_nearest2d(xl.transpose_last2(), oh, ow), ref_t.shape)
        assert got_t.tobytes() == np.ascontiguousarray(ref_t).tobytes()


def test_each_path_is_the_one_used(rocm, nn_path):
    from rocm_backend.families import nn_paths

    before = dict(nn_paths.path_counts)
    x, w = _rand((1, 2, 6, 6), dt.float32, 13), _rand((2, 2, 3, 3), dt.float32, 14)
    (xd, xl), (wd, wl) = upload(rocm, x), upload(rocm, w)
    read(xd.conv2d(xl, wd, wl, (1, 1), (0, 0), (1, 1), 1), (1, 2, 4, 4))
    read(xd.max_pool2d(xl, (2, 2), (2, 2), (0, 0), (1, 1)), (1, 2, 3, 3))
    x64, w64 = x.astype(np.float64), w.astype(np.float64)
    (xd, xl), (wd, wl) = upload(rocm, x64), upload(rocm, w64)
    read(xd.conv2d(xl, wd, wl, (1, 1), (0, 0), (1, 1), 1), (1, 2, 4, 4))
    grew = {k: v - before.get(k, 0) for k, v in nn_paths.path_counts.items() if v != before.get(k, 0)}
    if nn_path == "miopen":
        assert grew == {("conv2d", "miopen"): 1, ("max_pool2d", "miopen"): 1, ("conv2d", "fallback"): 1}
        assert "MIOpen" in rocm_details()
    else:
        assert grew == {("conv2d", "fallback"): 2, ("max_pool2d", "fallback"): 1}
        assert "fallback" in rocm_details()


def test_auto_path_choices(rocm, monkeypatch):
    """Unset CANDLEWICK_ROCM_NN: MIOpen for f32 convolutions (1x1 ones too) and average
    pooling, our kernel for max pooling (a window of -inf stays -inf), padding NaN
    semantics kept."""
    from rocm_backend import miopen
    from rocm_backend.families import nn_paths

    monkeypatch.delenv(nn_paths.ENV, raising=False)
    have = isinstance(rocm.miopen, miopen.DeviceMIOpen)
    before = dict(nn_paths.path_counts)
    x = _pool_input(dt.float32, 18)
    xd, xl = upload(rocm, x)
    got = read(xd.max_pool2d(xl, (3, 3), (3, 3), (0, 0), (1, 1)), (2, 3, 3, 3))
    np.testing.assert_array_equal(got, cpu_nn.max_pool2d(x, (3, 3), (3, 3), (0, 0), (1, 1)))
    assert got[1, 1, 1, 1] == -np.inf
    read(xd.avg_pool2d(xl, (2, 2), (2, 2), (1, 1), True), (2, 3, 5, 6))
    w = _rand((2, 3, 1, 2), dt.float32, 19)
    w[1, 0, 0, 0] = np.nan  # over the left padding column of every output row
    wd, wl = upload(rocm, w)
    y = read(xd.conv2d(xl, wd, wl, (1, 1), (0, 1), (1, 1), 1), (2, 2, 9, 11))
    assert np.isnan(y[:, 1]).all() and np.isfinite(y[0, 0, 1:]).all()
    w1 = _rand((4, 3, 1, 1), dt.float32, 20)  # 1x1, unit stride, no padding
    wd1, wl1 = upload(rocm, w1)
    y1 = read(xd.conv2d(xl, wd1, wl1, (1, 1), (0, 0), (1, 1), 1), (2, 4, 9, 10))
    np.testing.assert_allclose(y1, cpu_nn.conv("conv2d", x, w1, (1, 1), (0, 0), (1, 1), 1), rtol=1e-5, atol=1e-6)
    grew = {k: v - before.get(k, 0) for k, v in nn_paths.path_counts.items() if v != before.get(k, 0)}
    want = "miopen" if have else "fallback"
    assert grew == {("max_pool2d", "fallback"): 1, ("avg_pool2d", want): 1, ("conv2d", want): 2}


def rocm_details():
    import candlewick as cw

    return next(b for b in cw.backends() if b.name == "rocm").details["nn"]


def test_front_end_nn_on_rocm(rocm, nn_path):
    """candlewick.nn with a bias, through the Array front end."""
    import candlewick as cw

    x = _rand((2, 3, 8, 8), dt.float32, 15)
    w = _rand((5, 3, 3, 3), dt.float32, 16)
    b = _rand((5,), dt.float32, 17)
    got = cw.to_numpy(cw.nn.conv2d(cw.asarray(x, device=rocm), cw.asarray(w, device=rocm),
                                   cw.asarray(b, device=rocm), padding=1))
    ref = cw.to_numpy(cw.nn.conv2d(cw.asarray(x), cw.asarray(w), cw.asarray(b), padding=1))
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)
    pooled = cw.to_numpy(cw.nn.max_pool2d(cw.asarray(x, device=rocm), 3, 2, 1))
    np.testing.assert_array_equal(pooled, cw.to_numpy(cw.nn.max_pool2d(cw.asarray(x), 3, 2, 1)))
