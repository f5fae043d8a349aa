"""[abi] Element-wise operands: coalescing their axes and the flat ``cw_ew_args`` values."""

from .structs import CONTIGUOUS, INDEX32, INDEX32_LIMIT, MAX_DIMS, MAX_OPERANDS, SCALAR_BYTES


def pad_dims(values, fill=0):
    """A per-dimension list padded to MAX_DIMS entries."""
    values = list(values)
    return values + [fill] * (MAX_DIMS - len(values))


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
    if n < INDEX32_LIMIT:
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
