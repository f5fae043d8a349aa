"""[families] float32 matrix products with one small edge, through hip/matmul.hip's narrow
and long kernels where hipBLAS's GEMM (cuBLAS's behind the HIP-on-CUDA shim) reads the
large operand slowly: KMeans' ``X @ centers.T`` (200000 x 256 x 8) and ``onehot.T @ X``
(8 x 200000 x 256). ``rocblas.matmul`` asks ``matmul`` first for a float32 product of two
matrices; None sends it to hipBLAS.
"""

from candlewick import dtypes as dt
from candlewick.layout import Layout
from candlewick.opdefs import ReduceOp

from ..abi.structs import GRID_YZ_MAX, SKINNY_ARGS, SKINNY_BLOCK, SKINNY_SHARED
from ..kernels import kernel
from ..ops import SKINNY_LONG_WIDTH, SKINNY_NARROW_LANES, SKINNY_NARROW_WIDTHS
from ..runtime.launcher import PreparedLaunch
from .reductions import reduce

#: where the skinny kernels run (probe s29_skinny2, H200, against cuBLAS's GEMM that hipBLAS
#: forwards to: a narrow product of 200000 x 256 x 5..8 80 against 103 us, 2..4 columns 57
#: against 98, 100000 x 1024 x 8 148 against 234; a long one of 8 x 200000 x 256 86 against
#: 138 with its partials summed. One column (a GEMV), 9 or more, 8192 rows and a long
#: product of 1, 4 or 16 rows were slower there: those stay hipBLAS's.)
NARROW_MIN_ROWS, NARROW_COLS = 65536, range(2, 9)
LONG_MIN_K, LONG_ROWS, LONG_MIN_COLS = 65536, range(5, SKINNY_LONG_WIDTH + 1), 256
_SKINNY_FILLS = range(7, 12)  # cw_skinny_args' a, a_off, b, b_off, c: filled per call


def _aligned(storage, layout):
    """Whether the rows of a float32 matrix start 16 bytes apart from an aligned first one."""
    return layout.strides[-2] % 4 == 0 and (storage.ptr + 4 * layout.offset) % 16 == 0


def matmul(lhs, rhs, lhs_layout, rhs_layout, m, n, k):
    """The float32 product of two matrices with one small edge through the skinny kernels
    (narrow: few columns, A read along its rows; long: few rows, K long, B read along its
    rows), or None where hipBLAS's GEMM does it."""
    if (m >= NARROW_MIN_ROWS and n in NARROW_COLS and lhs_layout.strides[-1] == 1 and k % 4 == 0
            and SKINNY_NARROW_WIDTHS[-1] * k <= SKINNY_SHARED and _aligned(lhs, lhs_layout)):
        shape = "narrow"
    elif (k >= LONG_MIN_K and m in LONG_ROWS and n >= LONG_MIN_COLS and n % 4 == 0
          and rhs_layout.strides[-1] == 1 and _aligned(rhs, rhs_layout)):
        shape = "long"
    else:
        return None
    device = lhs.device
    (a_rs, a_cs), (b_rs, b_cs) = lhs_layout.strides, rhs_layout.strides
    key = ("matmul_skinny", shape, m, n, k, a_rs, a_cs, b_rs, b_cs)
    plan = device.launches.get(key)
    if plan is None:
        plan = device.launches.keep(key, _skinny_plan(device, shape, m, n, k, a_rs, a_cs, b_rs, b_cs))
    prepared, chunks = plan
    out = device.storage_type.empty(device, dt.float32, chunks * m * n)
    prepared.run(lhs.ptr, lhs_layout.offset, rhs.ptr, rhs_layout.offset, out.ptr)
    if chunks == 1:
        return out
    # a long product's partials, one per chunk of K, summed in order of chunk
    return reduce(out, ReduceOp.SUM, Layout.contiguous((chunks, m * n)), (0,))


def _skinny_plan(device, shape, m, n, k, a_rs, a_cs, b_rs, b_cs):
    """(PreparedLaunch, chunks of K) of one skinny product."""
    if shape == "narrow":
        width = next(w for w in SKINNY_NARROW_WIDTHS if w >= n)
        lanes = SKINNY_NARROW_LANES[-1] if k >= 256 else SKINNY_NARROW_LANES[0]  # (short rows: fewer lanes each)
        kern = kernel(device, ("matmul_narrow", width, lanes), "matmul", dt.float32)
        rows = SKINNY_BLOCK // lanes
        grid, block, chunk, chunks = (min(-(-m // rows), 4 * device.multiprocessors), 1, 1), SKINNY_BLOCK, k, 1
    else:
        kern = kernel(device, ("matmul_long", SKINNY_LONG_WIDTH), "matmul", dt.float32)
        tiles = -(-n // 256)  # 64 threads of 16-byte vectors a block
        chunks = max(1, min(-(-2 * device.multiprocessors // tiles), k // 256, GRID_YZ_MAX))
        chunk = -(-k // chunks)
        chunks = -(-k // chunk)
        grid, block = (tiles, chunks, 1), SKINNY_BLOCK
    values = [m, n, k, a_rs, a_cs, b_rs, b_cs, 0, 0, 0, 0, 0, chunk]
    return PreparedLaunch(device.launcher, kern, grid, block, SKINNY_ARGS, values, _SKINNY_FILLS), chunks
