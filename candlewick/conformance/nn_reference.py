"""Naive reference implementations of the nn primitives, written from the definitions in
the backend.py docstrings (not from any backend). Deliberately plain loops over output
positions: slow, small inputs only, easy to check by eye.

Each function takes float64 arrays and returns ``(values, magnitude)``: the exact
result and, for the sums, the sum of the magnitudes of its terms (what bounds the
rounding error of any summation order).
"""

import numpy as np


def conv1d(x, w, stride, padding, dilation, groups):
    """x (N, Cin, L), w (Cout, Cin/groups, K): cross-correlation."""
    n_batch, cin, length = x.shape
    cout, cin_g, k = w.shape
    cout_g = cout // groups
    lout = (length + 2 * padding - dilation * (k - 1) - 1) // stride + 1
    xp = np.zeros((n_batch, cin, length + 2 * padding))
    xp[:, :, padding:padding + length] = x
    out = np.zeros((n_batch, cout, lout))
    mag = np.zeros((n_batch, cout, lout))
    for n in range(n_batch):
        for co in range(cout):
            g = co // cout_g
            for lo in range(lout):
                for ci in range(cin_g):
                    for kk in range(k):
                        term = xp[n, g * cin_g + ci, lo * stride + kk * dilation] * w[co, ci, kk]
                        out[n, co, lo] += term
                        mag[n, co, lo] += abs(term)
    return out, mag


def conv2d(x, w, stride, padding, dilation, groups):
    """x (N, Cin, H, W), w (Cout, Cin/groups, KH, KW); parameters are (h, w) pairs."""
    n_batch, cin, h, wd = x.shape
    cout, cin_g, kh, kw = w.shape
    cout_g = cout // groups
    (sh, sw), (ph, pw), (dh, dw) = stride, padding, dilation
    hout = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    wout = (wd + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    xp = np.zeros((n_batch, cin, h + 2 * ph, wd + 2 * pw))
    xp[:, :, ph:ph + h, pw:pw + wd] = x
    out = np.zeros((n_batch, cout, hout, wout))
    mag = np.zeros((n_batch, cout, hout, wout))
    for n in range(n_batch):
        for co in range(cout):
            g = co // cout_g
            for i in range(hout):
                for j in range(wout):
                    for ci in range(cin_g):
                        for a in range(kh):
                            for b in range(kw):
                                term = (xp[n, g * cin_g + ci, i * sh + a * dh, j * sw + b * dw]
                                        * w[co, ci, a, b])
                                out[n, co, i, j] += term
                                mag[n, co, i, j] += abs(term)
    return out, mag


def conv_transpose1d(x, w, stride, padding, output_padding, dilation, groups):
    """x (N, Cin, L), w (Cin, Cout/groups, K): the gradient of conv1d w.r.t. its input.
    Every input element spreads ``x * w`` over the (dilated) kernel positions of a
    full-length output, which is then cropped by ``padding`` on both sides."""
    n_batch, cin, length = x.shape
    _, cout_g, k = w.shape
    cin_g = cin // groups
    lout = (length - 1) * stride - 2 * padding + dilation * (k - 1) + output_padding + 1
    full_len = max((length - 1) * stride + dilation * (k - 1) + 1 + output_padding, padding + lout)
    full = np.zeros((n_batch, cout_g * groups, full_len))
    mag = np.zeros_like(full)
    for n in range(n_batch):
        for ci in range(cin):
            g = ci // cin_g
            for li in range(length):
                for co in range(cout_g):
                    for kk in range(k):
                        term = x[n, ci, li] * w[ci, co, kk]
                        full[n, g * cout_g + co, li * stride + kk * dilation] += term
                        mag[n, g * cout_g + co, li * stride + kk * dilation] += abs(term)
    return full[:, :, padding:padding + lout], mag[:, :, padding:padding + lout]


def conv_transpose2d(x, w, stride, padding, output_padding, dilation, groups):
    """As conv_transpose1d in two dims (parameters are (h, w) pairs)."""
    n_batch, cin, h, wd = x.shape
    _, cout_g, kh, kw = w.shape
    cin_g = cin // groups
    (sh, sw), (ph, pw), (oph, opw), (dh, dw) = stride, padding, output_padding, dilation
    hout = (h - 1) * sh - 2 * ph + dh * (kh - 1) + oph + 1
    wout = (wd - 1) * sw - 2 * pw + dw * (kw - 1) + opw + 1
    fh = max((h - 1) * sh + dh * (kh - 1) + 1 + oph, ph + hout)
    fw = max((wd - 1) * sw + dw * (kw - 1) + 1 + opw, pw + wout)
    full = np.zeros((n_batch, cout_g * groups, fh, fw))
    mag = np.zeros_like(full)
    for n in range(n_batch):
        for ci in range(cin):
            g = ci // cin_g
            for i in range(h):
                for j in range(wd):
                    for co in range(cout_g):
                        for a in range(kh):
                            for b in range(kw):
                                term = x[n, ci, i, j] * w[ci, co, a, b]
                                full[n, g * cout_g + co, i * sh + a * dh, j * sw + b * dw] += term
                                mag[n, g * cout_g + co, i * sh + a * dh, j * sw + b * dw] += abs(term)
    crop = (slice(None), slice(None), slice(ph, ph + hout), slice(pw, pw + wout))
    return full[crop], mag[crop]


def pool_output_size(size, kernel, stride, padding, dilation=1):
    return (size + 2 * padding - dilation * (kernel - 1) - 1) // stride + 1


def avg_pool2d(x, kernel, stride, padding, count_include_pad):
    """Mean over each window; padded cells are zeros, counted in the divisor iff
    ``count_include_pad``."""
    n_batch, c, h, wd = x.shape
    (kh, kw), (sh, sw), (ph, pw) = kernel, stride, padding
    hout, wout = pool_output_size(h, kh, sh, ph), pool_output_size(wd, kw, sw, pw)
    out = np.zeros((n_batch, c, hout, wout))
    mag = np.zeros_like(out)
    for i in range(hout):
        for j in range(wout):
            rows = [r for r in range(i * sh - ph, i * sh - ph + kh) if 0 <= r < h]
            cols = [q for q in range(j * sw - pw, j * sw - pw + kw) if 0 <= q < wd]
            window = x[:, :, rows][:, :, :, cols]
            divisor = kh * kw if count_include_pad else len(rows) * len(cols)
            out[:, :, i, j] = window.sum(axis=(2, 3)) / divisor
            mag[:, :, i, j] = np.abs(window).sum(axis=(2, 3)) / divisor
    return out, mag


def max_pool2d(x, kernel, stride, padding, dilation):
    """Max over each (dilated) window; padding is -inf; NaN propagates."""
    n_batch, c, h, wd = x.shape
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = kernel, stride, padding, dilation
    hout, wout = pool_output_size(h, kh, sh, ph, dh), pool_output_size(wd, kw, sw, pw, dw)
    xp = np.full((n_batch, c, h + 2 * ph, wd + 2 * pw), -np.inf)
    xp[:, :, ph:ph + h, pw:pw + wd] = x
    out = np.full((n_batch, c, hout, wout), -np.inf)
    for i in range(hout):
        for j in range(wout):
            for a in range(kh):
                for b in range(kw):
                    tap = xp[:, :, i * sh + a * dh, j * sw + b * dw]
                    out[:, :, i, j] = np.maximum(out[:, :, i, j], tap)
    return out


def upsample_nearest2d(x, out_h, out_w):
    """Output (i, j) takes input (floor(i * H / out_h), floor(j * W / out_w))."""
    _, _, h, wd = x.shape
    rows = [(i * h) // out_h for i in range(out_h)]
    cols = [(j * wd) // out_w for j in range(out_w)]
    return x[:, :, rows][:, :, :, cols]
