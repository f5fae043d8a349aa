"""Joins and compaction of ``CpuStorage``: ``concat`` (parts joined along an axis) and
``compress`` (the rows under a bool mask) (each takes the storage it works on first;
``storage.CpuStorage`` binds them as its methods)."""

from math import prod

import numpy as np

from candlewick.errors import DTypeError

from .error import reports_out_of_memory, same_dtype
from .storage_slice import flat, view

# compress through np.compress from this many elements, for masks with a kept share
# between these bounds (measured on the 2-core VM: bench/README.md's host_overhead)
_COMPRESS_MIN = 4096
_MIXED_LOW, _MIXED_HIGH = 0.05, 0.95


@reports_out_of_memory
def concat(self, layout, rest, axis):
    dtype, cls = self.dtype, type(self)
    if not axis and layout.is_contiguous:
        # C-contiguous parts joined along the leading axis: the result's elements are
        # the parts' flat runs one after another (no view of each part's shape)
        runs = [flat(self.buf, layout)]
        for storage, part_layout in rest:
            if storage.dtype is not dtype or not part_layout.is_contiguous:
                break
            buf, start = storage.buf, part_layout.offset
            size = prod(part_layout.shape)
            runs.append(buf if not start and size == buf.size else buf[start : start + size])
        else:
            return cls(np.concatenate(runs), dtype)
    parts = [view(self.buf, layout)]
    for storage, part_layout in rest:
        same_dtype(self, storage, "rest", "concat")
        parts.append(view(storage.buf, part_layout))
    return cls(np.concatenate(parts, axis=axis).reshape(-1), self.dtype)


@reports_out_of_memory
def compress(self, layout, mask, mask_layout):
    if not mask.dtype.is_bool:
        raise DTypeError(f"compress: mask has dtype {mask.dtype}, expected bool")
    cls = type(self)
    values, keep = view(self.buf, layout), view(mask.buf, mask_layout)  # keep: 1-D, one flag a row
    if values.size >= _COMPRESS_MIN and layout.is_contiguous and mask_layout.is_contiguous:
        kept = np.count_nonzero(keep)
        if kept == keep.size:  # every row kept: one contiguous copy, no compaction
            return cls(values.reshape(-1).copy(), self.dtype), kept
        if _MIXED_LOW * keep.size < kept < _MIXED_HIGH * keep.size:
            # np.compress copies without a branch per element: 7x NumPy's boolean
            # indexing on a half-true random mask (4.6 -> 0.6 ms at 2^20); indexing
            # stays faster on nearly uniform masks and small arrays
            out = np.compress(keep, values, axis=0)
            return cls(out.reshape(-1), self.dtype), kept
    out = values[keep]  # NumPy's one-pass compaction
    return cls(out.reshape(-1), self.dtype), out.shape[0]
