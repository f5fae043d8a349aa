"""Neural-network primitives: convolution, transposed convolution, pooling, upsampling.

All work on NumPy arrays shaped (N, C, *spatial) with one or two spatial dims and are
vectorized: convolution is im2col (a strided window view of the padded input, copied
once into a matrix) followed by one batched GEMM per group; transposed convolution is
one GEMM followed by col2im, a loop over the kernel taps (never over pixels) that adds
each tap's contribution into a strided slice; pooling is likewise a loop over the taps,
each a whole-array maximum/add of one strided slice. float16/bfloat16 run in float32
and are rounded once; results are new C-contiguous arrays.
"""

import itertools
from math import prod

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from candlewick.errors import ShapeError

from .error import QuietBlock
from .ops import F32, LOW_PRECISION_NP


def _compute(x):
    return x.astype(F32) if x.dtype in LOW_PRECISION_NP else x


def _finish(result, np_dtype):
    return np.ascontiguousarray(result, dtype=np_dtype)


def _pad(x, padding, value=0):
    """Pad the spatial dims (all but the first two) by ``padding[i]`` on both sides."""
    if not any(padding):
        return x
    widths = ((0, 0), (0, 0)) + tuple((p, p) for p in padding)
    return np.pad(x, widths, constant_values=value)


def _windows(op, xp, kernel, stride, dilation):
    """(N, C, *S) -> (N, C, *O, *K): every (strided, dilated) window of ``xp``, no copy."""
    spatial = tuple(range(2, xp.ndim))
    span = tuple(d * (k - 1) + 1 for k, d in zip(kernel, dilation))
    for size, s, k in zip(xp.shape[2:], span, kernel):
        if size < s:
            raise ShapeError(
                f"{op}: padded input size {size} is smaller than the dilated kernel size {s} "
                f"(kernel {tuple(kernel)}); the output would be empty"
            )
    win = sliding_window_view(xp, span, axis=spatial)
    steps = tuple(slice(None, None, s) for s in stride) + tuple(slice(None, None, d) for d in dilation)
    return win[(slice(None), slice(None)) + steps]


def _check_groups(op, channels, groups, what):
    if groups < 1 or channels % groups:
        raise ShapeError(f"{op}: {what} channels ({channels}) must be divisible by groups ({groups})")


def conv(op, x, w, stride, padding, dilation, groups):
    """Cross-correlation: x (N, Cin, *S), w (Cout, Cin/groups, *K) -> (N, Cout, *O)."""
    out_dtype = x.dtype
    x, w = _compute(x), _compute(w)
    n, cin = x.shape[:2]
    cout, cg = w.shape[:2]
    kernel = w.shape[2:]
    d = len(kernel)
    _check_groups(op, cin, groups, "input")
    _check_groups(op, cout, groups, "output")
    if cg * groups != cin:
        raise ShapeError(f"{op}: weight expects {cg * groups} input channels, input has {cin}")
    win = _windows(op, _pad(x, padding), kernel, stride, dilation)  # (N, Cin, *O, *K)
    outs = win.shape[2 : 2 + d]
    positions, taps = prod(outs), prod(kernel)
    win = win.reshape((n, groups, cg) + outs + kernel)
    # im2col: (G, Cg, *K, N, *O) -> (G, Cg*taps, N*positions); the one copy of the input
    order = (1, 2) + tuple(range(3 + d, 3 + 2 * d)) + (0,) + tuple(range(3, 3 + d))
    cols = win.transpose(order).reshape(groups, cg * taps, n * positions)
    wm = w.reshape(groups, cout // groups, cg * taps)
    with QuietBlock():
        out = np.matmul(wm, cols)  # (G, Cout/G, N*positions)
    out = out.reshape((cout, n) + outs).swapaxes(0, 1)
    return _finish(out, out_dtype)


def conv_transpose(op, x, w, stride, padding, output_padding, dilation, groups):
    """Gradient of ``conv`` w.r.t. its input: x (N, Cin, *S), w (Cin, Cout/groups, *K)."""
    out_dtype = x.dtype
    x, w = _compute(x), _compute(w)
    n, cin = x.shape[:2]
    coutg = w.shape[1]
    kernel = w.shape[2:]
    spatial = x.shape[2:]
    _check_groups(op, cin, groups, "input")
    if w.shape[0] != cin:
        raise ShapeError(f"{op}: weight has {w.shape[0]} input channels, input has {cin}")
    outs = tuple(
        (s - 1) * st - 2 * p + dl * (k - 1) + op_ + 1
        for s, st, p, dl, k, op_ in zip(spatial, stride, padding, dilation, kernel, output_padding)
    )
    if any(o <= 0 for o in outs):
        raise ShapeError(f"{op}: output size {outs} is not positive for input size {spatial}")
    cig = cin // groups
    positions, taps = prod(spatial), prod(kernel)
    # contributions[g, co*taps + t, n*positions + s] = sum_ci w[g, ci, co, t] * x[n, g, ci, s]
    xm = x.reshape(n, groups, cig, positions).transpose(1, 2, 0, 3).reshape(groups, cig, n * positions)
    wm = w.reshape(groups, cig, coutg * taps).transpose(0, 2, 1)
    with QuietBlock():
        contrib = np.matmul(wm, xm)
        contrib = contrib.reshape((groups, coutg) + kernel + (n,) + spatial)
        # col2im into the unpadded-output canvas, then crop the padding away
        full = tuple(
            (s - 1) * st + dl * (k - 1) + 1 + op_
            for s, st, dl, k, op_ in zip(spatial, stride, dilation, kernel, output_padding)
        )
        canvas = np.zeros((groups, coutg, n) + full, contrib.dtype)
        for tap in itertools.product(*(range(k) for k in kernel)):
            dst = tuple(
                slice(t * dl, t * dl + (s - 1) * st + 1, st)
                for t, dl, s, st in zip(tap, dilation, spatial, stride)
            )
            canvas[(slice(None), slice(None), slice(None)) + dst] += contrib[(slice(None), slice(None)) + tap]
    crop = tuple(slice(p, p + o) for p, o in zip(padding, outs))
    out = canvas[(slice(None), slice(None), slice(None)) + crop]  # (G, Cout/G, N, *O)
    out = out.reshape((groups * coutg, n) + outs).swapaxes(0, 1)
    return _finish(out, out_dtype)


def _taps(op, xp, kernel, stride, dilation):
    """For each kernel tap, the strided slice of padded ``xp`` (N, C, *S) that the tap
    reads at every output position: pooling is a loop over the taps, never the pixels."""
    spans = tuple(d * (k - 1) + 1 for k, d in zip(kernel, dilation))
    for size, span in zip(xp.shape[2:], spans):
        if size < span:
            raise ShapeError(
                f"{op}: padded input size {size} is smaller than the dilated kernel size {span} "
                f"(kernel {tuple(kernel)}); the output would be empty"
            )
    outs = tuple((size - span) // s + 1 for size, span, s in zip(xp.shape[2:], spans, stride))
    for tap in itertools.product(*(range(k) for k in kernel)):
        yield xp[(slice(None), slice(None)) + tuple(
            slice(t * d, t * d + (o - 1) * s + 1, s) for t, d, s, o in zip(tap, dilation, stride, outs)
        )]


def avg_pool2d(x, kernel, stride, padding, count_include_pad):
    out_dtype = x.dtype
    x = _compute(x)
    with QuietBlock():
        total = None
        for window in _taps("avg_pool2d", _pad(x, padding), kernel, stride, (1, 1)):
            total = window.copy() if total is None else np.add(total, window, out=total)
        if count_include_pad or not any(padding):
            out = total / (kernel[0] * kernel[1])
        else:  # count the real (unpadded) cells of each window
            ones = _pad(np.ones((1, 1) + x.shape[2:], x.dtype), padding)
            counts = sum(_taps("avg_pool2d", ones, kernel, stride, (1, 1)))
            out = total / counts
    return _finish(out, out_dtype)


def max_pool2d(x, kernel, stride, padding, dilation):
    out_dtype = x.dtype
    x = _compute(x)
    with QuietBlock():
        out = None
        for window in _taps("max_pool2d", _pad(x, padding, -np.inf), kernel, stride, dilation):
            # np.maximum propagates NaN
            out = window.copy() if out is None else np.maximum(out, window, out=out)
    return _finish(out, out_dtype)


def upsample_nearest2d(x, out_h, out_w):
    h, w = x.shape[2:]
    rows = (np.arange(out_h, dtype=np.int64) * h) // out_h  # floor(dst * in / out), exact
    cols = (np.arange(out_w, dtype=np.int64) * w) // out_w
    return x[:, :, rows[:, None], cols[None, :]]
