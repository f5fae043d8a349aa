"""[families] Storage creation on a device: host upload, empty/full, arange and Philox random."""

import struct

import numpy as np

from candlewick import dtypes as dt
from candlewick.errors import UnsupportedOperation
from candlewick.layout import Layout
from candlewick.shapes import contiguous_strides, shape_size

from ..abi.ew_operands import ew_values
from ..abi.structs import EW_ARGS, FLAG_A
from ..kernels import kernel
from .copies import fill
from .ew_launch import grid_for, launch_ew, scalar_bytes


def from_host(device, array):
    array = np.ascontiguousarray(array)
    dtype = dt.from_numpy(array.dtype)
    out = device.storage_type.empty(device, dtype, array.size)
    out.buffer.copy_from_host(array)
    return out


def empty(device, shape, dtype):
    return device.storage_type.empty(device, dtype, shape_size(tuple(shape)))


def full(device, shape, dtype, value):
    shape = tuple(shape)
    out = device.storage_type.empty(device, dtype, shape_size(shape))
    if out.size:
        if type(value) is int and value == 0:  # zeros (fft's padding): no packing
            out.buffer.memset(0)
            return out
        bits = scalar_bytes(value, dtype)[: dtype.itemsize]
        if bits == bytes(len(bits)):
            out.buffer.memset(0)
        else:
            fill(out, Layout.contiguous(shape), value)
    return out


def eye(device, shape, dtype):
    """Identity matrices, C-contiguous, of ``shape`` (..., n, n): zeros, then a strided fill
    of each matrix's diagonal (inv's right-hand side, cholesky_qr's reference)."""
    shape = tuple(shape)
    out = full(device, shape, dtype, 0)
    if out.size:
        batch, n = shape[:-2], shape[-1]
        out.fill(Layout(batch + (n,), contiguous_strides(shape)[:-2] + (n + 1,), 0), 1)
    return out


def _as_int64(value):
    return (int(value) + (1 << 63)) % (1 << 64) - (1 << 63)


def arange(device, start, step, size, dtype):
    out = device.storage_type.empty(device, dtype, size)
    if dtype.is_integer:
        # the kernel adds in 64-bit two's complement: a uint64 start past 2**63 is passed
        # as the int64 of the same bits, and wraps to the same element values
        packed, flags = struct.pack("<qq", _as_int64(start), _as_int64(step)), FLAG_A
    else:
        packed, flags = struct.pack("<dd", float(start), float(step)), 0
    launch_ew(device, ("arange", dtype), (size,), [(out.ptr, 0, (1,))], packed, flags,
              name="arange", dtype=dtype)
    return out


def rand(device, kind, shape, dtype, seed, counter, p, q):
    """Philox-4x32-10 per candlewick.backend.PHILOX; (p, q) = (low, high) or (mean, std)."""
    if not dtype.is_floating:
        raise UnsupportedOperation(f"rand_{kind}", dtype, "rocm", "random numbers are floating only")
    shape = tuple(shape)
    n = shape_size(shape)
    out = device.storage_type.empty(device, dtype, n)
    packed = struct.pack("<QQdd", int(seed) & (2**64 - 1), int(counter) & (2**64 - 1), float(p), float(q))
    per_block = 2 if dtype is dt.float64 else 4
    blocks = (n + per_block - 1) // per_block
    # the kernel walks Philox blocks; n (not the block count) bounds its writes
    kern = kernel(device, ("rand", kind, dtype.name), f"rand_{kind}", dtype)
    if n:
        device.launcher.launch(kern, grid_for(blocks, kern.block, device), None, EW_ARGS,
                               ew_values((n,), [(out.ptr, 0, (1,))], packed))
    return out
