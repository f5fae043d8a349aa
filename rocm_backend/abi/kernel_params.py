"""[abi] The argument buffer of a ``RawKernel``: its C parameters laid out as the device
compilers lay out kernel arguments (each at its natural alignment, in order), packed
through hipModuleLaunchKernel's ``extra`` like the backend's own argument structs.

The buffer's size is the end of the last parameter (no trailing padding: the kernel's
explicit argument segment; CUDA's cuLaunchKernel, behind the HIP-on-CUDA shim, refuses a
size that counts tail padding, as LLVM's offload runtime found: llvm-project PR 172249),
and it is an ``arg_layout.LaunchBuffer`` as the backend's own structs are (``buffer``,
``lock``, ``extra_arg``, ``extra_address``), so the one launcher packs and launches it alike.
"""

import struct

from .arg_layout import LaunchBuffer

__all__ = ["KernelParams", "param_layout"]

POINTER_BYTES = 8


def _size_align(param):
    """(bytes, alignment) of one parameter: a pointer, or a scalar of its dtype (complex
    values are the HIP vector types float2/double2, aligned to their whole size)."""
    if param.pointer:
        return POINTER_BYTES, POINTER_BYTES
    size = param.dtype.itemsize
    return size, size


def param_layout(params):
    """(offset of each parameter, end of the last) as the device compilers lay them out."""
    offsets, pos = [], 0
    for p in params:
        size, align = _size_align(p)
        pos += -pos % align
        offsets.append(pos)
        pos += size
    return tuple(offsets), pos


class KernelParams(LaunchBuffer):
    """The argument buffer of one kernel's parameter list: ``pack`` takes per parameter
    a device address (pointers) or the value's bytes (scalars)."""

    def __init__(self, params):
        self.offsets, self.size = param_layout(params)
        fmt, pos = ["<"], 0
        for p, offset in zip(params, self.offsets):
            if offset > pos:
                fmt.append(f"{offset - pos}x")
            size, _ = _size_align(p)
            fmt.append("Q" if p.pointer else f"{size}s")
            pos = offset + size
        self.struct = struct.Struct("".join(fmt))
        assert self.struct.size == self.size
        # room past the end: a reader may copy the padded struct (the host harness does)
        super().__init__(self.size, room=16)

    def pack(self, values):
        """The buffer's bytes for ``values`` (tests)."""
        return self.struct.pack(*values)
