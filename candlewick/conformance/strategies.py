"""Hypothesis strategies: shapes, layouts of every kind, and values with special cases.

A test input is a ``HostView``: a flat host buffer (what gets uploaded with
``device.storage_from_host``) plus a ``Layout`` that views it. The NumPy view of the
same buffer through the same layout is the oracle's input, so the backend and the
oracle read exactly the same elements.

Values come from a NumPy generator seeded by a drawn integer: hypothesis still
controls (and replays) every example, while arrays stay cheap to build.
"""

import math
from dataclasses import dataclass

import ml_dtypes
import numpy as np
from hypothesis import strategies as st

from candlewick import dtypes as dt
from candlewick.layout import Layout

LAYOUT_KINDS = ("contiguous", "permuted", "stepped", "broadcast", "offset", "negative", "mixed")
#: kinds usable as the destination of an in-place write (every element distinct)
WRITABLE_KINDS = tuple(k for k in LAYOUT_KINDS if k != "broadcast")


def finfo(dtype):
    np_dtype = dtype.numpy if isinstance(dtype, dt.DType) else np.dtype(dtype)
    return ml_dtypes.finfo(np_dtype) if np_dtype == dt.bfloat16.numpy else np.finfo(np_dtype)


# --- shapes --------------------------------------------------------------------


@st.composite
def shapes(draw, min_dims=0, max_dims=4, max_side=5, allow_empty=True):
    """Small shapes; 0-d and shapes with a zero-size dimension come up regularly."""
    ndim = draw(st.integers(min_dims, max_dims))
    shape = draw(st.lists(st.integers(1, max_side), min_size=ndim, max_size=ndim))
    if allow_empty and ndim and draw(st.integers(0, 9)) == 0:
        shape[draw(st.integers(0, ndim - 1))] = 0
    return tuple(shape)


# --- layouts -------------------------------------------------------------------


@st.composite
def layout_specs(draw, shape, kinds=LAYOUT_KINDS, writable=False):
    """A ``(Layout, buffer_size)`` pair: a view of ``shape`` of one of ``kinds`` into a
    flat buffer of ``buffer_size`` elements. ``writable`` excludes broadcast views."""
    kinds = tuple(k for k in kinds if not (writable and k == "broadcast"))
    kind = draw(st.sampled_from(kinds))
    ndim = len(shape)
    mixed = kind == "mixed"

    # the order of the view's axes in memory, outermost first
    order = list(range(ndim))
    if kind == "permuted" or (mixed and draw(st.booleans())):
        order = draw(st.permutations(range(ndim)))
    steps = [1] * ndim
    extra = [0] * ndim
    negative = [False] * ndim
    broadcast = [False] * ndim
    for a in range(ndim):
        if kind == "stepped" or mixed:
            steps[a] = draw(st.sampled_from((1, 2, 3)))
            extra[a] = draw(st.integers(0, steps[a] - 1))
        if kind == "negative" or mixed:
            negative[a] = draw(st.booleans())
        if (kind == "broadcast" or mixed) and not writable:
            broadcast[a] = draw(st.booleans())
    if ndim:
        # make sure the named kind actually shows up in the layout
        forced = draw(st.integers(0, ndim - 1))
        if kind == "stepped":
            steps[forced] = max(steps[forced], 2)
        elif kind == "negative":
            negative[forced] = True
        elif kind == "broadcast":
            broadcast[forced] = True
    pad = draw(st.integers(1, 5)) if kind == "offset" else (draw(st.integers(0, 5)) if mixed else 0)
    tail = draw(st.integers(0, 2)) if kind != "contiguous" else 0

    # extent of each axis in the underlying C-contiguous block
    extent = [
        1 if broadcast[a] else ((n - 1) * steps[a] + 1 + extra[a] if n else 0)
        for a, n in enumerate(shape)
    ]
    base = [0] * ndim
    acc = 1
    for a in reversed(order):
        base[a] = acc
        acc *= max(extent[a], 1)
    block = math.prod(extent)
    size = math.prod(shape)
    strides = []
    offset = pad
    for a, n in enumerate(shape):
        if broadcast[a]:
            strides.append(0)
            continue
        stride = base[a] * steps[a]
        if negative[a]:
            if size:
                offset += (n - 1) * stride
            stride = -stride
        strides.append(stride)
    return Layout(tuple(shape), tuple(strides), offset), pad + block + tail


def view_of(flat, layout):
    """The NumPy view of ``flat`` through ``layout`` (writable when ``flat`` is)."""
    item = flat.itemsize
    return np.ndarray(
        layout.shape, flat.dtype, buffer=flat, offset=layout.offset * item,
        strides=tuple(s * item for s in layout.strides),
    )


def covered_mask(size, layout):
    """Which of a ``size``-element buffer's elements ``layout`` reaches."""
    mask = np.zeros(size, bool)
    view_of(mask, layout)[...] = True
    return mask


@dataclass
class HostView:
    """A flat host buffer and a layout into it (the buffer may be shared)."""

    flat: np.ndarray
    layout: Layout
    dtype: dt.DType

    @property
    def view(self):
        return view_of(self.flat, self.layout)

    def value(self):
        """The viewed elements as a fresh C-contiguous array: the oracle's input."""
        return np.array(self.view, copy=True, order="C")

    def upload(self, device):
        return device.storage_from_host(np.ascontiguousarray(self.flat))


@st.composite
def host_views(draw, dtype, view_shapes, kinds=LAYOUT_KINDS, writable=(), shared=False,
               values="any"):
    """One HostView per shape in ``view_shapes``. Indices listed in ``writable`` get
    non-broadcast layouts. With ``shared`` all views live in one buffer (so they may
    overlap), otherwise each has its own."""
    specs = [
        draw(layout_specs(tuple(s), kinds, writable=i in writable))
        for i, s in enumerate(view_shapes)
    ]
    fill = draw(value_fillers(dtype, values))
    if shared:
        flat = fill(max(size for _, size in specs))
        return [HostView(flat, layout, dtype) for layout, _ in specs]
    return [HostView(fill(size), layout, dtype) for layout, size in specs]


@st.composite
def host_arrays(draw, dtype, shape, kinds=LAYOUT_KINDS, values="any", writable=False):
    """A single HostView."""
    (view,) = draw(host_views(dtype, [shape], kinds, writable=(0,) if writable else (),
                              values=values))
    return view


# --- values --------------------------------------------------------------------

#: value profiles: "any" mixes moderate, full-range and special values; "moderate" keeps
#: magnitudes within 1e-2..1e2 (sums, matmul, nn: no order-dependent overflow) and
#: "unit" within 0.5..2 (products), both still with zeros, NaN, +-inf and -0.0;
#: "finite" and "moderate_finite" are "any" and "moderate" without NaN/inf (for
#: results, like an FFT's, that are not defined element by element).
VALUE_PROFILES = ("any", "moderate", "unit", "finite", "moderate_finite")


def float_specials(dtype):
    info = finfo(dtype)
    big, tiny, sub = float(info.max), float(info.tiny), float(info.smallest_subnormal)
    return np.array(
        [np.nan, np.inf, -np.inf, 0.0, -0.0, big, -big, tiny, -tiny, sub, -sub, 3 * sub,
         1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, float(info.eps), 1.0 + float(info.eps)],
        dtype=np.float64,
    )


def int_specials(dtype):
    info = np.iinfo(dtype.numpy)
    bits = dtype.bits
    vals = [info.min, info.max, info.min + 1, info.max - 1, 0, 1, 2, bits - 1, bits, bits + 1]
    if info.min < 0:
        vals += [-1, -2, -bits]
    return np.array(vals, dtype=dtype.numpy)


def _real_values(rng, np_float, n, profile, special_rate, wide_rate):
    """float64 values for a real floating dtype (rounded to it by the caller)."""
    info = finfo(np_float)
    specials = float_specials(np_float)
    if profile == "unit":
        out = rng.uniform(0.5, 2.0, n) * rng.choice([-1.0, 1.0], n)
    else:
        out = rng.standard_normal(n) * 10.0 ** rng.uniform(-2, 2, n)
        halves = rng.random(n) < 0.1
        out[halves] = rng.integers(-6, 6, halves.sum()) + 0.5  # round-half-even cases
    if profile in ("unit", "moderate", "moderate_finite"):
        keep = np.abs(specials) <= 2.5
        if profile == "unit":
            # products of subnormals lose digits in an order-dependent way
            keep &= (np.abs(specials) >= 0.5) | (specials == 0)
        specials = specials[keep | ~np.isfinite(specials)]
    else:
        wide = rng.random(n) < wide_rate
        # log-uniform over the whole range, subnormals included
        lo = math.log2(float(info.smallest_subnormal))
        hi = math.log2(float(info.max))
        out[wide] = np.exp2(rng.uniform(lo, hi, wide.sum())) * rng.choice([-1.0, 1.0], wide.sum())
    if profile.endswith("finite"):
        specials = specials[np.isfinite(specials)]
    pick = rng.random(n) < special_rate
    out[pick] = rng.choice(specials, pick.sum())
    return out


def fill_values(rng, dtype, n, profile="any", special_rate=0.1, wide_rate=0.3):
    """``n`` values of ``dtype`` (host representation) from the generator ``rng``."""
    if dtype.is_bool:
        return rng.random(n) < 0.5
    if dtype.is_integer:
        info = np.iinfo(dtype.numpy)
        full = rng.integers(info.min, info.max, n, dtype=dtype.numpy, endpoint=True)
        small = np.clip(rng.integers(-8, 9, n), max(int(info.min), -8), 8).astype(dtype.numpy)
        if profile in ("moderate", "unit", "moderate_finite"):
            return small
        out = np.where(rng.random(n) < wide_rate, full, small)
        pick = rng.random(n) < special_rate
        out[pick] = rng.choice(int_specials(dtype), pick.sum())
        return out.astype(dtype.numpy)
    if dtype.is_complex:
        part = dt.real_dtype_of(dtype).numpy
        re = _real_values(rng, part, n, profile, special_rate / 2, wide_rate)
        im = _real_values(rng, part, n, profile, special_rate / 2, wide_rate)
        out = np.empty(n, dtype.numpy)  # not re + 1j * im: 1j * inf has a NaN real part
        out.real, out.imag = re.astype(part), im.astype(part)
        return out
    return _real_values(rng, dtype.numpy, n, profile, special_rate, wide_rate).astype(dtype.numpy)


@st.composite
def value_fillers(draw, dtype, profile="any"):
    """A function ``n -> array`` drawing values of ``dtype``; its randomness is drawn."""
    seed = draw(st.integers(0, 2**32 - 1))
    special_rate = draw(st.sampled_from((0.0, 0.05, 0.3)))
    wide_rate = draw(st.sampled_from((0.0, 0.3, 1.0)))
    rng = np.random.default_rng(seed)

    def fill(n):
        return fill_values(rng, dtype, n, profile, special_rate, wide_rate)

    return fill


@st.composite
def scalars(draw, dtype, profile="any"):
    """A Python scalar representable in ``dtype`` (what the front end passes)."""
    fill = draw(value_fillers(dtype, profile))
    return fill(1)[0].item()


@st.composite
def index_arrays(draw, shape, n, kinds=LAYOUT_KINDS):
    """An int64 HostView of ``shape`` with values in ``[-n, n)`` (n > 0 unless empty)."""
    seed = draw(st.integers(0, 2**32 - 1))
    layout, size = draw(layout_specs(tuple(shape), kinds))
    rng = np.random.default_rng(seed)
    flat = rng.integers(-n, n, size, dtype=np.int64) if n else np.zeros(size, np.int64)
    return HostView(flat, layout, dt.int64)


def op_dtype_params(ops):
    """pytest params for every (op, accepted dtype) pair of an op enum (or list)."""
    import pytest

    return [
        pytest.param(op, d, id=f"{op.value}-{d.name}") for op in ops for d in op.dtypes()
    ]


def dtype_params(dtypes):
    import pytest

    return [pytest.param(d, id=d.name) for d in dtypes]
