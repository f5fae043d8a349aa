"""[families] The nn primitives without MIOpen: im2col + GEMM (hipBLAS) convolution, GEMM +
col2im transposed convolution, and our own pooling and upsampling kernels (hip/nn.hip).

Everything is 2-D over (N, C, H, W); ``nn.py`` maps 1-D problems onto H = 1.

Convolution, per group g and batch chunk: ``cols = im2col(x)`` with shape
(n, G, K, P) (K = Cin/G * KH * KW taps, P = OH * OW output positions), then one strided
batched GEMM per group writes ``out[n, g*Cout/G : (g+1)*Cout/G, P]`` directly:
row-major ``W_g (Cout/G x K) @ cols[n, g] (K x P)``, issued column-major as
``cols^T W_g^T``. A 1x1 convolution with unit stride and no padding needs no im2col:
the contiguous input already is ``cols``. float16/bfloat16 accumulate in float32.

Transposed convolution: per group, ``cols[n, g] = W_g^T (Cout/G*KH*KW x Cin/G) @
x[n, g] (Cin/G x H*W)`` in float32 (float64 for float64), then col2im gathers each
output element's taps (deterministic: no atomics) and rounds once.

The im2col / col2im index math is mirrored in NumPy by tests/rocm/host/test_nn_index_math.py.
"""


from candlewick.layout import Layout

from ..ops import nn_accumulator
from ..rocblas import gemm
from . import nn_launch
from .copies import copy

#: upper bound of the im2col / col2im scratch buffer; larger problems run in batch chunks
WORKSPACE_BYTES = 1 << 29


def contiguous(storage, layout):
    """(storage, layout) with a C-contiguous layout (copied only when needed)."""
    if layout.is_contiguous:
        return storage, layout
    return copy(storage, layout), Layout.contiguous(layout.shape)


def out_size(n, k, stride, padding, dilation):
    return (n + 2 * padding - dilation * (k - 1) - 1) // stride + 1


def transpose_size(n, k, stride, padding, output_padding, dilation):
    return (n - 1) * stride - 2 * padding + dilation * (k - 1) + output_padding + 1


def batch_chunk(batch, bytes_per_item, budget=WORKSPACE_BYTES):
    """How many batch items one scratch buffer of ``budget`` bytes holds (at least 1)."""
    if bytes_per_item <= 0:
        return max(batch, 1)
    return max(1, min(batch, budget // bytes_per_item))


def is_direct_gemm(layout, kernel, stride, padding):
    """A 1x1 convolution with unit stride, no padding and a contiguous input: the input
    already is im2col's matrix, so the convolution is one GEMM per group."""
    return (tuple(kernel) == (1, 1) and tuple(stride) == (1, 1) and tuple(padding) == (0, 0)
            and layout.is_contiguous)


def conv2d(x, layout, w, w_layout, stride, padding, dilation, groups):
    """Cross-correlation of x (N, C, H, W) with w (Cout, C/G, KH, KW) by im2col + GEMM."""
    device, dtype, item = x.device, x.dtype, x.dtype.itemsize
    n_batch, cin, h, wd = layout.shape
    cout, cg, kh, kw = w_layout.shape
    oh = out_size(h, kh, stride[0], padding[0], dilation[0])
    ow = out_size(wd, kw, stride[1], padding[1], dilation[1])
    out = device.storage_type.empty(device, dtype, n_batch * cout * oh * ow)
    if out.size == 0:
        return out
    taps, positions, coutg = cg * kh * kw, oh * ow, cout // groups
    if taps == 0:
        out.buffer.memset(0)
        return out
    w, w_layout = contiguous(w, w_layout)
    w_ptr = w.ptr + w_layout.offset * item
    out_batch = cout * positions

    def issue(cols_ptr, cols_batch_stride, group_stride, n0, nc):
        for g in range(groups):
            gemm(device, dtype, dtype, False, False, positions, coutg, taps,
                 cols_ptr + g * group_stride * item, positions, cols_batch_stride,
                 w_ptr + g * coutg * taps * item, taps, 0,
                 out.ptr + (n0 * out_batch + g * coutg * positions) * item, positions, out_batch, nc)

    if is_direct_gemm(layout, (kh, kw), stride, padding):
        # the input itself is cols: (N, G, C/G, H*W) with batch stride C*H*W
        issue(x.ptr + layout.offset * item, cin * positions, cg * positions, 0, n_batch)
        return out
    per_item = groups * taps * positions * item
    chunk = batch_chunk(n_batch, per_item)
    cols = device.storage_type.empty(device, dtype, chunk * groups * taps * positions)
    s_n, s_c, s_h, s_w = layout.strides
    extent = nn_launch.span(0, (h, wd), (s_h, s_w))  # the kernel's 32-bit offsets are in-plane
    for n0 in range(0, n_batch, chunk):
        nc = min(chunk, n_batch - n0)
        nn_launch.launch(
            device, ("nn", "im2col", item), nc * groups * taps * positions, cols.ptr, x.ptr,
            layout.offset + n0 * s_n, extent, N=nc, C=cin, H=h, W=wd, in_sN=s_n, in_sC=s_c, in_sH=s_h,
            in_sW=s_w, OH=oh, OW=ow, KH=kh, KW=kw, SH=stride[0], SW=stride[1], PH=padding[0],
            PW=padding[1], DH=dilation[0], DW=dilation[1], G=groups)
        issue(cols.ptr, groups * taps * positions, taps * positions, n0, nc)
    return out


def conv_transpose2d(x, layout, w, w_layout, stride, padding, output_padding, dilation, groups):
    """Transposed convolution: x (N, Cin, H, W), w (Cin, Cout/G, KH, KW), by GEMM + col2im."""
    device, dtype, item = x.device, x.dtype, x.dtype.itemsize
    n_batch, cin, h, wd = layout.shape
    _, coutg, kh, kw = w_layout.shape
    cout, cig = coutg * groups, cin // groups
    oh = transpose_size(h, kh, stride[0], padding[0], output_padding[0], dilation[0])
    ow = transpose_size(wd, kw, stride[1], padding[1], output_padding[1], dilation[1])
    out = device.storage_type.empty(device, dtype, n_batch * cout * oh * ow)
    if out.size == 0:
        return out
    if cig == 0 or h * wd == 0:
        out.buffer.memset(0)
        return out
    x, layout = contiguous(x, layout)
    w, w_layout = contiguous(w, w_layout)
    acc = nn_accumulator(dtype)
    taps, positions = coutg * kh * kw, h * wd
    x_ptr, w_ptr = x.ptr + layout.offset * item, w.ptr + w_layout.offset * item
    chunk = batch_chunk(n_batch, groups * taps * positions * acc.itemsize)
    cols = device.storage_type.empty(device, acc, chunk * groups * taps * positions)
    out_batch = cout * oh * ow
    for n0 in range(0, n_batch, chunk):
        nc = min(chunk, n_batch - n0)
        for g in range(groups):
            # column-major cols^T (P x taps) = x_g^T (P x Cin/G) . W_g (Cin/G x taps)
            gemm(device, dtype, acc, False, True, positions, taps, cig,
                 x_ptr + (n0 * cin + g * cig) * positions * item, positions, cin * positions,
                 w_ptr + g * cig * taps * item, taps, 0,
                 cols.ptr + g * taps * positions * acc.itemsize, positions, groups * taps * positions, nc)
        nn_launch.launch(
            device, ("nn", "col2im", dtype.name), nc * out_batch, out.ptr + n0 * out_batch * item, cols.ptr, 0,
            nc * groups * taps * positions, N=nc, C=cout, H=h, W=wd, OH=oh, OW=ow, KH=kh, KW=kw, SH=stride[0], SW=stride[1],
            PH=padding[0], PW=padding[1], DH=dilation[0], DW=dilation[1], G=groups, x0=coutg)
    return out


def _pool(x, layout, key, oh, ow, params, window):
    """Pooling/upsampling of (N, C, H, W) ``x`` into a new (N, C, oh, ow) storage.
    ``params``: the caller's hashable window parameters; ``window()`` -> (extent, dims),
    the kernel's window fields, asked for only the first time a problem is seen."""
    n_batch, c = layout.shape[0], layout.shape[1]
    out = x.device.storage_type.empty(x.device, x.dtype, n_batch * c * oh * ow)
    prepared = nn_launch.memoized(x.device, (key, layout.shape, layout.strides, layout.offset, oh, ow, params),
                                  lambda: _prepare_pool(x.device, layout, key, oh, ow, *window()))
    prepared.run(out.ptr, x.ptr)
    return out


def _prepare_pool(device, layout, key, oh, ow, extent, dims):
    n_batch, c, h, wd = layout.shape
    s_n, s_c, s_h, s_w = layout.strides
    extent = max(extent, nn_launch.span(0, (h, wd), (s_h, s_w)))  # 32-bit offsets are in-plane
    return nn_launch.prepare(device, key, n_batch * c * oh * ow, layout.offset, extent, N=n_batch, C=c,
                              H=h, W=wd, in_sN=s_n, in_sC=s_c, in_sH=s_h, in_sW=s_w, OH=oh, OW=ow, **dims)


def max_pool2d(x, layout, kernel, stride, padding, dilation):
    oh = out_size(layout.shape[2], kernel[0], stride[0], padding[0], dilation[0])
    ow = out_size(layout.shape[3], kernel[1], stride[1], padding[1], dilation[1])
    return _pool(x, layout, ("nn", "max_pool", x.dtype.name), oh, ow, (kernel, stride, padding, dilation),
                 lambda: (0, dict(KH=kernel[0], KW=kernel[1], SH=stride[0], SW=stride[1], PH=padding[0],
                                  PW=padding[1], DH=dilation[0], DW=dilation[1])))


def avg_pool2d(x, layout, kernel, stride, padding, count_include_pad):
    oh = out_size(layout.shape[2], kernel[0], stride[0], padding[0], 1)
    ow = out_size(layout.shape[3], kernel[1], stride[1], padding[1], 1)
    return _pool(x, layout, ("nn", "avg_pool", x.dtype.name), oh, ow, (kernel, stride, padding, count_include_pad),
                 lambda: (0, dict(KH=kernel[0], KW=kernel[1], SH=stride[0], SW=stride[1], PH=padding[0],
                                  PW=padding[1], x0=1 if count_include_pad else 0)))


def upsample_nearest2d(x, layout, out_h, out_w):
    # the kernel forms oh * H and ow * W
    return _pool(x, layout, ("nn", "upsample", x.dtype.itemsize), out_h, out_w, (),
                 lambda: (max(out_h * layout.shape[2], out_w * layout.shape[3]), {}))
