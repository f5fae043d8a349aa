"""[families] Launching element-wise kernels of the op table: the contiguous fast path and
the strided path (coalesced, split past 8 dimensions, planned once per layout)."""

import functools
import math
import struct

import numpy as np

from candlewick import dtypes as dt
from candlewick.shapes import shape_size

from .. import ops
from ..abi import structs
from ..abi.ew_operands import ew_values, split_dims
from ..abi.structs import CONTIGUOUS, EW_ARGS, GRID_YZ_MAX, INDEX32, INDEX32_LIMIT, SCALAR_BYTES, SCALAR_WORDS
from ..kernels import kernel
from ..runtime.launcher import NOTHING, PreparedLaunch

try:  # candlewick's optional compiled module (absent where no C compiler was found)
    from candlewick._native import ContiguousLaunch
except ImportError:
    ContiguousLaunch = None

# The contiguous fast path packs only these fields (the kernels' CW_CONTIGUOUS path
# reads nothing else) with one pack_into; see hip/elementwise.hip.
_EW_CONTIG = EW_ARGS.packer(["n", "ndim", "flags"] + [f"op{k}_{f}" for k in range(4) for f in ("ptr", "offset")]
                            + ["scalar"])
NO_SCALAR = bytes(SCALAR_BYTES)
# The one-strided-axis path (a 1-D layout that is not contiguous: x[::2] += 1) packs only
# the extent and each operand's pointer, offset and first stride: with ndim 1 the kernels
# read nothing else of shape and strides (hip/common.h cw_decode, cw_binary's 1-D loop)
_EW_1D = EW_ARGS.packer(["n", "ndim", "flags", "shape[:1]"]
                        + [f"op{k}_{f}" for k in range(4) for f in ("ptr", "offset", "strides[:1]")] + ["scalar"])
_NO_OPERAND = (0, 0, 0)
# The same fields written from C (``contiguous_launch``) over a zero struct: n, ndim with
# flags (one 8-byte word, ndim in its low half), each operand's pointer and offset
_EW_ZERO = bytes(EW_ARGS.size)
_EW_CONTIG_OFFSETS = (EW_ARGS.offsets["n"], EW_ARGS.offsets["ndim"]) + tuple(
    EW_ARGS.offsets[f"op{k}_{f}"] for k in range(4) for f in ("ptr", "offset"))
assert EW_ARGS.offsets["flags"] == EW_ARGS.offsets["ndim"] + 4
_CONTIG_INDEX32 = CONTIGUOUS | INDEX32
# launch_ew's prepared launches pack every field, the scalar slots as their SCALAR_WORDS
# 8-byte words (the C type's own, cw_i64 scalar[4]): each launch fills the array operands'
# pointers and offsets and the four words, written in C over the struct packed once where
# candlewick._native is built (a scalar is one more field to write, not a pack in Python)
_EW_PLANNED = EW_ARGS.packer([f[0] for f in EW_ARGS.flat], words=("scalar",))
_SCALAR_WORDS = struct.Struct(f"<{SCALAR_WORDS}Q")
_NO_WORDS = (0,) * SCALAR_WORDS
# threads per block of the contiguous path (the kernels' launch bound is structs.EW_BLOCK):
# exp f32 measured 128.0 / 504.4 us on the device at 2^26 / 2^28 with 128, 130.7 / 516.9
# with 256, torch 127.9 / 505.5 (H200 through the shim, bench/results/rocm_probe_*session3*)
EW_CONTIG_BLOCK = 128


def compute_dtype(dtype):
    """The dtype kernels compute in: float16/bfloat16 compute in float32."""
    return dt.float32 if dtype in (dt.float16, dt.bfloat16) else dtype


# Python floats into float32/float64 and Python ints into the integer dtypes pack through
# ``struct`` (a C cast, as NumPy's, in a fraction of NumPy's time); what it refuses (a
# float past float32's range, an int past the dtype's) and every other case go through
# NumPy, which is the definition
# (a float into complex64/complex128: its real part, the slot's zero padding the
# imaginary part)
_FLOAT_PACKERS = {"float32": struct.Struct("<f"), "float64": struct.Struct("<d"),
                  "complex64": struct.Struct("<f"), "complex128": struct.Struct("<d")}
_INT_PACKERS = {name: struct.Struct(code) for name, code in (
    ("int8", "<b"), ("int16", "<h"), ("int32", "<i"), ("int64", "<q"),
    ("uint8", "<B"), ("uint16", "<H"), ("uint32", "<I"), ("uint64", "<Q"))}
_SLOT_PAD = {n: bytes(16 - n) for n in (1, 2, 4, 8)}
_EXACT_INT = 1 << 24  # ints float32 (and so every type of _FLOAT_PACKERS) holds exactly


def scalar_bytes(value, dtype):
    """Raw bits of a scalar in ``dtype``, for a 16-byte scalar slot; a float past the
    dtype's range becomes inf as IEEE conversion gives it, with no NumPy warning."""
    kind = type(value)
    packer = (_FLOAT_PACKERS if kind is float else _INT_PACKERS if kind is int else {}).get(dtype.name)
    if packer is None and kind is int and -_EXACT_INT <= value <= _EXACT_INT:
        packer = _FLOAT_PACKERS.get(dtype.name)  # x * 2, zeros: an int every float type holds exactly
    if packer is not None:
        try:
            return packer.pack(value) + _SLOT_PAD[packer.size]
        except (OverflowError, struct.error):
            pass
    with np.errstate(over="ignore", invalid="ignore"):
        return np.asarray(value).astype(dtype.numpy).tobytes().ljust(16, b"\0")


def grid_for(n, block=structs.EW_BLOCK, device=None):
    """Blocks for a grid-stride loop over ``n`` items: enough to fill the device."""
    cap = GRID_YZ_MAX * 8
    if device is not None:
        cap = max(device.multiprocessors * 32, 1)
    return max(1, min((n + block - 1) // block, cap))


def launch_ew(device, key, shape, operands, scalar=b"", flags=0, name=None, dtype=None, blocks=None):
    """Launch an element-wise kernel of the table over ``shape`` (split if > 8 dims).
    ``blocks(n)`` overrides the grid (kernels that give a whole block to each item).

    The launch of a layout (kernel, grid, coalesced shape and strides)
    is prepared once per device and kept in its launch memo by (key, shape, flags,
    operand strides, which operands are scalars, the grid ``blocks`` gave): a repeated layout costs one dict hit and
    its pointers, offsets and scalar words filled in (in C where built: ``PreparedLaunch.run``)."""
    shape = tuple(shape)
    grid = None if blocks is None else blocks(shape_size(shape))
    # one pass over the operands for the memo's key and the fills (a loop, not two
    # comprehensions: each is a call of its own on every launch)
    strides_key, fills = [], []
    for ptr, offset, strides in operands:
        if ptr:
            strides_key.append(tuple(strides))
            fills.append(ptr)
            fills.append(offset)
        else:
            strides_key.append(None)
    plan_key = ("ew", key, shape, flags, grid, tuple(strides_key))
    launches = device.launches
    plan = launches.get(plan_key)
    if plan is None:
        plan = launches.keep(plan_key, _ew_plan(device, key, shape, operands, flags, name, dtype, grid))
    if plan is not _SPLIT:
        if plan is NOTHING:
            return
        fills += _SCALAR_WORDS.unpack(scalar.ljust(SCALAR_BYTES, b"\0")) if scalar else _NO_WORDS
        plan.run(*fills)
        return
    bound = kernel(device, key, name, dtype)  # memoized: the table's lookup spells the key anew
    spec = bound.spec
    launcher = device.launcher
    for piece_shape, piece_ops in split_dims(tuple(shape), operands):
        n = shape_size(piece_shape)
        if n == 0:
            continue
        values = ew_values(piece_shape, piece_ops, scalar, flags)
        launcher.launch(bound, blocks(n) if blocks else grid_for(n, spec.block, device), None, EW_ARGS, values)


# the cw_ew_args values of launch_ew's plans: (n, ndim, flags, shape...) then per operand
# (ptr, offset, strides...), then the scalar slots
_OPERAND_SLOT = 3 + structs.MAX_DIMS
_OPERAND_FIELDS = 2 + structs.MAX_DIMS
_SPLIT = "split"  # the plan of a layout that takes the general path


def _ew_plan(device, key, shape, operands, flags, name, dtype, grid=None):
    """The PreparedLaunch of a layout that needs no split (its values hold pointer 1 and
    offset 0 for each array operand and zero scalar words, each launch fills in its own:
    run(*pointers and offsets, *scalar words)); ``NOTHING`` for an empty shape; _SPLIT
    otherwise. ``grid``: launch_ew's ``blocks`` decided it."""
    pieces = list(split_dims(shape, [(1 if ptr else 0, 0, strides) for ptr, _, strides in operands]))
    if len(pieces) != 1:
        return _SPLIT
    n = shape_size(shape)
    if n == 0:
        return NOTHING
    spec = ops.lookup(key, name, dtype)
    # run(*fills) fills the array operands' pointers and offsets and the scalar words (the
    # C-written fields of PreparedLaunch where candlewick._native is built: no per-launch
    # pack of the ~60 fields)
    values = ew_values(shape, pieces[0][1], b"", flags)
    values[-1:] = _NO_WORDS
    slots = [_OPERAND_SLOT + k * _OPERAND_FIELDS + field for k, (ptr, _, _) in enumerate(operands) if ptr
             for field in (0, 1)] + list(range(len(values) - SCALAR_WORDS, len(values)))
    if grid is not None:
        return PreparedLaunch(device.launcher, device.kernels.kernel(spec), grid, None, EW_ARGS, values, slots,
                              _EW_PLANNED)
    grid, block = grid_for(n, spec.block, device), None
    ndim = values[1]
    entry = ops.entry(key, ops.ENTRIES[ndim - 1]) if 0 < ndim <= 2 and not values[2] & CONTIGUOUS else None
    if entry is not None and ndim == 1:  # a binary or compare layout's own entry (types up to 8 bytes)
        spec, grid = entry, steps_grid(n, entry.block, device)
    elif entry is not None:
        rows = column_grid(n, values[4], COLUMN_BLOCK, device)
        if rows:  # else the full entry's decode: too few rows for a whole-rows grid
            spec, grid, block = entry, rows, COLUMN_BLOCK
    bound = device.kernels.kernel(spec)
    return PreparedLaunch(device.launcher, bound, grid, block, EW_ARGS, values, slots, _EW_PLANNED)


#: elements a thread of the strided steps takes a step (CW_STRIDED_ITEMS, hip/binary.hip)
STRIDED_ITEMS = 4
#: threads a block of the two-axes column steps (hip/binary.hip's cw_binary_column): the 781 x
#: 2049 complex64 spectrum product 6.87 us against 7.19 with 256, 4096 x 4096 float32 plus a
#: row 42.8 against 43.1, X - mean and KMeans's (200000, 8) within 1 % (H200, probe s16cmul 1)
COLUMN_BLOCK = 128


def steps_grid(n, block, device):
    """The grid of a binary or compare launch over one strided axis of ``n`` elements
    (types up to 8 bytes): STRIDED_ITEMS elements a thread a step, their loads all in
    flight (a grid of one element a thread left each with one or two: KMeans's (200000, 8)
    broadcasts took 13-14.5 us on the H200 against torch's 5.8, whose threads take four)."""
    return grid_for(-(-n // STRIDED_ITEMS), block, device)


def column_grid(n, cols, block, device):
    """The grid of the column steps over ``n`` elements in rows of ``cols`` (types up to 8
    bytes; blocks of ``block`` threads): STRIDED_ITEMS elements a thread a step where it
    can, rounded down to whole rows (a multiple of ``cols`` threads: each thread keeps one
    column), else one whole-rows unit where each thread still has an element (scipy.fft's
    2049- and 8193-element spectrum rows); 0 where neither fits (fewer rows than a unit's
    threads hold, or threads past 32 bits): that layout takes the full entry's decode."""
    unit = cols // math.gcd(cols, block)
    few = grid_for(-(-n // STRIDED_ITEMS), block, device)
    if unit <= few:
        return few - few % unit
    if unit <= -(-n // block) and unit * block < INDEX32_LIMIT:
        return unit
    return 0


def launch_contiguous_fields(device, kernel, n, fields, scalar=NO_SCALAR, flags=0):
    """Queue an element-wise kernel whose operands are all C-contiguous over the same
    ``n`` elements (n > 0): ``fields`` operand 0's pointer and offset, then each other
    operand's (at most four pairs; pointer 0 reads the scalar slot), ``scalar`` the slots'
    bytes, ``flags`` or'ed into the kernel's. The packed launch: where candlewick._native
    is built, ``device.ew_contiguous`` (``contiguous_launch``) writes the same struct in C
    and calls this only for a kernel whose handle is no address."""
    per_block = EW_CONTIG_BLOCK * kernel.items  # (the kernel's elements a thread a step: ops.EW_ITEMS)
    grid = (n + per_block - 1) // per_block
    if grid > device.ew_grid_cap:
        grid = device.ew_grid_cap
    flags |= _CONTIG_INDEX32 if n < INDEX32_LIMIT else CONTIGUOUS
    values = [n, 1, flags, *fields]
    values += PAIRS_LEFT[len(fields)]
    values.append(scalar)
    device.launcher.launch_fields(kernel, grid, 1, 1, EW_CONTIG_BLOCK, 1, 1, EW_ARGS, _EW_CONTIG, values)


def contiguous_launch(device):
    """The device's contiguous element-wise launch, called ``(kernel, n, fields[, scalar[,
    flags]])`` as ``launch_contiguous_fields`` without its device: a
    ``candlewick._native.ContiguousLaunch`` over the launcher's ``StreamLaunch`` where
    both exist (the host path of every small op: no Python frame between the op family
    and the runtime), else that function bound to ``device``."""
    general = functools.partial(launch_contiguous_fields, device)
    stream_launch = getattr(device.launcher, "stream_launch", None)
    if ContiguousLaunch is None or stream_launch is None:
        return general
    return ContiguousLaunch(stream_launch, _EW_ZERO, _EW_CONTIG_OFFSETS, EW_ARGS.offsets["scalar"], EW_CONTIG_BLOCK,
                            ops.EW_ITEMS, device.ew_grid_cap, INDEX32_LIMIT, _CONTIG_INDEX32, CONTIGUOUS,
                            general)


# launch_contiguous_fields' operand pairs after the ones given: each missing pair (0, 0)
PAIRS_LEFT = {2: (0,) * 6, 4: (0,) * 4, 6: (0,) * 2, 8: ()}


def launch_strided_1d(device, kernel, n, operands, scalar=NO_SCALAR):
    """Queue an element-wise kernel over one strided axis of ``n`` elements (n > 0):
    ``operands`` up to four (pointer, offset, stride), pointer 0 for a scalar operand
    reading its slot. The host hot path of ``x[::2] += 1``: one pack of the fields the
    kernels read at ndim 1 (``launch_ew``'s memo of coalesced layouts is for the rest)."""
    values = [n, 1, INDEX32 if n < INDEX32_LIMIT else 0, n]
    for op in operands:
        values += op
    values += _NO_OPERAND * (4 - len(operands))
    values.append(scalar)
    block = kernel.block
    grid = (n + block - 1) // block  # (n > 0)
    # twice grid_for's blocks a multiprocessor: fewer steps a thread. x[::2] += 1 at 2^26
    # float32 on the H200 (flat entry, one process, torch's own in the same rounds): 64 a
    # multiprocessor 0.989x torch, 32 1.003x, 16 1.031x, 8 1.017x
    cap = device.multiprocessors * 64
    if grid > cap:
        grid = cap if cap > 0 else 1
    device.launcher.launch_fields(kernel, grid, 1, 1, block, 1, 1, EW_ARGS, _EW_1D, values)
