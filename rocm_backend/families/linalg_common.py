"""[families] What the hipSOLVER op families share: workspaces, the column-major views of
row-major storages, the ``info`` check, triangle masks and the device's small cache of
pointer arrays and masks (the hipSOLVER handle is the device's: ``device.solver``).

hipSOLVER is column-major. A C-contiguous copy of a row-major (..., r, c) matrix is, read
column-major, its transpose (c x r, leading dimension c); a C-contiguous copy of the
transposed view is the matrix itself column-major. The op families pick whichever of the
two saves a transpose, and say why where they do.

``info``: hipSOLVER writes one int per matrix into device memory. ``queue_info`` is the
one place that reads it back (``batch`` ints, never the data, through pinned memory and
an event: ``runtime/host_reads.py``), queued after every matrix of the call is factored;
its check waits for that copy only (``raise_on_info``: queue and check at once).
"""

import collections
import threading

import numpy as np

from candlewick import dtypes as dt
from candlewick.errors import LinAlgError, UnsupportedOperation
from candlewick.layout import Layout
from candlewick.shapes import contiguous_strides, shape_size
from candlewick.opdefs import CompareOp

from ..abi.structs import INT32_MAX
from . import creation


DTYPES = (dt.float32, dt.float64, dt.complex64, dt.complex128)
LETTER = {dt.float32: "S", dt.float64: "D", dt.complex64: "C", dt.complex128: "Z"}
# small device arrays that are a pure function of their key (pointer arrays, triangle
# masks), kept so that a repeated call of the same shape uploads and computes nothing:
# with a synchronizing info read per call, each saved upload or launch is host time
# (batched cholesky 1024 x 64 x 64 took 0.48 ms beside cuSOLVER's 0.18 in PyTorch)
CONSTANTS_CACHE_SIZE = 64
MASK_CACHE_MAX = 1 << 16  # elements: larger masks are rebuilt (their cost is noise there)


class _Constants:
    """A device's bounded LRU of ``constant``'s values: (kind, ...) -> storage or size."""

    def __init__(self, device):
        self.values = collections.OrderedDict()
        self.lock = threading.Lock()


def require(op, storage):
    if storage.dtype not in DTYPES:
        raise UnsupportedOperation(op, storage.dtype, "rocm", "linalg takes float32/64 and complex64/128")


def check_sizes(op, dtype, *sizes):
    if max(sizes, default=0) > INT32_MAX:
        raise UnsupportedOperation(op, dtype, "rocm", "hipSOLVER takes matrix sizes below 2^31")


def split(shape):
    """(batch shape, number of matrices, rows, cols) of a (..., rows, cols) shape."""
    batch = tuple(shape[:-2])
    return batch, shape_size(batch), shape[-2], shape[-1]


def workspace(device, dtype, lwork):
    """A scratch buffer of ``lwork`` elements (at least one: hipSOLVER wants a pointer)."""
    return device.storage_type.empty(device, dtype, max(int(lwork), 1))


def ints(device, count):
    return device.storage_type.empty(device, dt.int32, max(count, 1))


def column_major(storage, layout):
    """A fresh C-contiguous copy of the transposed view: the matrices column-major."""
    return storage.copy(layout.transpose_last2())


def colmajor_as_rowmajor(batch, rows, cols, ld, per_matrix):
    """Layout that reads column-major matrices (leading dimension ``ld``, ``per_matrix``
    elements apart) as row-major (batch..., rows, cols)."""
    bstrides = tuple(s * per_matrix for s in contiguous_strides(batch))
    return Layout(tuple(batch) + (rows, cols), bstrides + (1, ld), 0)


class InfoCheck:
    """The ``info`` ints of ``count`` matrices on their way to the host (``queue_info``);
    ``raise_if_failed`` waits for them alone, so the kernels queued after the
    factorization (the solve, the triangle zeroing, the result's copy) run meanwhile."""

    __slots__ = ("_pending",)

    def __init__(self, pending):
        self._pending = pending

    def raise_if_failed(self, op, what, drained=False):
        """LinAlgError if a matrix's info is positive (``what`` says what that means) or
        negative (an argument hipSOLVER rejected: a bug here, not the user's matrix).
        ``drained``: a synchronizing read of the stream since served this one too (no wait)."""
        if self._pending is None:
            return
        host, self._pending = self._pending.values(drained), None
        if not host.any():  # the usual case: one test
            return
        bad = np.flatnonzero(host > 0)
        if bad.size:
            first = int(bad[0])
            raise LinAlgError(f"linalg.{op}: {what} (matrix {first} of the batch, hipSOLVER info "
                              f"{int(host[first])})")
        raise LinAlgError(f"linalg.{op}: hipSOLVER rejected argument {-int(host.min())}")


def queue_info(info, count):
    """Queue the read of the ``info`` ints of ``count`` matrices, right after the call
    that writes them; check them with ``raise_if_failed`` once the rest is queued."""
    if count == 0:
        return InfoCheck(None)
    return InfoCheck(info.device.host_reads.queue_read(info.ptr, count, np.int32))


def raise_on_info(info, count, op, what):
    """Read the ``info`` ints of ``count`` matrices now; LinAlgError if any is not zero."""
    queue_info(info, count).raise_if_failed(op, what)


def constant(device, key, make, cacheable=True):
    """The device array (or workspace size) ``make()`` for ``key`` (a pure function of
    it), from the device's bounded LRU; ``cacheable=False`` makes a fresh one."""
    if not cacheable:
        return make()
    cache = device.family_state("linalg_constants", _Constants)
    key = tuple(key)
    with cache.lock:
        hit = cache.values.get(key)
        if hit is not None:
            cache.values.move_to_end(key)
            return hit
    value = make()
    if len(device.streams.records) > 1 and device.capture is None:
        # made on this thread's stream, read later from any: wait until it is written
        device.synchronize_stream(device.streams.mark(), check_errors=False)
    with cache.lock:
        cache.values[key] = value
        while len(cache.values) > CONSTANTS_CACHE_SIZE:
            cache.values.popitem(last=False)
    return value


def keep_triangle(storage, shape, lower, layout=None):
    """A contiguous copy of the (..., r, c) matrices of ``storage`` (read through ``layout``,
    contiguous when None) with the other strict triangle zeroed (lower: keep col <= row),
    through the where primitive and an on-device row/column comparison (no host data; the
    mask of a small matrix is kept, see ``constant``)."""
    mask, mask_layout, zero, zero_layout, full = triangle_select(storage.device, storage.dtype, shape, lower)
    return mask.where(mask_layout, storage, full if layout is None else layout, zero, zero_layout)


def triangle_select(device, dtype, shape, lower):
    """(mask, its layout, zero, its layout, the contiguous layout of ``shape``): the operands
    of the ``where`` that keeps one triangle of (..., r, c) matrices of ``dtype``; kept
    per shape (one cache hit per call) while the mask is small."""
    *batch, r, c = shape
    full = tuple(shape)

    def make_mask():
        rows, cols = creation.arange(device, 0, 1, r, dt.int64), creation.arange(device, 0, 1, c, dt.int64)
        op = CompareOp.GREATER_EQUAL if lower else CompareOp.LESS_EQUAL
        # row >= col (lower) / row <= col (upper)
        return rows.compare(op, Layout((r, c), (1, 0), 0), cols, Layout((r, c), (0, 1), 0))

    def make():
        mask = constant(device, ("triangle", r, c, lower), make_mask, r * c <= MASK_CACHE_MAX)
        zero = constant(device, ("zero", dtype.name), lambda: creation.full(device, (1,), dtype, 0))
        return (mask, Layout(full, (0,) * len(batch) + (c, 1), 0), zero, Layout(full, (0,) * len(full), 0),
                Layout.contiguous(full))

    return constant(device, ("select", dtype.name, full, lower), make, r * c <= MASK_CACHE_MAX)


def pointer_array(device, base, count, step_bytes):
    """Device array of ``count`` matrix addresses ``base + i * step_bytes`` (the batched
    routines take pointer arrays; the addresses are uploaded, never the data). The
    caching allocator hands a repeated call of one shape the same addresses, so the
    array is usually found in ``constant``'s cache. A miss computes the addresses on the
    device (an int64 arange): an upload from pageable host memory waits for the stream,
    and the first calls of a shape, before the allocator's addresses settle, missed."""
    def make():
        return creation.arange(device, base, step_bytes, count, dt.int64)

    return constant(device, ("pointers", base, count, step_bytes), make)
