"""[abi] Every kernel argument struct and shared constant, declared once.

Kernels take one struct by value, passed through hipModuleLaunchKernel's ``extra``
(HIP_LAUNCH_PARAM_BUFFER_POINTER / SIZE / END). Each struct is declared here as fields
(name, kind, count); ``arg_layout.py`` computes its byte layout (natural alignment, as the
device compilers lay it out) as a ``struct.Struct`` and gives it one preallocated launch
buffer and its ``extra`` array (the launcher packs into it under ``lock``); ``c_header.py``
writes the same declarations into ``hip/abi.h``, which every kernel module includes first
(tests/rocm/host/test_abi.py checks the committed header is the generated one and that g++
lays each field out at the offset computed here).
"""

from .arg_layout import ArgLayout, StructType

# --- shared constants: (Python name, C macro, value) -------------------------------------
MAX_DIMS = 8  # dimensions of a shape or strides array in every struct
MAX_OPERANDS = 4  # operands of cw_ew_args (operand 0 is the destination)
EW_BLOCK = 256  # threads per block of the element-wise kernels (their launch bound)
RADIX_BLOCK = 256  # threads per block of the radix sort kernels (hip/radix.hip)
RADIX_ITEMS = 8  # keys each of them holds: a tile of RADIX_BLOCK * RADIX_ITEMS sorted in shared memory
#: keys each thread ranks in a row sorted in one tile (hip/radix_block.hip's cw_radix_block), by
#: key bytes: as many as the 48 KiB of static shared memory hold (keys, u32 positions, counts)
RADIX_RANGE_ITEMS = {4: 16, 8: 8}
#: keys each thread ranks in a range tile of a onesweep pass (hip/radix_sweep.hip), by key bytes.
#: 8-byte keys: 12 (47 KiB of shared memory, two blocks a multiprocessor by registers) beat 8 (three
#: blocks of 2048-key ranges) on the H200 at cab0e90: float64 2^24 2.361 ms against 2.503, int64 2.223
#: against 2.369; for 4-byte keys 18 would need 180 registers (one block) and 8 or 12 lost
RADIX_SWEEP_ITEMS = {4: 16, 8: 12}
#: the same for a sort that carries the keys' positions (argsort, sort with indices), whose kernels
#: run three blocks a multiprocessor (ops.RADIX_MIN_BLOCKS): 4-byte keys' ranges of 13 keys a thread
#: leave them 80 registers and no spill (ptxas sm_90; 14 spilled 16 B, 16 more)
RADIX_SWEEP_CARRY_ITEMS = {4: 13, 8: 12}
#: the same for an argsort's passes of items (radix_sweep_pack of every source; an 8-byte argsort's
#: carry passes before them keep RADIX_SWEEP_CARRY_ITEMS[8]): 4-byte keys' items at 13 (80 registers,
#: 8 B spilled) beat 12 on the H200 (probe s19argsort 2, one process,
#: interleaved, ratio to torch.argsort(stable=True)): float32 2^26 1.013 -> 0.994x, 2^24 0.960 ->
#: 0.941x, float16 2^26 1.004 -> 0.976x; 14 or 16 at two blocks a multiprocessor lost (1.143x,
#: 1.086x at float32 2^26), as did 8, 10 or 12 at four (probe 1: 1.168x, 1.056x, 1.030x). 8-byte keys'
#: items at 13 (36 B spilled) beat 12 (probe s21argsort 2: float64 2^26 items' passes 45 us less, int64 60)
RADIX_PACK_ITEMS = 13
#: how the radix sort's last pass writes a sorted value (cw_radix_args.decode): gathered from
#: the source by position (bool), or decoded from the key (an integer's: key ^ mask; a float's,
#: mask undoing a descending sort's inversion: its keys are one to one too)
RADIX_GATHER, RADIX_DECODE_INT, RADIX_DECODE_FLOAT = 0, 1, 2
#: cw_radix_args.wide of a onesweep pass of 8-byte keys with their positions that writes them as 8-byte
#: items instead (an argsort's: hip/radix_sweep.hip, families/sort.py's _passes)
RADIX_ITEMS_OUT = 2
#: cw_radix_args.wide of an argsort's first pass of items (radix_sweep_pack) that also counts the
#: digits of the passes after it (radix_digits counted only those up to it: its a.shift)
RADIX_COUNT_LATER = 3
#: the most passes after that first pass whose digits it counts (shared memory of radix_sweep_pack)
RADIX_LATER_PASSES = 5
#: the longest row whose 8-byte argsort gathers its keys' high halves from the source by position
#: (hip/radix_sweep.hip's PACK): a source that L2 keeps; longer rows carry them (on the H200, probe
#: s16argsort 2, float64 argsort kernels: 2^22 gather 483 us, carry 488; 2^23 916 against 893; 2^24 1803
#: against 1723; probe 1: 2^20 the gather pass 24 us against 18 for a pass, the carry's 3 passes 22 each)
RADIX_GATHER_MAX = 1 << 22
MATMUL_TILE = 16  # tile edge of the integer matmul kernel (hip/matmul.hip)
#: the skinny float32 products of hip/matmul.hip (families/skinny_matmul.py): threads of a
#: block; elements of B a narrow product's block keeps in shared memory (32 KiB)
SKINNY_BLOCK, SKINNY_SHARED = 256, 8192
TRANSPOSE_TILE, TRANSPOSE_ROWS = 32, 8  # tile edge and thread rows of hip/transpose.hip
SVD_MAX_N = 64  # largest matrix edge of the batched Jacobi SVD kernel (hip/svd_jacobi.hip)
SVD_BLOCK = 256  # its threads per block (one block per matrix)
QR_MAX_N = 64  # largest matrix edge of the batched Householder QR kernel (hip/qr_householder.hip)
QR_BLOCK = 64  # its threads per block: one per column
SCAN_ITEMS = 8  # elements each scan thread folds per step (hip/scan.hip; tests build 1 and 4)
FUSED_BUFFERS = 24  # buffers (inputs, constants, results) of one fused kernel (cw_fused_args)
FUSED_SCALARS = 8  # run-time scalars (16-byte slots) of one fused kernel: float arguments
KERNEL_OPERANDS = 16  # arrays (per element or raw) of one custom kernel (cw_kernel_args)
KERNEL_SCALARS = 8  # scalar parameters (16-byte slots) of one custom kernel
SCALAR_WORDS = 4  # cw_ew_args.scalar: 4 x int64 (two 16-byte slots)
SCALAR_BYTES = 8 * SCALAR_WORDS
EIG_BLOCK = 128  # threads per block (one block per matrix) of hip/eig.hip
EIG_SHARED_BYTES = 32768  # shared memory hip/eig.hip keeps H (and Z) in when they fit
EIG_NONFINITE = -1  # hip/eig.hip's info for a matrix holding inf or NaN

# --- limits every launch and library call respects, declared once (Python only) ----------
INT32_MAX = 2**31 - 1  # the libraries' int arguments: hipBLAS, hipSOLVER and hipFFT sizes and counts
GRID_YZ_MAX = 65535  # HIP's gridDim.y and gridDim.z
INDEX32_LIMIT = 1 << 31  # element counts below this take the kernels' 32-bit indexing (CW_INDEX32)
GRID_LOOP_CAP = 1 << 20  # blocks of one launch of a kernel that loops over the rest of its items

CONSTANTS = (
    ("MAX_DIMS", "CW_MAX_DIMS", MAX_DIMS),
    ("MAX_OPERANDS", "CW_MAX_OPERANDS", MAX_OPERANDS),
    ("EW_BLOCK", "CW_BLOCK", EW_BLOCK),
    ("RADIX_BLOCK", "CW_RADIX_BLOCK", RADIX_BLOCK),
    ("RADIX_GATHER", "CW_RADIX_GATHER", RADIX_GATHER),
    ("RADIX_DECODE_INT", "CW_RADIX_DECODE_INT", RADIX_DECODE_INT),
    ("RADIX_DECODE_FLOAT", "CW_RADIX_DECODE_FLOAT", RADIX_DECODE_FLOAT),
    ("RADIX_ITEMS_OUT", "CW_RADIX_ITEMS_OUT", RADIX_ITEMS_OUT),
    ("RADIX_COUNT_LATER", "CW_RADIX_COUNT_LATER", RADIX_COUNT_LATER),
    ("RADIX_LATER_PASSES", "CW_RADIX_LATER_PASSES", RADIX_LATER_PASSES),
    ("MATMUL_TILE", "CW_TILE", MATMUL_TILE),
    ("SKINNY_BLOCK", "CW_SKINNY_BLOCK", SKINNY_BLOCK),
    ("SKINNY_SHARED", "CW_SKINNY_SHARED", SKINNY_SHARED),
    ("TRANSPOSE_TILE", "CW_TR_TILE", TRANSPOSE_TILE),
    ("TRANSPOSE_ROWS", "CW_TR_ROWS", TRANSPOSE_ROWS),
    ("SVD_MAX_N", "CW_SVD_MAX_N", SVD_MAX_N),
    ("SVD_BLOCK", "CW_SVD_BLOCK", SVD_BLOCK),
    ("QR_MAX_N", "CW_QR_MAX_N", QR_MAX_N),
    ("QR_BLOCK", "CW_QR_BLOCK", QR_BLOCK),
    ("EIG_BLOCK", "CW_EIG_BLOCK", EIG_BLOCK),
    ("EIG_SHARED_BYTES", "CW_EIG_SHARED_BYTES", EIG_SHARED_BYTES),
    ("EIG_NONFINITE", "CW_EIG_NONFINITE", EIG_NONFINITE),
    ("FUSED_BUFFERS", "CW_FUSED_BUFFERS", FUSED_BUFFERS),
    ("FUSED_SCALARS", "CW_FUSED_SCALARS", FUSED_SCALARS),
    ("KERNEL_OPERANDS", "CW_KERNEL_OPERANDS", KERNEL_OPERANDS),
    ("KERNEL_SCALARS", "CW_KERNEL_SCALARS", KERNEL_SCALARS),
)
#: constants a test build may set before the header (``#ifndef``)
OVERRIDABLE = (("SCAN_ITEMS", "CW_SCAN_ITEMS", SCAN_ITEMS), ("RADIX_ITEMS", "CW_RADIX_ITEMS", RADIX_ITEMS),
               ("RADIX_RANGE_ITEMS[4]", "CW_RADIX_RANGE_ITEMS_K4", RADIX_RANGE_ITEMS[4]),
               ("RADIX_RANGE_ITEMS[8]", "CW_RADIX_RANGE_ITEMS_K8", RADIX_RANGE_ITEMS[8]),
               ("RADIX_SWEEP_ITEMS[4]", "CW_RADIX_SWEEP_ITEMS_K4", RADIX_SWEEP_ITEMS[4]),
               ("RADIX_SWEEP_ITEMS[8]", "CW_RADIX_SWEEP_ITEMS_K8", RADIX_SWEEP_ITEMS[8]),
               ("RADIX_SWEEP_CARRY_ITEMS[4]", "CW_RADIX_SWEEP_CARRY_ITEMS_K4", RADIX_SWEEP_CARRY_ITEMS[4]),
               ("RADIX_SWEEP_CARRY_ITEMS[8]", "CW_RADIX_SWEEP_CARRY_ITEMS_K8", RADIX_SWEEP_CARRY_ITEMS[8]),
               ("RADIX_PACK_ITEMS", "CW_RADIX_PACK_ITEMS", RADIX_PACK_ITEMS),
               ("RADIX_GATHER_MAX", "CW_RADIX_GATHER_MAX", RADIX_GATHER_MAX))

# flags of cw_ew_args
CONTIGUOUS, INDEX32, FLAG_A, FLAG_B = 1, 2, 4, 8
FLAGS = (
    ("CW_CONTIGUOUS", CONTIGUOUS, "every operand has unit stride in flat order: offsets are offset + i"),
    ("CW_INDEX32", INDEX32, "every extent fits 32 bits: cheaper index decoding"),
    ("CW_FLAG_A", FLAG_A, "op-specific"),
    ("CW_FLAG_B", FLAG_B, "op-specific"),
)

OPERAND = StructType(
    "cw_operand", [("ptr", "ptr", 1), ("offset", "i64", 1), ("strides", "i64", MAX_DIMS)],
    "one operand of an element-wise kernel; a null pointer reads scalar slot (k - 1) instead")

EW_ARGS = ArgLayout(
    "cw_ew_args",
    [("n", "i64", 1), ("ndim", "i32", 1), ("flags", "i32", 1), ("shape", "i64", MAX_DIMS),
     ("op", OPERAND, MAX_OPERANDS), ("scalar", "raw", SCALAR_WORDS)],
    "the one element-wise ABI: operand 0 is the destination; scalar: two 16-byte slots or four "
    "8-byte scalars, raw bits; flags: CW_CONTIGUOUS | CW_INDEX32 | op-specific bits")

TRANSPOSE_ARGS = ArgLayout(
    "cw_transpose_args",
    [("out", "ptr", 1), ("in", "cptr", 1), ("out_offset", "i64", 1), ("in_offset", "i64", 1),
     ("B", "i64", 1), ("R", "i64", 1), ("C", "i64", 1), ("sB", "i64", 1), ("sC", "i64", 1)],
    "batched transpose copy (hip/transpose.hip); sB, sC: source strides of b and c in elements "
    "(r has stride 1)")

REDUCE_ARGS = ArgLayout(
    "cw_reduce_args",
    [
        ("n_out", "i64", 1), ("n_red", "i64", 1), ("out_ndim", "i32", 1), ("red_ndim", "i32", 1),
        ("out_shape", "i64", MAX_DIMS), ("out_strides", "i64", MAX_DIMS),
        ("red_shape", "i64", MAX_DIMS), ("red_strides", "i64", MAX_DIMS),
        ("in", "cptr", 1), ("in_offset", "i64", 1), ("out", "ptr", 1), ("partial", "ptr", 1),
        ("tickets", "u32ptr", 1), ("chunk", "i64", 1), ("splits", "i32", 1), ("vec", "i32", 1),
        ("group", "i32", 1), ("pad_", "i32", 1),
    ],
    "strided reductions (hip/reduce.hip): partial/tickets for splits > 1; chunk: reduced elements "
    "per segment; splits: segments per output; vec: cols' adjacent outputs per thread; group: rows' "
    "threads per item")

MATMUL_ARGS = ArgLayout(
    "cw_matmul_args",
    [
        ("M", "i64", 1), ("N", "i64", 1), ("K", "i64", 1), ("batch", "i64", 1),
        ("batch_ndim", "i32", 1), ("pad", "i32", 1),
        ("batch_shape", "i64", MAX_DIMS), ("a_batch_strides", "i64", MAX_DIMS),
        ("b_batch_strides", "i64", MAX_DIMS),
        ("a_rs", "i64", 1), ("a_cs", "i64", 1), ("b_rs", "i64", 1), ("b_cs", "i64", 1),
        ("a", "cptr", 1), ("a_off", "i64", 1), ("b", "cptr", 1), ("b_off", "i64", 1), ("c", "ptr", 1),
    ],
    "integer matmul (hip/matmul.hip): row / column strides of each operand; c is contiguous (batch, M, N)")

SKINNY_ARGS = ArgLayout(
    "cw_skinny_args",
    [("M", "i64", 1), ("N", "i64", 1), ("K", "i64", 1), ("a_rs", "i64", 1), ("a_cs", "i64", 1),
     ("b_rs", "i64", 1), ("b_cs", "i64", 1), ("a", "cptr", 1), ("a_off", "i64", 1), ("b", "cptr", 1),
     ("b_off", "i64", 1), ("c", "ptr", 1), ("chunk", "i64", 1)],
    "float32 C (M x N, contiguous) = A (M x K) B (K x N) with one edge small (hip/matmul.hip): row / "
    "column strides of each operand; chunk: rows of K one block of the long product sums, its "
    "partial (M x N) written at c + blockIdx.y * M * N")

SVD_ARGS = ArgLayout(
    "cw_svd_args",
    [("src", "cptr", 1), ("u", "ptr", 1), ("v", "ptr", 1), ("s", "ptr", 1), ("info", "ptr", 1),
     ("v_scratch", "ptr", 1), ("R", "i64", 1), ("C", "i64", 1), ("src_rs", "i64", 1), ("src_cs", "i64", 1),
     ("src_bs", "i64", 1), ("u_rs", "i64", 1), ("u_cs", "i64", 1), ("u_bs", "i64", 1), ("v_rs", "i64", 1),
     ("v_cs", "i64", 1), ("v_bs", "i64", 1), ("max_sweeps", "i32", 1), ("pad_", "i32", 1)],
    "batched one-sided Jacobi SVD (hip/svd_jacobi.hip), one block per matrix b: the working matrix "
    "W (R x C, R >= C) element (i, j) at src[b*src_bs + i*src_rs + j*src_cs]; U's columns (R x C) "
    "and V (C x C) written likewise through u_*/v_*; s: C singular values per matrix; info: one int "
    "per matrix; v_scratch: (C+1)*C elements per matrix when V does not fit in shared memory, else null")

QR_ARGS = ArgLayout(
    "cw_qr_args",
    [("src", "cptr", 1), ("q", "ptr", 1), ("r", "ptr", 1), ("m", "i64", 1), ("n", "i64", 1), ("kq", "i64", 1),
     ("kr", "i64", 1), ("src_rs", "i64", 1), ("src_cs", "i64", 1), ("src_bs", "i64", 1), ("q_bs", "i64", 1),
     ("r_bs", "i64", 1)],
    "batched Householder QR (hip/qr_householder.hip), one block per matrix b: A (m x n) element (i, j) "
    "at src[b*src_bs + i*src_rs + j*src_cs]; Q (m x kq) and R (kr x n) row-major, q_bs / r_bs apart")

EIG_ARGS = ArgLayout(
    "cw_eig_args",
    [("work", "ptr", 1), ("values", "ptr", 1), ("vectors", "ptr", 1), ("scratch", "ptr", 1), ("info", "i32ptr", 1),
     ("n", "i64", 1), ("count", "i64", 1), ("want_vectors", "i32", 1), ("real_input", "i32", 1)],
    "general eigenproblem, one block per matrix (hip/eig.hip, whose header comment says what each "
    "buffer holds; real_input: the matrix was real, its spectrum is made closed under conjugation)")

#: the i64 fields of cw_nn_args after (out, in, in_offset, n), in struct order
NN_DIM_FIELDS = ("N", "C", "H", "W", "in_sN", "in_sC", "in_sH", "in_sW", "OH", "OW",
                 "KH", "KW", "SH", "SW", "PH", "PW", "DH", "DW", "G", "x0", "x1", "index32",
                 "rows", "P", "TPL", "x2", "x3")

NN_ARGS = ArgLayout(
    "cw_nn_args",
    [("out", "ptr", 1), ("in", "cptr", 1), ("in_offset", "i64", 1), ("n", "i64", 1)]
    + [(name, "i64", 1) for name in NN_DIM_FIELDS],
    "every kernel of hip/nn.hip (its header comment says what each field means)")

FUSED_ARGS = ArgLayout(
    "cw_fused_args",
    [("n", "i64", 1), ("flags", "i32", 1), ("pad_", "i32", 1), ("ptr", "ptr", FUSED_BUFFERS),
     ("scalar", "raw", 2 * FUSED_SCALARS)],
    "a kernel generated for a candlewick.fuse graph (codegen/fused_source.py): n items (elements or "
    "reduction outputs), flags (CW_CONTIGUOUS: every vector-read buffer is aligned), the buffers, the "
    "float arguments' 16-byte slots (raw bits); shapes, strides and other scalars are constants of the source")

KERNEL_ARGS = ArgLayout(
    "cw_kernel_args",
    [("n", "i64", 1), ("n_red", "i64", 1), ("base", "i64", 1), ("ndim", "i32", 1), ("red_ndim", "i32", 1),
     ("flags", "i32", 1), ("pad_", "i32", 1), ("shape", "i64", MAX_DIMS), ("red_shape", "i64", MAX_DIMS),
     ("ptr", "ptr", KERNEL_OPERANDS), ("strides", "i64", KERNEL_OPERANDS * MAX_DIMS),
     ("red_strides", "i64", KERNEL_OPERANDS * MAX_DIMS), ("scalar", "raw", 2 * KERNEL_SCALARS)],
    "an ElementwiseKernel or ReductionKernel of candlewick.custom_kernels (codegen/custom_source.py): n items "
    "(elements, or reduction outputs over shape), base the flat index of item 0 (a piece of a split launch), "
    "n_red elements reduced per output over red_shape; ptr[k] operand k's first element; its strides in "
    "elements at strides[k * CW_MAX_DIMS + d] (red_strides likewise); flags: CW_CONTIGUOUS (every per-element "
    "operand is at index i) | CW_INDEX32; scalar: the scalar parameters' 16-byte slots (raw bits)")

RADIX_ARGS = ArgLayout(
    "cw_radix_args",
    [("keys_in", "cptr", 1), ("idx_in", "cptr", 1), ("keys_out", "ptr", 1), ("idx_out", "ptr", 1),
     ("counts", "u32ptr", 1), ("L", "i64", 1), ("rows", "i64", 1), ("chunk", "i64", 1), ("blocks", "i64", 1),
     ("shift", "i32", 1), ("bits", "i32", 1), ("wide", "i32", 1), ("vals_out", "ptr", 1), ("src", "cptr", 1),
     ("src_offset", "i64", 1), ("src_stride", "i64", 1), ("src_row", "i64", 1), ("mask", "i64", 1),
     ("decode", "i32", 1), ("inf", "i64", 1)],
    "one pass of the LSD radix sort of rows of L keys (hip/radix.hip): keys (unsigned, cw_u32 or cw_u64) and "
    "their u32 positions in the row, read from *_in and written to *_out; counts: the onesweep's u64 words "
    "(tickets, each row's digit totals, each range's look-back states: hip/radix_sweep.hip); a row is cut into "
    "`blocks` ranges of `chunk` keys; the pass sorts the 8-bit digit at `shift` of `bits`-bit keys; "
    "wide: the positions written to idx_out as int64 (the indices), or (CW_RADIX_ITEMS_OUT) written with "
    "the keys to keys_out as items, each class key with its bits below the next pass's shift replaced by its "
    "position (idx_out null), or (CW_RADIX_COUNT_LATER: an argsort's first pass of items) the digits of the "
    "passes after it counted into each row's totals, of which radix_digits counts the passes below `shift` "
    "alone (0: every pass); vals_out (null: none): the sorted values "
    "written there, row r's key at position j being src's element src_offset + r * src_row + j * src_stride, "
    "or decoded from the key (decode: CW_RADIX_DECODE_INT, _FLOAT; mask: the bits the key flips); inf: a "
    "float's +inf bits (its keys' classes: cw_radix_class)")

NESTED = (OPERAND,)
#: every argument struct declared above, by name, in declaration order (the order c_header.py
#: writes them in): read from the module, so declaring a struct is the one step
ABIS = {value.name: value for value in list(globals().values()) if isinstance(value, ArgLayout)}
