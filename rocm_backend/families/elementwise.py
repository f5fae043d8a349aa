"""[families] Element-wise primitives: unary, binary, compare, binary_scalar, where, astype,
affine and clip. Each has the contiguous fast path (one pack, one launch) and the strided
one."""

from candlewick.shapes import shape_size

from ..abi.structs import FLAG_A, FLAG_B, SCALAR_BYTES
from ..kernels import ew_kernel, kernel
from .copies import copy, operand, out_operand
from .ew_launch import NO_SCALAR, compute_dtype, launch_ew, scalar_bytes


def unary(x, op, layout):
    device = x.device
    hit = device.kernels.ew_cache.get(("unary", op._value_, x.dtype.name))
    kern, out_dtype = hit or ew_kernel(device, "unary", op, x.dtype)
    n = layout.dense_size  # > 0: a known offset-0 C-contiguous layout, without its properties
    if n > 0 or layout.is_contiguous:
        n = n if n > 0 else shape_size(layout.shape)
        out = device.storage_type.empty(device, out_dtype, n)
        if n:
            device.ew_contiguous(kern, n, (out.ptr, 0, x.ptr, layout.offset))
        return out
    out = device.storage_type.empty(device, out_dtype, shape_size(layout.shape))
    launch_ew(device, ("unary", op, x.dtype), layout.shape,
              [out_operand(out, layout.shape), operand(x, layout)], name=op._value_, dtype=x.dtype)
    return out


def binary(x, op, lhs_layout, rhs, rhs_layout, family="binary"):
    """binary (and compare, ``family="compare"``): the contiguous hot path, else strided."""
    device = x.device
    hit = device.kernels.ew_cache.get((family, op._value_, x.dtype.name))
    kern, out_dtype = hit or ew_kernel(device, family, op, x.dtype)
    n = lhs_layout.dense_size  # > 0: a known offset-0 C-contiguous layout, without its properties
    if (n > 0 and rhs_layout.dense_size == n) or (lhs_layout.is_contiguous and rhs_layout.is_contiguous):
        n = n if n > 0 else shape_size(lhs_layout.shape)
        out = device.storage_type.empty(device, out_dtype, n)
        if n:
            device.ew_contiguous(kern, n, (out.ptr, 0, x.ptr, lhs_layout.offset, rhs.ptr, rhs_layout.offset))
        return out
    # (op._value_: op.value, without the enum's Python-level property; n: known where > 0;
    # the operands as ``operand`` makes them, inline: a broadcast x * row's host path)
    out = device.storage_type.empty(device, out_dtype, n if n > 0 else shape_size(lhs_layout.shape))
    shape = lhs_layout.shape
    launch_ew(device, (family, op, x.dtype), shape,
              [out_operand(out, shape), (x.ptr, lhs_layout.offset, lhs_layout.strides),
               (rhs.ptr, rhs_layout.offset, rhs_layout.strides)], name=op._value_, dtype=x.dtype)
    return out


def compare(x, op, lhs_layout, rhs, rhs_layout):
    return binary(x, op, lhs_layout, rhs, rhs_layout, "compare")


def binary_scalar(x, op, layout, scalar, reflected, family="binary"):
    """binary_scalar (and compare_scalar, ``family="compare"``)."""
    device = x.device
    kern, out_dtype = ew_kernel(device, family, op, x.dtype)
    bits = scalar_bytes(scalar, x.dtype)
    # the scalar operand has pointer 0 and reads its slot: operand 1 -> slot 0, 2 -> slot 1
    packed = bits + b"\0" * 16 if reflected else b"\0" * 16 + bits
    n = shape_size(layout.shape)
    out = device.storage_type.empty(device, out_dtype, n)
    if layout.is_contiguous:
        if n:
            if reflected:
                device.ew_contiguous(kern, n, (out.ptr, 0, 0, 0, x.ptr, layout.offset), packed)
            else:
                device.ew_contiguous(kern, n, (out.ptr, 0, x.ptr, layout.offset), packed)
        return out
    scalar_op = (0, 0, ())
    operands = [scalar_op, operand(x, layout)] if reflected else [operand(x, layout), scalar_op]
    launch_ew(device, (family, op, x.dtype), layout.shape,
              [out_operand(out, layout.shape)] + operands, packed, name=op._value_, dtype=x.dtype)
    return out


def compare_scalar(x, op, layout, scalar, reflected):
    return binary_scalar(x, op, layout, scalar, reflected, "compare")


def where(cond, cond_layout, x, x_layout, y, y_layout):
    device = cond.device
    n = cond_layout.dense_size  # > 0: a known offset-0 C-contiguous layout, without its properties
    dense = n > 0 and x_layout.dense_size == n and y_layout.dense_size == n
    n = n if n > 0 else shape_size(cond_layout.shape)
    out = device.storage_type.empty(device, x.dtype, n)
    if dense or (cond_layout.is_contiguous and x_layout.is_contiguous and y_layout.is_contiguous):
        if n:
            device.ew_contiguous(kernel(device, ("where", x.dtype.itemsize)), n,
                                 (out.ptr, 0, cond.ptr, cond_layout.offset, x.ptr, x_layout.offset, y.ptr, y_layout.offset))
        return out
    launch_ew(device, ("where", x.dtype.itemsize), cond_layout.shape,
              [out_operand(out, cond_layout.shape), operand(cond, cond_layout),
               operand(x, x_layout), operand(y, y_layout)])
    return out


def _map(x, key, layout, out_dtype, scalar=NO_SCALAR, flags=0, name=None):
    """One input, one output (astype, affine, clip): contiguous fast path or strided."""
    device = x.device
    out = device.storage_type.empty(device, out_dtype, shape_size(layout.shape))
    if layout.is_contiguous:
        if out.size:
            device.ew_contiguous(kernel(device, key, name, x.dtype), out.size, (out.ptr, 0, x.ptr, layout.offset),
                                 scalar.ljust(SCALAR_BYTES, b"\0"), flags)
        return out
    launch_ew(device, key, layout.shape, [out_operand(out, layout.shape), operand(x, layout)],
              scalar, flags, name=name, dtype=x.dtype)
    return out


def astype(x, layout, dtype):
    if dtype is x.dtype:
        return copy(x, layout)
    return _map(x, ("astype", x.dtype.name, dtype.name), layout, dtype, name=f"astype to {dtype.name}")


def affine(x, layout, mul, add):
    c = compute_dtype(x.dtype)
    return _map(x, ("affine", x.dtype.name), layout, x.dtype, scalar_bytes(mul, c) + scalar_bytes(add, c),
                name="affine")


def clip(x, layout, lo, hi):
    c = compute_dtype(x.dtype)
    flags = (FLAG_A if lo is not None else 0) | (FLAG_B if hi is not None else 0)
    packed = scalar_bytes(0 if lo is None else lo, c) + scalar_bytes(0 if hi is None else hi, c)
    return _map(x, ("clip", x.dtype.name), layout, x.dtype, packed, flags, name="clip")
