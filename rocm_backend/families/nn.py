"""[families] The convolutions of the ROCm backend: which path runs each one (pooling and
upsampling: ``nn_pool.py``; the settings and MIOpen state: ``nn_paths.py``).

* MIOpen (``miopen.py``), when ``libMIOpen.so`` loads and its handle can be created:
  conv1d/conv2d and conv_transpose1d/2d for float16/bfloat16/float32, and average
  pooling for float16/float32. MIOpen/cuDNN skip the taps that fall on a convolution's
  zero padding, where IEEE arithmetic on the padded zeros (the contract, NumPy, the cpu
  backend) adds w * 0: NaN for an inf or NaN weight, +-0 otherwise (which changes no
  sum: accumulations start from +0, so neither MIOpen nor the cpu backend's BLAS ends
  at -0 through them). So a padded convolution runs with MIOpen's own padding and then
  one pad_nan kernel (``_padding_nan_fixup``) writes NaN where a non-finite weight meets
  the padding. A weight buffer met again unchanged is checked once on the device
  (``pad_fixup_cache.py``, read back without a synchronization); while it is known finite
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
without dilation to MIOpen, with MIOpen's semantics. ``nn_paths.describe()`` is what
``candlewick.backends()`` shows as the rocm backend's ``nn`` detail. 1-D problems are
2-D problems of height 1.
"""


from candlewick.layout import Layout
from candlewick.shapes import shape_size

from .. import miopen
from ..runtime.launcher import NOTHING
from . import nn_fallback, nn_launch, nn_paths
from .copies import copy
from .nn_fallback import out_size, transpose_size
from .nn_paths import ALIGN, MIOPEN_CONV_DTYPES, aligned, ptr
from .pad_fixup_cache import known_finite


def _padding_nan_fixup(out, y_shape, w, w_layout, in_hw, stride, padding, dilation):
    """NaN into ``out`` (a MIOpen convolution's output) wherever a tap with a non-finite
    weight lands on the padding: one pad_nan kernel flags each output channel's
    non-finite taps and visits the border band of the channels that have some
    (tests/rocm/host/test_nn_index_math.py mirrors it). ``w`` is contiguous."""
    _fixup_launch(out.device, out.dtype, y_shape, w_layout.shape, in_hw, stride, padding,
                  dilation).run(out.ptr, ptr(w, w_layout))


def _fixup_launch(device, dtype, y_shape, w_shape, in_hw, stride, padding, dilation):
    """The padding fix-up of one problem as a prepared ``(out_ptr, w_ptr)`` launch."""
    if not any(padding):
        return NOTHING
    return nn_launch.memoized(device, ("pad_nan", dtype, y_shape, w_shape, in_hw, stride, padding, dilation),
                               lambda: _prepare_fixup(device, dtype, y_shape, w_shape, in_hw, stride, padding,
                                                      dilation))


def _prepare_fixup(device, dtype, y_shape, w_shape, in_hw, stride, padding, dilation):
    n_batch, cout, oh, ow = y_shape
    _, cg, kh, kw = w_shape
    top, bot, left, right = nn_launch.pad_band(in_hw[0], in_hw[1], oh, ow, (kh, kw), stride, padding,
                                                dilation)
    band = oh * ow - (bot - top) * (right - left)
    size = n_batch * cout * oh * ow
    return nn_launch.prepare(device, ("nn", "pad_nan", dtype.name), size if band else 0, 0, size, N=n_batch,
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

class _PreparedConv:
    """A MIOpen convolution seen before: its found plan, output size and padding fix-up,
    so a repeated call only allocates the output and queues the two launches (kept in the
    device's launch memo)."""

    __slots__ = ("mio", "plan", "size", "fixup", "tally")

    def __init__(self, mio, plan, size, fixup, op):
        self.mio, self.plan, self.size, self.fixup, self.tally = mio, plan, size, fixup, (op, "miopen")


def conv2d(x, layout, w, w_layout, stride, padding, dilation, groups, op="conv2d"):
    dtype = x.dtype
    device = x.device
    item = dtype.itemsize
    # the settings' raw values are part of the key: a changed setting is a new entry
    fast_key = ("miopen_conv", op, dtype, layout.shape, layout.strides, w_layout.shape, w_layout.strides, stride,
                padding, dilation, groups, nn_paths.mode_setting(), nn_paths.layout_setting())
    launches = device.launches
    fast = launches.get(fast_key)
    if fast is not None and not (layout.offset * item) % ALIGN and not (w_layout.offset * item) % ALIGN:
        out = device.storage_type.empty(device, dtype, fast.size)
        w_ptr = w.ptr + w_layout.offset * item
        if fast.mio.run(fast.plan, x.ptr + layout.offset * item, w_ptr, out.ptr):
            fixup = fast.fixup
            if fixup is not NOTHING and not known_finite(w):
                fixup.run(out.ptr, w_ptr)
            nn_paths.tally(fast.tally)
            return out
        launches.pop(fast_key, None)  # the plan left MIOpen's cache: prepare it again below
    mode, nhwc = nn_paths.requested(), nn_paths.channels_last()
    n_batch, cin, h, wd = layout.shape
    cout, cg, kh, kw = w_layout.shape
    y_shape = (n_batch, cout, out_size(h, kh, stride[0], padding[0], dilation[0]),
               out_size(wd, kw, stride[1], padding[1], dilation[1]))
    mio = None
    if dtype in MIOPEN_CONV_DTYPES:
        # 1x1 convolutions too: through the shim's cached cuDNN plans f32 matched torch
        # (0.045 against 0.046 ms), hipBLAS directly cost more host time (0.060-0.075 ms over
        # two runs; bench/results/rocm_nn_nvidia-h200_2026-11-21_session3*.md)
        mio = nn_paths.miopen_for(device, op, dtype, mode)
    if mio is not None and shape_size(y_shape) and shape_size(layout.shape) and shape_size(w_layout.shape):
        pw, pwl = aligned(w, w_layout)  # the padding fix-up reads it packed too
        if nhwc:
            out = _conv_channels_last(mio, x, layout, pw, pwl, y_shape, stride, padding, dilation, groups)
        else:
            px, pl = aligned(x, layout)
            out = device.storage_type.empty(device, dtype, shape_size(y_shape))
            x_ptr, w_ptr = ptr(px, pl), ptr(pw, pwl)
            plan = mio.ready_plan(miopen.CONVOLUTION, dtype, pl.shape, pwl.shape, y_shape, stride, padding,
                                  dilation, groups, x_ptr, w_ptr, out.ptr)
            if plan is None or not mio.run(plan, x_ptr, w_ptr, out.ptr):
                out = None
            elif px is x and pw is w:  # no copies were needed: repeated calls can skip all this
                launches.keep(fast_key, _PreparedConv(mio, plan, shape_size(y_shape), _fixup_launch(
                    device, dtype, y_shape, pwl.shape, (h, wd), stride, padding, dilation), op))
        if out is not None:
            if any(padding) and not known_finite(pw):
                _padding_nan_fixup(out, y_shape, pw, pwl, (h, wd), stride, padding, dilation)
            nn_paths.count(op, "miopen")
            return out
    nn_paths.count(op, "fallback")
    return nn_fallback.conv2d(x, layout, w, w_layout, stride, padding, dilation, groups)


def _conv_channels_last(mio, x, layout, w, w_layout, y_shape, stride, padding, dilation, groups):
    """The convolution on NHWC copies of x and w (our tiled transpose kernel), its NHWC
    result transposed back to NCHW; None when MIOpen declines the problem."""
    xl = copy(x, _permuted_nhwc(layout))
    wl = copy(w, _permuted_nhwc(w_layout))
    yl = x.device.storage_type.empty(x.device, x.dtype, shape_size(y_shape))
    if not mio.convolution(miopen.CONVOLUTION, x.dtype, xl.ptr, layout.shape, wl.ptr, w_layout.shape, yl.ptr,
                           y_shape, stride, padding, dilation, groups, channels_last=True):
        return None
    n, c, h, w_ = y_shape
    return copy(yl, Layout(y_shape, (h * w_ * c, 1, w_ * c, c), 0))


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
    mio = nn_paths.miopen_for(x.device, op, dtype) if dtype in MIOPEN_CONV_DTYPES else None
    n_batch, cin, h, wd = layout.shape
    _, coutg, kh, kw = w_layout.shape
    y_shape = (n_batch, coutg * groups,
               transpose_size(h, kh, stride[0], padding[0], output_padding[0], dilation[0]),
               transpose_size(wd, kw, stride[1], padding[1], output_padding[1], dilation[1]))
    if mio is not None and shape_size(y_shape) and shape_size(layout.shape) and shape_size(w_layout.shape):
        x, layout = aligned(x, layout)
        w, w_layout = aligned(w, w_layout)
        out = x.device.storage_type.empty(x.device, dtype, shape_size(y_shape))
        if mio.convolution(miopen.TRANSPOSE, dtype, ptr(x, layout), layout.shape, ptr(w, w_layout),
                           w_layout.shape, out.ptr, y_shape, stride, padding, dilation, groups,
                           output_padding):
            nn_paths.count(op, "miopen")
            return out
    nn_paths.count(op, "fallback")
    return nn_fallback.conv_transpose2d(x, layout, w, w_layout, stride, padding, output_padding,
                                        dilation, groups)


def conv_transpose1d(x, layout, w, w_layout, stride, padding, output_padding, dilation, groups):
    return conv_transpose2d(x, _as_2d(layout), w, _as_2d(w_layout), (1, stride), (0, padding),
                            (0, output_padding), (1, dilation), groups, op="conv_transpose1d")


