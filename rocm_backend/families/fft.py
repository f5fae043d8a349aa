"""[families] The optional ``fft`` group through hipFFT: C2C/Z2Z, R2C/D2Z and C2R/Z2D along
one axis, unnormalized both ways (the front end scales and composes n-D transforms).

Each call is one batched rank-1 plan with an advanced layout. ``plan_layout`` decides it
on the host: the input is used in place when, with the axis moved last, its other
dimensions coalesce into one (stride, distance) pair with positive int32 strides
(contiguous, transposed, sliced and offset views alike); otherwise it is first copied
contiguous. The output is written in the caller's order directly when the axis is the
last non-trivial one or the first (one ostride/odist pair covers it), else into a
(before, after, m) buffer that one transposing copy puts in place.

C2R may overwrite its input (rocFFT and cuFFT both say so), so irfft always transforms
a private copy (``_c2r_input``, which also pads or truncates the input to n//2+1); real input of R2C not aligned as complex is copied too (``input_aligned``).
The optional hooks ``irfft_scratch_factor`` (device) and ``irfft_scratch`` (storage)
(candlewick.backend.IrfftScratchDevice) let a caller that computes irfft's input anyway
(lazy mode's pending ``spectrum * response``) write that private copy itself: the device
says where the copy would be the input's own C-contiguous layout and what factor it
would carry, and the storage the caller gives up is transformed in place (``transform``'s
``scratch``): a launch, a pass over the spectrum and a buffer fewer. The hooks are
fft_scratch.py's.

Normalization (the device declares ``fft_norm``): hipFFT has no scale factor, so a
transform given a ``norm`` that scales is multiplied in place after it (one pass over the
fresh result, no temporary), except irfft, whose private copy of the input is made by the
multiplying kernel itself (the inverse is linear): ``irfft(rfft(x) * h)`` with NumPy's
default norm queues the copy, the C2R and nothing more, where the front end's scaling
added a pass over the result and a temporary its size.

Zero-padding (the device declares ``fft_pad``): fft's and rfft's ``n`` past the axis's
length pads the input in the one copy the transform reads (``copies.padded_copy``: a row
copy that writes the zeros too), where the front end's padding filled a buffer and copied
into it, two launches; a padded irfft input is made the same way.

Everything of a call that depends only on (kind, shape, strides, axis, n) is worked out
once (``steps``, a bounded cache): the result, the plan keys in place and for the copy, the
output's placement; a repeated call is the alignment test, the allocations and the exec.

Plans are cached per stream of a device in a bounded LRU (``PLAN_CACHE_SIZE``) keyed by
(kind, n, batch, istride, idist, ostride, odist): that is the (shape, strides, dtype,
direction) of the transform as hipFFT sees it (C2C plans serve both directions, the sign
is given at execution). An evicted plan is destroyed after its stream drains (queued
transforms may still use its work area). Each plan's exec a direction is prepared once
(``PlanCache.runner``: from C where candlewick._native was built) and dropped with it.
"""

import collections
import functools
import math
import threading
from typing import NamedTuple

from candlewick import dtypes as dt
from candlewick.errors import UnsupportedOperation
from candlewick.layout import Layout
from candlewick.opdefs import BinaryOp
from candlewick.shapes import shape_size

from ..abi.ew_operands import coalesce
from ..abi.structs import INT32_MAX
from ..bindings import hipfft
from .copies import padded_copy
from .elementwise import binary_scalar
from .inplace import binary_scalar_into

PLAN_CACHE_SIZE = 32
STEPS_CACHE_SIZE = 1024  # layouts whose decisions ``steps`` keeps
KIND = {  # (op, input dtype) -> hipFFT transform
    ("fft", dt.complex64): "C2C", ("fft", dt.complex128): "Z2Z",
    ("rfft", dt.float32): "R2C", ("rfft", dt.float64): "D2Z",
    ("irfft", dt.complex64): "C2R", ("irfft", dt.complex128): "Z2D",
}
KIND_DTYPE = {kind: dtype for (_, dtype), kind in KIND.items()}  # hipFFT transform -> input dtype


class PlanCache:
    """A bounded LRU of hipFFT plans of one device (created and destroyed through the
    ``create``/``destroy`` callables, so the policy is testable without a GPU), and each
    plan's prepared execs (``runner``), kept in the plan's own entry: evicted with it."""

    def __init__(self, create, destroy, drain, capacity=PLAN_CACHE_SIZE, use=None, prepare=None):
        """``use``: called on every ``get`` and ``runner`` (the device's ``make_current``: a
        plan is created and run with its device current); ``prepare(kind, plan, inverse)``:
        the exec ``runner`` keeps (default ``hipfft.runner``)."""
        self._plans = collections.OrderedDict()  # key -> [plan, forward run or None, inverse run or None]
        self._create, self._destroy, self._drain, self._use = create, destroy, drain, use
        self._prepare = hipfft.runner if prepare is None else prepare
        self.capacity = capacity
        self._lock = threading.Lock()

    def runner(self, key, inverse=False):
        """``run(src, dst) -> status`` of the plan of ``key`` (``prepare``'s, made once a
        plan and direction): a hit is a dict lookup and the plan's LRU place refreshed,
        where ``get`` then ``hipfft.execute`` were four Python frames and ctypes'
        conversions a transform."""
        if self._use is not None:
            self._use()
        slot = 2 if inverse else 1
        entry = self._plans.get(key)
        if entry is not None and entry[slot] is not None:
            try:
                self._plans.move_to_end(key)  # (one C call: atomic beside another thread's eviction)
                return entry[slot]
            except KeyError:  # evicted by another thread since the lookup: made again below
                pass
        entry = self._entry(key)
        if entry[slot] is None:  # (an entry evicted meanwhile takes its run with it)
            entry[slot] = self._prepare(key[0], entry[0], inverse)
        return entry[slot]

    def __len__(self):
        return len(self._plans)

    def get(self, key):
        if self._use is not None:
            self._use()
        return self._entry(key)[0]

    def _entry(self, key):
        """The entry of ``key``'s plan, made (and the least recent past ``capacity``
        destroyed, after the stream drains) on a miss, moved to the recent end on a hit."""
        with self._lock:
            entry = self._plans.get(key)
            if entry is not None:
                self._plans.move_to_end(key)
                return entry
            entry = self._plans[key] = [self._create(key), None, None]
            if len(self._plans) > self.capacity:
                self._drain()  # queued transforms may still use the evicted plan
                while len(self._plans) > self.capacity:
                    self._destroy(self._plans.popitem(last=False)[1][0])
            return entry


def plan_cache_for(device, record):
    """The PlanCache of one stream of a device (what ``device.fft_plans`` holds, made once
    per stream: a plan runs on the stream it was made with and holds a work area its
    transforms share): plans created and run with the device current, an evicted one
    destroyed after the stream drains."""
    def create(key):
        kind, n, batch, istride, idist, ostride, odist = key
        dims = n if isinstance(n, tuple) else (n,)  # (n0, ..., nk): a rank-k plan
        half = dims[:-1] + (dims[-1] // 2 + 1,)
        n_in = half if kind in ("C2R", "Z2D") else dims
        n_out = half if kind in ("R2C", "D2Z") else dims
        dense = batch == 1 or (idist, odist) == (shape_size(n_in), shape_size(n_out))
        if istride == ostride == 1 and dense:
            # contiguous in and out: the basic layout (NULL embeddings), as PyTorch
            # and CuPy plan such data. The advanced layout with these extents is the
            # same transform; whether it planned the H100's slower fft kernels is
            # not yet measured (docs/rocm_linalg_fft.md)
            n_in = n_out = None
        device.make_current()
        return hipfft.plan_many(dims, n_in, istride, idist, n_out, ostride, odist, kind, batch, record.handle)

    return PlanCache(create, hipfft.destroy, lambda: device.synchronize_stream(record, check_errors=False),
                     use=device.make_current)


def input_plan(layout, axis):
    """(istride, idist, batch) reading ``layout`` in place along ``axis``, or None when
    it needs a contiguous copy first. The batch enumerates the other dimensions in
    their row-major order."""
    shape, strides = layout.shape, layout.strides
    others = [i for i in range(len(shape)) if i != axis]
    bshape, (bstrides,) = coalesce(tuple(shape[i] for i in others), [tuple(strides[i] for i in others)])
    if len(bshape) > 1:
        return None
    batch, dist = (bshape[0], bstrides[0]) if bshape else (1, 1)
    stride = strides[axis] if shape[axis] > 1 else 1
    if batch == 1:
        dist = 1
    if min(stride, dist) < 1 or max(stride, dist, batch) > INT32_MAX:
        return None
    return stride, dist, batch


def input_aligned(kind, address, itemsize):
    """cuFFT rejects (HIPFFT_INVALID_VALUE, seen on an H100 for a float64 view at an odd
    element offset) real input that is not aligned as its complex counterpart, so such a
    view is copied first; complex input is aligned by its own type."""
    return kind not in ("R2C", "D2Z") or address % (2 * itemsize) == 0


def output_plan(shape, axis, m):
    """(ostride, odist, direct) writing the result of length ``m`` along ``axis`` into a
    contiguous array of ``shape`` (axis resized to m): direct when one (stride, distance)
    pair covers it, else the result goes to a (before, after, m) buffer first."""
    before = shape_size(shape[:axis])
    after = shape_size(shape[axis + 1:])
    if after == 1:
        return 1, m, True
    if before == 1:
        return after, 1, True
    return 1, m, False


class Steps(NamedTuple):
    """What a one-axis transform of a (kind, shape, strides, axis, n) does, worked out once
    (``steps``): the result, the hipFFT plan keys reading the input in place (None: it is
    copied) or its contiguous copy with the axis last, and how the output lands."""

    out_dtype: object
    out_size: int
    error: object  # why it cannot run (a length of 0, too many transforms), else None
    in_place_key: object
    copy_axes: tuple
    copy_layout: object
    copy_key: tuple
    direct: bool
    assign: object  # (destination, source) layouts putting a (before, after, m) result in place
    c2r_source: tuple  # C2R: (shape, strides, contiguous) of the entries its private copy reads, the axis last


@functools.lru_cache(maxsize=STEPS_CACHE_SIZE)
def steps(kind, shape, strides, axis, n):
    length = shape[axis]
    if kind in ("C2R", "Z2D"):
        out_dtype, m, size, copy_len = dt.real_dtype_of(KIND_DTYPE[kind]), n, n, n // 2 + 1
    elif kind in ("R2C", "D2Z"):
        out_dtype, m, size, copy_len = dt.complex_dtype_of(KIND_DTYPE[kind]), length // 2 + 1, length, length
    else:
        out_dtype, m, size, copy_len = KIND_DTYPE[kind], length, length, length
    out_shape = shape[:axis] + (m,) + shape[axis + 1:]
    out_size = shape_size(out_shape)
    error = None
    if length == 0 or size == 0:
        error = "a transform of length 0"
    elif shape_size(shape) // length > INT32_MAX or out_size // m > INT32_MAX:
        error = "more than 2^31-1 transforms in one call"
    axes = tuple(i for i in range(len(shape)) if i != axis) + (axis,)
    copy_layout = Layout.contiguous(tuple(shape[i] for i in axes[:-1]) + (copy_len,))
    in_place = None if kind in ("C2R", "Z2D") or error else input_plan(Layout(shape, strides), axis)
    ostride, odist, direct = output_plan(shape, axis, m)

    def key(plan_in):
        return None if plan_in is None else (kind, size) + (plan_in[2], plan_in[0], plan_in[1], ostride, odist)

    before, after = shape_size(shape[:axis]), shape_size(shape[axis + 1:])
    assign = None if direct else (Layout.contiguous((before, m, after)),
                                  Layout((before, m, after), (after * m, 1, m), 0))
    copy_key = key(input_plan(copy_layout, len(shape) - 1)) if not error else None
    keep = min(length, copy_len)
    src_shape = tuple(shape[i] for i in axes[:-1]) + (keep,)
    src_strides = tuple(strides[i] for i in axes)
    c2r_source = (src_shape, src_strides, Layout(src_shape, src_strides).is_contiguous)
    return Steps(out_dtype, out_size, error, key(in_place), axes, copy_layout, copy_key, direct, assign,
                 c2r_source)


def norm_factor(norm, n, inverse):
    """What a transform of ``n`` points given ``norm`` (None: unnormalized) is multiplied
    by: NumPy's rule (backward scales the inverse by 1/n, forward the forward one, ortho
    both by 1/sqrt(n))."""
    if norm is None or n == 0:
        return 1.0
    if norm == "ortho":
        return 1.0 / math.sqrt(n)
    return 1.0 / n if (norm == "backward") == inverse else 1.0


def scale(out, factor):
    """``out`` (a fresh contiguous result) multiplied by ``factor`` in place."""
    if factor != 1.0 and out.size:
        whole = Layout.contiguous((out.size,))
        binary_scalar_into(out, BinaryOp.MULTIPLY, whole, out, whole, factor, False)
    return out


def transform(x, layout, axis, op, n=None, inverse=False, norm=None, pad=None, scratch=False):
    """The one path of fft/rfft/irfft: ``n`` is the output length of irfft; ``norm``
    NumPy's (None: unnormalized); ``pad``: fft's and rfft's ``n`` (fft_pad), the input
    zero-padded to that length along ``axis`` first; ``scratch``: irfft's input is x's
    memory, which the caller gives up (``irfft_scratch``), read in place where it is the
    private copy's layout."""
    kind = KIND.get((op, x.dtype))
    if kind is None:
        want = "complex64/complex128" if op != "rfft" else "float32/float64"
        raise UnsupportedOperation(op, x.dtype, "rocm", f"{op} takes {want}")
    if pad is not None and pad != layout.shape[axis]:
        x, layout = _padded(x, layout, axis, pad, op)
    plan = steps(kind, tuple(layout.shape), tuple(layout.strides), axis, n)
    out = x.device.storage_type.empty(x.device, plan.out_dtype, plan.out_size)
    if plan.out_size == 0:
        return out
    if plan.error is not None:
        raise UnsupportedOperation(op, x.dtype, "rocm", plan.error)
    item = x.dtype.itemsize
    key = plan.in_place_key
    factor = norm_factor(norm, n if kind in ("C2R", "Z2D") else layout.shape[axis], inverse or kind in ("C2R", "Z2D"))
    if kind in ("C2R", "Z2D"):
        if not (scratch and copy_layout_itself(plan)):
            x, layout, factor = _c2r_input(x, layout, plan, factor)
        key = plan.copy_key
    elif key is None or not input_aligned(kind, x.ptr + layout.offset * item, item):
        x, layout = x.copy(layout.permute(plan.copy_axes)), plan.copy_layout  # contiguous, the axis last
        key = plan.copy_key
    target = out if plan.direct else x.device.storage_type.empty(x.device, plan.out_dtype, out.size)
    run_plan(x.device, key, x.ptr + layout.offset * item, target.ptr, inverse)
    if not plan.direct:  # (before, after, m) -> the caller's order
        out.assign(plan.assign[0], target, plan.assign[1])
    return scale(out, factor)


def run_plan(device, key, src, dst, inverse=False):
    """Queue the plan of ``key`` (its kind first) on ``device``'s current stream from the
    device address ``src`` to ``dst`` (C2C/Z2Z: backward when ``inverse``)."""
    status = device.fft_plans.runner(key, inverse)(src, dst)
    if status:
        hipfft.raise_failed(key[0], status)


def _c2r_input(x, layout, plan, factor=1.0):
    """(the private copy a C2R transform reads (and may overwrite), its layout, the factor
    left to apply to the result): contiguous with the axis last, the first n//2+1 entries
    along it (zero-padded when the input is shorter, as numpy.fft.irfft does), multiplied
    by ``factor`` as it is copied where no padding is needed. The layouts come from
    ``steps`` (``plan``), only the input's offset from ``layout``."""
    buf_layout = plan.copy_layout
    src_shape, src_strides, contiguous = plan.c2r_source
    source = Layout(src_shape, src_strides, layout.offset, contiguous)  # (known: no test per call)
    if src_shape != buf_layout.shape:
        return padded_copy(x, source, buf_layout.shape), buf_layout, factor
    if factor != 1.0:  # the copy scales: no pass over the result
        return binary_scalar(x, BinaryOp.MULTIPLY, source, factor, False), buf_layout, 1.0
    buf = x.device.storage_type.empty(x.device, x.dtype, buf_layout.size)
    buf.assign(Layout(src_shape, buf_layout.strides, 0), x, source)
    return buf, buf_layout, factor


def copy_layout_itself(plan):
    """Whether C2R's private copy would be its input as it is (the entries it reads, the
    axis last, contiguous and n//2+1 long: no padding, no truncation, no transposition)."""
    src_shape, _, contiguous = plan.c2r_source
    return contiguous and src_shape == plan.copy_layout.shape


def _padded(x, layout, axis, length, op):
    """(x as ``layout`` views it zero-padded to ``length`` along ``axis``: a new C-contiguous
    storage, its layout); a length shorter than the axis is the caller's error."""
    if type(length) is not int or length < layout.shape[axis]:
        raise UnsupportedOperation(op, x.dtype, "rocm", f"n={length!r} must be an int of at least the axis's "
                                   f"length {layout.shape[axis]} (a shorter transform is a view the caller makes)")
    shape = tuple(layout.shape[:axis]) + (length,) + tuple(layout.shape[axis + 1:])
    return padded_copy(x, layout, shape), Layout.contiguous(shape)


def fft(x, layout, axis, inverse, norm=None, n=None):
    return transform(x, layout, axis, "fft", inverse=inverse, norm=norm, pad=n)


def rfft(x, layout, axis, norm=None, n=None):
    return transform(x, layout, axis, "rfft", norm=norm, pad=n)


def irfft(x, layout, axis, n, norm=None):
    return transform(x, layout, axis, "irfft", n, norm=norm)

