"""[ops] The op table: every (primitive, op, dtype) the backend runs, mapped to a kernel.

Generated from ``candlewick.opdefs`` (op vocabularies and dtype domains) and
``candlewick.dtypes``: kernel names, the module each kernel is compiled in, and the
one-line ``extern "C"`` entry point that instantiates a template body of ``hip/*.hip``.
Nothing else names kernels; ``lookup`` raises UnsupportedOperation for a key outside
the table.

Keys have one form (``kernel_key``): a tuple of the family name and plain strings and
ints, ops by their value and dtypes by their name, e.g. ``("binary", "add", "float32")``,
``("copy", 4)``, ``("reduce", "rows_vec", "sum", "float64")``. The op families' hot paths
build such keys from interned strings (hashing an enum or a DType is Python-level code).
"""

import enum
from collections import namedtuple

from candlewick import dtypes as dt
from candlewick.errors import UnsupportedOperation
from candlewick.opdefs import BinaryOp, CompareOp, ReduceOp, ScanOp, UnaryOp, _letters

from .abi.structs import (EIG_ARGS, EIG_BLOCK, EW_BLOCK, MATMUL_ARGS, MATMUL_TILE, NN_ARGS, QR_ARGS, QR_BLOCK, RADIX_ARGS,
                          RADIX_BLOCK, REDUCE_ARGS, SKINNY_ARGS, SKINNY_BLOCK, SVD_ARGS, SVD_BLOCK, TRANSPOSE_ARGS,
                          TRANSPOSE_ROWS, TRANSPOSE_TILE)

# storage type of each dtype in the kernels (hip/common.h)
C_TYPE = {
    dt.bool_: "cw_bool", dt.int8: "signed char", dt.int16: "short", dt.int32: "int",
    dt.int64: "long long", dt.uint8: "unsigned char", dt.uint16: "unsigned short",
    dt.uint32: "unsigned int", dt.uint64: "unsigned long long", dt.float16: "cw_f16",
    dt.bfloat16: "cw_bf16", dt.float32: "float", dt.float64: "double",
    dt.complex64: "cw_c64", dt.complex128: "cw_c128",
}
# raw element types for dtype-agnostic kernels (copy, fill, where, take, put)
BYTES_TYPE = {1: "unsigned char", 2: "unsigned short", 4: "unsigned int", 8: "unsigned long long", 16: "cw_c128"}
ITEMSIZES = tuple(sorted({d.itemsize for d in dt.ALL_DTYPES}))

# every kernel of the radix sort (hip/sort.hip and codegen/sources.py MODULE_FILES' radix files),
# compiled at the first sort
SORT_MODULE = "sort"
#: blocks a multiprocessor each radix kernel is compiled for (KernelSpec.min_blocks), by stage;
#: "keys": the kernels of a sort of values alone. Unbounded, ptxas gave the keys-only tile kernels
#: 165-180 registers (one block an SM); on the H200 (session 11, probe 1) these bounds took rows
#: of 4096x4096 from 1.049x torch.sort to 0.880x, float64 2^24 1.277x to 1.238x
#: "digits": radix_digits, launched at this many blocks a multiprocessor (families/sort.py): unbounded,
#: its 16-byte loads took 68-80 registers (3 blocks an SM: the launch's 4th ran as a tail)
RADIX_MIN_BLOCKS = {"rows": 4, "block": 2, "sweep": 3, "keys": 3, "digits": 4}
NN_BLOCK = 256  # threads per block of the nn kernels
NN_MODULE = "nn"
NN_FLOATING = (dt.float16, dt.bfloat16, dt.float32, dt.float64)
NN_BYTE_SIZES = (1, 2, 4, 8, 16)
BYTES_MODULE = "bytes"  # the dtype-agnostic kernels (hip/mask_select.hip: in this module's source alone)
SVD_MODULE = "svd_jacobi"  # its own module: the only one that includes hip/svd_jacobi.*
QR_MODULE = "qr_householder"  # likewise hip/qr_householder.*

#: elements a thread takes a grid step on the contiguous path (hip/elementwise.hip's
#: cw_map_contig and cw_where: two 16-byte vectors of float32), which sizes that launch's
#: grid (``KernelSpec.items``); the binary arithmetic kernels take one vector a step
#: (BINARY_ITEMS: cw_binary_contig's P, elementwise.hip says why)
EW_ITEMS = 8
BINARY_ITEMS = 4
#: mask elements a thread of hip/mask_select.hip's mask_count/mask_select takes (their template
#: argument, at most 32: one bit each): a tile is MASK_ITEMS * EW_BLOCK elements
MASK_ITEMS = 16
#: ``KernelSpec.min_blocks``: blocks a multiprocessor the compiler keeps room for (the second
#: argument of ``__launch_bounds__``, a register cap; 0: none)
#: the skinny products' kernels (hip/matmul.hip): a narrow product's widths (N at most) and
#: lanes per row of A, a long one's width (M at most), and the 16-byte vectors a thread
#: reads at a time (probe s29_skinny2 on the H200 chose them: bench/results/rocm_gpu_tests)
SKINNY_NARROW_WIDTHS, SKINNY_NARROW_LANES, SKINNY_LONG_WIDTH, SKINNY_UNROLL = (4, 8), (4, 8), 8, 2
KernelSpec = namedtuple("KernelSpec", "key name module abi body block items min_blocks", defaults=(EW_ITEMS, 0))
#: (input, accumulation) dtypes whose sums and products the reduce kernels compute with the
#: input converted as it is read (the optional group "reduce_dtype": families/reductions.py);
#: any other pair is converted first (astype)
REDUCE_AS_PAIRS = ((dt.float16, dt.float32), (dt.bfloat16, dt.float32), (dt.float16, dt.float64),
                   (dt.bfloat16, dt.float64), (dt.float32, dt.float64))

# functors whose half-precision form must work on the 16-bit format itself
_HALF_FUNCTORS = {
    (BinaryOp.NEXTAFTER, dt.float16): "op_nextafter_16<cw_f16>",
    (BinaryOp.NEXTAFTER, dt.bfloat16): "op_nextafter_16<cw_bf16>",
}


def kernel_key(*parts):
    """The table's key of ``parts``: enum members by value, dtypes by name, the rest as given."""
    return tuple(p._value_ if isinstance(p, enum.Enum) else p.name if isinstance(p, dt.DType) else p
                 for p in parts)


def functor(op, dtype):
    """The C functor type the element-wise kernels apply for ``op`` on ``dtype`` (also the
    fused kernels of codegen/fused_source.py: one name per op, from one place)."""
    return _HALF_FUNCTORS.get((op, dtype), f"op_{op.value}")


def _domain(letters):
    return tuple(d for d in dt.ALL_DTYPES if _letters(d) in letters)


def _build():
    table = {}

    def add(key, name, module, body, abi="cw_ew_args", block=EW_BLOCK, items=EW_ITEMS, min_blocks=0):
        key = kernel_key(*key)
        table[key] = KernelSpec(key, name, module, abi, body, block, items, min_blocks)

    for op in UnaryOp:
        for d in op.dtypes():
            add(("unary", op, d), f"unary_{op.value}_{d.name}", f"unary_{d.name}",
                f"cw_unary<{C_TYPE[d]}, {C_TYPE[op.result_dtype(d)]}, {functor(op, d)} >(a);")
    for family, ops, result in (("binary", BinaryOp, None), ("compare", CompareOp, "cw_bool")):
        for op in ops:
            for d in op.dtypes():
                items = BINARY_ITEMS if result is None else EW_ITEMS
                args = f"{C_TYPE[d]}, {result or C_TYPE[d]}, {functor(op, d) if result is None else f'op_{op.value}'}"
                add((family, op, d), f"{family}_{op.value}_{d.name}", f"binary_{d.name}",
                    f"cw_binary<{args}, {items // 4}>(a);", items=items)
                if d.itemsize <= 8:  # hip/binary.hip's cw_binary_rows and cw_binary_flat say which launches
                    add((f"{family}_column", op, d), f"{family}_column_{op.value}_{d.name}", f"binary_{d.name}",
                        f"cw_binary_rows<{args} >(a);", items=items)
                    add((f"{family}_flat", op, d), f"{family}_flat_{op.value}_{d.name}", f"binary_{d.name}",
                        f"cw_binary_flat<{args}, {items // 4}>(a);", items=items)
    for src in dt.ALL_DTYPES:
        for dst in dt.ALL_DTYPES:
            if src.is_complex and not (dst.is_complex or dst.is_bool):
                continue  # complex -> real is never asked (the front end takes real/imag)
            add(("astype", src, dst), f"astype_{src.name}_{dst.name}", f"astype_{src.name}",
                f"cw_astype<{C_TYPE[src]}, {C_TYPE[dst]}>(a);")
    for size in ITEMSIZES:
        b = BYTES_TYPE[size]
        for family in ("copy", "fill", "where", "take", "row_copy", "put"):
            add((family, size), f"{family}_b{size}", BYTES_MODULE, f"cw_{family}<{b}>(a);")
        add(("transpose", size), f"transpose_b{size}", BYTES_MODULE, f"cw_transpose<{b}>(a);",
            TRANSPOSE_ARGS.name, TRANSPOSE_TILE * TRANSPOSE_ROWS)
    # a bool mask's kept positions (families/joins.py's kept_positions): compact past its tile bound
    add(("compact",), "compact", BYTES_MODULE, "cw_compact(a);")
    for stage in ("count", "select"):
        add(("mask", stage), f"mask_{stage}", BYTES_MODULE, f"cw_mask_{stage}<{MASK_ITEMS}>(a);")
    for d in _domain("IFC"):
        add(("affine", d), f"affine_{d.name}", f"misc_{d.name}", f"cw_affine<{C_TYPE[d]}>(a);")
        add(("arange", d), f"arange_{d.name}", f"misc_{d.name}", f"cw_arange<{C_TYPE[d]}>(a);")
        add(("put_add", d), f"put_add_{d.name}", f"misc_{d.name}", f"cw_put_add<{C_TYPE[d]}>(a);")
    for d in _domain("IF"):
        add(("clip", d), f"clip_{d.name}", f"misc_{d.name}", f"cw_clip<{C_TYPE[d]}>(a);")
    for d in _domain("BIF"):
        add(("radix_keys", d), f"radix_keys_{d.name}", SORT_MODULE, f"cw_radix_keys<{C_TYPE[d]}>(a);")
        if not d.is_bool:  # keys that stand for one value each (families/sort.py's keys-only sort)
            add(("radix_values", d), f"radix_values_{d.name}", SORT_MODULE, f"cw_radix_values<{C_TYPE[d]}>(a);")
        add(("searchsorted", d), f"searchsorted_{d.name}", f"misc_{d.name}",
            f"cw_searchsorted<{C_TYPE[d]}>(a);")
    for op in ScanOp:
        for d in op.dtypes():
            add(("scan", op, d), f"scan_{op.value}_{d.name}", f"misc_{d.name}",
                f"cw_scan<{C_TYPE[d]}, scan_{op.value}<{C_TYPE[d]}> >(a);")
            if op is ScanOp.PROD and d.is_complex:  # order-exact (scans.py says why)
                add(("scan_seq", op, d), f"scan_seq_{op.value}_{d.name}", f"misc_{d.name}",
                    f"cw_scan_seq<{C_TYPE[d]}, scan_{op.value}<{C_TYPE[d]}> >(a);")
            else:  # long rows in tiles (scans.py)
                add(("scan_tiles", op, d), f"scan_tiles_{op.value}_{d.name}", f"misc_{d.name}",
                    f"cw_scan_tiles<{C_TYPE[d]}, scan_{op.value}<{C_TYPE[d]}> >(a);")
    for d in _domain("F"):
        for kind, normal in (("uniform", "false"), ("normal", "true")):
            double = "true" if d is dt.float64 else "false"
            add(("rand", kind, d), f"rand_{kind}_{d.name}", f"misc_{d.name}",
                f"cw_random<{C_TYPE[d]}, {double}, {normal}>(a);")
    for op in ReduceOp:
        for d in op.dtypes():
            for shape in ("rows", "cols", "rows_vec", "cols_vec"):  # reductions.py says which
                add(("reduce", shape, op, d), f"reduce_{shape}_{op.value}_{d.name}", f"reduce_{d.name}",
                    f"cw_reduce_{shape}<{C_TYPE[d]}, red_{op.value}<{C_TYPE[d]}> >(a);", REDUCE_ARGS.name)
    for src, dst in REDUCE_AS_PAIRS:  # reduce_as: the reduce kernels reading src, accumulating in dst
        for op in (ReduceOp.SUM, ReduceOp.PROD):
            for shape in ("rows", "cols", "rows_vec", "cols_vec"):
                add(("reduce_as", shape, op, src, dst), f"reduce_as_{shape}_{op.value}_{src.name}_{dst.name}",
                    f"reduce_as_{dst.name}", f"cw_reduce_{shape}<{C_TYPE[src]}, red_{op.value}<{C_TYPE[dst]}> >(a);",
                    REDUCE_ARGS.name)
    for d in _domain("I"):
        add(("matmul", d), f"matmul_{d.name}", "matmul", f"cw_matmul<{C_TYPE[d]}>(a);",
            MATMUL_ARGS.name, MATMUL_TILE * MATMUL_TILE)
    # float32 products with one small edge (families/skinny_matmul.py: which, and why these)
    for width in SKINNY_NARROW_WIDTHS:
        for lanes in SKINNY_NARROW_LANES:
            add(("matmul_narrow", width, lanes), f"matmul_narrow_w{width}_g{lanes}", "matmul_skinny",
                f"cw_matmul_narrow<{width}, {lanes}, {SKINNY_UNROLL}>(a);", SKINNY_ARGS.name, SKINNY_BLOCK)
    add(("matmul_long", SKINNY_LONG_WIDTH), f"matmul_long_w{SKINNY_LONG_WIDTH}", "matmul_skinny",
        f"cw_matmul_long<{SKINNY_LONG_WIDTH}, {SKINNY_UNROLL}>(a);", SKINNY_ARGS.name, SKINNY_BLOCK)
    for size in (1, 2, 4, 8):  # sortable itemsizes
        add(("radix_out", size), f"radix_out_b{size}", SORT_MODULE, f"cw_radix_out<{BYTES_TYPE[size]}>(a);")
    add(("radix", "fill", 1), "radix_fill_b1", SORT_MODULE, "cw_radix_fill<unsigned char>(a);", RADIX_ARGS.name,
        RADIX_BLOCK)  # hip/radix_fill.hip: 1-byte values sorted by counting
    for key_bytes, key_type in ((4, "cw_u32"), (8, "cw_u64")):  # hip/radix.hip's key types
        add(("radix", "digits", key_bytes), f"radix_digits_k{key_bytes}", SORT_MODULE,
            f"cw_radix_digits<{key_type}>(a);", RADIX_ARGS.name, RADIX_BLOCK, min_blocks=RADIX_MIN_BLOCKS["digits"])
        if key_bytes == 8:  # an argsort's rows up to the 4-byte range tile, by halves (hip/radix_block.hip)
            add(("radix", "block_halves", 8, 8), "radix_block_halves_k8_b8", SORT_MODULE,
                f"cw_radix_block_halves<{BYTES_TYPE[8]}>(a);", RADIX_ARGS.name, RADIX_BLOCK,
                min_blocks=RADIX_MIN_BLOCKS["block"])
        if key_bytes == 8:  # an argsort as items of key (4 bytes, or each half of 8) and position (hip/radix_sweep.hip PACK)
            for size in (1, 2, 4, 8):
                add(("radix", "sweep_pack", 8, size), f"radix_sweep_pack_k8_b{size}", SORT_MODULE,
                    f"cw_radix_sweep<cw_u64, {BYTES_TYPE[size]}, false, true>(a);", RADIX_ARGS.name, RADIX_BLOCK,
                    min_blocks=RADIX_MIN_BLOCKS["keys"])
            # an 8-byte argsort's carry passes (families/sort.py's carried; hip/radix_sweep.hip's ARG)
            add(("radix", "sweep_carry", 8, 8), "radix_sweep_carry_k8_b8", SORT_MODULE,
                f"cw_radix_sweep<cw_u64, {BYTES_TYPE[8]}, true, false, true>(a);", RADIX_ARGS.name, RADIX_BLOCK,
                min_blocks=RADIX_MIN_BLOCKS["sweep"])
        for size in (1, 2, 4) if key_bytes == 4 else (8,):  # the keys made from the source's raw elements
            add(("radix", "digits_enc", key_bytes, size), f"radix_digits_enc_k{key_bytes}_b{size}", SORT_MODULE,
                f"cw_radix_digits<{key_type}, {BYTES_TYPE[size]}, true>(a);", RADIX_ARGS.name, RADIX_BLOCK,
                min_blocks=RADIX_MIN_BLOCKS["digits"])
        for size in (1, 2, 4) if key_bytes == 4 else (8,):  # the values' bytes (gathered in the last pass)
            for stage in ("rows", "block", "sweep"):
                add(("radix", stage, key_bytes, size), f"radix_{stage}_k{key_bytes}_b{size}", SORT_MODULE,
                    f"cw_radix_{stage}<{key_type}, {BYTES_TYPE[size]}>(a);", RADIX_ARGS.name, RADIX_BLOCK,
                    min_blocks=RADIX_MIN_BLOCKS.get(stage, 0))
            for stage in ("block", "sweep"):  # a sort of values alone: no positions carried, fewer registers
                add(("radix", f"{stage}_keys", key_bytes, size), f"radix_{stage}_keys_k{key_bytes}_b{size}",
                    SORT_MODULE, f"cw_radix_{stage}<{key_type}, {BYTES_TYPE[size]}, false>(a);", RADIX_ARGS.name,
                    RADIX_BLOCK, min_blocks=RADIX_MIN_BLOCKS["keys"])
    for d, v_shared in ((dt.float32, "true"), (dt.float64, "false")):  # hip/svd_jacobi.hip says why
        add(("svd_jacobi", d), f"svd_jacobi_{d.name}", SVD_MODULE, f"cw_svd_jacobi<{C_TYPE[d]}, {v_shared}>(a);",
            SVD_ARGS.name, SVD_BLOCK)
        add(("qr_householder", d), f"qr_householder_{d.name}", QR_MODULE, f"cw_qr_householder<{C_TYPE[d]}>(a);",
            QR_ARGS.name, QR_BLOCK)
    for d, real in ((dt.complex64, "float"), (dt.complex128, "double")):  # hip/eig.hip (families/linalg_eig.py)
        add(("eig", d), f"eig_{d.name}", "linalg_eig", f"cw_eig<{real}>(a);", EIG_ARGS.name, EIG_BLOCK)
    for key, name, body in _nn_kernels():  # hip/nn.hip: conv fallback, pooling
        add(key, name, NN_MODULE, body, NN_ARGS.name, NN_BLOCK)
    return table


def nn_accumulator(dtype):
    """The dtype the GEMM writes (and col2im sums) for a transposed convolution."""
    return dt.float64 if dtype is dt.float64 else dt.float32


def _nn_kernels():
    """(key, name, body) of every kernel of hip/nn.hip."""
    for size in NN_BYTE_SIZES:
        raw = BYTES_TYPE[size]
        yield ("nn", "im2col", size), f"nn_im2col_b{size}", f"cw_im2col<{raw}>(a);"
        yield ("nn", "upsample", size), f"nn_upsample_b{size}", f"cw_upsample<{raw}>(a);"
    for d in NN_FLOATING:
        s, acc = C_TYPE[d], C_TYPE[nn_accumulator(d)]
        yield ("nn", "col2im", d), f"nn_col2im_{d.name}", f"cw_col2im<{s}, {acc}>(a);"
        yield ("nn", "max_pool", d), f"nn_max_pool_{d.name}", f"cw_max_pool<{s}>(a);"
        yield ("nn", "avg_pool", d), f"nn_avg_pool_{d.name}", f"cw_avg_pool<{s}>(a);"
        yield ("nn", "pad_nan", d), f"nn_pad_nan_{d.name}", f"cw_pad_nan<{s}>(a);"
        yield ("nn", "finite_flag", d), f"nn_finite_flag_{d.name}", f"cw_finite_flag<{s}>(a);"


TABLE = _build()
MODULES = {}
for _spec in TABLE.values():
    MODULES.setdefault(_spec.module, []).append(_spec)
del _spec


#: the families whose kernels have an entry of their own for a layout kind, types up to 8
#: bytes (hip/binary.hip's cw_binary_flat: contiguous or one strided axis;
#: cw_binary_rows: two strided axes): their registers stay out of the full entry's launches
ENTRY_FAMILIES = ("binary", "compare")
ENTRIES = ("flat", "column")


def entry(key, kind):
    """The KernelSpec of the ``kind`` entry (``ENTRIES``) of the table's binary or compare
    kernel ``key``; None for another family or a type without one."""
    if key[0] not in ENTRY_FAMILIES:
        return None
    return TABLE.get(kernel_key(f"{key[0]}_{kind}", *key[1:]))


def lookup(key, op_name=None, dtype=None):
    """The KernelSpec for ``key`` (any spelling ``kernel_key`` accepts); UnsupportedOperation
    naming op/dtype/"rocm" if absent."""
    spec = TABLE.get(key)
    if spec is None:
        key = kernel_key(*key)
        spec = TABLE.get(key)
    if spec is None:
        raise UnsupportedOperation(op_name or "/".join(str(getattr(k, "value", k)) for k in key),
                                   dtype, "rocm")
    return spec


def entry_point(spec):
    """The generated ``extern "C"`` kernel that instantiates the spec's body."""
    bounds = f"{spec.block}, {spec.min_blocks}" if spec.min_blocks else f"{spec.block}"
    return (f'extern "C" __global__ void __launch_bounds__({bounds}) '
            f"{spec.name}({spec.abi} a) {{ {spec.body} }}\n")
