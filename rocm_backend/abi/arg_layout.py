"""[abi] The byte layout of a kernel argument struct declared in ``structs.py``: its
fields' kinds and C types, natural alignment as the device compilers lay it out, nested
structs flattened, the ``struct.Struct`` packers of all or some of its fields, and the
one preallocated launch buffer with its hipModuleLaunchKernel ``extra`` array."""

import ctypes
import re
import struct
import threading

# HIP's launch-parameter markers (hip_runtime_api.h); the NVIDIA shim translates them
HIP_LAUNCH_PARAM_BUFFER_POINTER = 1
HIP_LAUNCH_PARAM_BUFFER_SIZE = 2
HIP_LAUNCH_PARAM_END = 3

#: field kinds: struct code, size, alignment, C type. 'raw' is an array of int64 words
#: in C and one bytes value (raw bits) in Python.
KINDS = {
    "i64": ("q", 8, 8, "cw_i64"),
    "i32": ("i", 4, 4, "int"),
    "ptr": ("Q", 8, 8, "char*"),
    "cptr": ("Q", 8, 8, "const char*"),
    "u32ptr": ("Q", 8, 8, "unsigned int*"),
    "i32ptr": ("Q", 8, 8, "int*"),
    "raw": ("s", 8, 8, "cw_i64"),
}


class StructType:
    """A C struct of scalar fields, nested as an array field of an argument struct
    (``cw_operand`` inside ``cw_ew_args``)."""

    def __init__(self, name, fields, doc=""):
        self.name, self.fields, self.doc = name, tuple(fields), doc
        offset, self.align = 0, 1
        self.offsets = {}
        for fname, kind, count in self.fields:
            _, size, align, _ = KINDS[kind]
            offset += -offset % align
            self.offsets[fname] = offset
            offset += size * count
            self.align = max(self.align, align)
        self.size = offset + -offset % self.align


class LaunchBuffer:
    """One preallocated argument buffer of ``size`` bytes (and ``room`` more a reader may
    copy past them) with its hipModuleLaunchKernel ``extra`` array: held under ``lock``
    from packing until the launch returned (it copies the arguments); plain attributes,
    read on every launch. An ``ArgLayout`` is one, and so is a RawKernel's
    ``kernel_params.KernelParams``: the one launcher packs and launches them alike."""

    def __init__(self, size, room=0):
        self.lock = threading.Lock()
        self.buffer = ctypes.create_string_buffer(size + room)
        self._size_value = ctypes.c_size_t(size)
        self._extra = (ctypes.c_void_p * 5)(
            HIP_LAUNCH_PARAM_BUFFER_POINTER, ctypes.addressof(self.buffer),
            HIP_LAUNCH_PARAM_BUFFER_SIZE, ctypes.addressof(self._size_value),
            HIP_LAUNCH_PARAM_END,
        )
        self.extra_address = ctypes.addressof(self._extra)
        self.extra_arg = ctypes.c_void_p(self.extra_address)  # for the ctypes launch


class ArgLayout(LaunchBuffer):
    """The byte layout of one kernel-argument struct and its launch buffer.

    ``fields`` is a sequence of (name, kind, count) where kind is a key of ``KINDS`` or
    a ``StructType`` (an array of ``count`` nested structs). ``flat`` lists the scalar
    fields in struct order as (flat name, kind, count, offset, C path), a nested field
    ``op`` of ``cw_operand`` giving ``op0_ptr``... with C path ``op[0].ptr``. ``pack``
    takes the flat values in that order (count values per array field, one bytes
    object per 'raw' field).
    """

    def __init__(self, name, fields, doc=""):
        self.name, self.doc = name, doc
        self.fields = tuple(fields)
        flat, offset, align_max = [], 0, 1
        for fname, kind, count in self.fields:
            if isinstance(kind, StructType):
                offset += -offset % kind.align
                for i in range(count):
                    base = offset + i * kind.size
                    for sub, sub_kind, sub_count in kind.fields:
                        flat.append((f"{fname}{i}_{sub}", sub_kind, sub_count, base + kind.offsets[sub],
                                     f"{fname}[{i}].{sub}"))
                offset += kind.size * count
                align_max = max(align_max, kind.align)
            else:
                _, size, align, _ = KINDS[kind]
                offset += -offset % align
                flat.append((fname, kind, count, offset, fname))
                offset += size * count
                align_max = max(align_max, align)
        self.size = offset + -offset % align_max
        self.flat = tuple(flat)
        self.offsets = {f[0]: f[3] for f in flat}
        self.struct = self._packer([f[0] for f in flat])
        LaunchBuffer.__init__(self, self.size)

    @staticmethod
    def field_bytes(kind, count):
        return KINDS[kind][1] * count

    def _packer(self, names, words=()):
        # "field[:k]": the first k elements of an array field (the rest zeros)
        heads = {}
        for name in names:
            base, sep, rest = name.partition("[:")
            heads[base] = int(rest[:-1]) if sep else None
        order = [f for f in self.flat if f[0] in heads]
        if len(order) != len(heads):
            raise KeyError(sorted(set(heads) - {f[0] for f in self.flat}))
        not_raw = set(words) - {f[0] for f in order if f[1] == "raw"}
        if not_raw:
            raise KeyError(f"words {sorted(not_raw)}: not 'raw' fields among the names")
        fmt, pos = ["<"], 0
        for name, kind, count, start, _ in order:
            if heads[name] is not None:
                if not 0 < heads[name] <= count or kind == "raw":
                    raise KeyError(f"{name}[:{heads[name]}]: {count} elements")
                count = heads[name]
            if start > pos:
                fmt.append(f"{start - pos}x")
            code = KINDS[kind][0]
            if kind == "raw":
                fmt.append(f"{count}Q" if name in words else f"{8 * count}s")
            else:
                fmt.append(f"{count}{code}")
            pos = start + self.field_bytes(kind, count)
        if self.size > pos:
            fmt.append(f"{self.size - pos}x")
        packer = struct.Struct("".join(fmt))
        assert packer.size == self.size
        return packer

    def packer(self, names, words=()):
        """A ``struct.Struct`` over the whole struct that writes only the named fields
        (in struct order) and zeros everything else: one ``pack_into`` per launch for
        kernels that read only those fields (e.g. the contiguous element-wise path,
        which never reads shape or strides). ``"field[:k]"`` names the first k elements
        of an array field (the one-strided-axis path reads ``shape[0]`` and each
        operand's ``strides[0]``). ``words``: 'raw' fields among ``names`` taken as
        their ``count`` 8-byte words (unsigned ints, little-endian: the C type's own
        layout) instead of one bytes value, so that a launch packed once can have them
        written in place like any 8-byte int field (``launcher.PreparedLaunch``)."""
        return self._packer(names, words)

    def pack(self, values):
        """The struct's bytes (for tests and for callers that keep their own buffer)."""
        return self.struct.pack(*values)

    @staticmethod
    def value_fields(packer):
        """(byte offset, format code) of each value ``packer`` (``struct`` or a ``packer(names)``)
        takes, in order: where a launch packed once writes its per-call fields in place."""
        fields, pos = [], 0
        for count, code in re.findall(r"(\d*)([a-zA-Z?])", packer.format.lstrip("<")):
            n = int(count) if count else 1
            if code == "x":
                pos += n
            elif code == "s":
                fields.append((pos, code))
                pos += n
            else:
                size = struct.calcsize("<" + code)
                fields += [(pos + i * size, code) for i in range(n)]
                pos += n * size
        return fields
