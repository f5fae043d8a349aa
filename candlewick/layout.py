"""Layout: shape, strides (in elements) and offset (in elements) over a flat storage.

This is the only place that knows view arithmetic. Strides may be 0 (broadcast) or
negative (reversed views). Every transform returns a new Layout and never touches data.
"""

from math import prod

from .errors import AxisError, ShapeError
from .shapes import contiguous_strides, shape_size
# the shape helpers lived here until shapes.py took them; backends written against
# ``candlewick.layout`` keep importing them from it
from .shapes import ALL_AXES, broadcast_shapes, normalize_axes, normalize_axis, reduced_shape  # noqa: F401

__all__ = [
    "Layout",
    "ALL_AXES", "broadcast_shapes", "contiguous_strides", "normalize_axes", "normalize_axis", "reduced_shape",
    "shape_size",
]


def _dense(sizes_and_strides):
    """Whether (size, stride) pairs, innermost first, step through memory with no gaps."""
    acc = 1
    for n, s in sizes_and_strides:
        if n == 0:
            return True
        if n != 1:
            if s != acc:
                return False
            acc *= n
    return True


class Layout:
    __slots__ = ("shape", "strides", "offset", "_contig", "dense_size")

    def __init__(self, shape, strides, offset=0, _contig=None):
        self.shape = shape
        self.strides = strides
        self.offset = offset
        self._contig = _contig
        #: the element count of an offset-0 layout known to be C-contiguous (it views the
        #: first ``dense_size`` elements of a flat buffer, in order), else -1 (known
        #: otherwise, or not known yet: ``is_contiguous`` fills it in when it finds out).
        #: ``layout.dense_size == buffer.size`` is a backend's one test for a layout that
        #: covers its whole buffer as it lies (the element-wise hot path's common case)
        self.dense_size = prod(shape) if _contig and not offset else -1

    @classmethod
    def contiguous(cls, shape, offset=0):
        shape = tuple(shape)
        return cls(shape, contiguous_strides(shape), offset, True)

    def __repr__(self):
        return f"Layout(shape={self.shape}, strides={self.strides}, offset={self.offset})"

    def __eq__(self, other):
        return (
            isinstance(other, Layout)
            and self.shape == other.shape
            and self.offset == other.offset
            # (equal strides first: one tuple comparison, the common case, no generator)
            and (self.strides == other.strides
                 or all(s == o for n, s, o in zip(self.shape, self.strides, other.strides) if n > 1))
        )

    __hash__ = None  # type: ignore[assignment]

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        return shape_size(self.shape)

    @property
    def is_contiguous(self):
        """C-contiguous: elements in row-major order with no gaps (offset may be non-zero)."""
        c = self._contig
        if c is None:
            c = self._contig = self._check_contiguous()
            if c and not self.offset:
                self.dense_size = prod(self.shape)
        return c

    def _check_contiguous(self):
        return _dense(zip(reversed(self.shape), reversed(self.strides)))

    @property
    def is_fortran_contiguous(self):
        return _dense(zip(self.shape, self.strides))

    @property
    def has_broadcast(self):
        return any(s == 0 and n > 1 for n, s in zip(self.shape, self.strides))

    def span(self):
        """(lowest, highest) element offset this layout reaches; (offset, offset-1) if empty."""
        if self.size == 0:
            return self.offset, self.offset - 1
        lo = hi = self.offset
        for n, s in zip(self.shape, self.strides):
            if s > 0:
                hi += (n - 1) * s
            else:
                lo += (n - 1) * s
        return lo, hi

    # --- view transforms ---------------------------------------------------

    def permute(self, axes):
        axes = tuple(axes)
        ndim = len(self.shape)
        if len(axes) != ndim or set(axes) != set(range(ndim)):
            raise AxisError(f"axes {axes} is not a permutation of {tuple(range(ndim))}")
        return Layout(tuple(map(self.shape.__getitem__, axes)), tuple(map(self.strides.__getitem__, axes)),
                      self.offset)

    def transpose_2d(self):
        """The transpose of a 2-D layout (``x.T``), with no permutation checks; a
        C-contiguous one with both axes longer than 1 is known not to be C-contiguous
        after (no primitive viewing it checks again)."""
        (m, n), (a, b) = self.shape, self.strides
        return Layout((n, m), (b, a), self.offset, False if self._contig and m > 1 and n > 1 else None)

    def transpose_last2(self):
        shape, strides = self.shape, self.strides
        if len(shape) < 2:
            raise ShapeError(f"matrix transpose needs at least 2 dimensions, got {len(shape)}")
        return Layout(shape[:-2] + (shape[-1], shape[-2]), strides[:-2] + (strides[-1], strides[-2]), self.offset)

    def broadcast_to(self, shape):
        if shape == self.shape:
            return self
        shape = tuple(shape)
        pad = len(shape) - len(self.shape)
        if pad < 0:
            raise ShapeError(f"cannot broadcast shape {self.shape} to {shape}: fewer dimensions")
        strides = [0] * pad
        # an axis longer than 1 stepped with stride 0 is never C-contiguous (unless the
        # layout is empty): said now, so that no is_contiguous test works it out (the
        # element-wise primitives ask it of each broadcast operand)
        stretched = pad > 0 and max(shape[:pad]) > 1
        for n, s, target in zip(self.shape, self.strides, shape[pad:] if pad else shape):
            if n == target:
                strides.append(s)
            elif n == 1:
                strides.append(0)
                stretched = stretched or target > 1
            else:
                raise ShapeError(f"cannot broadcast shape {self.shape} to {shape}")
        if pad == 0 and shape == self.shape:
            return self
        return Layout(shape, tuple(strides), self.offset, False if stretched and 0 not in shape else None)

    def slice(self, axis, start, stop, step):
        """Basic slicing on one axis; start/stop/step already normalized by ``slice.indices``."""
        n = len(range(start, stop, step))
        shape, strides, offset = self.shape, self.strides, self.offset
        stride = strides[axis]
        # an empty result keeps its offset: moving it could point past the buffer's end
        if n and start and 0 not in shape:
            offset += start * stride
        shape = shape[:axis] + (n,) + shape[axis + 1 :]
        if step != 1:  # (a length-1 axis never steps: stride 0, whatever the step)
            strides = strides[:axis] + (stride * step if n > 1 else 0,) + strides[axis + 1 :]
        # a step-1 slice of a C-contiguous layout's leading axis is C-contiguous
        return Layout(shape, strides, offset, True if step == 1 and not axis and self._contig else None)

    def select(self, axis, index):
        """Drop ``axis`` by picking ``index`` (already in range, non-negative)."""
        return Layout(
            self.shape[:axis] + self.shape[axis + 1 :],
            self.strides[:axis] + self.strides[axis + 1 :],
            self.offset + index * self.strides[axis],
        )

    def is_dense_permutation(self):
        """Whether the layout covers exactly ``size`` elements from offset 0 with no gaps
        or overlaps, its axes in any order (a C-contiguous layout with permuted axes:
        what ``rfftn`` may return)."""
        if self.offset != 0:
            return False
        expected = 1
        for stride, size in sorted((s, n) for s, n in zip(self.strides, self.shape) if n != 1):
            if stride != expected:
                return False
            expected *= size
        return True

    def selection_parts(self, axis):
        """What ``select(axis, i)`` shares for every ``i`` along ``axis``: (shape, strides,
        first offset, offset step, count, contiguous (True or None: each selection of axis
        0 of a C-contiguous layout is one), dense size of the first selection (that of an
        offset-0 contiguous one, else -1))."""
        shape = self.shape[:axis] + self.shape[axis + 1 :]
        strides = self.strides[:axis] + self.strides[axis + 1 :]
        contiguous = True if axis == 0 and self.is_contiguous else None
        first_dense = prod(shape) if contiguous and not self.offset else -1
        return shape, strides, self.offset, self.strides[axis], self.shape[axis], contiguous, first_dense

    def selections(self, axis):
        """``select(axis, i)`` for every ``i`` along ``axis``, sharing one shape and strides
        tuple (unstack's views where ``_core.row_views`` cannot use candlewick._rows)."""
        shape, strides, offset, step, count, contiguous, first_dense = self.selection_parts(axis)
        # one row per element along the axis (1024 of them for a 1024 x 1024 unstack):
        # filled slot by slot, not through __init__, since the call was most of a row's
        # cost; every row has the same shape, so only the first can be dense
        new, cls = object.__new__, Layout
        out = []
        for row_offset in range(offset, offset + count * step, step) if step else [offset] * count:
            row = new(cls)
            row.shape = shape
            row.strides = strides
            row.offset = row_offset
            row._contig = contiguous
            row.dense_size = -1
            out.append(row)
        if out:
            out[0].dense_size = first_dense
        return out

    def expand_dims(self, axis):
        """Insert a size-1 axis at ``axis`` (in ``[0, ndim]``)."""
        return Layout(
            self.shape[:axis] + (1,) + self.shape[axis:],
            self.strides[:axis] + (0,) + self.strides[axis:],
            self.offset,
            self._contig,
        )

    def squeeze(self, axes):
        for a in axes:
            if self.shape[a] != 1:
                raise ShapeError(f"cannot squeeze axis {a} of size {self.shape[a]} (must be 1)")
        keep = [i for i in range(self.ndim) if i not in axes]
        return Layout(
            tuple(self.shape[i] for i in keep),
            tuple(self.strides[i] for i in keep),
            self.offset,
            self._contig,
        )

    def flip(self, axes):
        shape, strides, offset = self.shape, list(self.strides), self.offset
        empty = 0 in shape  # an empty view keeps its offset (it reads nothing)
        backwards = False  # an axis of two or more elements read backwards: not C-contiguous
        for a in axes:
            if not empty:
                offset += (shape[a] - 1) * strides[a]
            strides[a] = -strides[a]
            backwards = backwards or strides[a] < 0 and shape[a] > 1
        return Layout(shape, tuple(strides), offset, False if backwards and not empty else None)

    def reshape(self, shape):
        """A view with the new shape, or None when the data would have to be copied."""
        if shape == self.shape:
            return self
        shape = tuple(shape)
        if self.is_contiguous:
            return Layout.contiguous(shape, self.offset)
        # merge/split runs of the old axes that are mutually contiguous
        old = [(n, s) for n, s in zip(self.shape, self.strides) if n != 1]
        new_strides = []
        oi = 0
        ni = 0
        new = list(shape)
        while ni < len(new):
            if new[ni] == 1:
                new_strides.append(0)
                ni += 1
                continue
            if oi >= len(old):
                return None
            # gather old axes until their product matches a product of new axes
            o_prod, n_prod = old[oi][0], new[ni]
            o_end, n_end = oi + 1, ni + 1
            while o_prod != n_prod:
                if o_prod < n_prod:
                    if o_end >= len(old):
                        return None
                    o_prod *= old[o_end][0]
                    o_end += 1
                else:
                    while n_end < len(new) and new[n_end] == 1:
                        n_end += 1
                    if n_end >= len(new):
                        return None
                    n_prod *= new[n_end]
                    n_end += 1
            for k in range(oi, o_end - 1):
                if old[k][1] != old[k + 1][1] * old[k + 1][0]:
                    return None
            stride = old[o_end - 1][1]
            chunk = []
            for k in range(n_end - 1, ni - 1, -1):
                chunk.append(0 if new[k] == 1 else stride)
                stride *= new[k] if new[k] != 1 else 1
            new_strides.extend(reversed(chunk))
            oi, ni = o_end, n_end
        if oi != len(old):
            return None
        return Layout(shape, tuple(new_strides), self.offset)
