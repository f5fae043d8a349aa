"""NumPy's ``einsum`` on candlewick arrays: Einstein summation in the subscript string form
(with ``...`` and the implicit output) or the interleaved operand/sublist form.

Each operand first takes its diagonals (a label repeated in its term) and sums the labels
no other term needs; the operands are then contracted two at a time, left to right, each
pair as one batched ``matmul`` (batch labels, the labels only one side keeps, the labels
contracted away), and the last result is permuted to the output's order."""

from __future__ import annotations

import math
import string
from typing import TYPE_CHECKING, Any

from . import dtypes as _dt
from ._core import require_array
from .arguments import CASTINGS, ORDERS, check_cast, one_of
from .broadcasting import broadcast_to
from .conversion import asarray
from .data_types import astype, result_type
from .errors import ArgumentTypeError, ArgumentValueError, ShapeError, short_repr
from .indexing_functions import take
from .matrix_products import matmul
from .manipulation import permute_dims, reshape
from .numpy_names import write_out
from .statistical import sum as _sum

if TYPE_CHECKING:
    from .array import Array

_LETTERS = string.ascii_letters
# the labels ``...`` stands for: characters no subscript string can hold
_BROADCAST = [chr(0x2460 + i) for i in range(64)]


def _interleaved(args):
    """The subscript string of NumPy's form ``einsum(a, [0, 1], b, [1, 2], [0, 2])``."""
    output = args[-1] if len(args) % 2 else None
    pairs = args[:-1] if len(args) % 2 else args
    operands, terms = list(pairs[0::2]), list(pairs[1::2])

    def label(s):
        if s is Ellipsis:
            return "..."
        if isinstance(s, bool) or not isinstance(s, int) or not 0 <= s < len(_LETTERS):
            raise ArgumentValueError(f"einsum: a sublist holds ints in [0, {len(_LETTERS)}) or Ellipsis, got {short_repr(s)}")
        return _LETTERS[s]

    def text(sublist):
        if not isinstance(sublist, (list, tuple)):
            raise ArgumentTypeError(f"einsum: expected a sublist after each operand, got {type(sublist).__name__}")
        return "".join(label(s) for s in sublist)

    subscripts = ",".join(text(t) for t in terms) + ("" if output is None else "->" + text(output))
    return subscripts, operands


def _parse(subscripts, operands):
    subscripts = subscripts.replace(" ", "")
    lhs, arrow, rhs = subscripts.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(operands):
        raise ArgumentValueError(f"einsum: {len(terms)} terms in {subscripts!r} for {len(operands)} operands")
    labelled = []
    for term, x in zip(terms, operands):
        named = term.replace("...", "")
        if any(c not in _LETTERS for c in named) or term.count("...") > 1:
            raise ArgumentValueError(f"einsum: invalid subscript term {term!r}")
        extra = x.ndim - len(named)
        if extra < 0 or (extra and "..." not in term):
            raise ShapeError(f"einsum: term {term!r} does not fit an operand of {x.ndim} dimensions")
        labelled.append(list(term.replace("...", "".join(_BROADCAST[len(_BROADCAST) - extra:]) if extra else "")))
    width = max((sum(c in _BROADCAST for c in t) for t in labelled), default=0)
    ellipsis = _BROADCAST[len(_BROADCAST) - width:]
    if arrow:
        if any(c not in _LETTERS for c in rhs.replace("...", "")):
            raise ArgumentValueError(f"einsum: invalid output term {rhs!r}")
        output = list(rhs.replace("...", "".join(ellipsis)))
        if len(set(output)) != len(output):
            raise ArgumentValueError(f"einsum: output term {rhs!r} repeats a label")
        present = {c for t in labelled for c in t}
        if set(output) - present - set(ellipsis):
            raise ArgumentValueError(f"einsum: output label(s) {sorted(set(output) - present)} in no input term")
    else:  # implicit: the broadcast labels, then the labels seen once, in order
        counts = {}
        for t in labelled:
            for c in t:
                counts[c] = counts.get(c, 0) + 1
        output = ellipsis + sorted(c for c, n in counts.items() if n == 1 and c not in _BROADCAST)
    return labelled, output


def _diagonal(x, labels):
    """x with each repeated label's axes replaced by their diagonal (as the last axis)."""
    while len(set(labels)) != len(labels):
        label = next(c for c in labels if labels.count(c) > 1)
        first = labels.index(label)
        second = labels.index(label, first + 1)
        n = x.shape[first]
        if x.shape[second] != n:
            raise ShapeError(f"einsum: label {label!r} repeated over axes of sizes {n} and {x.shape[second]}")
        rest = [i for i in range(x.ndim) if i not in (first, second)]
        moved = permute_dims(x, tuple(rest) + (first, second))
        flat = reshape(moved, moved.shape[:-2] + (n * n,))
        x = take(flat, asarray([i * (n + 1) for i in range(n)], dtype=_dt.int64, device=x.device), axis=-1)
        labels = [labels[i] for i in rest] + [label]
    return x, labels


def _sum_out(x, labels, keep):
    axes = tuple(i for i, c in enumerate(labels) if c not in keep)
    if not axes:
        return x, labels
    return _sum(x, axis=axes, dtype=x.dtype), [c for c in labels if c in keep]


def _sizes(*pairs):
    sizes = {}
    for x, labels in pairs:
        for n, c in zip(x.shape, labels):
            if sizes.get(c, 1) not in (1, n) and n != 1:
                raise ShapeError(f"einsum: label {c!r} has sizes {sizes[c]} and {n}")
            sizes[c] = n if n != 1 or c not in sizes else sizes[c]
    return sizes


def _arranged(x, labels, order, sizes):
    """x permuted to ``order`` and broadcast to the sizes there."""
    moved = permute_dims(x, tuple(labels.index(c) for c in order))
    return broadcast_to(moved, tuple(sizes[c] for c in order))


def _contract(a, a_labels, b, b_labels, keep):
    sizes = _sizes((a, a_labels), (b, b_labels))
    shared = [c for c in a_labels if c in b_labels]
    batch = [c for c in shared if c in keep]
    summed = [c for c in shared if c not in keep]
    left = [c for c in a_labels if c not in b_labels]
    right = [c for c in b_labels if c not in a_labels]
    lhs = _arranged(a, a_labels, batch + left + summed, sizes)
    rhs = _arranged(b, b_labels, batch + summed + right, sizes)

    def size(group):
        return math.prod(sizes[c] for c in group)

    product = matmul(reshape(lhs, (size(batch), size(left), size(summed))),
                     reshape(rhs, (size(batch), size(summed), size(right))))
    labels = batch + left + right
    return reshape(product, tuple(sizes[c] for c in labels)), labels


def einsum(*operands: Any, out: Array | None = None, dtype: Any = None, order: str = "K", casting: str = "safe",
           optimize: Any = False) -> Array:
    """NumPy's ``einsum``: the Einstein summation the subscripts describe, e.g.
    ``einsum("ij,jk->ik", a, b)`` is ``a @ b`` and ``einsum("ii", a)`` the trace.

    Parameters
    ----------
    *operands : str and Arrays
        The subscript string then the arrays, or NumPy's interleaved form
        ``a, [0, 1], b, [1, 2], [0, 2]`` (sublists of ints or Ellipsis).
    out : Array or None
        An array of the result's shape to write the result into (and return).
    dtype : dtype or None
        The dtype to compute in (default: the operands' result type).
    order : str
        One of NumPy's orders ('C', 'F', 'A', 'K'); candlewick's results are C-ordered.
    casting : str
        NumPy's casting rule ('no', 'equiv', 'safe', 'same_kind', 'unsafe') for the
        operands' cast to ``dtype`` and the result's to ``out``'s dtype.
    optimize : bool, str or list
        Accepted for NumPy's signature; the pairs are contracted left to right.

    Returns
    -------
    Array
        The summation's result (0-d for a full contraction), or out.

    Raises
    ------
    TypeError
        If an operand is not a candlewick array.
    ValueError
        If the subscripts are malformed or do not match the operands, or order or casting
        is not one of NumPy's.
    DTypeError
        If ``casting`` does not allow an operand's cast to ``dtype`` or the result's to
        ``out``'s dtype.
    ShapeError
        If a label's sizes disagree.

    Examples
    --------
    >>> import candlewick as cw
    >>> a = cw.asarray([[1.0, 2.0], [3.0, 4.0]])
    >>> cw.einsum("ij,jk->ik", a, a).tolist()
    [[7.0, 10.0], [15.0, 22.0]]
    >>> cw.einsum("ii", a).item()
    5.0
    """
    if not operands:
        raise ArgumentTypeError("einsum: no subscripts and operands given")
    if isinstance(operands[0], str):
        subscripts, arrays = operands[0], list(operands[1:])
    else:
        subscripts, arrays = _interleaved(operands)
    for i, x in enumerate(arrays):
        require_array(x, "einsum", f"operands[{i}]")
    if not arrays:
        raise ArgumentValueError("einsum: no operands given")
    one_of(order, ORDERS, "einsum", "order")
    one_of(casting, CASTINGS, "einsum", "casting")
    if out is not None:
        require_array(out, "einsum", "out")
    labelled, output = _parse(subscripts, arrays)
    common = _dt.as_dtype(dtype, "dtype", "einsum") if dtype is not None else result_type(*arrays)
    for i, x in enumerate(arrays):
        check_cast(x.dtype, common, casting, "einsum", f"operands[{i}]")
    # bool sums count: NumPy's einsum of bools is a logical or of ands, counted here in int64
    work = _dt.int64 if common.is_bool else common
    pending = []
    for x, labels in zip(arrays, labelled):
        x, labels = _diagonal(astype(x, work) if x.dtype != work else x, labels)
        pending.append((x, labels))
    result, labels = None, None
    for index, (x, x_labels) in enumerate(pending):
        later = {c for _, ls in pending[index + 1:] for c in ls} | set(output)
        x, x_labels = _sum_out(x, x_labels, later | (set(labels) if labels else set()))
        if result is None:
            result, labels = x, x_labels
            continue
        result, labels = _sum_out(result, labels, later | set(x_labels))
        result, labels = _contract(result, labels, x, x_labels, later)
    result, labels = _sum_out(result, labels, set(output))
    sizes = _sizes((result, labels))
    missing = [c for c in output if c not in labels]
    if missing:  # a broadcast label no operand spans (an operand with fewer dimensions)
        result = reshape(result, result.shape + (1,) * len(missing))
        labels = labels + missing
        sizes.update({c: 1 for c in missing})
    result = _arranged(result, labels, output, sizes) if labels != output else result
    if common.is_bool:
        result = result != 0
    if out is not None:
        check_cast(result.dtype, out.dtype, casting, "einsum", "the result (to out's dtype)")
    return write_out(out, result, "einsum")


__all__ = ["einsum"]
