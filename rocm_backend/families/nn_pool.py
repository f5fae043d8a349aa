"""[families] Pooling and upsampling: MIOpen where it applies (``nn_paths``), else our kernels."""

from candlewick.shapes import shape_size

from .. import miopen
from . import nn_fallback, nn_paths
from .nn_fallback import out_size
from .nn_paths import MIOPEN_POOL_DTYPES, aligned, count, ptr


def _miopen_pool(x, layout, op, mode, kernel, stride, padding, dilation=(1, 1)):
    """The pooled storage through MIOpen, or None when it does not apply."""
    if x.dtype not in MIOPEN_POOL_DTYPES or tuple(dilation) != (1, 1) or not shape_size(layout.shape):
        return None
    if mode == miopen.POOL_MAX and nn_paths.requested() != "miopen":
        return None  # ours: as fast, and -inf windows stay -inf
    mio = nn_paths.miopen_for(x.device, op, x.dtype)
    if mio is None:
        return None
    n_batch, c, h, wd = layout.shape
    y_shape = (n_batch, c, out_size(h, kernel[0], stride[0], padding[0], 1),
               out_size(wd, kernel[1], stride[1], padding[1], 1))
    x, layout = aligned(x, layout)
    out = x.device.storage_type.empty(x.device, x.dtype, shape_size(y_shape))
    mio.pooling(mode, x.dtype, ptr(x, layout), layout.shape, out.ptr, y_shape, kernel, stride, padding)
    count(op, "miopen")
    return out


def max_pool2d(x, layout, kernel, stride, padding, dilation):
    out = _miopen_pool(x, layout, "max_pool2d", miopen.POOL_MAX, kernel, stride, padding, dilation)
    if out is None:
        count("max_pool2d", "fallback")
        out = nn_fallback.max_pool2d(x, layout, kernel, stride, padding, dilation)
    return out


def avg_pool2d(x, layout, kernel, stride, padding, count_include_pad):
    mode = miopen.POOL_AVG_INCLUSIVE if count_include_pad else miopen.POOL_AVG
    out = _miopen_pool(x, layout, "avg_pool2d", mode, kernel, stride, padding)
    if out is None:
        count("avg_pool2d", "fallback")
        out = nn_fallback.avg_pool2d(x, layout, kernel, stride, padding, count_include_pad)
    return out


def upsample_nearest2d(x, layout, out_h, out_w):
    count("upsample_nearest2d", "fallback")
    return nn_fallback.upsample_nearest2d(x, layout, out_h, out_w)
