"""``CpuStorage``: the CPU backend's ``BackendStorage`` (see candlewick/backend.py).

A storage owns one flat NumPy buffer (``storage_slice``). Each primitive views its
operands through their layouts and hands the views to a kernel from ``ops`` (or to
``indexing``/``ordering``/``products``/``nn``/``linalg``/``fft``); the kernel's fresh result,
flattened in C order, becomes the new storage. The element-wise primitives (the
latency-critical path) are ``cpu_backend.elementwise``'s, bound on the class below it.
"""


from math import prod

import numpy as np

from candlewick import dtypes as dt
from candlewick.backend import BackendStorage
from candlewick.backend_optional import ComplexViewStorage, DeviceCopyStorage, DLPackStorage
from candlewick.errors import DTypeError
from candlewick.layout import Layout

from . import dlpack
from . import elementwise, indexing, moments, ordering, products, sets
from .error import QuietBlock, out_of_memory, reporting_out_of_memory, unsupported
from .ops import REDUCE, SCALAR_TYPE, SCAN, compute_dtype
from .storage_groups import GroupPrimitives
from .storage_slice import flat, view

INT64 = dt.int64
_AFFINE_DTYPE = {
    d.name: np.dtype(np.complex128 if d.is_complex else np.float64)
    for d in (dt.float16, dt.bfloat16, dt.float32, dt.complex64)
}


try:  # NumPy 2's clip ufunc (np.clip reaches it through two Python wrappers)
    from numpy._core.umath import clip as _CLIP
except ImportError:  # pragma: no cover - other NumPy layouts
    _CLIP = np.clip


# compress through np.compress from this many elements, for masks with a kept share
# between these bounds (measured on the 2-core VM: bench/README.md's host_overhead)
_COMPRESS_MIN = 4096
_MIXED_LOW, _MIXED_HIGH = 0.05, 0.95


class CpuStorage(GroupPrimitives):
    __slots__ = ("buf", "dtype", "_parts")  # _parts: real_view's storage, made on first call

    #: the one CPU device; set by cpu_backend.device when it creates it
    device = None

    def __init__(self, buf, dtype):
        self.buf = buf  # 1-D C-contiguous ndarray of dtype.numpy
        self.dtype = dtype

    @property
    def size(self):
        return self.buf.size

    @property
    def read_only(self):
        """True for memory imported from a read-only producer (never written)."""
        return not self.buf.flags.writeable

    def __repr__(self):
        return f"CpuStorage({self.dtype.name}, size={self.buf.size})"

    def _same_dtype(self, other, argname, op):
        if other.dtype is not self.dtype:
            raise DTypeError(f"{op}: {argname} has dtype {other.dtype}, expected {self.dtype}")

    # --- host transfer ---------------------------------------------------------------

    def to_host(self, layout):
        try:
            return view(self.buf, layout).copy()
        except MemoryError as exc:
            raise out_of_memory("to_host", exc) from exc

    def dlpack_view(self, layout):
        """The optional DLPack export hook: a NumPy view sharing this buffer (bfloat16
        through dlpack.export_view, as DLPack's kDLBfloat)."""
        return dlpack.export_view(view(self.buf, layout))

    def real_view(self):
        """The optional hook ComplexViewStorage: this complex buffer as its real components
        (NumPy's ``view`` of the component dtype: no copy). One storage per complex
        storage, so that ``assign``'s overlap check, which compares buffers, sees every
        ``real``/``imag`` view of one array as one memory."""
        parts = getattr(self, "_parts", None)
        if parts is None:
            dtype = dt.real_dtype_of(self.dtype)
            parts = self._parts = CpuStorage(self.buf.view(dtype.numpy), dtype)
        return parts

    # --- in-place ---------------------------------------------------------------------

    def assign(self, dst_layout, src, src_layout):
        self._same_dtype(src, "src", "assign")
        if not dst_layout.shape:  # one element (x[i, j] = v in a loop): no views, no copyto
            self.buf[dst_layout.offset] = src.buf[src_layout.offset]
            return
        source = view(src.buf, src_layout)
        target = view(self.buf, dst_layout)
        if src.buf is self.buf and np.may_share_memory(target, source):
            # NumPy does not detect every overlap (e.g. 1-D views with different steps):
            # read the source out first, as the contract says
            source = source.copy()
        np.copyto(target, source)

    def fill(self, layout, value):
        kind = type(value)
        if (kind in _SMALL_EXACT and -_F16_MAX <= value <= _F16_MAX) or (
                kind is float and self.dtype.name in _WIDE_FLOATS and -_F32_MAX <= value <= _F32_MAX):
            # no IEEE flag to quiet: exact in every dtype, or a float float32/64 holds
            # without overflow (a rounding raises none)
            if layout.size == 1:
                self.buf[layout.offset] = value
            else:
                view(self.buf, layout).fill(value)
            return
        with QuietBlock():
            view(self.buf, layout).fill(value)

    def scatter(self, dst_layout, indices, idx_layout, src, src_layout, axis):
        self._same_dtype(src, "src", "scatter")
        indexing.scatter(view(self.buf, dst_layout), view(indices.buf, idx_layout),
                         view(src.buf, src_layout), axis)

    def scatter_add(self, dst_layout, indices, idx_layout, src, src_layout, axis):
        self._same_dtype(src, "src", "scatter_add")
        indexing.scatter_add(view(self.buf, dst_layout), view(indices.buf, idx_layout),
                             view(src.buf, src_layout), axis)

    def index_add(self, dst_layout, indices, idx_layout, src, src_layout, axis):
        self._same_dtype(src, "src", "index_add")
        indexing.index_add(view(self.buf, dst_layout), view(indices.buf, idx_layout),
                           view(src.buf, src_layout), axis)

    # --- element-wise -----------------------------------------------------------------

    def copy(self, layout):
        try:
            if layout.is_contiguous:
                return CpuStorage(flat(self.buf, layout).copy(), self.dtype)
            spread = _spread_axis(layout) if prod(layout.shape) >= _REPEAT_FROM else 0
            if spread:  # each element repeated along one stride-0 axis: NumPy's repeat
                shape, strides = layout.shape, layout.strides
                inner = Layout(shape[:spread] + shape[spread + 1 :], strides[:spread] + strides[spread + 1 :],
                               layout.offset)
                out = np.repeat(view(self.buf, inner), shape[spread], axis=spread - 1)
                return CpuStorage(out.reshape(-1), self.dtype)
            return CpuStorage(view(self.buf, layout).flatten(), self.dtype)
        except MemoryError as exc:
            raise out_of_memory("copy", exc) from exc

    # unary, binary, binary_scalar, compare, compare_scalar and where: bound below the
    # class, from cpu_backend.elementwise

    def astype(self, layout, dtype):
        try:
            with QuietBlock():  # NaN/inf/out-of-range to int is defined as "unspecified", not a warning
                if layout.is_contiguous:
                    out = flat(self.buf, layout).astype(dtype.numpy)
                else:
                    out = view(self.buf, layout).astype(dtype.numpy, order="C").reshape(-1)
        except MemoryError as exc:
            raise out_of_memory("astype", exc) from exc
        return CpuStorage(out, dtype)

    def affine(self, layout, mul, add):
        if not (self.dtype.is_integer or self.dtype.is_floating or self.dtype.is_complex):
            raise unsupported("affine", self.dtype)
        # integers wrap in their own dtype; floating types below float64 compute in double
        # precision and round once, so x * mul may pass the dtype's range when the sum
        # does not (as a fused multiply-add would)
        wide = _AFFINE_DTYPE.get(self.dtype.name, self.dtype.numpy)
        x = flat(self.buf, layout) if layout.is_contiguous else view(self.buf, layout)
        with QuietBlock():  # the rounding back may overflow to inf, as IEEE says, silently
            out = np.multiply(x, wide.type(mul), dtype=wide)
            out += wide.type(add)
            out = out.astype(self.dtype.numpy, copy=False)
        return CpuStorage(out.reshape(-1), self.dtype)

    def clip(self, layout, lo, hi):
        if not (self.dtype.is_integer or self.dtype.is_floating):
            raise unsupported("clip", self.dtype)
        scalar = SCALAR_TYPE[self.dtype.name]
        x = flat(self.buf, layout) if layout.is_contiguous else view(self.buf, layout)
        if self.dtype.numpy == compute_dtype(self.dtype) and (lo is not None or hi is not None):
            # NumPy's clip loop: one pass, NaN stays NaN, min(max(x, lo), hi) when lo > hi
            # (np.maximum with a scalar operand is several times slower per element)
            if lo is not None and hi is not None:  # the ufunc np.clip ends in, without its wrappers
                out = _CLIP(x, scalar(lo), scalar(hi))
            else:
                out = np.clip(x, None if lo is None else scalar(lo), None if hi is None else scalar(hi))
            return CpuStorage(out.reshape(-1), self.dtype)
        with QuietBlock():
            out = x.astype(compute_dtype(self.dtype), order="C")  # a private copy to clip in place
            if lo is not None:
                np.maximum(out, scalar(lo), out=out)  # NaN stays NaN
            if hi is not None:
                np.minimum(out, scalar(hi), out=out)
        return CpuStorage(out.astype(self.dtype.numpy, copy=False).reshape(-1), self.dtype)

    # --- reductions and scans -----------------------------------------------------------

    def reduce(self, op, layout, axes):
        try:
            kernel, out_dtype = REDUCE[op._value_][self.dtype.name]
        except (KeyError, AttributeError):
            raise unsupported(op, self.dtype) from None
        x = self.buf
        full = len(axes) == len(layout.shape)
        # a full reduction of C-contiguous elements runs over them flat (keepdims leaves
        # exactly (1,)): the whole buffer as it lies where the layout covers it (len: the
        # buffer is 1-D, and len() is a C slot where .size is an attribute lookup)
        try:
            if full and layout.dense_size == len(x):
                out = kernel(x, (0,))
            elif full and layout.is_contiguous:
                out = kernel(flat(x, layout), (0,))
            else:
                out = kernel(view(x, layout), tuple(axes)).reshape(-1)
        except MemoryError as exc:
            raise out_of_memory("reduce", exc) from exc
        result = _new_storage(CpuStorage)  # (CpuStorage(...) without the __init__ call)
        result.buf = out
        result.dtype = out_dtype
        return result

    def var(self, layout, axes, correction, root):
        buf = self.buf
        if buf.dtype not in moments.REAL_OF:
            raise unsupported("var", self.dtype)
        real = dt.real_dtype_of(self.dtype)
        if layout.is_contiguous and len(axes) == len(layout.shape):  # over the flat buffer
            x, axes = flat(buf, layout), (0,)
        else:
            x, axes = view(buf, layout), tuple(axes)
        return CpuStorage(moments.var(x, axes, correction, root).reshape(-1), real)

    def scan(self, op, layout, axis):
        try:
            kernel, out_dtype = SCAN[op._value_][self.dtype.name]
        except (KeyError, AttributeError):
            raise unsupported(op, self.dtype) from None
        return CpuStorage(kernel(view(self.buf, layout), axis).reshape(-1), out_dtype)

    # --- indexing -------------------------------------------------------------------------

    def concat(self, layout, rest, axis):
        dtype = self.dtype
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
                return CpuStorage(np.concatenate(runs), dtype)
        parts = [view(self.buf, layout)]
        for storage, part_layout in rest:
            self._same_dtype(storage, "rest", "concat")
            parts.append(view(storage.buf, part_layout))
        return CpuStorage(np.concatenate(parts, axis=axis).reshape(-1), self.dtype)

    def compress(self, layout, mask, mask_layout):
        if not mask.dtype.is_bool:
            raise DTypeError(f"compress: mask has dtype {mask.dtype}, expected bool")
        values, keep = view(self.buf, layout), view(mask.buf, mask_layout)  # keep: 1-D, one flag a row
        if values.size >= _COMPRESS_MIN and layout.is_contiguous and mask_layout.is_contiguous:
            kept = np.count_nonzero(keep)
            if kept == keep.size:  # every row kept: one contiguous copy, no compaction
                return CpuStorage(values.reshape(-1).copy(), self.dtype), kept
            if _MIXED_LOW * keep.size < kept < _MIXED_HIGH * keep.size:
                # np.compress copies without a branch per element: 7x NumPy's boolean
                # indexing on a half-true random mask (4.6 -> 0.6 ms at 2^20); indexing
                # stays faster on nearly uniform masks and small arrays
                out = np.compress(keep, values, axis=0)
                return CpuStorage(out.reshape(-1), self.dtype), kept
        out = values[keep]  # NumPy's one-pass compaction
        return CpuStorage(out.reshape(-1), self.dtype), out.shape[0]

    def nonzero(self, layout):
        x = flat(self.buf, layout) if layout.is_contiguous and len(layout.shape) == 1 else view(self.buf, layout)
        coords = sets.nonzero(x)
        return tuple([CpuStorage(c, INT64) for c in coords]), coords[0].size

    def index_select(self, layout, indices, idx_layout, axis):
        out = indexing.index_select(view(self.buf, layout), view(indices.buf, idx_layout), axis)
        return CpuStorage(out.reshape(-1), self.dtype)

    def gather(self, layout, indices, idx_layout, axis):
        out = indexing.gather(view(self.buf, layout), view(indices.buf, idx_layout), axis)
        return CpuStorage(out.reshape(-1), self.dtype)

    # --- ordering ---------------------------------------------------------------------------

    def sort(self, layout, axis, descending, stable):
        if self.dtype.is_complex:
            raise unsupported("sort", self.dtype)
        values, idx = ordering.sort(view(self.buf, layout), axis, descending, stable)
        return CpuStorage(values.reshape(-1), self.dtype), _index_storage(idx)

    def sort_values(self, layout, axis, descending, stable):
        if self.dtype.is_complex:
            raise unsupported("sort_values", self.dtype)
        values = ordering.sort_values(view(self.buf, layout), axis, descending, stable)
        return CpuStorage(values.reshape(-1), self.dtype)

    def argsort(self, layout, axis, descending, stable):
        if self.dtype.is_complex:
            raise unsupported("argsort", self.dtype)
        return _index_storage(ordering.argsort(view(self.buf, layout), axis, descending, stable))

    def searchsorted(self, layout, values, values_layout, right):
        if self.dtype.is_complex:
            raise unsupported("searchsorted", self.dtype)
        self._same_dtype(values, "values", "searchsorted")
        x = flat(self.buf, layout) if layout.is_contiguous else view(self.buf, layout).reshape(-1)
        v = flat(values.buf, values_layout) if values_layout.is_contiguous else view(values.buf, values_layout)
        return CpuStorage(ordering.searchsorted(x, v, right).reshape(-1), INT64)

    def isin(self, layout, other, other_layout, invert):
        if self.dtype.is_complex:
            raise unsupported("isin", self.dtype)
        self._same_dtype(other, "other", "isin")
        x = flat(self.buf, layout) if layout.is_contiguous else view(self.buf, layout).reshape(-1)
        y = flat(other.buf, other_layout) if other_layout.is_contiguous else view(other.buf, other_layout).reshape(-1)
        return CpuStorage(sets.isin(x, y, invert), dt.bool_)

    def unique(self, layout, indices, inverse, counts):
        x = flat(self.buf, layout) if layout.is_contiguous else view(self.buf, layout).reshape(-1)
        values, first, inv, sizes = sets.unique(x, indices, inverse, counts)
        return (CpuStorage(values, self.dtype), values.size, first if first is None else CpuStorage(first, INT64),
                inv if inv is None else CpuStorage(inv, INT64), sizes if sizes is None else CpuStorage(sizes, INT64))

    # --- linear algebra ---------------------------------------------------------------------

    matmul = products.matmul

# every primitive of the protocols reports NumPy's MemoryError as DeviceMemoryError: the
# hottest catch it inline (no wrapper call on their path), the others through a wrapper
_INLINE = frozenset({"to_host", "copy", "astype", "reduce", "unary", "binary", "compare", "binary_scalar",
                     "compare_scalar", "where"})
for _protocol in (BackendStorage, ComplexViewStorage, DeviceCopyStorage, DLPackStorage):
    for _name, _value in vars(_protocol).items():
        if callable(_value) and not _name.startswith("_") and _name not in _INLINE and hasattr(CpuStorage, _name):
            setattr(CpuStorage, _name, reporting_out_of_memory(_name, getattr(CpuStorage, _name)))
for _name, _method in elementwise.primitives(CpuStorage).items():
    setattr(CpuStorage, _name, _method)
_new_storage = CpuStorage.__new__


def new_storage(buf, dtype):
    """``CpuStorage(buf, dtype)`` without the class call, whose Python ``__init__`` CPython
    runs on its slow path (the device's fills: their own work is one NumPy call)."""
    storage = _new_storage(CpuStorage)
    storage.buf = buf
    storage.dtype = dtype
    return storage


# NumPy's repeat beats a strided flatten from about this many elements (measured)
_REPEAT_FROM = 256
# fill values that every dtype holds exactly (float16's range): no overflow to quiet
_SMALL_EXACT = frozenset({bool, int})
_F32_MAX = float(np.finfo(np.float32).max)
_WIDE_FLOATS = frozenset({"float32", "float64"})
_F16_MAX = 65504


def _spread_axis(layout):
    """The axis k > 0 of a layout whose only stride-0 axis of length > 1 is k (a repeat
    of each element along k - 1), else 0."""
    found = 0
    for k, (n, st) in enumerate(zip(layout.shape, layout.strides)):
        if st == 0 and n > 1:
            if found or not k:
                return 0
            found = k
    return found


def _index_storage(idx):
    return CpuStorage(idx.reshape(-1), INT64)
