"""[families] The optional group "inplace" (candlewick/backend.py): unary_into, binary_into,
binary_scalar_into, compare_into, compare_scalar_into and where_into. Each is the op
table's element-wise kernel of its out-of-place primitive launched with the destination
as operand 0 at its own layout (any strides: the contiguous fast path where every layout
is contiguous, else the strided launch), so no result is allocated.

Overlap: each element's operands are read before its destination element is written,
so an operand that views the destination element for element (``x += y``) is read as it
is; one that shares the destination's buffer in any other way (``x[1:] += x[:-1]``,
``x += x.T``, a complex array's ``real`` view) is copied first, which gives NumPy's result
(as if read whole first). One call, one update: the calls of all threads into a device
take its lock, so another thread's call cannot land between a copy and its kernel (the
stream runs the launches in the order they were queued).
"""

import threading

from candlewick.errors import UnsupportedOperation
from candlewick.shapes import shape_size

from ..abi.structs import FLAG_A
from ..kernels import ew_kernel, kernel
from .copies import contiguous, copy
from .ew_launch import NO_SCALAR, launch_ew, launch_strided_1d, scalar_bytes


_SLOT = bytes(16)  # an unused 16-byte scalar slot


def _new_lock(_device):
    return threading.Lock()


def _apart(dst, dst_layout, src, src_layout):
    """``(src, src_layout)`` (which shares dst's buffer), or a contiguous copy of it where
    it shares it other than element for element."""
    if src_layout.size == 0:
        return src, src_layout
    if src.dtype.itemsize == dst.dtype.itemsize and src_layout == dst_layout:
        return src, src_layout
    lo, hi = dst_layout.span()
    slo, shi = src_layout.span()
    d, s = dst.dtype.itemsize, src.dtype.itemsize
    if shi * s + s <= lo * d or hi * d + d <= slo * s:  # byte ranges apart
        return src, src_layout
    return copy(src, src_layout), contiguous(src_layout.shape)


def _launch(dst, dst_layout, key, kern, inputs, scalar=NO_SCALAR, name=None, dtype=None, spread=None):
    """Queue ``kern`` (the table's kernel ``key``) over dst's layout with ``inputs`` (a
    list of ``(storage, layout)`` pairs, None for a scalar operand reading its slot of
    ``scalar``; the list is the caller's to give away), under the device's lock.
    ``spread``: the index of an input whose kernel reads it as one element spread over the
    destination when CW_FLAG_A is set (where's ``x``): taken when that input's strides are
    all 0, so the contiguous path serves it.

    The host hot path of ``x += y``: one pass over the inputs both checks them (overlap,
    contiguity) and gathers the contiguous launch's arguments; the lock is taken with
    acquire/release (half the cost of ``with``)."""
    device = dst.device
    buffer = dst.buffer
    lock = device.family_state("inplace_lock", _new_lock)
    lock.acquire()
    try:
        buffer.version += 1  # in place: voids what pad_fixup_cache learnt
        shape = dst_layout.shape
        n = dst_layout.dense_size
        if n < 0:
            n = shape_size(shape)
        if not n:
            return
        contiguous = dst_layout.is_contiguous
        flags = 0
        args = [dst.ptr, dst_layout.offset]
        for k, op in enumerate(inputs):
            if op is None:
                args += (0, 0)
                continue
            src, layout = op
            # x += y's x: the destination itself (the same layout object) needs no overlap analysis
            if src.buffer is buffer and not (src is dst and layout is dst_layout):
                src, layout = inputs[k] = _apart(dst, dst_layout, src, layout)
            if not layout.is_contiguous:
                if k == spread and not any(layout.strides):
                    flags = FLAG_A
                else:
                    contiguous = False
            args += (src.ptr, layout.offset)
        if contiguous:
            device.ew_contiguous(kern, n, args, scalar, flags)
            return
        if len(shape) == 1:  # one strided axis (x[::2] += 1): the fields its kernels read, packed
            operands = [(dst.ptr, dst_layout.offset, dst_layout.strides[0])]
            for op in inputs:
                operands.append((0, 0, 0) if op is None else (op[0].ptr, op[1].offset, op[1].strides[0]))
            launch_strided_1d(device, kern, n, operands, scalar)
            return
        # launch_ew's (pointer, offset, strides) operands, built here (a Layout's strides are a tuple)
        operands = [(dst.ptr, dst_layout.offset, dst_layout.strides)]
        for op in inputs:
            operands.append((0, 0, ()) if op is None else (op[0].ptr, op[1].offset, op[1].strides))
        launch_ew(device, key, shape, operands, scalar if scalar is not NO_SCALAR else b"", name=name, dtype=dtype)
    finally:
        lock.release()


def _own(dst, kern, n, operands, scalar, strided=False):
    """``_launch``'s case of an update that reads, besides arrays apart from dst's buffer,
    only dst itself element for element, over a layout the caller has looked at: ``x +=
    y``, ``x *= 2.0``, ``x[mask] = v`` (dst dense: the device's ``ew_contiguous``, ``n`` its
    dense_size, ``operands`` its fields), ``x[::2] += 1`` (one strided axis, ``strided``:
    ``launch_strided_1d``, ``operands`` its triples). Nothing to
    analyse: one launch of ``operands`` under the lock. The callers test their case
    inline, as their first step: after an update of 2^20 elements each step of the
    general one misses the caches (bench/inplace.py, rocm: the host path was the time
    at that size)."""
    device = dst.device
    lock = device.family_state("inplace_lock", _new_lock)
    lock.acquire()
    try:
        dst.buffer.version += 1  # as _launch's
        if strided:
            launch_strided_1d(device, kern, n, operands, scalar)
        else:
            device.ew_contiguous(kern, n, operands, scalar)
    finally:
        lock.release()


def _checked(dst, family, op, dtype):
    """(the op's kernel for operands of ``dtype``, its table key): the kernel cache's entry,
    one dict hit on a key of strings (also the launch memo's: enum and DType hashing are
    Python-level); the kernel's result dtype must be dst's."""
    device = dst.device
    key = (family, op._value_, dtype.name)
    kern, out_dtype = device.kernels.ew_cache.get(key) or ew_kernel(device, family, op, dtype)
    if out_dtype is not dst.dtype:
        raise UnsupportedOperation(f"{op.value} into a {dst.dtype.name} destination", dtype, "rocm",
                                   f"the result is {out_dtype.name}")
    return kern, key


def unary_into(dst, op, dst_layout, src, src_layout):
    kern, key = _checked(dst, "unary", op, src.dtype)
    _launch(dst, dst_layout, key, kern, [(src, src_layout)], name=op._value_, dtype=src.dtype)


def binary_into(dst, op, dst_layout, lhs, lhs_layout, rhs, rhs_layout, family="binary"):
    """binary_into (and compare_into, ``family="compare"``)."""
    n = dst_layout.dense_size
    if n > 0 and lhs is dst and lhs_layout is dst_layout and rhs.dtype is dst.dtype and rhs_layout.is_contiguous:
        hit = dst.device.kernels.ew_cache.get((family, op._value_, dst.dtype.name))
        if hit is not None and hit[1] is dst.dtype and rhs.buffer is not dst.buffer:  # x += y
            _own(dst, hit[0], n, (dst.ptr, 0, dst.ptr, 0, rhs.ptr, rhs_layout.offset), NO_SCALAR)
            return
    if rhs.dtype is not lhs.dtype:
        raise UnsupportedOperation(op.value, rhs.dtype, "rocm", f"operands of dtypes {lhs.dtype} and {rhs.dtype}")
    kern, key = _checked(dst, family, op, lhs.dtype)
    _launch(dst, dst_layout, key, kern, [(lhs, lhs_layout), (rhs, rhs_layout)], name=op._value_, dtype=lhs.dtype)


def compare_into(dst, op, dst_layout, lhs, lhs_layout, rhs, rhs_layout):
    binary_into(dst, op, dst_layout, lhs, lhs_layout, rhs, rhs_layout, "compare")


def binary_scalar_into(dst, op, dst_layout, src, src_layout, scalar, reflected, family="binary"):
    """binary_scalar_into (and compare_scalar_into): the scalar operand reads its slot, as
    the out-of-place primitive's (operand 1 -> slot 0, operand 2 -> slot 1)."""
    if src is dst and src_layout is dst_layout and not reflected:
        hit = dst.device.kernels.ew_cache.get((family, op._value_, dst.dtype.name))
        if hit is not None and hit[1] is dst.dtype:
            n = dst_layout.dense_size
            if n > 0:  # x *= 2.0
                _own(dst, hit[0], n, (dst.ptr, 0, dst.ptr, 0), _SLOT + scalar_bytes(scalar, dst.dtype))
                return
            shape = dst_layout.shape
            if len(shape) == 1 and shape[0] and not dst_layout.is_contiguous:  # x[::2] += 1
                own = (dst.ptr, dst_layout.offset, dst_layout.strides[0])
                _own(dst, hit[0], shape[0], [own, own, (0, 0, 0)], _SLOT + scalar_bytes(scalar, dst.dtype), True)
                return
    kern, key = _checked(dst, family, op, src.dtype)
    bits = scalar_bytes(scalar, src.dtype)
    if reflected:
        _launch(dst, dst_layout, key, kern, [None, (src, src_layout)], bits + _SLOT, name=op._value_, dtype=src.dtype)
    else:
        _launch(dst, dst_layout, key, kern, [(src, src_layout), None], _SLOT + bits, name=op._value_, dtype=src.dtype)


def compare_scalar_into(dst, op, dst_layout, src, src_layout, scalar, reflected):
    binary_scalar_into(dst, op, dst_layout, src, src_layout, scalar, reflected, "compare")


def where_into(dst, dst_layout, cond, cond_layout, x, x_layout, y, y_layout):
    """``x`` an array, or a Python scalar (``x_layout`` None) that the kernel reads from
    its scalar slot 0: ``x[mask] = 0.5`` makes no device array of its value."""
    scalar = x_layout is None
    n = dst_layout.dense_size
    if n > 0 and scalar and y is dst and y_layout is dst_layout and cond_layout.is_contiguous and cond.buffer is not \
            dst.buffer:  # x[mask] = 0.5
        _own(dst, kernel(dst.device, ("where", dst.dtype.itemsize)), n,
             (dst.ptr, 0, cond.ptr, cond_layout.offset, 0, 0, dst.ptr, 0), scalar_bytes(x, dst.dtype) + _SLOT)
        return
    if (not scalar and x.dtype is not dst.dtype) or y.dtype is not dst.dtype:
        raise UnsupportedOperation("where", y.dtype if scalar else x.dtype, "rocm",
                                   f"x, y and the destination of dtypes {'a scalar' if scalar else x.dtype}, "
                                   f"{y.dtype}, {dst.dtype}")
    key = ("where", dst.dtype.itemsize)
    kern = kernel(dst.device, key)
    if scalar:  # (the null pointer of operand 2 reads slot 0, bits as fill() packs them)
        _launch(dst, dst_layout, key, kern, [(cond, cond_layout), None, (y, y_layout)],
                scalar_bytes(x, dst.dtype) + _SLOT)
        return
    # x[mask] = v spreads one value (x's strides all 0): the kernel's contiguous path reads it once
    _launch(dst, dst_layout, key, kern, [(cond, cond_layout), (x, x_layout), (y, y_layout)], spread=1)
