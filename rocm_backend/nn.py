"""The nn primitives of the ROCm backend: which path runs each one.

* MIOpen (``miopen.py``), when ``libMIOpen.so`` loads and its handle can be created:
  conv1d/conv2d and conv_transpose1d/2d for float16/bfloat16/float32, and average
  pooling for float16/float32. MIOpen/cuDNN skip the taps that fall on a convolution's
  zero padding, where IEEE arithmetic on the padded zeros (the contract, NumPy, the cpu
  backend) adds w * 0: NaN for an inf or NaN weight, +-0 otherwise (which changes no
  sum: accumulations start from +0, so neither MIOpen nor the cpu backend's BLAS ends
  at -0 through them). So a padded convolution runs with MIOpen's own padding and then
  one pad_nan kernel (``_padding_nan_fixup``) writes NaN where a non-finite weight meets
  the padding. A weight buffer met again unchanged is checked once on the device
  (``finite_weights.py``, read back without a synchronization); while it is known finite
  the fix-up is not launched at all.
  Transposed convolutions need no fix-up: their "padding" crops the output, and both
  MIOpen and the contract (GEMM + col2im) sum only products of real inputs.
  1x1 convolutions go to MIOpen too (through the shim's cached cuDNN plans that was
  cheaper on the host than our hipBLAS call). ``CANDLEWICK_ROCM_CONV_LAYOUT=nhwc`` runs
  MIOpen convolutions channels-last (``_channels_last`` says when that pays).
* Our kernels (``nn_fallback.py``: im2col + hipBLAS GEMM, GEMM + col2im, pooling and
  upsampling kernels of ``hip/nn.hip``): everything else, float64 convolutions (MIOpen
  has no general double-precision convolution), max pooling (measured as fast as
  MIOpen's, and exact where MIOpen's is not: a window of -inf gives -inf, not the
  lowest finite value), bfloat16/float64 or dilated pooling, nearest upsampling, any
  problem MIOpen declines, and every primitive when MIOpen is missing.

``CANDLEWICK_ROCM_NN`` (read at each call): unset or ``auto`` as above; ``fallback``
uses our kernels only; ``miopen`` requires MIOpen where it applies (an error instead of
the fallback when the library is missing) and also sends float16/float32 max pooling
without dilation to MIOpen, with MIOpen's semantics. ``describe()`` is what
``candlewick.backends()`` shows as the rocm backend's ``nn`` detail. 1-D problems are
2-D problems of height 1.
"""

import collections
import functools
import os
import threading

from candlewick import dtypes as dt
from candlewick.errors import UnsupportedOperation
from candlewick.layout import Layout, shape_size

from . import miopen, nn_fallback, nn_kernels
from .finite_weights import known_finite
from .nn_fallback import contiguous, out_size, transpose_size
from .storage import RocmStorage

ENV = "CANDLEWICK_ROCM_NN"
LAYOUT_ENV = "CANDLEWICK_ROCM_CONV_LAYOUT"
MIOPEN_CONV_DTYPES = (dt.float16, dt.bfloat16, dt.float32)
MIOPEN_POOL_DTYPES = (dt.float16, dt.float32)
_ALIGN = 256  # bytes: MIOpen gets buffers at least this aligned (ours always are)

#: (primitive, path) -> calls, for tests and benchmarks ("miopen", "fallback")
path_counts = collections.Counter()
_count_lock = threading.Lock()


def _env_reader(name):
    """A function returning the environment variable ``name`` now (None when unset; str
    or bytes, for keys and comparisons only). ``os.environ.get`` of an unset name costs
    about a microsecond (a KeyError inside), paid twice per convolution; on POSIX
    ``os.environ`` keeps its encoded entries in the dict ``_data``, which every
    ``os.environ`` write updates, so a lookup there sees the same values for ~50 ns."""
    data = getattr(os.environ, "_data", None)
    if os.name == "posix" and isinstance(data, dict):
        return functools.partial(data.get, os.fsencode(name))
    return functools.partial(os.environ.get, name)


_mode_setting = _env_reader(ENV)
_layout_setting = _env_reader(LAYOUT_ENV)


def _setting(raw, default):
    return (os.fsdecode(raw) if raw is not None else default).strip().lower() or default


def requested():
    mode = _setting(_mode_setting(), "auto")
    if mode not in ("auto", "fallback", "miopen"):
        raise ValueError(f"{ENV}={mode!r}: expected auto, fallback or miopen")
    return mode


def _count(op, path):
    _tally((op, path))


def _tally(key, _get=path_counts.get):
    _count_lock.acquire()  # no exception can come between (a dict update of a tuple key)
    path_counts[key] = _get(key, 0) + 1
    _count_lock.release()


def _miopen_for(device, op, dtype, mode=None):
    """The device's MIOpen state when this call should use it, else None (``mode``:
    requested(), when the caller has it already)."""
    mode = mode or requested()
    if mode == "fallback":
        return None
    state = miopen.for_device(device)
    if isinstance(state, miopen.DeviceMIOpen):
        return state
    if mode == "miopen":
        raise UnsupportedOperation(op, dtype, "rocm", f"{ENV}=miopen but MIOpen is unusable: {state}")
    return None


def describe(devices=()):
    """The ``nn`` line of the backend's details()."""
    mode = requested()
    if mode == "fallback":
        return f"im2col+GEMM fallback (forced by {ENV}=fallback)"
    lib, path, reason = miopen.library()
    if lib is None:
        return f"im2col+GEMM fallback ({reason})"
    for device in devices:
        state = getattr(device, "_miopen", None)
        if isinstance(state, str):
            return f"im2col+GEMM fallback (MIOpen at {path} unusable on {device.name}: {state})"
    return (f"MIOpen {miopen.version(lib)} ({path}); our kernels for float64 convolutions "
            f"(im2col+GEMM: MIOpen has no general float64 convolution), max pooling, "
            f"bfloat16/float64 average pooling, nearest upsampling")


def _aligned(storage, layout):
    """(storage, layout) contiguous and starting on an _ALIGN-byte boundary."""
    storage, layout = contiguous(storage, layout)
    if (layout.offset * storage.dtype.itemsize) % _ALIGN:
        storage, layout = storage.copy(layout), Layout.contiguous(layout.shape)
    return storage, layout


def _ptr(storage, layout):
    return storage.ptr + layout.offset * storage.dtype.itemsize


def _padding_nan_fixup(out, y_shape, w, w_layout, in_hw, stride, padding, dilation):
    """NaN into ``out`` (a MIOpen convolution's output) wherever a tap with a non-finite
    weight lands on the padding: one pad_nan kernel flags each output channel's
    non-finite taps and visits the border band of the channels that have some
    (tests/rocm/test_nn_index_math.py mirrors it). ``w`` is contiguous."""
    _fixup_launch(out.device, out.dtype, y_shape, w_layout.shape, in_hw, stride, padding,
                  dilation)(out.ptr, _ptr(w, w_layout))


def _fixup_launch(device, dtype, y_shape, w_shape, in_hw, stride, padding, dilation):
    """The padding fix-up of one problem as a prepared ``(out_ptr, w_ptr)`` launch."""
    if not any(padding):
        return nn_kernels.nothing
    return nn_kernels.memoized(device, ("pad_nan", dtype, y_shape, w_shape, in_hw, stride, padding, dilation),
                               lambda: _prepare_fixup(device, dtype, y_shape, w_shape, in_hw, stride, padding,
                                                      dilation))


def _prepare_fixup(device, dtype, y_shape, w_shape, in_hw, stride, padding, dilation):
    n_batch, cout, oh, ow = y_shape
    _, cg, kh, kw = w_shape
    top, bot, left, right = nn_kernels.pad_band(in_hw[0], in_hw[1], oh, ow, (kh, kw), stride, padding,
                                                dilation)
    band = oh * ow - (bot - top) * (right - left)
    size = n_batch * cout * oh * ow
    return nn_kernels.prepare(device, ("nn", "pad_nan", dtype), size if band else 0, 0, size, N=n_batch,
                              C=cout, H=in_hw[0], W=in_hw[1], OH=oh, OW=ow, KH=kh, KW=kw, SH=stride[0],
                              SW=stride[1], PH=padding[0], PW=padding[1], DH=dilation[0],
                              DW=dilation[1], in_sN=cg * kh * kw, rows=n_batch * band, P=band, x0=top,
                              x1=bot, x2=left, x3=right)


def _as_2d(layout):
    """A 3-D (N, C, L) layout viewed as (N, C, 1, L)."""
    n, c, length = layout.shape
    s_n, s_c, s_l = layout.strides
    return Layout((n, c, 1, length), (s_n, s_c, length * s_l, s_l), layout.offset)


# --- convolutions --------------------------------------------------------------

_FAST_SIZE = 256  # prepared MIOpen convolutions kept per device


class _PreparedConv:
    """A MIOpen convolution seen before: its found plan, output size and padding fix-up,
    so a repeated call only allocates the output and queues the two launches."""

    __slots__ = ("mio", "plan", "size", "fixup", "tally")

    def __init__(self, mio, plan, size, fixup, op):
        self.mio, self.plan, self.size, self.fixup, self.tally = mio, plan, size, fixup, (op, "miopen")


def conv2d(x, layout, w, w_layout, stride, padding, dilation, groups, op="conv2d"):
    dtype = x.dtype
    device = x.device
    item = dtype.itemsize
    # the settings' raw values are part of the key: a changed setting is a new entry
    fast_key = (op, dtype, layout.shape, layout.strides, w_layout.shape, w_layout.strides, stride, padding,
                dilation, groups, _mode_setting(), _layout_setting())
    table = device.__dict__.get("_nn_convs")
    fast = table.get(fast_key) if table is not None else None
    if fast is not None and not (layout.offset * item) % _ALIGN and not (w_layout.offset * item) % _ALIGN:
        out = RocmStorage.empty(device, dtype, fast.size)
        w_ptr = w.ptr + w_layout.offset * item
        if fast.mio.run(fast.plan, x.ptr + layout.offset * item, w_ptr, out.ptr):
            fixup, known = fast.fixup, w.slice
            if fixup is not nn_kernels.nothing and known.finite_at != known.version and not known_finite(w):
                fixup(out.ptr, w_ptr)
            _tally(fast.tally)
            return out
        del table[fast_key]  # the plan left MIOpen's cache: prepare it again below
    mode, nhwc = requested(), _channels_last()
    n_batch, cin, h, wd = layout.shape
    cout, cg, kh, kw = w_layout.shape
    y_shape = (n_batch, cout, out_size(h, kh, stride[0], padding[0], dilation[0]),
               out_size(wd, kw, stride[1], padding[1], dilation[1]))
    mio = None
    if dtype in MIOPEN_CONV_DTYPES:
        # 1x1 convolutions too: through the shim's cached cuDNN plans f32 matched torch
        # (0.045 against 0.046 ms), hipBLAS directly cost more host time (0.060-0.075 ms over
        # two runs; bench/results/rocm_nn_nvidia-h200_2026-11-21_session3*.md)
        mio = _miopen_for(device, op, dtype, mode)
    if mio is not None and shape_size(y_shape) and shape_size(layout.shape) and shape_size(w_layout.shape):
        pw, pwl = _aligned(w, w_layout)  # the padding fix-up reads it packed too
        if nhwc:
            out = _conv_channels_last(mio, x, layout, pw, pwl, y_shape, stride, padding, dilation, groups)
        else:
            px, pl = _aligned(x, layout)
            out = RocmStorage.empty(device, dtype, shape_size(y_shape))
            x_ptr, w_ptr = _ptr(px, pl), _ptr(pw, pwl)
            plan = mio.ready_plan(miopen.CONVOLUTION, dtype, pl.shape, pwl.shape, y_shape, stride, padding,
                                  dilation, groups, x_ptr, w_ptr, out.ptr)
            if plan is None or not mio.run(plan, x_ptr, w_ptr, out.ptr):
                out = None
            elif px is x and pw is w:  # no copies were needed: repeated calls can skip all this
                if table is None:
                    table = device._nn_convs = {}
                if len(table) >= _FAST_SIZE:
                    table.clear()
                table[fast_key] = _PreparedConv(mio, plan, shape_size(y_shape), _fixup_launch(
                    device, dtype, y_shape, pwl.shape, (h, wd), stride, padding, dilation), op)
        if out is not None:
            if any(padding) and not known_finite(pw):
                _padding_nan_fixup(out, y_shape, pw, pwl, (h, wd), stride, padding, dilation)
            _count(op, "miopen")
            return out
    _count(op, "fallback")
    return nn_fallback.conv2d(x, layout, w, w_layout, stride, padding, dilation, groups)


def _channels_last():
    """Whether a MIOpen convolution runs channels-last (``CANDLEWICK_ROCM_CONV_LAYOUT`` =
    nhwc; default nchw). Measured on an H200 through the shim
    (bench/results/rocm_probe_nvidia-h200_2026-11-21.md): cuDNN's NHWC tensor-core
    kernels win on the device for a 3x3 float16 convolution (23 us against 47-117 us
    for what Find picks with NCHW), but our two transposes and their launches cost more
    than that on the host and on the device, so NCHW stays the default."""
    return _setting(_layout_setting(), "nchw") == "nhwc"


def _conv_channels_last(mio, x, layout, w, w_layout, y_shape, stride, padding, dilation, groups):
    """The convolution on NHWC copies of x and w (our tiled transpose kernel), its NHWC
    result transposed back to NCHW; None when MIOpen declines the problem."""
    xl = x.copy(_permuted_nhwc(layout))
    wl = w.copy(_permuted_nhwc(w_layout))
    yl = RocmStorage.empty(x.device, x.dtype, shape_size(y_shape))
    if not mio.convolution(miopen.CONVOLUTION, x.dtype, xl.ptr, layout.shape, wl.ptr, w_layout.shape, yl.ptr,
                           y_shape, stride, padding, dilation, groups, channels_last=True):
        return None
    n, c, h, w_ = y_shape
    return yl.copy(Layout(y_shape, (h * w_ * c, 1, w_ * c, c), 0))


def _permuted_nhwc(layout):
    """The (N, H, W, C) view of an (N, C, H, W) layout: copying it packs NHWC."""
    (n, c, h, w), (sn, sc, sh, sw) = layout.shape, layout.strides
    return Layout((n, h, w, c), (sn, sh, sw, sc), layout.offset)


def conv1d(x, layout, w, w_layout, stride, padding, dilation, groups):
    return conv2d(x, _as_2d(layout), w, _as_2d(w_layout), (1, stride), (0, padding), (1, dilation),
                  groups, op="conv1d")


def conv_transpose2d(x, layout, w, w_layout, stride, padding, output_padding, dilation, groups,
                     op="conv_transpose2d"):
    dtype = x.dtype
    mio = _miopen_for(x.device, op, dtype) if dtype in MIOPEN_CONV_DTYPES else None
    n_batch, cin, h, wd = layout.shape
    _, coutg, kh, kw = w_layout.shape
    y_shape = (n_batch, coutg * groups,
               transpose_size(h, kh, stride[0], padding[0], output_padding[0], dilation[0]),
               transpose_size(wd, kw, stride[1], padding[1], output_padding[1], dilation[1]))
    if mio is not None and shape_size(y_shape) and shape_size(layout.shape) and shape_size(w_layout.shape):
        x, layout = _aligned(x, layout)
        w, w_layout = _aligned(w, w_layout)
        out = RocmStorage.empty(x.device, dtype, shape_size(y_shape))
        if mio.convolution(miopen.TRANSPOSE, dtype, _ptr(x, layout), layout.shape, _ptr(w, w_layout),
                           w_layout.shape, out.ptr, y_shape, stride, padding, dilation, groups,
                           output_padding):
            _count(op, "miopen")
            return out
    _count(op, "fallback")
    return nn_fallback.conv_transpose2d(x, layout, w, w_layout, stride, padding, output_padding,
                                        dilation, groups)


def conv_transpose1d(x, layout, w, w_layout, stride, padding, output_padding, dilation, groups):
    return conv_transpose2d(x, _as_2d(layout), w, _as_2d(w_layout), (1, stride), (0, padding),
                            (0, output_padding), (1, dilation), groups, op="conv_transpose1d")


# --- pooling and upsampling ----------------------------------------------------------

def _miopen_pool(x, layout, op, mode, kernel, stride, padding, dilation=(1, 1)):
    """The pooled storage through MIOpen, or None when it does not apply."""
    if x.dtype not in MIOPEN_POOL_DTYPES or tuple(dilation) != (1, 1) or not shape_size(layout.shape):
        return None
    if mode == miopen.POOL_MAX and requested() != "miopen":
        return None  # ours: as fast, and -inf windows stay -inf
    mio = _miopen_for(x.device, op, x.dtype)
    if mio is None:
        return None
    n_batch, c, h, wd = layout.shape
    y_shape = (n_batch, c, out_size(h, kernel[0], stride[0], padding[0], 1),
               out_size(wd, kernel[1], stride[1], padding[1], 1))
    x, layout = _aligned(x, layout)
    out = RocmStorage.empty(x.device, x.dtype, shape_size(y_shape))
    mio.pooling(mode, x.dtype, _ptr(x, layout), layout.shape, out.ptr, y_shape, kernel, stride, padding)
    _count(op, "miopen")
    return out


def max_pool2d(x, layout, kernel, stride, padding, dilation):
    out = _miopen_pool(x, layout, "max_pool2d", miopen.POOL_MAX, kernel, stride, padding, dilation)
    if out is None:
        _count("max_pool2d", "fallback")
        out = nn_fallback.max_pool2d(x, layout, kernel, stride, padding, dilation)
    return out


def avg_pool2d(x, layout, kernel, stride, padding, count_include_pad):
    mode = miopen.POOL_AVG_INCLUSIVE if count_include_pad else miopen.POOL_AVG
    out = _miopen_pool(x, layout, "avg_pool2d", mode, kernel, stride, padding)
    if out is None:
        _count("avg_pool2d", "fallback")
        out = nn_fallback.avg_pool2d(x, layout, kernel, stride, padding, count_include_pad)
    return out


def upsample_nearest2d(x, layout, out_h, out_w):
    _count("upsample_nearest2d", "fallback")
    return nn_fallback.upsample_nearest2d(x, layout, out_h, out_w)
