"""The nn kernels of ``hip/nn.hip``: their op-table entries, argument struct and launch.

``ops._build`` adds ``kernel_specs()`` to the op table (module ``nn``), so the kernels
are compiled, cached and yielded by ``kernels.all_kernel_sources()`` (the AMD compile
gate) like every other module. They take one ``cw_nn_args`` struct, laid out here.
"""

from candlewick import dtypes as dt

from .argpack import ArgLayout

NN_BLOCK = 256
NN_MODULE = "nn"
FLOATING = (dt.float16, dt.bfloat16, dt.float32, dt.float64)
BYTE_SIZES = (1, 2, 4, 8, 16)

#: the i64 fields of cw_nn_args after (out, in, in_offset, n), in struct order
DIM_FIELDS = ("N", "C", "H", "W", "in_sN", "in_sC", "in_sH", "in_sW", "OH", "OW",
              "KH", "KW", "SH", "SW", "PH", "PW", "DH", "DW", "G", "x0", "x1", "index32")
_DEFAULTS = {"SH": 1, "SW": 1, "DH": 1, "DW": 1, "KH": 1, "KW": 1, "G": 1}

NN_ARGS = ArgLayout(
    "cw_nn_args",
    [("out", "ptr", 1), ("in", "ptr", 1), ("in_offset", "i64", 1), ("n", "i64", 1)]
    + [(name, "i64", 1) for name in DIM_FIELDS],
)


def accumulator(dtype):
    """The dtype the GEMM writes (and col2im sums) for a transposed convolution."""
    return dt.float64 if dtype is dt.float64 else dt.float32


def kernel_specs(c_type, bytes_type):
    """(key, name, body, abi, block) of every nn kernel, for ``ops._build``."""
    abi = NN_ARGS.name
    for size in BYTE_SIZES:
        raw = bytes_type[size]
        yield ("nn", "im2col", size), f"nn_im2col_b{size}", f"cw_im2col<{raw}>(a);", abi, NN_BLOCK
        yield ("nn", "upsample", size), f"nn_upsample_b{size}", f"cw_upsample<{raw}>(a);", abi, NN_BLOCK
    for d in FLOATING:
        s, acc = c_type[d], c_type[accumulator(d)]
        yield ("nn", "col2im", d), f"nn_col2im_{d.name}", f"cw_col2im<{s}, {acc}>(a);", abi, NN_BLOCK
        yield ("nn", "max_pool", d), f"nn_max_pool_{d.name}", f"cw_max_pool<{s}>(a);", abi, NN_BLOCK
        yield ("nn", "avg_pool", d), f"nn_avg_pool_{d.name}", f"cw_avg_pool<{s}>(a);", abi, NN_BLOCK


def nn_values(out_ptr, in_ptr, in_offset, n, **dims):
    """Flat cw_nn_args values; dims not given are 0 (1 for window/stride/dilation/groups)."""
    unknown = set(dims) - set(DIM_FIELDS)
    if unknown:
        raise TypeError(f"unknown cw_nn_args fields: {sorted(unknown)}")
    dims.setdefault("index32", 1 if n < (1 << 31) else 0)
    return [int(out_ptr), int(in_ptr), int(in_offset), int(n)] + [
        int(dims.get(name, _DEFAULTS.get(name, 0))) for name in DIM_FIELDS
    ]


def launch(device, key, n, out_ptr, in_ptr, in_offset=0, **dims):
    """Queue the nn kernel ``key`` over ``n`` output elements on the device stream."""
    if n <= 0:
        return
    from . import ops
    from .device import hip_api
    from .error import check
    from .kernels import grid_for, runtime

    spec = ops.lookup(key, key[1])
    fn = runtime(device).function(spec)
    values = nn_values(out_ptr, in_ptr, in_offset, n, **dims)
    grid = grid_for(n, spec.block, device)
    launch_kernel = hip_api().hip.hipModuleLaunchKernel
    with NN_ARGS.lock:
        extra = NN_ARGS.packed(values)
        status = launch_kernel(fn, grid, 1, 1, spec.block, 1, 1, 0, device.stream, None, extra)
    check(f"hipModuleLaunchKernel({spec.name})", status)
