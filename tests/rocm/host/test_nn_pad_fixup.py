"""The rocm nn launch geometry and the MIOpen padding NaN fix-up, on the CPU.

* ``nn_launch.row_config`` grids and the rows kernels' incremental walk, over many
  shapes and device sizes (the NumPy walk of test_nn_index_math asserts each position is
  visited once, at the right (oh, ow)), and larger problems end to end against the cpu
  backend with rows shared by several block rows (gridDim.y > 1).
* The 16-bit max-pooling keys order every non-NaN float16/bfloat16 like the floats.
* The MIOpen convolution path of ``rocm_backend.families.nn`` with a fake MIOpen that, like
  MIOpen/cuDNN, skips the taps over the padding: with the pad_nan mirror its
  result must equal the cpu backend's IEEE convolution (NaN where a non-finite weight
  meets the padding) for groups, stride, dilation, conv1d and every MIOpen dtype.
"""

import importlib.util
import itertools
import math
import pathlib
import types

import numpy as np
import pytest

from candlewick import dtypes as dt
from candlewick.layout import Layout
from cpu_backend import nn as cpu_nn
from rocm_backend import miopen
from rocm_backend.families import nn, nn_fallback, nn_launch, nn_paths, pad_fixup_cache
from rocm_backend.error import RocmError

_spec = importlib.util.spec_from_file_location(
    "rocm_nn_index_math", pathlib.Path(__file__).with_name("test_nn_index_math.py"))
mirror = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(mirror)


@pytest.fixture
def dev(monkeypatch):
    monkeypatch.setattr(nn_launch, "prepare", mirror.emu_prepare)
    monkeypatch.setattr(nn_fallback, "gemm", mirror.emu_gemm)
    device = mirror.FakeDevice()
    device.multiprocessors = 132
    return device


# --- launch geometry ------------------------------------------------------------------

@pytest.mark.parametrize("sms", [1, 4, 132, 304])
def test_row_config_and_walk(sms):
    for rows, (oh, ow) in itertools.product([1, 3, 64, 2048, 147456],
                                            [(1, 1), (1, 5), (3, 3), (7, 7), (28, 28), (56, 56),
                                             (1, 1000), (13, 97), (112, 112)]):
        positions = oh * ow
        tpl, gx, gy = nn_launch.row_config(rows, positions, sms)
        tp = 1 << tpl
        assert 0 <= tpl <= 8 and 1 <= gy <= 65535 and 1 <= gx < 2**31
        assert positions < 32 or tp >= 32  # coalesced lane groups on real rows
        lanes = tp * gy
        assert -(-positions // lanes) * lanes - positions < max(lanes, 32)
        mirror.emu_walk({"TPL": tpl, "OW": ow, "P": positions}, gy, 2, 3, 1, 2)
        mirror.emu_rows({"TPL": tpl, "rows": min(rows, 4096)}, min(gx, 64))


def test_launch_config_kinds():
    dims = dict(N=2, C=3, OH=5, OW=7, KH=3, KW=2)
    gx, gy, d = nn_launch.launch_config(("nn", "im2col", 4), 2 * 3 * 6 * 35, dims, 132)
    assert (d["rows"], d["P"]) == (2 * 3 * 6, 35) and d["TPL"] == 6 and gy == 1
    gx, gy, d = nn_launch.launch_config(("nn", "max_pool", dt.float32), 2 * 3 * 35, dims, 132)
    assert (d["rows"], d["P"]) == (6, 35)
    gx, gy, _ = nn_launch.launch_config(("nn", "pad_nan", dt.float32), 10**6, dict(C=64, rows=7040), 132)
    assert gy == 64 and 1 <= gx <= 28 and gx * gy <= 132 * 2
    gx, gy, _ = nn_launch.launch_config(("nn", "pad_nan", dt.float32), 10**9, dict(C=10**5, rows=7), 132)
    assert (gx, gy) == (1, 65535)  # the kernel walks the remaining channels


def test_index32_covers_extents():
    assert mirror._args(nn_launch.nn_values(0, 0, 0, 10, 2**31))["index32"] == 0
    assert mirror._args(nn_launch.nn_values(0, 0, 0, 10, 1000))["index32"] == 1
    assert nn_launch.span(5, (3, 4), (-10, 1)) == 5 + 20 + 3 + 1


@pytest.mark.parametrize("dtype", [dt.float32, dt.float16, dt.bfloat16], ids=lambda d: d.name)
def test_row_kernels_with_shared_rows(dev, dtype):
    """Shapes whose rows get L = 2^TPL * gridDim.y lanes with gridDim.y > 1."""
    x = np.random.default_rng(1).standard_normal((2, 3, 31, 33)).astype(dtype.numpy)
    x[1, 2, 5, 7] = np.nan
    x[0, 1, 10:14, 10:14] = -np.inf
    st, layout = mirror.upload(dev, x, dtype), Layout.contiguous(x.shape)
    assert nn_launch.row_config(6, 31 * 33, 132)[2] > 1
    got = nn_fallback.max_pool2d(st, layout, (3, 3), (1, 1), (1, 1), (1, 1))
    ref = cpu_nn.max_pool2d(x, (3, 3), (1, 1), (1, 1), (1, 1))
    np.testing.assert_array_equal(mirror.download(dev, got, ref.shape).astype(np.float64), ref.astype(np.float64))
    got = nn_fallback.upsample_nearest2d(st, layout, 40, 45)
    assert mirror.download(dev, got, (2, 3, 40, 45)).tobytes() == cpu_nn.upsample_nearest2d(x, 40, 45).tobytes()
    xi = mirror._data((2, 3, 31, 33), dtype, 2)
    w = mirror._data((4, 3, 3, 3), dtype, 3)
    out = nn_fallback.conv2d(mirror.upload(dev, xi, dtype), layout, mirror.upload(dev, w, dtype),
                             Layout.contiguous(w.shape), (1, 1), (1, 1), (1, 1), 1)
    ref = cpu_nn.conv("conv2d", xi, w, (1, 1), (1, 1), (1, 1), 1)
    np.testing.assert_array_equal(mirror.download(dev, out, ref.shape), ref)


@pytest.mark.parametrize("dtype", [dt.float16, dt.bfloat16], ids=lambda d: d.name)
def test_max_key16_orders_like_the_floats(dtype):
    bits = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    key, nan = mirror.max_key16(bits, mirror._KEY16[dtype])
    with np.errstate(invalid="ignore"):
        vals = bits.view(dtype.numpy).astype(np.float64)
    assert (nan == np.isnan(vals)).all()
    assert (mirror.max_value16(key) == bits).all()
    order = np.argsort(key[~nan], kind="stable")
    sorted_vals = vals[~nan][order]
    assert (np.diff(sorted_vals) >= 0).all()  # -0 sorts just below +0
    lowest = (0x8000 | mirror._KEY16[dtype]) ^ 0xFFFF
    assert key[~nan].min() == lowest and vals[~nan][np.argmin(key[~nan])] == -np.inf


# --- the padding NaN fix-up -------------------------------------------------------------

def test_pad_band_is_exactly_the_padded_positions():
    rng = np.random.default_rng(0)
    for _ in range(300):
        h, w = rng.integers(1, 12, 2)
        k, s, p, d = rng.integers(1, 5, 2), rng.integers(1, 4, 2), rng.integers(0, 4, 2), rng.integers(1, 3, 2)
        oh = nn_fallback.out_size(h, k[0], s[0], p[0], d[0])
        ow = nn_fallback.out_size(w, k[1], s[1], p[1], d[1])
        if oh < 1 or ow < 1:
            continue
        top, bot, left, right = nn_launch.pad_band(h, w, oh, ow, k, s, p, d)
        band = oh * ow - (bot - top) * (right - left)
        a = dict(x0=top, x1=bot, x2=left, x3=right, OH=oh, OW=ow, P=band)
        bh, bw = mirror.band_positions(a)
        got = set(zip(bh.tolist(), bw.tolist()))
        assert len(got) == band
        ih = np.arange(oh)[:, None] * s[0] - p[0] + np.arange(k[0])[None, :] * d[0]
        iw = np.arange(ow)[:, None] * s[1] - p[1] + np.arange(k[1])[None, :] * d[1]
        row_out, col_out = ((ih < 0) | (ih >= h)).any(1), ((iw < 0) | (iw >= w)).any(1)
        want = {(i, j) for i in range(oh) for j in range(ow) if row_out[i] or col_out[j]}
        assert got == want


def skip_padding_conv(x, w, stride, padding, dilation, groups):
    """A convolution that skips the taps over the padding, as MIOpen/cuDNN do."""
    n, cin, h, wd = x.shape
    cout, cg, kh, kw = w.shape
    oh = nn_fallback.out_size(h, kh, stride[0], padding[0], dilation[0])
    ow = nn_fallback.out_size(wd, kw, stride[1], padding[1], dilation[1])
    out = np.zeros((n, cout, oh, ow))
    coutg = cout // groups
    with np.errstate(invalid="ignore", over="ignore"):
        for i, j in itertools.product(range(kh), range(kw)):
            ih = np.arange(oh) * stride[0] - padding[0] + i * dilation[0]
            iw = np.arange(ow) * stride[1] - padding[1] + j * dilation[1]
            ok = ((ih >= 0) & (ih < h))[:, None] & ((iw >= 0) & (iw < wd))[None, :]
            xs = x[:, :, np.clip(ih, 0, h - 1)][:, :, :, np.clip(iw, 0, wd - 1)]
            for g in range(groups):
                xg = xs[:, g * cg:(g + 1) * cg]
                wg = w[g * coutg:(g + 1) * coutg, :, i, j]
                prod = xg[:, None] * wg[None, :, :, None, None]  # (n, coutg, cg, oh, ow)
                out[:, g * coutg:(g + 1) * coutg] += np.where(ok, prod, 0.0).sum(axis=2)
    return out


class FakeMIOpen:
    def __init__(self, dev):
        self.dev, self.calls = dev, []

    def ready_plan(self, mode, dtype, x_shape, w_shape, y_shape, stride, padding, dilation, groups, x_ptr, w_ptr,
                   y_ptr, out_pad=(0, 0), channels_last=False):
        assert mode == miopen.CONVOLUTION and not channels_last  # NCHW forced below
        return (dtype, tuple(x_shape), tuple(w_shape), tuple(y_shape), stride, padding, dilation, groups)

    def run(self, plan, x_ptr, w_ptr, y_ptr):
        dtype, x_shape, w_shape, y_shape, stride, padding, dilation, groups = plan
        self.calls.append(tuple(padding))
        x = self.dev.view(x_ptr, dtype.numpy)[: math.prod(x_shape)].reshape(x_shape).astype(np.float64)
        w = self.dev.view(w_ptr, dtype.numpy)[: math.prod(w_shape)].reshape(w_shape).astype(np.float64)
        y = skip_padding_conv(x, w, stride, padding, dilation, groups)
        assert y.shape == tuple(y_shape)
        self.dev.view(y_ptr, dtype.numpy)[: y.size] = y.astype(dtype.numpy).ravel()
        return True


FIXUP = [  # x shape, (Cout, KH, KW), stride, padding, dilation, groups, bad taps (oc, ic, kh, kw, value)
    ((2, 3, 7, 6), (4, 3, 3), (1, 1), (1, 1), (1, 1), 1, [(1, 0, 0, 0, np.nan), (2, 2, 2, 1, np.inf)]),
    ((1, 4, 9, 8), (6, 3, 2), (2, 3), (2, 1), (1, 1), 2, [(0, 1, 2, 1, -np.inf), (5, 0, 1, 0, np.inf)]),
    ((2, 2, 8, 8), (2, 2, 3), (1, 2), (2, 1), (2, 3), 1, [(1, 1, 1, 2, np.inf)]),
    ((1, 4, 5, 5), (8, 3, 3), (1, 1), (1, 1), (1, 1), 4, [(3, 0, 1, 1, np.inf), (6, 0, 0, 2, np.nan)]),
    ((2, 3, 1, 9), (2, 1, 3), (1, 2), (0, 1), (1, 2), 1, [(0, 2, 0, 2, -np.inf)]),  # conv1d as H = 1
    ((1, 2, 6, 6), (3, 5, 7), (1, 1), (2, 3), (1, 1), 1, [(2, 1, 4, 6, np.inf), (0, 0, 2, 3, np.inf)]),
    ((1, 1, 4, 40), (2, 1, 40), (1, 1), (0, 20), (1, 1), 1, [(1, 0, 0, 35, np.inf)]),  # 2 mask words
    ((1, 2, 6, 6), (2, 3, 3), (1, 1), (1, 1), (1, 1), 1, []),  # finite: nothing changes
]


@pytest.mark.parametrize("case", FIXUP, ids=lambda c: f"{c[0]}-{c[1]}-s{c[2]}-p{c[3]}-g{c[5]}")
@pytest.mark.parametrize("dtype", [dt.float32, dt.float16, dt.bfloat16], ids=lambda d: d.name)
def test_miopen_padding_nan_fixup(dev, monkeypatch, case, dtype):
    xs, (cout, kh, kw), stride, padding, dilation, groups, bad = case
    fake = FakeMIOpen(dev)
    monkeypatch.setattr(nn_paths, "miopen_for", lambda device, op, dt_, mode=None: fake)
    monkeypatch.setenv(nn_paths.LAYOUT_ENV, "nchw")  # the fake device has no transpose kernel
    x = mirror._data(xs, dtype, 7)
    x[0, 0, 0, :2] = 0  # real zeros under an inf weight give NaN without any fix-up
    w = mirror._data((cout, xs[1] // groups, kh, kw), dtype, 8)
    for oc, ic, i, j, value in bad:
        w[oc, ic, i, j] = value
    xd, wd = mirror.upload(dev, x, dtype), mirror.upload(dev, w, dtype)
    with np.errstate(invalid="ignore", over="ignore"):
        ref = cpu_nn.conv("conv2d", x, w, stride, padding, dilation, groups)

    def call():
        if xs[2] == 1 and kh == 1:  # through the conv1d entry point
            return nn.conv1d(xd, Layout.contiguous((xs[0], xs[1], xs[3])), wd,
                             Layout.contiguous((cout, xs[1] // groups, kw)), stride[1], padding[1], dilation[1],
                             groups)
        return nn.conv2d(xd, Layout.contiguous(xs), wd, Layout.contiguous(w.shape), stride, padding, dilation,
                         groups)

    out = call()
    assert fake.calls == [tuple(padding)]  # MIOpen pads; no padded copy of the input
    got = mirror.download(dev, out, ref.shape).astype(np.float64)  # (NaN == NaN works for float64)
    np.testing.assert_array_equal(got, ref.astype(np.float64))
    again = call()  # the prepared path of a problem seen before
    assert fake.calls == [tuple(padding)] * 2 and again.ptr != out.ptr
    np.testing.assert_array_equal(mirror.download(dev, again, ref.shape).astype(np.float64), got)
    if bad:
        skipped = skip_padding_conv(x.astype(np.float64), w.astype(np.float64), stride, padding, dilation, groups)
        assert (np.isnan(got) & ~np.isnan(skipped)).any()  # the fix-up did something


def test_channels_last_layouts_map_elements_like_numpy():
    """The layouts nn._conv_channels_last copies through: (N, C, H, W) -> packed NHWC,
    and a packed NHWC result read back as (N, C, H, W)."""
    n, c, h, w = 2, 3, 4, 5
    base = np.arange(7 + n * c * h * w)
    nchw = base[7:].reshape(n, c, h, w)
    perm = nn._permuted_nhwc(Layout((n, c, h, w), (c * h * w, h * w, w, 1), 7))
    idx = np.indices(perm.shape).reshape(len(perm.shape), -1)
    gathered = base[perm.offset + sum(i * s for i, s in zip(idx, perm.strides))]
    np.testing.assert_array_equal(gathered, nchw.transpose(0, 2, 3, 1).ravel())
    nhwc = np.ascontiguousarray(nchw.transpose(0, 2, 3, 1)).ravel()
    back = Layout((n, c, h, w), (h * w * c, 1, w * c, c), 0)
    idx = np.indices(back.shape).reshape(4, -1)
    np.testing.assert_array_equal(nhwc[sum(i * s for i, s in zip(idx, back.strides))], nchw.ravel())


@pytest.mark.parametrize("dtype", [dt.float32, dt.float16], ids=lambda d: d.name)
def test_fixup_skipped_once_the_weight_is_known_finite(dev, monkeypatch, dtype):
    """rocm_backend.families.pad_fixup_cache: the second call on an unchanged weight queues the
    finite_flag check; from the third on the fix-up is skipped while the weight is
    finite. A write into the weight (its version changes) brings the fix-up back, and a
    non-finite weight keeps it."""
    fake = FakeMIOpen(dev)
    monkeypatch.setattr(nn_paths, "miopen_for", lambda device, op, dt_, mode=None: fake)
    monkeypatch.setenv(nn_paths.LAYOUT_ENV, "nchw")
    launched = []

    def counting_prepare(device, key, n, *args, **kwargs):
        prepared = mirror.emu_prepare(device, key, n, *args, **kwargs)

        def launch(out_ptr, in_ptr):
            launched.append(key[1])
            prepared.run(out_ptr, in_ptr)
        return types.SimpleNamespace(run=launch)

    monkeypatch.setattr(nn_launch, "prepare", counting_prepare)
    xs, ws, stride, padding = (2, 3, 7, 6), (4, 3, 3, 3), (1, 1), (1, 1)
    x, w = mirror._data(xs, dtype, 3), mirror._data(ws, dtype, 4)
    xd, wd = mirror.upload(dev, x, dtype), mirror.upload(dev, w, dtype)

    def call_and_compare():
        out = nn.conv2d(xd, Layout.contiguous(xs), wd, Layout.contiguous(ws), stride, padding, (1, 1), 1)
        weights = mirror.download(dev, wd, ws)
        with np.errstate(invalid="ignore", over="ignore"):
            ref = cpu_nn.conv("conv2d", x, weights, stride, padding, (1, 1), 1)
        np.testing.assert_array_equal(mirror.download(dev, out, ref.shape).astype(np.float64),
                                      ref.astype(np.float64))

    for _ in range(4):
        call_and_compare()
    assert launched == ["pad_nan", "finite_flag", "pad_nan"]  # calls 3 and 4 skip it
    assert pad_fixup_cache.probe_of(wd.buffer).finite_at == wd.buffer.version

    dev.view(wd.ptr, dtype.numpy)[5] = np.inf  # a write into the weight, as assign would make
    wd.buffer.version += 1
    del launched[:]
    for _ in range(4):
        call_and_compare()
    assert launched == ["pad_nan", "finite_flag", "pad_nan", "pad_nan", "pad_nan"]
    assert pad_fixup_cache.probe_of(wd.buffer).finite_at != wd.buffer.version


def test_finite_flags_ring_forgets_overwritten_checks(dev):
    """A queued check whose slots the ring handed out again is asked anew."""
    st = mirror.upload(dev, np.ones(10, np.float32), dt.float32)
    flags = dev.family_state("finite_flags", pad_fixup_cache.FiniteFlags)
    assert not pad_fixup_cache.known_finite(st)  # seen
    assert not pad_fixup_cache.known_finite(st)  # check queued (it ran: the emulation is eager)
    probe = pad_fixup_cache.probe_of(st.buffer)
    flags.owner[probe.start] = object()  # its first slot went to another check
    assert not pad_fixup_cache.known_finite(st) and probe.state == "seen"
    assert not pad_fixup_cache.known_finite(st)  # queued again
    assert pad_fixup_cache.known_finite(st) and probe.finite_at == st.buffer.version
    pad_fixup_cache.share(st.buffer)  # exported through DLPack: never trusted again
    assert not pad_fixup_cache.known_finite(st) and not pad_fixup_cache.known_finite(st)


def test_without_pinned_memory_nothing_is_learnt_and_nothing_fails(dev, monkeypatch):
    """No pinned host memory (hipHostMalloc fails): the convolution keeps its fix-up."""

    def refuse(nbytes):
        raise RocmError("hipHostMalloc", 2)

    monkeypatch.setattr(dev, "host_mapped", refuse, raising=False)
    st = mirror.upload(dev, np.ones(10, np.float32), dt.float32)
    flags = dev.family_state("finite_flags", pad_fixup_cache.FiniteFlags)
    assert not any(pad_fixup_cache.known_finite(st) for _ in range(4))
    assert "hipHostMalloc" in flags.unavailable and pad_fixup_cache.probe_of(st.buffer).finite_at == -1


def test_finite_flags_ignore_values_another_check_wrote(dev, monkeypatch):
    """A recycled slot can receive a late value of the older check that had it: only
    values carrying this check's tag count."""
    never = types.SimpleNamespace(run=lambda out_ptr, in_ptr: None)  # the check's launch never runs
    monkeypatch.setattr(nn_launch, "prepare", lambda *a, **k: never)
    st = mirror.upload(dev, np.ones(10, np.float32), dt.float32)
    assert not pad_fixup_cache.known_finite(st)  # seen
    assert not pad_fixup_cache.known_finite(st)  # queued; the kernel has not run
    probe = pad_fixup_cache.probe_of(st.buffer)
    assert list(probe.cells) == [-1]
    probe.cells[0] = 2 * (probe.tag - 1)  # an older check's "all finite"
    assert not pad_fixup_cache.known_finite(st) and probe.state == "queued"
    probe.cells[0] = 2 * probe.tag + 1  # this check: an inf or NaN
    assert not pad_fixup_cache.known_finite(st) and probe.state == "non-finite"


class _FakePlan:
    def __init__(self, key):
        self.key, self.alive, self.workspace = key, True, 64
        self.x = self.w = self.y = self.conv = None
        self.algo = 0

    def release(self):
        self.alive = False


@pytest.mark.parametrize("status, declined", [(3, True), (6, True), (5, False)])
def test_a_plan_miopen_declines_at_run_time_is_dropped(dev, status, declined):
    """DeviceMIOpen.run: a declining status (BadParm, NotImplemented, ...) from the forward
    call of a found plan marks its problem declined and returns False (the caller takes
    our kernels); any other failure raises."""
    mio = object.__new__(miopen.DeviceMIOpen)
    mio.device, mio.lock = dev, __import__("threading").RLock()
    mio.plans, mio.stats = {}, {"declined_at_run": 0}
    on_stream = miopen._OnStream(None)  # the stream's handle (none needed) and kept workspace
    mio._on_stream = lambda: on_stream
    mio._one = mio._zero = None
    calls = []
    mio._forward = lambda *args: calls.append(args[-2:]) or status
    mio._workspace = lambda nbytes: mirror.upload(dev, np.zeros(nbytes, np.uint8), dt.uint8).buffer
    plan = _FakePlan(("problem",))
    mio.plans[plan.key] = plan
    if declined:
        assert mio.run(plan, 1, 2, 3) is False
        assert isinstance(mio.plans[plan.key], miopen.MIOpenError) and not plan.alive
        assert mio.stats["declined_at_run"] == 1 and calls[0][1] == 64  # the workspace went along
        assert mio.run(plan, 1, 2, 3) is False and len(calls) == 1  # never run again
    else:
        with pytest.raises(miopen.MIOpenError, match="InternalError"):
            mio.run(plan, 1, 2, 3)
        assert plan.alive
