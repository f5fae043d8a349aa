"""Kernel-argument packing: each kernel ABI's struct laid out once, packed per launch.

Kernels take one struct by value, passed through hipModuleLaunchKernel's ``extra``
(HIP_LAUNCH_PARAM_BUFFER_POINTER / SIZE / END). The byte layout of each struct in
``hip/*.hip`` is computed here once (natural alignment, as the device compilers lay it
out) into a ``struct.Struct``; a launch packs its values into a preallocated buffer.
hip-python's own per-call packing of Python lists costs far more than this.
"""

import ctypes
import struct
import threading

MAX_DIMS = 8  # CW_MAX_DIMS in hip/common.h
MAX_OPERANDS = 4  # CW_MAX_OPERANDS
SCALAR_BYTES = 32  # cw_ew_args.scalar: 4 x int64

# flags of cw_ew_args (hip/common.h)
CONTIGUOUS, INDEX32, FLAG_A, FLAG_B = 1, 2, 4, 8

# HIP's launch-parameter markers (hip_runtime_api.h); the NVIDIA shim translates them
HIP_LAUNCH_PARAM_BUFFER_POINTER = 1
HIP_LAUNCH_PARAM_BUFFER_SIZE = 2
HIP_LAUNCH_PARAM_END = 3

# field kinds: struct code, size, alignment
_KINDS = {"i64": ("q", 8, 8), "i32": ("i", 4, 4), "ptr": ("Q", 8, 8), "bytes": ("s", 1, 8)}


#: every ArgLayout by struct name (kernel specs name their ABI); layouts defined in
#: other modules (nn_kernels.NN_ARGS) register themselves too
ABIS = {}


class ArgLayout:
    """The byte layout of one kernel-argument struct.

    ``fields`` is a sequence of (name, kind, count); kind is 'i64', 'i32', 'ptr' or
    'bytes' (raw bytes, 8-aligned). ``pack(values)`` takes the flat values in field
    order (count values per array field, one bytes object per 'bytes' field).
    """

    def __init__(self, name, fields):
        self.name = name
        self.fields = tuple(fields)
        fmt, offset, align_max, self.offsets = ["<"], 0, 1, {}
        for fname, kind, count in self.fields:
            code, size, align = _KINDS[kind]
            pad = -offset % align
            if pad:
                fmt.append(f"{pad}x")
                offset += pad
            self.offsets[fname] = offset
            if kind == "bytes":
                fmt.append(f"{count}s")
                offset += count
            else:
                fmt.append(f"{count}{code}")
                offset += size * count
            align_max = max(align_max, align)
        tail = -offset % align_max
        if tail:
            fmt.append(f"{tail}x")
            offset += tail
        self.size = offset
        self.struct = struct.Struct("".join(fmt))
        assert self.struct.size == self.size
        # one launch buffer per struct: held from packing until hipModuleLaunchKernel
        # returned (it copies the arguments); a plain attribute, read on every launch
        self.lock = self._lock = threading.Lock()
        self._buffer = ctypes.create_string_buffer(self.size)
        self._size_value = ctypes.c_size_t(self.size)
        self._extra = (ctypes.c_void_p * 5)(
            HIP_LAUNCH_PARAM_BUFFER_POINTER, ctypes.addressof(self._buffer),
            HIP_LAUNCH_PARAM_BUFFER_SIZE, ctypes.addressof(self._size_value),
            HIP_LAUNCH_PARAM_END,
        )
        self.extra_address = ctypes.addressof(self._extra)
        self.extra_arg = ctypes.c_void_p(self.extra_address)  # for the ctypes launch
        self.buffer = self._buffer
        ABIS[name] = self

    def packer(self, names):
        """A ``struct.Struct`` over the whole struct that writes only the named fields
        (in struct order) and zeros everything else: one ``pack_into`` per launch for
        kernels that read only those fields (e.g. the contiguous element-wise path,
        which never reads shape or strides)."""
        wanted = set(names)
        order = [f for f in self.fields if f[0] in wanted]
        if len(order) != len(wanted):
            raise KeyError(sorted(wanted - {f[0] for f in self.fields}))
        fmt, pos = ["<"], 0
        for fname, kind, count in order:
            start = self.offsets[fname]
            if start > pos:
                fmt.append(f"{start - pos}x")
            code, size, _ = _KINDS[kind]
            fmt.append(f"{count}s" if kind == "bytes" else f"{count}{code}")
            pos = start + (count if kind == "bytes" else size * count)
        if self.size > pos:
            fmt.append(f"{self.size - pos}x")
        packer = struct.Struct("".join(fmt))
        assert packer.size == self.size
        return packer

    def pack(self, values):
        """The struct's bytes (for tests and for callers that keep their own buffer)."""
        return self.struct.pack(*values)

    def packed(self, values):
        """Pack into the shared launch buffer; hold ``self.lock`` until the launch
        returned (hipModuleLaunchKernel copies the arguments before it returns)."""
        self.struct.pack_into(self._buffer, 0, *values)
        return self.extra_address


def _operand_fields(k):
    return [(f"op{k}_ptr", "ptr", 1), (f"op{k}_offset", "i64", 1), (f"op{k}_strides", "i64", MAX_DIMS)]


EW_ARGS = ArgLayout(
    "cw_ew_args",
    [("n", "i64", 1), ("ndim", "i32", 1), ("flags", "i32", 1), ("shape", "i64", MAX_DIMS)]
    + [f for k in range(MAX_OPERANDS) for f in _operand_fields(k)]
    + [("scalar", "bytes", SCALAR_BYTES)],
)

TRANSPOSE_ARGS = ArgLayout(
    "cw_transpose_args",
    [("out", "ptr", 1), ("in", "ptr", 1), ("out_offset", "i64", 1), ("in_offset", "i64", 1),
     ("B", "i64", 1), ("R", "i64", 1), ("C", "i64", 1), ("sB", "i64", 1), ("sC", "i64", 1)],
)

REDUCE_ARGS = ArgLayout(
    "cw_reduce_args",
    [
        ("n_out", "i64", 1), ("n_red", "i64", 1), ("out_ndim", "i32", 1), ("red_ndim", "i32", 1),
        ("out_shape", "i64", MAX_DIMS), ("out_strides", "i64", MAX_DIMS),
        ("red_shape", "i64", MAX_DIMS), ("red_strides", "i64", MAX_DIMS),
        ("in", "ptr", 1), ("in_offset", "i64", 1), ("out", "ptr", 1), ("partial", "ptr", 1),
        ("tickets", "ptr", 1), ("chunk", "i64", 1), ("splits", "i32", 1), ("vec", "i32", 1),
        ("group", "i32", 1), ("pad_", "i32", 1),
    ],
)

MATMUL_ARGS = ArgLayout(
    "cw_matmul_args",
    [
        ("M", "i64", 1), ("N", "i64", 1), ("K", "i64", 1), ("batch", "i64", 1),
        ("batch_ndim", "i32", 1), ("pad", "i32", 1),
        ("batch_shape", "i64", MAX_DIMS), ("a_batch_strides", "i64", MAX_DIMS),
        ("b_batch_strides", "i64", MAX_DIMS),
        ("a_rs", "i64", 1), ("a_cs", "i64", 1), ("b_rs", "i64", 1), ("b_cs", "i64", 1),
        ("a", "ptr", 1), ("a_off", "i64", 1), ("b", "ptr", 1), ("b_off", "i64", 1), ("c", "ptr", 1),
    ],
)



def pad_dims(values, fill=0):
    """A per-dimension list padded to MAX_DIMS entries."""
    values = list(values)
    return values + [fill] * (MAX_DIMS - len(values))


# ------------------------------------------------------------------------------------
# element-wise operands: coalescing and cw_ew_args values

def coalesce(shape, strides_list):
    """Drop size-1 axes and merge neighbours that are contiguous for every operand.

    Returns (shape, [strides per operand]); fewer dimensions mean cheaper index
    decoding, and a fully contiguous view ends as one axis of stride 1.
    """
    dims = [i for i, n in enumerate(shape) if n != 1]
    new_shape = [shape[i] for i in dims]
    new_strides = [[s[i] for i in dims] for s in strides_list]
    if not new_shape:
        return (), [() for _ in strides_list]
    out_shape = [new_shape[0]]
    out_strides = [[s[0]] for s in new_strides]
    for j in range(1, len(new_shape)):
        n = new_shape[j]
        if all(st[-1] == s[j] * n for st, s in zip(out_strides, new_strides)):
            out_shape[-1] *= n
            for st, s in zip(out_strides, new_strides):
                st[-1] = s[j]
        else:
            out_shape.append(n)
            for st, s in zip(out_strides, new_strides):
                st.append(s[j])
    return tuple(out_shape), [tuple(s) for s in out_strides]


def ew_values(shape, operands, scalar=b"", flags=0):
    """Flat cw_ew_args values.

    ``operands``: up to four (pointer, offset, strides) with strides matching ``shape``
    (pointer 0 marks a scalar operand: its strides are ignored). The shape is coalesced
    here; the caller guarantees len(shape) <= MAX_DIMS after coalescing (see split_dims).
    """
    n = 1
    for extent in shape:
        n *= extent
    live = [k for k, op in enumerate(operands) if op[0]]
    shape, merged = coalesce(tuple(shape), [operands[k][2] for k in live])
    strides = [()] * len(operands)
    for k, s in zip(live, merged):
        strides[k] = s
    ndim = len(shape)
    if ndim > MAX_DIMS:
        raise ValueError(f"{ndim} dimensions after coalescing; split_dims first")
    if ndim <= 1 and all(not s or s[0] == 1 for s in strides):
        flags |= CONTIGUOUS
    if n < (1 << 31):
        flags |= INDEX32
    values = [n, ndim, flags]
    values += pad_dims(shape, 1)
    for k in range(MAX_OPERANDS):
        if k < len(operands):
            ptr, offset, _ = operands[k]
            values += [ptr, offset if ptr else 0]
            values += pad_dims(strides[k] if ptr else ())
        else:
            values += [0, 0]
            values += pad_dims(())
    values.append(scalar.ljust(SCALAR_BYTES, b"\0"))
    return values


def split_dims(shape, operands):
    """Yield (shape, operands) pieces with at most MAX_DIMS dimensions after coalescing,
    by looping over leading axes on the host (rare: more than 8 non-mergeable axes)."""
    live = [k for k, op in enumerate(operands) if op[0]]
    cshape, _ = coalesce(tuple(shape), [operands[k][2] for k in live])
    if len(cshape) <= MAX_DIMS:
        yield shape, operands
        return
    lead = next(i for i, n in enumerate(shape) if n != 1)
    for j in range(shape[lead]):
        sub_ops = [
            (ptr, off + j * st[lead] if ptr else off, st[:lead] + st[lead + 1:] if ptr else ())
            for ptr, off, st in operands
        ]
        yield from split_dims(shape[:lead] + shape[lead + 1:], sub_ops)
