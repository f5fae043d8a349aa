"""The ordering primitives of ``CpuStorage``: sort, sort_values, argsort and searchsorted
(each takes the storage it works on first; ``storage.CpuStorage`` binds them as its
methods), over the array kernels below them (``sorted_values`` also serves ``sets``).

NumPy already orders NaN above +inf (last when ascending) in ``argsort`` and
``searchsorted``. Descending order is the ascending sort of the axis reversed, read
backwards: equal elements of the reversed input come out in reverse original order, so
reading backwards restores original order (stability holds in both directions) and NaN
comes first (``sort_values`` sorts x itself and takes only its tie runs from x reversed). float16/bfloat16 keys are compared as float32 (exact).

Sorted values at NumPy's default speed (issue 39). A stable sort's *values* are those
of any sort wherever elements that compare equal are bitwise equal: integers and bools
always, floats except in two runs, the zeros (-0.0 == 0.0) and the NaNs (their signs
and payloads, which NumPy's SIMD quicksort also rewrites as one quiet NaN). So the
stable ``sort_values`` sorts with NumPy's default kind (20-25x its stable kind on
floats at 2^16-2^24 elements) and rewrites those two runs of each sorted row from the
input, in the input's order, where they can differ: the NaNs, and the zeros where a row
holds two or more. 1-byte integers (and bool, sorted as uint8) keep the stable kind: it
is NumPy's radix sort, faster there than its quicksort; so do 2-byte ones, and float16 is
sorted through float32 keys, except where NumPy's default sort of 2-byte elements is its
AVX-512 quicksort (``SIMD_16BIT``; for float16 its FP16 one, ``SIMD_FLOAT16``), faster
than both.

Where candlewick._native is built, rows along the last axis are sorted by its
``sort_rows``: the input copied, its zeros and NaNs collected in the same pass (no pass
of its own), NumPy's sort, the runs written back; a descending row is the ascending sort
of the row read backwards, reversed in place (the front end asks the ascending sort of x
reversed instead and views it reversed: ``descending_sort_view``, no reversal pass).
sort_rows reads a row that runs backwards in memory order and writes its runs back
reversed: NumPy then sorts the values in the order ``np.sort(x)`` does. One long float32
or float64 row with a sixteenth or more zeros and NaNs (sampled) is copied partitioned at
zero instead, and NumPy sorts each side alone (its first partition done by the copy, the
zeros left out).
NumPy's form (``tie_runs.restore_ties``: a mask and a compaction per run, after the sort)
serves installs without it and rows along another axis.
"""

import numpy as np

from candlewick import dtypes as dt
from candlewick.errors import DeviceMemoryError

from .error import QuietBlock, out_of_memory, reports_out_of_memory, same_dtype, unsupported
from .ops import F32, LOW_PRECISION_NP
from .storage_slice import flat, new_storage, view
from .tie_runs import restore_ties

try:  # candlewick's optional compiled module (absent where no C compiler was found)
    from candlewick._native import sort_rows as _native_rows
except ImportError:
    _native_rows = None
try:  # NumPy 2's CPU dispatch tables (private: where absent, its 16-bit sort is taken as generic)
    from numpy._core._multiarray_umath import __cpu_dispatch__ as _DISPATCH
    from numpy._core._multiarray_umath import __cpu_features__ as _FEATURES
except ImportError:
    _DISPATCH, _FEATURES = (), {}

#: whether NumPy's default sort of 2-byte elements is its AVX-512 quicksort here (x86-simd-sort,
#: dispatched from AVX512_ICL on): faster than its radix sort of int16 (3.5 against 4.8 ms at
#: 2^20 on a Xeon with AVX512_SPR) and than sorting float16 through float32 keys (8.0 against
#: 10.2 ms); elsewhere its 16-bit quicksort is generic, slower than both
SIMD_16BIT = any(t in _DISPATCH and _FEATURES.get(t) is True for t in ("AVX512_ICL", "AVX512_SPR"))
#: whether NumPy's default sort of float16 is its AVX-512 FP16 quicksort (AVX512_SPR). Its
#: float16 sort on AVX512_ICL alone (Zen 4, Ice Lake: x86-simd-sort's path that emulates
#: FP16) returns rows out of order where many values are equal (NumPy 2.4.6 on an AMD EPYC,
#: 2026-12-03: np.sort of 8198 float16 integers in [-3, 3] not ascending, 12 seeds of 20;
#: its int16 and uint16 sorts there right); there float16 is sorted through float32 keys
SIMD_FLOAT16 = "AVX512_SPR" in _DISPATCH and _FEATURES.get("AVX512_SPR") is True


_I64 = np.dtype(np.int64)
_BACK = slice(None, None, -1)
_ONE_BACK = (-1,)  # the strides of a 1-D layout read backwards
#: _native.sort_rows's bit-pattern format of each float dtype
_FORMATS = {dt.float16.numpy: 0, dt.bfloat16.numpy: 1, dt.float32.numpy: 2, dt.float64.numpy: 3}


def float32_keys(x):
    """x, or its exact float32 keys where x is float16/bfloat16."""
    return _cast(x, F32) if x.dtype in LOW_PRECISION_NP else x


def _cast(x, dtype):
    with QuietBlock():  # a signalling NaN's cast sets the invalid flag: not an error here
        return x.astype(dtype)


def fastest_kind(dtype):
    """NumPy's fastest argsort kind for ``dtype`` whose equal elements are bitwise equal
    (integers, bool): radix ("stable") for 1-2 byte integers, else its default."""
    return "stable" if dtype.kind in "biu" and dtype.itemsize <= 2 else None


def value_kind(dtype):
    """NumPy's fastest kind for sorting the values of ``dtype``: radix ("stable") for 1-byte
    integers and bool, and for 2-byte ones where its default is not SIMD (``SIMD_16BIT``),
    else its default."""
    if dtype.kind in "biu" and (dtype.itemsize == 1 or dtype.itemsize == 2 and not SIMD_16BIT):
        return "stable"
    return None


#: the dtypes whose values are sorted through float32 keys: bfloat16 (ml_dtypes' comparison
#: misplaces NaN and is no SIMD sort), and float16 where NumPy's sort of it is not its
#: FP16 one (``SIMD_FLOAT16``: generic, or wrong)
KEYED = LOW_PRECISION_NP - {np.dtype(np.float16)} if SIMD_FLOAT16 else LOW_PRECISION_NP

#: sort_rows's (format, kind) for each dtype it sorts itself (not through float32 keys),
#: stable (the format of its tie runs) and not (-1: none): made once, so that the common
#: call reads one table instead of calling value_kind and reading _FORMATS
_ROW_PLANS = {stable: {d.numpy: (_FORMATS.get(d.numpy, -1) if stable else -1, value_kind(d.numpy))
                       for d in dt.ALL_DTYPES if not d.is_complex and d.numpy not in KEYED}
              for stable in (True, False)}


#: NumPy's sorts stop at this many dimensions (an iterator's limit; NumPy's arrays take 64)
_NUMPY_SORT_NDIM = 32


def _in_rows(fn, x, axis, *rest):
    """``fn(x, axis, *rest)`` (a sort's arrays, of x's shape), for x of more dimensions than
    NumPy's sorts take too: the sorted axis moved last and the others made one axis of rows,
    the results put back."""
    if x.ndim <= _NUMPY_SORT_NDIM:
        return fn(x, axis, *rest)
    moved = np.moveaxis(x, axis, -1)
    out = fn(moved.reshape(-1, moved.shape[-1]), 1, *rest)

    def back(a):
        return np.moveaxis(a.reshape(moved.shape), -1, axis)
    return tuple(map(back, out)) if isinstance(out, tuple) else back(out)


def _argsort(x, axis, descending, stable):
    """int64 indices that sort ``x`` along ``axis`` (see the module docstring)."""
    key = float32_keys(x)
    kind = "stable" if stable else None
    if descending:  # (np.flip's steps, its axis checks left out: a basic slice each way)
        back = (slice(None),) * axis + (_BACK,)
        order = (key.shape[axis] - 1) - key[back].argsort(axis, kind)[back]
    else:  # (ndarray.argsort: np.argsort without its Python-level wrapper)
        order = key.argsort(axis, kind)
    return order if order.dtype == _I64 else order.astype(np.int64)


def _sort(x, axis, descending, stable):
    """(values, int64 indices) of ``x`` sorted along ``axis``."""
    idx = _argsort(x, axis, descending, stable)
    # values are gathered through the indices, so they agree with them bit for bit
    # (-0.0 and 0.0, NaN payloads); plain fancy indexing is the fast gather for 1-D
    values = x[idx] if x.ndim == 1 else np.take_along_axis(x, idx, axis)
    return values, idx


def sorted_values(x, axis, descending, stable):
    """``x`` sorted along ``axis`` by NumPy's fastest sort, C-contiguous; with ``stable``,
    bitwise the stable sort's values (module docstring). (sort_values runs the one-row
    case of its first branch inline, for a frame: a change here goes there too.)"""
    rows = _native_rows
    if rows is not None and axis == x.ndim - 1 and x.size:
        # rows along the last axis: read backwards where descending, sorted ascending with
        # their tie runs as read, reversed (no pass where neither is needed)
        source = x[..., ::-1] if descending else x
        plan = _ROW_PLANS[stable].get(x.dtype)
        if plan is not None:  # (the common case: one look-up, no call but the two below)
            s = np.empty(x.shape, x.dtype)
            rows(s, source, plan[0], descending, plan[1])
            return s
        if x.dtype in KEYED:  # sorted through float32 keys, then finished
            s = _sorted_copy(x, axis)
            if stable or descending:
                rows(s, source, _FORMATS[x.dtype] if stable else -1, descending)
            return s
    if not descending:
        return _ascending_values(x, axis, stable, x)
    # the ascending sort read backwards (copied: a storage's buffer is C-contiguous), its
    # tie runs rewritten from x reversed: read backwards they come in x's order (NumPy
    # sorts x itself faster than x reversed)
    return np.flip(_ascending_values(x, axis, stable, np.flip(x, axis)), axis).copy()


def _sorted_copy(x, axis):
    """x sorted ascending along ``axis`` (NaN last) by NumPy's fastest kind, a new
    C-contiguous array (np.sort's own steps, a copy and an in-place sort, without its
    Python-level wrapper)."""
    if x.dtype.kind in "biu":
        s = x.copy()
        s.sort(axis, value_kind(x.dtype))
        return s
    if x.dtype in KEYED:
        with QuietBlock():  # (a signalling NaN's cast sets the invalid flag: not an error here)
            s = x.astype(F32, order="C")
            s.sort(axis)
            return s.astype(x.dtype)
    s = x.copy()
    s.sort(axis)
    return s


def _ascending_values(x, axis, stable, ties_from):
    """x sorted ascending; with ``stable``, its tie runs rewritten from ``ties_from`` (x,
    or x reversed along ``axis``) by NumPy (where candlewick._native is absent, or along
    an axis that is not the last)."""
    if x.dtype.kind in "biu":
        return _sorted_copy(x, axis)
    keys = float32_keys(x)
    keys = keys.copy() if keys is x else keys
    keys.sort(axis)
    s = _cast(keys, x.dtype) if keys.dtype != x.dtype else keys
    if stable and s.size:
        last = x.ndim - 1
        if axis == last:
            restore_ties(s, ties_from, keys)
        else:  # rows along the last axis (swapaxes: a view, cheaper than moveaxis)
            restore_ties(s.swapaxes(axis, last), ties_from.swapaxes(axis, last), keys.swapaxes(axis, last))
    return s


def _searchsorted(sorted_1d, values, right):
    """int64 insertion points of ``values`` into ascending ``sorted_1d`` (NaN last)."""
    side = "right" if right else "left"
    sorted_1d, values = float32_keys(sorted_1d), float32_keys(values)
    found = np.searchsorted(sorted_1d, values, side=side)
    return found if type(found) is np.ndarray and found.dtype == np.int64 else np.asarray(found, dtype=np.int64)


# --- the primitives ----------------------------------------------------------------------

def _index_storage(like, idx):
    return new_storage(type(like), idx if idx.ndim == 1 else idx.reshape(-1), dt.int64)


@reports_out_of_memory
def sort(self, layout, axis, descending, stable):
    if self.dtype.is_complex:
        raise unsupported("sort", self.dtype)
    values, idx = _in_rows(_sort, view(self.buf, layout), axis, descending, stable)
    return new_storage(type(self), values.reshape(-1), self.dtype), _index_storage(self, idx)


def sort_values(self, layout, axis, descending, stable):
    # (reports_out_of_memory's conversion inline, and a whole 1-D buffer taken as it lies:
    # two Python frames less on a call whose NumPy sort leaves the caches cold)
    buf = self.buf
    if buf.dtype.kind == "c":  # (NumPy's dtype: DType.is_complex is a Python property)
        raise unsupported("sort_values", self.dtype)
    n = len(buf)
    whole = layout.dense_size == n and len(layout.shape) == 1
    if whole:
        x = buf
    elif layout.offset == n - 1 and layout.strides == _ONE_BACK and layout.shape[0] == n:
        x = buf[::-1]  # the whole buffer read backwards: the front end's descending view asks it
        whole = True
    else:
        x = view(buf, layout)
    rows = _native_rows
    plan = _ROW_PLANS[stable].get(buf.dtype) if whole and rows is not None and n else None
    try:
        if plan is not None:  # (one 1-D row: sorted_values's common case, its frame and tests left out)
            values = np.empty(n, buf.dtype)
            rows(values, x[::-1] if descending else x, plan[0], descending, plan[1])
        else:
            values = _in_rows(sorted_values, x, axis, descending, stable)
            values = values if values.ndim == 1 else values.reshape(-1)
    except DeviceMemoryError:
        raise
    except MemoryError as exc:
        raise out_of_memory("sort_values", exc) from exc
    return new_storage(type(self), values, self.dtype)


@reports_out_of_memory
def argsort(self, layout, axis, descending, stable):
    buf = self.buf  # (as sort_values: NumPy's dtype tested, a whole 1-D buffer taken as it lies)
    if buf.dtype.kind == "c":
        raise unsupported("argsort", self.dtype)
    x = buf if layout.dense_size == len(buf) and len(layout.shape) == 1 else view(buf, layout)
    return _index_storage(self, _in_rows(_argsort, x, axis, descending, stable))


@reports_out_of_memory
def searchsorted(self, layout, values, values_layout, right):
    if self.dtype.is_complex:
        raise unsupported("searchsorted", self.dtype)
    same_dtype(self, values, "values", "searchsorted")
    x = flat(self.buf, layout) if layout.is_contiguous else view(self.buf, layout).reshape(-1)
    v = flat(values.buf, values_layout) if values_layout.is_contiguous else view(values.buf, values_layout)
    return type(self)(_searchsorted(x, v, right).reshape(-1), dt.int64)
