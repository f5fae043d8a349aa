"""[families] Launching the nn kernels of ``hip/nn.hip``: their grids, their ``cw_nn_args``
values, and their prepared launches (everything decided but the two pointers), kept in
the device's launch memo. Their op-table entries are in ``ops.py``, their struct in ``abi/structs.py``.

Grids: the "row" kernels (im2col, pooling, upsampling) give each destination row of P
positions L = 2^TPL * gridDim.y threads (``row_config``); col2im is a flat grid-stride
loop; pad_nan has a block row per output channel.
Launches go through the device's launcher (``runtime/launcher.py``).
"""

import functools

from ..abi.structs import GRID_YZ_MAX, INT32_MAX, NN_ARGS, NN_DIM_FIELDS
from ..abi.structs import INDEX32_LIMIT as _INDEX32
from ..kernels import kernel
from ..ops import NN_BLOCK
from ..runtime.launcher import NOTHING, PreparedLaunch

DIM_FIELDS = NN_DIM_FIELDS
ROW_KERNELS = ("im2col", "max_pool", "avg_pool", "upsample")
#: resident threads per multiprocessor we aim to fill (2048 on NVIDIA sm_80/90 and AMD CDNA)
THREADS_PER_SM = 2048
#: index32 needs every count and offset below this (the kernels add a step of up to
#: 2^16 to a 32-bit position before comparing it with its bound)
INDEX32_LIMIT = _INDEX32 - (1 << 24)

_DEFAULTS = {"SH": 1, "SW": 1, "DH": 1, "DW": 1, "KH": 1, "KW": 1, "G": 1}
_BASE = {name: _DEFAULTS.get(name, 0) for name in DIM_FIELDS}  # in struct order


def span(offset, shape, strides):
    """Elements from the buffer start to one past the farthest element a view can reach
    (an upper bound of every offset the kernels form for it)."""
    return offset + sum((n - 1) * abs(s) for n, s in zip(shape, strides)) + 1


def nn_values(out_ptr, in_ptr, in_offset, n, extent=0, **dims):
    """Flat cw_nn_args values; dims not given are 0 (1 for window/stride/dilation/groups).
    ``extent``: the largest element count/offset the kernel forms besides ``n`` (its
    input's span, a product it computes), for the index32 flag."""
    values = {**_BASE, **dims}  # a per-launch cost: one dict merge keeps the struct order
    if len(values) != len(_BASE):
        raise TypeError(f"unknown cw_nn_args fields: {sorted(set(dims) - set(_BASE))}")
    if "index32" not in dims:
        values["index32"] = 1 if max(n, extent) < INDEX32_LIMIT else 0
    return [int(out_ptr), int(in_ptr), int(in_offset), int(n), *values.values()]


@functools.lru_cache(maxsize=1024)
def row_config(rows, positions, multiprocessors):
    """(TPL, grid_x, grid_y) of a row kernel over ``rows`` rows of ``positions`` each.

    Each row gets L threads (L = 2^TPL * grid_y; 2^TPL <= the block): at least enough
    to fill the device when rows are few, and among those the L whose last sweep wastes
    the fewest lanes (then the smallest: more positions per thread amortize the row's
    decode). Rows shorter than 32 may take a power of two below 32; longer ones keep
    at least 32 consecutive positions per lane group, for coalesced accesses."""
    want = min(-(-multiprocessors * THREADS_PER_SM // max(rows, 1)), positions)
    cands = [l for l in (1, 2, 4, 8, 16) if l >= want] if positions < 32 else []
    first = max(32, -(-want // 32) * 32)
    cands += range(first, max(first, -(-positions // 32) * 32) + 1, 32)[:256]
    lanes = min(cands, key=lambda l: (-(-positions // l) * l - positions, l))
    tp = lanes if lanes < 32 else min(NN_BLOCK, lanes & -lanes)
    gy = min(lanes // tp, GRID_YZ_MAX)
    slots = NN_BLOCK // tp
    gx = max(1, min(-(-rows // slots), max(1, multiprocessors * 32 // gy), INT32_MAX))
    return tp.bit_length() - 1, gx, gy


def pad_band(h, w, oh, ow, kernel, stride, padding, dilation):
    """(top, bot, left, right): output rows [top, bot) and columns [left, right) whose
    every tap lands inside the input; the pad_nan kernel visits only the rest."""
    def interior(size, out, k, s, p, d):
        lo = min(out, -(-p // s))
        hi = max(lo, min(out, -(-(size + p - (k - 1) * d) // s)))
        return lo, hi

    top, bot = interior(h, oh, kernel[0], stride[0], padding[0], dilation[0])
    left, right = interior(w, ow, kernel[1], stride[1], padding[1], dilation[1])
    return top, bot, left, right


def launch_config(key, n, dims, multiprocessors):
    """(grid_x, grid_y, dims with the grid-dependent fields) of the nn kernel ``key``."""
    kind = key[1]
    if kind in ROW_KERNELS:
        taps = dims.get("KH", 1) * dims.get("KW", 1) if kind == "im2col" else 1
        rows, positions = dims["N"] * dims["C"] * taps, dims["OH"] * dims["OW"]
        tpl, gx, gy = row_config(rows, positions, multiprocessors)
        return gx, gy, dict(dims, rows=rows, P=positions, TPL=tpl)
    if kind == "pad_nan":
        # every block of a channel first scans that channel's weights, so few blocks per
        # channel: the usual all-finite weight then costs little more than one read of it
        gy = min(dims["C"], GRID_YZ_MAX)
        per_channel = -(-dims["rows"] // NN_BLOCK)
        return max(1, min(per_channel, multiprocessors * 2 // gy)), gy, dims
    if kind == "finite_flag":  # one flag per block: the grid is fixed by the caller
        return dims.pop("blocks"), 1, dims
    return max(1, min(-(-n // NN_BLOCK), multiprocessors * 32)), 1, dims


def prepare(device, key, n, in_offset=0, extent=0, **dims):
    """The launch of nn kernel ``key`` producing ``n`` destination elements: a
    ``PreparedLaunch`` whose ``run(out_ptr, in_ptr)`` queues it on the device stream
    (``NOTHING`` for an empty problem)."""
    if n <= 0:
        return NOTHING
    kern = kernel(device, key, key[1])
    gx, gy, dims = launch_config(key, n, dims, device.multiprocessors)
    return PreparedLaunch(device.launcher, kern, (gx, gy, 1), NN_BLOCK, NN_ARGS,
                          nn_values(0, 0, in_offset, n, extent, **dims), (0, 1))


def launch(device, key, n, out_ptr, in_ptr, in_offset=0, extent=0, **dims):
    """Queue the nn kernel ``key`` producing ``n`` destination elements on the device stream."""
    prepare(device, key, n, in_offset, extent, **dims).run(int(out_ptr), int(in_ptr))



def memoized(device, problem, make):
    """The prepared launch of ``problem`` (a hashable description of everything but the
    pointers) on ``device``: ``make()`` builds it the first time, kept in the device's
    launch memo."""
    return device.launches.prepare(("nn", problem), make)
