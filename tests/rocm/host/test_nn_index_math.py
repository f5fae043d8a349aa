"""The rocm nn fallback's index math, on the CPU (no GPU, no HIP).

``rocm_backend.families.nn_fallback`` runs unchanged over a fake device whose "device memory" is
a host buffer: its pointer arithmetic, strides, batch chunking and GEMM arrangement are
the real ones. The two things it queues are replaced by NumPy mirrors of the same
algorithms: each nn kernel of ``hip/nn.hip`` (same decode, same incremental walk over
the positions of a row for the grid ``nn_launch.launch_config`` picks, same window
arithmetic, reading the ``cw_nn_args`` values that ``nn_launch.nn_values`` packs) and
hipBLAS's column-major strided batched GEMM. Results are compared with the cpu
backend's vectorized nn (cpu_backend/nn.py), an independent implementation.
tests/rocm/host/test_nn_pad_fixup.py reuses these mirrors for the MIOpen padding fix-up.
"""

import math
import types

import ml_dtypes
import numpy as np
import pytest

from candlewick import dtypes as dt
from candlewick.layout import Layout
from cpu_backend import nn as cpu_nn
from rocm_backend import ops
from rocm_backend.abi import structs
from rocm_backend.families import nn_fallback, nn_launch
from rocm_backend.runtime.launcher import LaunchMemo
from rocm_backend.storage import RocmStorage


class FakeAllocator:
    """Bump allocation inside one host buffer; pointers are real host addresses."""

    def __init__(self, heap):
        self.heap, self.base, self.top = heap, heap.ctypes.data, 0

    def allocate(self, nbytes):
        if nbytes <= 0:
            return 0, 0
        size = -(-nbytes // 256) * 256
        ptr = self.base + self.top
        self.top += size
        assert self.top <= self.heap.size, "fake device memory exhausted"
        return ptr, size

    def release(self, ptr, size):
        pass


class FakeDevice:
    name, arch, multiprocessors, stream = "rocm:fake", "fake", 4, None
    storage_type = RocmStorage

    def __init__(self):
        self.heap = np.zeros(64 << 20, np.uint8)
        self.allocator = FakeAllocator(self.heap)
        # the op families' per-device state and prepared launches, as device.RocmDevice keeps them
        self.launches = LaunchMemo()
        self._families = {}
        self.capture, self.replay_epoch = None, 0  # graph state (runtime/capture.py): none here

    def make_current(self):
        pass

    def family_state(self, name, make=None):  # RocmDevice's, without its lock (one thread here)
        if name not in self._families and make is not None:
            self._families[name] = make(self)
        return self._families.get(name)

    def host_mapped(self, nbytes):
        ptr, _ = self.allocator.allocate(nbytes)
        return ptr, ptr

    def view(self, ptr, np_dtype):
        """Every element from ``ptr`` to the end of the heap, as ``np_dtype``."""
        return np.frombuffer(self.heap, np_dtype, offset=ptr - self.allocator.base)


def upload(dev, array, dtype):
    array = np.ascontiguousarray(array, dtype=dtype.numpy)
    st = RocmStorage.empty(dev, dtype, array.size)
    dev.view(st.ptr, dtype.numpy)[: array.size] = array.ravel()
    return st


def download(dev, st, shape):
    return dev.view(st.ptr, st.dtype.numpy)[: math.prod(shape)].reshape(shape).copy()


# --- NumPy mirrors of hip/nn.hip ---------------------------------------------------

_RAW = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def _args(values):
    names = ["out", "in", "in_offset", "n"] + list(nn_launch.DIM_FIELDS)
    return dict(zip(names, values))


def emu_rows(a, gx):
    """Rows in the order CW_NN_ROWS visits them (each exactly once)."""
    slots = ops.NN_BLOCK >> a["TPL"]
    seen = [row for bx in range(gx) for slot in range(slots)
            for row in range(bx * slots + slot, a["rows"], gx * slots)]
    assert sorted(seen) == list(range(a["rows"]))


def emu_walk(a, gy, SH=1, SW=1, PH=0, PW=0):
    """cw_nn_walk and the incremental step of the row kernels, for every thread of a row
    at once: per position p, the (oh, ow) and window origin (ih0, iw0) a thread holds
    when it reaches p. Asserts that the threads cover each position exactly once."""
    tp, OW, P = 1 << a["TPL"], a["OW"], a["P"]
    p = np.arange(gy * tp)  # p0 = blockIdx.y * tp + lane
    oh, ow = p // OW, p % OW
    L = gy * tp
    dq, dr = L // OW, L % OW
    ih, iw = oh * SH - PH, ow * SW - PW
    out = {k: np.full(P, -(1 << 40)) for k in ("oh", "ow", "ih", "iw")}
    hits = np.zeros(P, np.int64)
    while (p < P).any():
        live = p < P
        for k, v in (("oh", oh), ("ow", ow), ("ih", ih), ("iw", iw)):
            out[k][p[live]] = v[live]
        np.add.at(hits, p[live], 1)
        p = p + L
        ow, oh, ih, iw = ow + dr, oh + dq, ih + dq * SH, iw + dr * SW
        wrap = ow >= OW
        ow, oh = np.where(wrap, ow - OW, ow), np.where(wrap, oh + 1, oh)
        ih, iw = np.where(wrap, ih + SH, ih), np.where(wrap, iw - OW * SW, iw)
    assert (hits == 1).all()
    pp = np.arange(P)
    assert (out["oh"] == pp // OW).all() and (out["ow"] == pp % OW).all()
    return out


def emu_im2col(dev, a, item, gx, gy):
    emu_rows(a, gx)
    walk = emu_walk(a, gy, a["SH"], a["SW"], a["PH"], a["PW"])
    r = np.arange(a["rows"])[:, None]
    taps = a["KH"] * a["KW"]
    plane, t = r // taps, r % taps
    kh, kw = t // a["KW"], t % a["KW"]
    n, c = plane // a["C"], plane % a["C"]
    ih = walk["ih"][None, :] + kh * a["DH"]
    iw = walk["iw"][None, :] + kw * a["DW"]
    ok = (ih >= 0) & (ih < a["H"]) & (iw >= 0) & (iw < a["W"])
    src = a["in_offset"] + n * a["in_sN"] + c * a["in_sC"] + ih * a["in_sH"] + iw * a["in_sW"]
    out = np.zeros(ok.shape, _RAW[item])
    out[ok] = dev.view(a["in"], _RAW[item])[src[ok]]
    assert out.size == a["n"]
    dev.view(a["out"], _RAW[item])[: a["n"]] = out.ravel()


def emu_col2im(dev, a, dtype):
    acc_np = ops.nn_accumulator(dtype).numpy
    i = np.arange(a["n"])
    ow, rest = i % a["OW"], i // a["OW"]
    oh, rest = rest % a["OH"], rest // a["OH"]
    co, n = rest % a["C"], rest // a["C"]
    cog = a["x0"]
    g, cl = co // cog, co % cog
    P, Kc = a["H"] * a["W"], cog * a["KH"] * a["KW"]
    cols = dev.view(a["in"], acc_np)
    total = np.zeros(a["n"], acc_np)
    for kh in range(a["KH"]):
        hn = oh + a["PH"] - kh * a["DH"]
        for kw in range(a["KW"]):
            wn = ow + a["PW"] - kw * a["DW"]
            ok = (hn >= 0) & ((hn // a["SH"]) * a["SH"] == hn) & (hn // a["SH"] < a["H"])
            ok &= (wn >= 0) & ((wn // a["SW"]) * a["SW"] == wn) & (wn // a["SW"] < a["W"])
            idx = ((n * a["G"] + g) * Kc + cl * a["KH"] * a["KW"] + kh * a["KW"] + kw) * P
            idx = idx + (hn // a["SH"]) * a["W"] + wn // a["SW"]
            total[ok] += cols[idx[ok]]
    dev.view(a["out"], dtype.numpy)[: a["n"]] = total.astype(dtype.numpy)


def max_key16(bits, inf_bits):
    """cw_maxkey16: (key, is NaN) of raw 16-bit float patterns."""
    bits = bits.astype(np.uint32)
    return bits ^ np.where(bits & 0x8000, 0xFFFF, 0x8000), (bits & 0x7FFF) > inf_bits


def max_value16(key):
    return np.where(key & 0x8000, key ^ 0x8000, key ^ 0xFFFF).astype(np.uint16)


_KEY16 = {dt.float16: 0x7C00, dt.bfloat16: 0x7F80}


def emu_pool(dev, a, dtype, kind, gx, gy):
    emu_rows(a, gx)
    walk = emu_walk(a, gy, a["SH"], a["SW"], a["PH"], a["PW"])
    row = np.arange(a["rows"])[:, None]
    base = a["in_offset"] + (row // a["C"]) * a["in_sN"] + (row % a["C"]) * a["in_sC"]
    ih0, iw0 = walk["ih"][None, :], walk["iw"][None, :]
    shape = (a["rows"], a["P"])
    if kind == "max_pool" and dtype in _KEY16:  # raw-bit keys, as cw_maxkey16
        raw = dev.view(a["in"], np.uint16)
        best = np.full(shape, (0x8000 | _KEY16[dtype]) ^ 0xFFFF, np.uint32)
        nan_key = np.zeros(shape, np.uint32)
        found = np.zeros(shape, bool)
        for kh in range(a["KH"]):
            ih = ih0 + kh * a["DH"]
            for kw in range(a["KW"]):
                iw = iw0 + kw * a["DW"]
                ok = (ih >= 0) & (ih < a["H"]) & (iw >= 0) & (iw < a["W"]) & ~found
                key, nan = max_key16(raw[np.where(ok, base + ih * a["in_sH"] + iw * a["in_sW"], 0)], _KEY16[dtype])
                nan_key = np.where(ok & nan, key, nan_key)
                found |= ok & nan
                best = np.where(ok & ~nan & (key > best), key, best)
        result = max_value16(np.where(found, nan_key, best))
        dev.view(a["out"], np.uint16)[: a["n"]] = result.ravel()
        return
    x = dev.view(a["in"], dtype.numpy).astype(np.float64)
    best = np.full(shape, -np.inf)
    total, count = np.zeros(shape), np.zeros(shape)
    dh, dw = (a["DH"], a["DW"]) if kind == "max_pool" else (1, 1)
    for kh in range(a["KH"]):
        ih = ih0 + kh * dh
        for kw in range(a["KW"]):
            iw = iw0 + kw * dw
            ok = (ih >= 0) & (ih < a["H"]) & (iw >= 0) & (iw < a["W"])
            v = np.where(ok, x[np.where(ok, base + ih * a["in_sH"] + iw * a["in_sW"], 0)], np.nan)
            best = np.where(ok & (np.isnan(v) | (v > best) | np.isnan(best)),
                            np.where(np.isnan(best), best, v), best)
            total += np.where(ok, v, 0.0)
            count += ok
    if kind == "max_pool":
        result = best
    else:  # the kernel counts the clipped window: the same number
        result = total / (a["KH"] * a["KW"] if a["x0"] else count)
    dev.view(a["out"], dtype.numpy)[: a["n"]] = result.astype(dtype.numpy).ravel()


def emu_upsample(dev, a, item, gx, gy):
    emu_rows(a, gx)
    walk = emu_walk(a, gy)
    row = np.arange(a["rows"])[:, None]
    base = a["in_offset"] + (row // a["C"]) * a["in_sN"] + (row % a["C"]) * a["in_sC"]
    src = base + (walk["oh"] * a["H"] // a["OH"]) * a["in_sH"] + (walk["ow"] * a["W"] // a["OW"]) * a["in_sW"]
    dev.view(a["out"], _RAW[item])[: a["n"]] = dev.view(a["in"], _RAW[item])[src].ravel()


def band_positions(a):
    """cw_pad_nan's decode of band index j -> (oh, ow)."""
    top, bot, left, right, OW = a["x0"], a["x1"], a["x2"], a["x3"], a["OW"]
    band_rows, band_cols = a["OH"] - (bot - top), OW - (right - left)
    j = np.arange(a["P"])
    k, ow = j // OW, j % OW
    oh = np.where(k < top, k, bot + (k - top))
    j2 = j - band_rows * OW
    k2, kc = j2 // max(band_cols, 1), j2 % max(band_cols, 1)
    second = j >= band_rows * OW
    return np.where(second, top + k2, oh), np.where(second, np.where(kc < left, kc, right + (kc - left)), ow)


def emu_pad_nan(dev, a, dtype):
    taps = a["KH"] * a["KW"]
    assert a["in_sN"] % taps == 0
    w = dev.view(a["in"], dtype.numpy)[: a["C"] * a["in_sN"]].astype(np.float64)
    with np.errstate(invalid="ignore"):
        bad = ~((w - w) == 0)
    flagged = bad.reshape(a["C"], a["in_sN"] // taps, taps).any(axis=1)
    out = dev.view(a["out"], dtype.numpy)[: a["n"]].reshape(a["N"], a["C"], a["OH"], a["OW"])
    oh, ow = band_positions(a)
    assert a["rows"] == a["N"] * a["P"]
    for oc in np.nonzero(flagged.any(axis=1))[0]:
        nan = np.zeros(a["P"], bool)
        for kh in range(a["KH"]):
            ih = oh * a["SH"] - a["PH"] + kh * a["DH"]
            for kw in range(a["KW"]):
                if flagged[oc, kh * a["KW"] + kw]:
                    iw = ow * a["SW"] - a["PW"] + kw * a["DW"]
                    nan |= (ih < 0) | (ih >= a["H"]) | (iw < 0) | (iw >= a["W"])
        out[:, oc, oh[nan], ow[nan]] = np.nan


def emu_prepare(device, key, n, in_offset=0, extent=0, **dims):
    """``nn_launch.prepare`` on the mirrors: its launch (``run``) runs the NumPy emulation."""
    return types.SimpleNamespace(
        run=lambda out_ptr, in_ptr: emu_launch(device, key, n, out_ptr, in_ptr, in_offset, extent, **dims))


def emu_finite_flag(device, a, dtype, gx):
    """cw_finite_flag: block b flags the elements of its grid-stride share (2 * tag + flag)."""
    data = device.view(a["in"], dtype.numpy)[: a["n"]].astype(np.float64)
    block_of = (np.arange(a["n"]) // ops.NN_BLOCK) % gx
    bad = ~np.isfinite(data)
    device.view(a["out"], np.int32)[:gx] = [2 * a["x0"] + int(bad[block_of == b].any()) for b in range(gx)]


_DTYPES = {d.name: d for d in dt.ALL_DTYPES}


def emu_launch(device, key, n, out_ptr, in_ptr, in_offset=0, extent=0, **dims):
    if n <= 0:
        return
    gx, gy, dims = nn_launch.launch_config(key, n, dims, device.multiprocessors)
    a = _args(nn_launch.nn_values(out_ptr, in_ptr, in_offset, n, extent, **dims))
    kind, arg = key[1], _DTYPES.get(key[2], key[2])  # dtypes by name in the table's keys
    if kind == "im2col":
        emu_im2col(device, a, arg, gx, gy)
    elif kind == "col2im":
        emu_col2im(device, a, arg)
    elif kind in ("max_pool", "avg_pool"):
        emu_pool(device, a, arg, kind, gx, gy)
    elif kind == "upsample":
        emu_upsample(device, a, arg, gx, gy)
    elif kind == "pad_nan":
        emu_pad_nan(device, a, arg)
    elif kind == "finite_flag":
        emu_finite_flag(device, a, arg, gx)
    else:
        raise AssertionError(f"unexpected kernel {key}")


def emu_gemm(device, in_dtype, out_dtype, trans_a, trans_b, m, n, k, a, lda, stride_a, b, ldb, stride_b,
             c, ldc, stride_c, batch):
    """Column-major strided batched GEMM: C_b = op(A_b) op(B_b), element (r, s) of a stored
    matrix at base + r + s * ld."""
    a_mem = device.view(a, in_dtype.numpy).astype(np.float64)
    b_mem = device.view(b, in_dtype.numpy).astype(np.float64)
    c_mem = device.view(c, out_dtype.numpy)

    def stored(mem, base, rows, cols, ld):
        r, s = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
        return mem[base + r + s * ld]

    for i in range(batch):
        A = stored(a_mem, i * stride_a, k, m, lda).T if trans_a else stored(a_mem, i * stride_a, m, k, lda)
        B = stored(b_mem, i * stride_b, n, k, ldb).T if trans_b else stored(b_mem, i * stride_b, k, n, ldb)
        r, s = np.meshgrid(np.arange(m), np.arange(n), indexing="ij")
        c_mem[i * stride_c + r + s * ldc] = (A @ B).astype(out_dtype.numpy)


@pytest.fixture(params=[4, 132], ids=["sm4", "sm132"])
def dev(monkeypatch, request):
    """A fake device of 4 multiprocessors (few lanes per row, many rows per block) or
    132 (an H100/H200: rows shared by several block rows, gridDim.y > 1)."""
    monkeypatch.setattr(nn_launch, "prepare", emu_prepare)
    monkeypatch.setattr(nn_fallback, "gemm", emu_gemm)
    device = FakeDevice()
    device.multiprocessors = request.param
    return device


def _data(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    return rng.integers(-4, 5, shape).astype(dtype.numpy)  # small integers: sums are exact


CONV2D = [  # (N, Cin, H, W), (Cout, KH, KW), stride, padding, dilation, groups
    ((2, 3, 7, 6), (4, 3, 3), (1, 1), (1, 1), (1, 1), 1),
    ((1, 4, 9, 8), (6, 3, 2), (2, 3), (0, 1), (1, 1), 2),
    ((2, 2, 8, 8), (2, 2, 3), (1, 2), (2, 1), (2, 3), 1),
    ((3, 4, 5, 5), (8, 3, 3), (1, 1), (1, 1), (1, 1), 4),  # depthwise, 2 outputs per channel
    ((2, 6, 4, 5), (4, 1, 1), (1, 1), (0, 0), (1, 1), 2),  # 1x1: no im2col
    ((2, 4, 7, 7), (3, 1, 1), (2, 2), (0, 0), (1, 1), 1),  # 1x1 with stride: im2col
    ((2, 3, 1, 9), (2, 1, 3), (1, 2), (0, 1), (1, 2), 1),  # a conv1d as H = 1
]


@pytest.mark.parametrize("case", CONV2D, ids=lambda c: f"{c[0]}-{c[1]}-g{c[5]}")
@pytest.mark.parametrize("dtype", [dt.float32, dt.float16, dt.bfloat16, dt.float64], ids=lambda d: d.name)
def test_conv2d_im2col_gemm(dev, case, dtype):
    xs, (cout, kh, kw), stride, padding, dilation, groups = case
    x, w = _data(xs, dtype, 0), _data((cout, xs[1] // groups, kh, kw), dtype, 1)
    out = nn_fallback.conv2d(upload(dev, x, dtype), Layout.contiguous(xs), upload(dev, w, dtype),
                             Layout.contiguous(w.shape), stride, padding, dilation, groups)
    ref = cpu_nn.conv("conv2d", x, w, stride, padding, dilation, groups)
    np.testing.assert_array_equal(download(dev, out, ref.shape), ref)


def test_conv2d_strided_input_and_batch_chunks(dev, monkeypatch):
    monkeypatch.setattr(nn_fallback, "WORKSPACE_BYTES", 1)  # one batch item per chunk
    base = _data((3, 8, 10, 9), dt.float32, 2)
    x = base[:, 1::2, ::-1, 2:]  # channel step, reversed rows, offset
    st = upload(dev, base, dt.float32)
    s = base.strides
    layout = Layout(x.shape, (s[0] // 4, 2 * s[1] // 4, -s[2] // 4, s[3] // 4),
                    (1 * s[1] + 9 * s[2] + 2 * s[3]) // 4)
    w = _data((6, 2, 3, 2), dt.float32, 3)
    out = nn_fallback.conv2d(st, layout, upload(dev, w, dt.float32), Layout.contiguous(w.shape),
                             (2, 1), (1, 0), (1, 2), 2)
    ref = cpu_nn.conv("conv2d", np.ascontiguousarray(x), w, (2, 1), (1, 0), (1, 2), 2)
    np.testing.assert_array_equal(download(dev, out, ref.shape), ref)


CONV_T = [  # (N, Cin, H, W), (Cout/G, KH, KW), stride, padding, output_padding, dilation, groups
    ((2, 3, 4, 5), (2, 3, 3), (2, 2), (1, 1), (1, 1), (1, 1), 1),
    ((1, 4, 3, 3), (3, 2, 3), (1, 3), (0, 1), (0, 2), (2, 1), 2),
    ((2, 2, 5, 1), (1, 3, 1), (3, 1), (1, 0), (2, 0), (1, 1), 2),
    ((1, 3, 1, 6), (2, 1, 4), (1, 2), (0, 2), (0, 1), (1, 2), 1),  # a conv_transpose1d
]


@pytest.mark.parametrize("case", CONV_T, ids=lambda c: f"{c[0]}-{c[1]}-g{c[6]}")
@pytest.mark.parametrize("dtype", [dt.float32, dt.float16, dt.float64], ids=lambda d: d.name)
def test_conv_transpose2d_gemm_col2im(dev, case, dtype, monkeypatch):
    monkeypatch.setattr(nn_fallback, "WORKSPACE_BYTES", 4096)  # several batch chunks
    xs, (coutg, kh, kw), stride, padding, out_pad, dilation, groups = case
    x, w = _data(xs, dtype, 4), _data((xs[1], coutg, kh, kw), dtype, 5)
    out = nn_fallback.conv_transpose2d(upload(dev, x, dtype), Layout.contiguous(xs), upload(dev, w, dtype),
                                       Layout.contiguous(w.shape), stride, padding, out_pad, dilation, groups)
    ref = cpu_nn.conv_transpose("conv_transpose2d", x, w, stride, padding, out_pad, dilation, groups)
    np.testing.assert_array_equal(download(dev, out, ref.shape), ref)


@pytest.mark.parametrize("dtype", [dt.float32, dt.bfloat16], ids=lambda d: d.name)
def test_pooling_and_upsample(dev, dtype):
    x = np.random.default_rng(6).standard_normal((2, 3, 7, 8)).astype(dtype.numpy)
    x[0, 1, 2, 3] = np.nan
    xt = np.ascontiguousarray(x.transpose(0, 1, 3, 2))  # store transposed, view back
    st = upload(dev, xt, dtype)
    layout = Layout.contiguous(xt.shape).transpose_last2()
    got = nn_fallback.max_pool2d(st, layout, (3, 2), (2, 2), (1, 1), (2, 1))
    ref = cpu_nn.max_pool2d(x, (3, 2), (2, 2), (1, 1), (2, 1))
    np.testing.assert_array_equal(download(dev, got, ref.shape), ref)
    for include in (True, False):
        got = nn_fallback.avg_pool2d(st, layout, (3, 3), (2, 1), (1, 1), include)
        ref = cpu_nn.avg_pool2d(x, (3, 3), (2, 1), (1, 1), include)
        np.testing.assert_allclose(download(dev, got, ref.shape).astype(np.float64),
                                   ref.astype(np.float64), rtol=0, atol=2e-2 if dtype is dt.bfloat16 else 1e-6)
    got = nn_fallback.upsample_nearest2d(st, layout, 11, 5)
    ref = cpu_nn.upsample_nearest2d(x, 11, 5)
    assert download(dev, got, ref.shape).tobytes() == np.ascontiguousarray(ref).tobytes()


def test_batch_chunk_bounds():
    assert nn_fallback.batch_chunk(32, 1 << 30, 1 << 29) == 1
    assert nn_fallback.batch_chunk(32, 1 << 20, 1 << 29) == 32
    assert nn_fallback.batch_chunk(32, 3 << 24, 1 << 29) == 10
    assert nn_fallback.batch_chunk(5, 0) == 5


def test_nn_values_layout_matches_the_struct():
    values = nn_launch.nn_values(0x1000, 0x2000, 3, 10, KH=3, G=2)
    assert len(values) == 4 + len(nn_launch.DIM_FIELDS)
    assert structs.NN_ARGS.size == 8 * len(values)  # every field is 8 bytes, no padding
    a = _args(values)
    assert (a["KH"], a["KW"], a["SH"], a["G"], a["x0"], a["index32"]) == (3, 1, 1, 2, 0, 1)
    assert _args(nn_launch.nn_values(0, 0, 0, 1 << 31))["index32"] == 0
    with pytest.raises(TypeError):
        nn_launch.nn_values(0, 0, 0, 1, KX=1)


def test_bfloat16_is_ml_dtypes():
    assert dt.bfloat16.numpy == np.dtype(ml_dtypes.bfloat16)
