"""[families] The optional ``custom_kernels`` capability (``candlewick.backend.CustomKernelDevice``):
``RawKernel``, ``ElementwiseKernel`` and ``ReductionKernel`` compiled by hipRTC through
``kernels.py`` (the verified code-object cache, in memory and on disk) from the sources
``codegen/custom_source.py`` makes, and queued through the one launcher.

A failed compilation becomes ``KernelCompileError`` with hipRTC's log and the line of
the user's text its first error names (the generated sources mark each part of that
text with ``#line``). The launches fill ``cw_kernel_args`` as the element-wise kernels
fill theirs: per-element operands coalesced (``abi/ew_operands``), split on the host
past 8 dimensions (the flat index of each piece's first element travels in ``base``),
offsets folded into the pointers; every buffer a launch may write gets its version
bumped, as the in-place primitives do.
"""

import re

from candlewick.errors import KernelCompileError, UnsupportedOperation
from candlewick.shapes import shape_size

from .. import ops
from ..abi.ew_operands import coalesce, pad_dims, split_dims
from ..abi.kernel_params import KernelParams
from ..abi.structs import CONTIGUOUS, EW_BLOCK, INDEX32, KERNEL_ARGS, KERNEL_OPERANDS, KERNEL_SCALARS, MAX_DIMS
from ..codegen import custom_source
from ..error import RocmError
from ..runtime.launcher import PreparedLaunch
from .ew_launch import grid_for

__all__ = ["compile_error", "elementwise_kernel", "raw_kernel", "reduction_kernel"]

_ERROR = re.compile(r"^(?P<part>%s)(?::(?P<line>\d+):\d+:|\((?P<nv_line>\d+)\):)\s*(?:fatal )?error:\s*(?P<msg>.*)$"
                    % "|".join(custom_source.PARTS), re.MULTILINE)
_INDEX32_LIMIT = 1 << 31
_SERIAL_MIN_OUTPUTS = 1024  # a thread per output from here, when a kept axis is innermost
_CONTIG = KERNEL_ARGS.packer(["n", "base", "flags", "ptr", "scalar"])
_NO_SCALARS = bytes(16 * KERNEL_SCALARS)


def compile_error(label, log, texts):
    """The ``KernelCompileError`` for hipRTC's ``log`` of the kernel ``label``, naming the
    user's line of its first error (``texts``: the user's text by part name)."""
    m = _ERROR.search(log or "")
    if m is None:
        return KernelCompileError(f"{label}: hipRTC could not compile the kernel", log=log)
    part, line = m.group("part"), int(m.group("line") or m.group("nv_line"))
    lines = texts.get(part, "").split("\n")
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    return KernelCompileError(f"{label}: hipRTC could not compile the kernel: {m.group('msg').strip()}", log=log,
                              part=part, line=line, text=text)


def _load(device, module, names, source, options, label, texts, abi):
    """The device's BoundKernels of ``names`` in ``source`` (compiled on first use)."""
    try:
        return [device.kernels.kernel(ops.KernelSpec(("custom", module, name), name, module, abi, "", EW_BLOCK),
                                      source, options) for name in names]
    except RocmError as exc:
        if not exc.call.startswith("hiprtcCompileProgram"):
            raise
        raise compile_error(label, exc.detail, texts) from None


def _bump(buffers):
    for buffer in buffers:
        buffer.version += 1


# --- RawKernel -----------------------------------------------------------------------------

def raw_kernel(device, source, name, params, options):
    module, text = custom_source.raw(source, name)
    (bound,) = _load(device, module, (name,), text, tuple(options), f"RawKernel {name!r}", {"source": source}, "raw")
    args = KernelParams(params)
    launcher = device.launcher
    pointer = [p.pointer for p in params]
    written = [p.pointer and not p.const for p in params]

    def launch(grid, block, shared_mem, values):
        packed, buffers = [], []
        for is_pointer, writes, v in zip(pointer, written, values):
            if is_pointer:
                storage, offset = v
                packed.append(storage.ptr + offset * storage.dtype.itemsize)
                if writes:
                    buffers.append(storage.buffer)
            else:
                packed.append(v.tobytes())
        launcher.launch_fields(bound, grid[0], grid[1], grid[2], block[0], block[1], block[2], args, args.struct,
                               packed, shared_mem)
        _bump(buffers)

    return launch


# --- ElementwiseKernel and ReductionKernel ---------------------------------------------------

def _texts(kernel):
    return {"preamble": kernel.preamble, "body": kernel.body, "map_expr": kernel.map_expr,
            "reduce_expr": kernel.reduce_expr, "post_map_expr": kernel.post_map_expr, "identity": kernel.identity}


def _fixed(kernel, slots, operands):
    """(pointers of the raw operands, the scalar slots' bytes, the buffers a launch writes)."""
    ptrs, scalars, written = [0] * KERNEL_OPERANDS, bytearray(_NO_SCALARS), []
    for p, (kind, k), v in zip(kernel.params, slots, operands):
        if kind == "scalar":
            scalars[16 * k:16 * k + 16] = v.tobytes().ljust(16, b"\0")
            continue
        storage, layout = v
        if p.role in ("raw_in", "raw_out"):
            ptrs[k] = storage.ptr + layout.offset * storage.dtype.itemsize
        if p.role in ("out", "raw_out"):
            written.append(storage.buffer)
    return ptrs, bytes(scalars), written


def _strides_field(rows):
    """The flat ``strides`` array of ``cw_kernel_args``: {slot: strides} at slot * MAX_DIMS."""
    out = [0] * (KERNEL_OPERANDS * MAX_DIMS)
    for k, strides in rows.items():
        out[k * MAX_DIMS:k * MAX_DIMS + len(strides)] = strides
    return out


# positions in cw_kernel_args' values (KERNEL_ARGS.struct's order) of the fields a prepared
# launch fills per call: the pointers and the scalar slots
def _positions():
    pos, out = 0, {}
    for name, kind, count, _, _ in KERNEL_ARGS.flat:
        out[name] = pos
        pos += 1 if kind == "raw" else count
    return out


_POS = _positions()
_FILLS = tuple(range(_POS["ptr"], _POS["ptr"] + KERNEL_OPERANDS)) + (_POS["scalar"],)
_CONTIG_FILLS = tuple(range(3, 3 + KERNEL_OPERANDS + 1))  # _CONTIG's values: n, base, flags, ptrs, scalar


def _values(n, n_red, base, ndim, red_ndim, flags, shape, red_shape, strides, red_strides):
    return [n, n_red, base, ndim, red_ndim, flags, 0, *pad_dims(shape, 1), *pad_dims(red_shape, 1),
            *([0] * KERNEL_OPERANDS), *_strides_field(strides), *_strides_field(red_strides), _NO_SCALARS]


def elementwise_kernel(device, kernel):
    src = custom_source.elementwise(kernel)
    label = f"ElementwiseKernel {kernel.name!r}"
    options = custom_source.DEFAULT_OPTIONS + tuple(kernel.options)
    (bound,) = _load(device, src.module, src.names, src.source, options, label, _texts(kernel), KERNEL_ARGS.name)
    launches = device.launches
    element_slots = [(i, k) for i, (p, (kind, k)) in enumerate(zip(kernel.params, src.slots))
                     if p.role in ("in", "out")]

    def plan(shape, strides):
        """Per piece of the launch (more than 8 unmergeable dimensions: several), its
        PreparedLaunch and each per-element operand's element offset within it."""
        pieces, base = [], 0
        for piece_shape, piece_ops in split_dims(shape, [(1, 0, st) for st in strides]):
            n = shape_size(piece_shape)
            cshape, cstrides = coalesce(tuple(piece_shape), [st for _, _, st in piece_ops])
            contiguous = len(cshape) <= 1 and all(not st or st[0] == 1 for st in cstrides)
            flags = (CONTIGUOUS if contiguous else 0) | (INDEX32 if n < _INDEX32_LIMIT else 0)
            grid = grid_for(n, EW_BLOCK, device)
            if contiguous:
                launch = PreparedLaunch(device.launcher, bound, grid, EW_BLOCK, KERNEL_ARGS,
                                        [n, base, flags, *([0] * KERNEL_OPERANDS), _NO_SCALARS], _CONTIG_FILLS,
                                        _CONTIG)
            else:
                rows = {k: st for (_, k), st in zip(element_slots, cstrides)}
                launch = PreparedLaunch(device.launcher, bound, grid, EW_BLOCK, KERNEL_ARGS,
                                        _values(n, 0, base, len(cshape), 0, flags, cshape, (), rows, {}), _FILLS)
            pieces.append((launch, tuple(off for _, off, _ in piece_ops)))
            base += n
        return pieces

    def run(shape, operands):
        ptrs, scalars, written = _fixed(kernel, src.slots, operands)
        arrays = [operands[i] for i, _ in element_slots]
        key = ("custom", src.module, shape, tuple(lay.strides for _, lay in arrays))
        pieces = launches.get(key)
        if pieces is None:
            pieces = launches.keep(key, plan(tuple(shape), [lay.strides for _, lay in arrays]))
        for launch, deltas in pieces:
            for (_, k), (storage, lay), delta in zip(element_slots, arrays, deltas):
                ptrs[k] = storage.ptr + (lay.offset + delta) * storage.dtype.itemsize
            launch.run(*ptrs, scalars)
        _bump(written)

    return run


def reduction_kernel(device, kernel):
    src = custom_source.reduction(kernel)
    label = f"ReductionKernel {kernel.name!r}"
    options = custom_source.DEFAULT_OPTIONS + tuple(kernel.options)
    block_kernel, serial_kernel = _load(device, src.module, src.names, src.source, options, label, _texts(kernel),
                                        KERNEL_ARGS.name)
    launches = device.launches
    cap = device.ew_grid_cap
    element_slots = [(i, k, p.role == "in") for i, (p, (kind, k)) in enumerate(zip(kernel.params, src.slots))
                     if p.role in ("in", "out")]

    def plan(shape, axes, layouts):
        """The PreparedLaunch of a reduction of ``shape`` over ``axes`` with the
        per-element operands' ``layouts``: kept and reduced dimensions coalesced apart,
        a block or a thread per output."""
        kept_axes = [d for d in range(len(shape)) if d not in axes]
        kept_shape = tuple(shape[d] for d in kept_axes)
        red_shape = tuple(shape[d] for d in axes)
        kept_rows, red_rows = [], []
        for (_, _, is_in), layout in zip(element_slots, layouts):
            if is_in:
                kept_rows.append(tuple(layout.strides[d] for d in kept_axes))
                red_rows.append(tuple(layout.strides[d] for d in axes))
            else:
                kept_rows.append(tuple(layout.strides))
        ckept, kept_strides = coalesce(kept_shape, kept_rows)
        cred, red_strides = coalesce(red_shape, red_rows)
        if len(ckept) > MAX_DIMS or len(cred) > MAX_DIMS:
            raise UnsupportedOperation(label, None, "rocm",
                                       f"more than {MAX_DIMS} kept or reduced dimensions that do not merge")
        n_out, n_red = shape_size(kept_shape), shape_size(red_shape)
        first = layouts[0] if element_slots[0][2] else None
        serial = n_out >= _SERIAL_MIN_OUTPUTS and first is not None and _innermost_kept(first, axes)
        flags = INDEX32 if n_out * max(n_red, 1) < _INDEX32_LIMIT else 0
        ins = [k for _, k, is_in in element_slots if is_in]
        values = _values(n_out, n_red, 0, len(ckept), len(cred), flags, ckept, cred,
                         {k: st for (_, k, _), st in zip(element_slots, kept_strides)}, dict(zip(ins, red_strides)))
        if serial:
            return PreparedLaunch(device.launcher, serial_kernel, min(-(-n_out // EW_BLOCK), cap), EW_BLOCK,
                                  KERNEL_ARGS, values, _FILLS)
        return PreparedLaunch(device.launcher, block_kernel, min(n_out, cap), custom_source.REDUCE_BLOCK, KERNEL_ARGS,
                              values, _FILLS)

    def run(shape, axes, operands):
        ptrs, scalars, written = _fixed(kernel, src.slots, operands)
        arrays = [operands[i] for i, _, _ in element_slots]
        key = ("custom_reduce", src.module, shape, axes, tuple(lay.strides for _, lay in arrays))
        launch = launches.get(key)
        if launch is None:
            launch = launches.keep(key, plan(tuple(shape), tuple(axes), [lay for _, lay in arrays]))
        for (_, k, _), (storage, lay) in zip(element_slots, arrays):
            ptrs[k] = storage.ptr + lay.offset * storage.dtype.itemsize
        launch.run(*ptrs, scalars)
        _bump(written)

    return run


def _innermost_kept(layout, axes):
    """Whether the operand's innermost axis (smallest stride) is a kept one: neighbouring
    outputs then read neighbouring elements, so a thread per output reads coalesced."""
    live = [(abs(st), d) for d, (n, st) in enumerate(zip(layout.shape, layout.strides)) if n > 1 and st]
    return bool(live) and min(live)[1] not in axes
