"""[families] Ordering: sort (an LSD radix sort of each row, hip/radix.hip, radix_block.hip and radix_sweep.hip)
and searchsorted.

The sorted axis is made the last one and every row gets unsigned keys (order-preserving:
NaN above +inf, -0.0 equal to +0.0, bool in one bit; descending inverts the bits): radix_keys
writes them, but for rows past a tile one stride apart, whose keys the first kernel that reads
them makes from the source (radix_digits_enc, then the first onesweep pass; radix_block). A row of
at most one tile (``TILE`` keys) is sorted in shared memory, every 4-bit digit in turn,
in one launch: a block takes as many such rows at a time as a tile holds (sorted by key,
then by row). A row of at most ``RANGE_TILE`` keys too, a block a row, every 8-bit digit
in turn (radix_block); rows of 8-byte keys up to the 4-byte keys' range tile too, by
halves: the class keys' low halves with their positions, then their high halves gathered by
position, the values too (radix_block_halves; 8-byte keys and positions of 4096 overflow the
48 KiB of static shared memory). Longer rows take a onesweep: one launch counts every pass's digits
of each row (radix_digits; an argsort's first pass of items counts the later passes'), then one
launch a pass per 8-bit digit (radix_sweep) over the
whole array: each block takes the next range of a row (``SWEEP_TILE`` keys, ``CARRY_TILE`` with
the positions, ``PACK_TILE`` items of an argsort; a ticket), ranks it in
shared memory (the 8-bit digit at once), finds each digit's first places by looking back over
the ranges before it (the counts they post) and writes each digit's run to its places.
A sort of 1-byte values alone (bool, int8, uint8) past a range tile is a counting sort: the
digit totals are the sorted row (radix_fill writes it run by run, no pass ranks a key).
Every pass is stable, so the result is a stable sort's whatever ``stable`` says. A key
stands for one value (a float's keep zeros' signs and NaN payloads; each pass takes its
digit from the key of the key's class, cw_radix_class: zeros of both signs are equal, every
NaN too), so the values are decoded from the keys. The keys' row positions (u32) ride along
where the indices are wanted, and for bool (whose values are gathered by them); a sort of
values alone past a tile moves the keys alone. Along the last axis (of a source whose rows
are evenly spaced) the last pass writes the values and indices in place; otherwise one
more launch does (radix_out from the positions, radix_values from the keys). An argsort
there past a range tile moves 8-byte items, class key << 32 | position, through the keys'
sweep (radix_sweep_pack): 4-byte keys in one sort; 8-byte keys' low halves, then their high
halves (gathered from the source by position), or in rows past ``GATHER_MAX`` the key's bits
above the position's, after the carry sweep's first passes (until the position fits below the
next digit, _item_shift); its last pass writes the positions as the indices. Only the buffers
that a later pass reads are made (a 1-byte key's argsort: none).
unique's sort (``skip_constant``) reads the digit totals back and launches only the passes
whose digit differs between keys (label data: one of eight).
"""

import struct

import numpy as np

from candlewick import dtypes as dt
from candlewick.errors import UnsupportedOperation
from candlewick.layout import Layout
from candlewick.shapes import contiguous_strides, shape_size

from ..abi import structs
from ..abi.structs import FLAG_A, GRID_LOOP_CAP, RADIX_ARGS
from ..kernels import kernel
from ..ops import RADIX_MIN_BLOCKS
from .copies import operand, to_host
from .ew_launch import launch_ew

TILE = structs.RADIX_BLOCK * structs.RADIX_ITEMS  # keys one block sorts in shared memory
#: keys of the longest row sorted by one block, every 8-bit digit in turn (radix_block), by key bytes
RANGE_TILE = {k: structs.RADIX_BLOCK * items for k, items in structs.RADIX_RANGE_ITEMS.items()}
#: keys a block ranks at a time in a onesweep pass (a range, hip/radix_sweep.hip), by key bytes
SWEEP_TILE = {k: structs.RADIX_BLOCK * items for k, items in structs.RADIX_SWEEP_ITEMS.items()}
#: the same where the keys' positions ride along
CARRY_TILE = {k: structs.RADIX_BLOCK * items for k, items in structs.RADIX_SWEEP_CARRY_ITEMS.items()}
#: the same in an argsort's passes of items (radix_sweep_pack)
PACK_TILE = structs.RADIX_BLOCK * structs.RADIX_PACK_ITEMS
#: places of a sorted row one block of radix_fill writes (64 a thread)
FILL_TILE = structs.RADIX_BLOCK * 64
#: the longest row whose 8-byte argsort gathers its high halves by position (longer: carries them)
GATHER_MAX = structs.RADIX_GATHER_MAX
#: blocks per multiprocessor of radix_digits (each counts consecutive ranges, adding a row's
#: counts to its totals once): as many as its registers are bounded for
DIGITS_BLOCKS_PER_CU = RADIX_MIN_BLOCKS["digits"]
_ROW_MAX = 1 << 32  # positions in a row are u32


def sort(x, layout, axis, descending, stable=True, values_wanted=True, indices_wanted=True, skip_constant=False):
    """(values, int64 indices) along ``axis``; always stable. An output not wanted
    (sort_values, argsort) is None, and nothing writes it. ``skip_constant``: a onesweep
    reads its digit totals back and runs only the passes whose digit differs between keys
    (``_passes``; for callers that read the device anyway, as unique does)."""
    device = x.device
    shape = tuple(layout.shape)
    n = shape_size(shape)
    values = device.storage_type.empty(device, x.dtype, n) if values_wanted else None
    indices = device.storage_type.empty(device, dt.int64, n) if indices_wanted else None
    if n == 0:
        return values, indices
    if x.dtype.is_complex:
        raise UnsupportedOperation("sort", x.dtype, "rocm", "complex sort is not defined")
    length = shape[axis]
    if length >= _ROW_MAX:
        raise UnsupportedOperation("sort", x.dtype, "rocm", f"rows of {length} elements (at most {_ROW_MAX - 1})")
    perm = [i for i in range(len(shape)) if i != axis] + [axis]
    pshape = tuple(shape[i] for i in perm)
    pstrides = tuple(layout.strides[i] for i in perm)
    rows = n // length
    key_bytes = 8 if x.dtype.itemsize == 8 else 4
    size = x.dtype.itemsize
    bits = 1 if x.dtype.is_bool else 8 * size
    buf_strides = contiguous_strides(pshape)
    src_row = _row_stride(pshape[:-1], pstrides[:-1])
    decoding = _decoding(x.dtype, bits, descending)
    # rows past a tile, one stride apart: the kernel that reads the keys first makes them from
    # the source (cw_radix_encode: radix_digits_enc, then the first onesweep pass; radix_block);
    # else radix_keys writes them first
    encode = (0, x.ptr, layout.offset, pstrides[-1], src_row) + decoding if src_row is not None and length > TILE \
        else None
    # keys made from the source need no buffer of their own (_passes makes the ones its later passes read)
    keys = device.storage_type.empty(device, dt.uint64 if key_bytes == 8 else dt.uint32, n) if encode is None else None
    if encode is None:
        launch_ew(device, ("radix_keys", x.dtype), pshape,
                  [(keys.ptr, 0, buf_strides), (x.ptr, layout.offset, pstrides)], b"",
                  FLAG_A if descending else 0, name="sort", dtype=x.dtype)
    if axis == len(shape) - 1 and not indices_wanted and size == 1 and length > RANGE_TILE[key_bytes]:
        _counted(device, keys, values, bits, rows, length, descending, x.dtype.category == "signed integer", encode)
        return values, indices
    # along the last axis of a source whose rows are one stride apart, the last pass writes
    # the values (decoded, or gathered by position) and the int64 indices in their places
    direct = axis == len(shape) - 1 and src_row is not None
    keys_only = not indices_wanted and not x.dtype.is_bool
    sink = (values.ptr if direct and values_wanted else 0, x.ptr, layout.offset, pstrides[-1], src_row or 0) + decoding
    wide = indices.ptr if direct and indices_wanted else 0
    if direct and key_bytes == 8 and encode is not None and length <= RANGE_TILE[4] and \
            (not values_wanted or length > RANGE_TILE[8]):
        # rows of 8-byte keys past a tile (with values: past radix_block's range tile): a block a row,
        # the halves' passes in turn, the indices and the values gathered by position where asked
        # (radix_block_halves; wide 0: it reads not the field, shared by RADIX_ARGS's other kernels,
        # and writes int64 indices wherever idx_out is set)
        device.launcher.launch(kernel(device, ("radix", "block_halves", 8, 8)), min(rows, GRID_LOOP_CAP), None,
                               RADIX_ARGS, (0, 0, 0, wide, 0, length, rows, length, 1, 0, bits, 0) + sink)
    elif length <= RANGE_TILE[key_bytes]:  # a launch: rows in a tile each (several in one up to TILE)
        order = None if direct else device.storage_type.empty(device, dt.uint32, n)
        # radix_block_keys: no positions carried (values decoded in place: a sort of values alone)
        block = "block_keys" if direct and keys_only else "block"
        stage, grid = ("rows", -(-rows // (TILE // length))) if length <= TILE else (block, rows)
        device.launcher.launch(kernel(device, ("radix", stage, key_bytes, size)), min(grid, GRID_LOOP_CAP), None,
                               RADIX_ARGS, (0 if encode and stage != "rows" else keys.ptr, 0, 0,
                                            wide or (0 if direct else order.ptr), 0, length, rows,
                                            length, 1, 0, bits, int(bool(wide))) + sink)
    else:
        # an argsort in place: items of key (4 bytes, or each half of 8 in turn) and position
        # (8 bytes), moved by a sort of keys alone
        pack = direct and not values_wanted and encode is not None
        order, keys = _passes(device, keys, (key_bytes, size), bits, rows, length, not keys_only and not pack, decoding,
                              (wide, sink) if direct else None, encode, pack, skip_constant and not pack)
    if direct:
        return values, indices
    out_strides = contiguous_strides(shape)
    pout = tuple(out_strides[i] for i in perm)
    if order is None:
        launch_ew(device, ("radix_values", x.dtype), pshape, [(values.ptr, 0, pout), (keys.ptr, 0, buf_strides)],
                  b"", FLAG_A if descending else 0, name="sort", dtype=x.dtype)
        return values, indices
    launch_ew(device, ("radix_out", x.dtype.itemsize), pshape,
              [(values.ptr if values_wanted else 0, 0, pout), (x.ptr, layout.offset, pstrides[:-1] + (0,)),
               (order.ptr, 0, buf_strides), (indices.ptr if indices_wanted else 0, 0, pout)],
              struct.pack("<q", pstrides[-1]), name="sort", dtype=x.dtype)
    return values, indices


def sort_values(x, layout, axis, descending, stable=True):
    """The values of ``sort`` (stable whatever ``stable`` says), without the indices."""
    return sort(x, layout, axis, descending, stable, indices_wanted=False)[0]


def argsort(x, layout, axis, descending, stable=True):
    """The indices of ``sort``, without the gather of the values."""
    return sort(x, layout, axis, descending, stable, values_wanted=False)[1]


def _decoding(dtype, bits, descending):
    """(mask, decode, inf) of RADIX_ARGS: how the last pass turns a key back into its value
    (hip/radix.hip's cw_radix_value) and, for a float, which keys every pass takes as equal
    (cw_radix_class: inf, the bits of +inf); mask as the i64 of its bits."""
    flip = (1 << bits) - 1 if descending else 0
    if dtype.is_bool:  # any nonzero byte is True: gathered as it was (inf: the flip of its keys made
        return 0, structs.RADIX_GATHER, flip  # from the source, cw_radix_encode)
    inf = 0
    if dtype.is_floating:
        mask, decode = flip, structs.RADIX_DECODE_FLOAT
        inf = int(np.array(np.inf, dtype.numpy).view(f"u{dtype.itemsize}"))
    else:  # signed keys have their sign bit flipped (cw_radix<S>::key)
        mask, decode = flip ^ (1 << (bits - 1) if dtype.category == "signed integer" else 0), structs.RADIX_DECODE_INT
    return mask - (1 << 64) if mask >= 1 << 63 else mask, decode, inf


def _row_stride(shape, strides):
    """The one stride between consecutive rows of (shape, strides), or None if they are not
    evenly spaced (0 for a single row)."""
    dims = [(m, st) for m, st in zip(shape, strides) if m != 1]
    if not dims:
        return 0
    for (_, outer), (m, inner) in zip(dims, dims[1:]):
        if outer != inner * m:
            return None
    return dims[-1][1]


def _counted(device, keys, values, bits, rows, length, descending, signed, encode=None):
    """The sorted values of rows of 1-byte keys (rows x length, contiguous) into ``values``
    (contiguous): equal 1-byte values are one value, so each row's digit totals
    (radix_digits, one pass) are its sorted row, written run by run (radix_fill): two
    launches and no ranking, where a onesweep pass ranks and moves every key."""
    blocks = -(-length // SWEEP_TILE[4])  # radix_digits' ranges
    fill_blocks = -(-length // FILL_TILE)
    state = device.storage_type.empty(device, dt.uint64, 8 + rows * 256)
    state.buffer.memset(0)
    flip = (1 << bits) - 1 if descending else 0
    mask = flip ^ (0x80 if signed else 0)
    head = (keys.ptr if keys is not None else 0, 0, 0, 0, state.ptr, length, rows)
    stage, tail = ("digits", 4), (0,) * 5 + (0, structs.RADIX_DECODE_INT, 0)
    if encode is not None:  # ``encode``: the source's fields of RADIX_ARGS (the keys made from it)
        stage, tail = ("digits_enc", 4, 1), encode
    device.launcher.launch(kernel(device, ("radix",) + stage),
                           min(rows * blocks, device.multiprocessors * DIGITS_BLOCKS_PER_CU), None, RADIX_ARGS,
                           head + (SWEEP_TILE[4], blocks, 0, bits, 0) + tail)
    device.launcher.launch(kernel(device, ("radix", "fill", 1)), min(rows * fill_blocks, GRID_LOOP_CAP), None,
                           RADIX_ARGS, head + (FILL_TILE, fill_blocks, 0, bits, 0, values.ptr, 0, 0, 0, 0, mask,
                                               structs.RADIX_DECODE_INT, 0))


def _passes(device, keys, sizes, bits, rows, length, positions, decoding, last=None, encode=None, pack=False,
            skip_constant=False):
    """(the u32 row positions of ``keys`` (rows x length, contiguous) in sorted order, or
    None without ``positions`` or with ``last``; the sorted keys, or the last ones written
    with positions or with ``last``): radix_digits, then one radix_sweep per 8-bit digit
    between two pairs of buffers.
    ``sizes``: the keys' bytes and the values'; ``decoding``: _decoding's fields.
    ``last``: (the int64 indices' pointer or 0, the values' fields of RADIX_ARGS) that the
    last pass writes in place instead of the positions and keys. ``keys`` None: made from the
    source (``encode``); only the buffers that a pass writes and a later one reads are made.
    ``pack``: the keys are 8-byte items (made from the source), 4-byte key << 32 | position
    (8-byte keys: the low halves' passes, then the high halves', gathered by the pass of shift
    32), moved by a sort of keys alone (radix_sweep_pack) whose last pass writes the positions
    as the indices. 8-byte keys in rows past GATHER_MAX: the passes below _item_shift move keys
    and positions (the carry sweep, radix_sweep_carry: class keys, its own look-back window; the
    positions in the halves of the indices, which only the last pass writes), the last of them
    writes the items, the class key's bits above it with the position below.
    An argsort's items (4-byte keys, or 8-byte keys carried): radix_digits counts the digits of
    the passes up to the first pass of items, which counts the later passes' (RADIX_COUNT_LATER).
    ``skip_constant``: the digit totals are read back after radix_digits and a pass whose
    digit is the same for every key of every row (one digit's total is the row's length:
    the pass would move nothing) is not launched, at the cost of that read's wait. Label
    data (LDA's y, int64 0..2: 7 of 8 bytes constant) then takes one pass of eight; its
    unique_* calls read a count back right after anyway. Never with ``pack`` (its first pass makes
    the items; an 8-byte key's pass of shift 32 gathers, or one below _item_shift writes them)."""
    key_bytes, size = sizes
    empty = device.storage_type.empty
    n = rows * length
    # an 8-byte argsort: the passes below ``carried`` are the carry sweep's (ranges of their own length)
    carried = _item_shift(length) if pack and key_bytes == 8 and length > GATHER_MAX else 0
    if pack:
        chunk = PACK_TILE
    elif positions:
        chunk = CARRY_TILE[key_bytes]
    else:
        chunk = SWEEP_TILE[key_bytes]
    blocks = -(-length // chunk)  # ranges of a row: a sweep tile each
    grid = min(rows * blocks, GRID_LOOP_CAP)
    carry_blocks = -(-length // CARRY_TILE[8]) if carried else 0
    # (chunk, blocks, grid) of the carry passes and of the others
    carry_ranges = (CARRY_TILE[8], carry_blocks, min(rows * carry_blocks, GRID_LOOP_CAP))
    item_ranges = (chunk, blocks, grid)
    no_values = (0,) * 5 + decoding
    launch = device.launcher.launch
    # radix_sweep.hip's words: 8 tickets, each row's totals of every pass, each range's states (a
    # pass's words tagged with it: the carry passes' ranges and the items' passes' share them)
    state = empty(device, dt.uint64, 8 + rows * 256 * (-(-bits // 8) + max(blocks, carry_blocks)))
    state.buffer.memset(0)
    counts = state.ptr
    # radix_digits' RADIX_ARGS shift: count the passes below it alone (0: every pass)
    first_items = carried if pack and (key_bytes == 4 or carried) else None
    later = first_items is not None and 0 < bits - first_items - 8 <= 8 * structs.RADIX_LATER_PASSES
    head = (counts, length, rows, chunk, blocks, first_items + 8 if later else 0, bits, 0)
    if encode is None:
        launch(kernel(device, ("radix", "digits", key_bytes)), min(grid, device.multiprocessors * DIGITS_BLOCKS_PER_CU),
               None, RADIX_ARGS, (keys.ptr, 0, 0, 0) + head + no_values)
    else:  # ``encode``: the source's fields of RADIX_ARGS: radix_digits and the first pass make the keys
        launch(kernel(device, ("radix", "digits_enc", key_bytes, size)),
               min(grid, device.multiprocessors * DIGITS_BLOCKS_PER_CU), None, RADIX_ARGS, (0, 0, 0, 0) + head + encode)
    sweep = kernel(device, ("radix", "sweep_pack", 8, size) if pack else
                   ("radix", "sweep" if positions else "sweep_keys", key_bytes, size))
    carry = kernel(device, ("radix", "sweep_carry", 8, size)) if carried else None
    shifts = list(range(0, bits, 8))
    if skip_constant and len(shifts) > 1:
        shifts = _varying_shifts(state, rows, length, bits) or shifts[:1]  # (all keys equal: one pass writes them)
    passes = len(shifts)
    # the last keys: read only without positions or values written in place
    kept = not (positions or last is not None)
    key_type = dt.uint64 if pack or key_bytes == 8 else dt.uint32
    # ping-pong buffers: a pass's output is the next one's input; pass i writes the first (even
    # i) or the second, the last pass only where ``kept`` (keys) or without ``last`` (positions)
    written = passes - (0 if kept else 1)
    spare = empty(device, key_type, n) if written >= 1 else None
    if keys is None and written >= 2:
        keys = empty(device, key_type, n)
    order = order_spare = None
    if positions:
        written = passes - (0 if last is None else 1)
        order = empty(device, dt.uint32, n) if written >= 1 else None
        order_spare = empty(device, dt.uint32, n) if written >= 2 else None
    # the carried positions: the indices' halves in turn (the last pass reads items alone)
    halves = (last[0], last[0] + 4 * n) if carried else ()
    idx_in = 0
    for p, shift in enumerate(shifts):
        final = shift == shifts[-1]
        chunk, blocks, grid = carry_ranges if shift < carried else item_ranges
        keys_out = 0 if final and not kept else spare.ptr
        made = encode is not None and shift == shifts[0]  # the first pass makes the keys from the source
        # (a pack of 8-byte keys' halves: the pass of shift 32 gathers the source's elements by position)
        source = made or (pack and key_bytes == 8 and not carried and shift == 32)
        if final and last is not None:  # (last[1] has the source's fields too)
            tail = (last[0], counts, length, rows, chunk, blocks, shift, bits, int(bool(last[0]))) + last[1]
        else:
            items = shift + 8 == carried  # the carried passes' last writes the items
            wide = structs.RADIX_ITEMS_OUT if items else structs.RADIX_COUNT_LATER if later and shift == first_items \
                else 0
            tail = (order.ptr if positions else halves[p % 2] if shift < carried and not items else 0, counts, length,
                    rows, chunk, blocks, shift, bits, wide) + (encode if source else no_values)
        launch(carry if shift < carried else sweep, grid, None, RADIX_ARGS,
               (0 if made else keys.ptr, idx_in, keys_out) + tail)
        keys, spare = spare, keys
        if positions:
            idx_in = order.ptr if order is not None else 0
            order, order_spare = order_spare, order
        elif carried:
            idx_in = halves[p % 2] if shift + 8 < carried else 0
    return None if last is not None else order_spare, keys


def _item_shift(length):
    """The shift of the first pass of an 8-byte argsort's items (radix_sweep_pack) in a row of
    ``length`` past GATHER_MAX: the first digit above the positions' bits."""
    return -(-(length - 1).bit_length() // 8) * 8


def _varying_shifts(state, rows, length, bits):
    """The shifts of the passes whose 8-bit digit is not the same for every key of a row
    (radix_digits' totals in ``state``, read back: per row and pass, 256 u64 counts after
    8 ticket words, hip/radix_sweep.hip)."""
    passes = -(-bits // 8)
    totals = to_host(state, Layout((rows * passes * 256,), (1,), 8)).reshape(rows, passes, 256)
    constant = (totals.max(axis=2) == length).all(axis=0)
    return [8 * p for p in range(passes) if not constant[p]]


def searchsorted(x, layout, values, values_layout, right):
    device = x.device
    shape = tuple(values_layout.shape)
    out = device.storage_type.empty(device, dt.int64, shape_size(shape))
    strides = contiguous_strides(shape)
    stride = layout.strides[0] if layout.ndim else 0
    length = layout.shape[0] if layout.ndim else 1
    launch_ew(device, ("searchsorted", x.dtype), shape,
              [(out.ptr, 0, strides), operand(values, values_layout), (x.ptr, layout.offset, (0,) * len(shape))],
              struct.pack("<qq", stride, length), FLAG_A if right else 0, name="searchsorted", dtype=x.dtype)
    return out
