"""The check made before anything writes into an existing array.

Two kinds of array must not be written: a view that reaches one element through several
indices (a ``broadcast_to`` view, any stride-0 axis longer than 1: a write would land on
the same element many times, as NumPy's read-only broadcast views prevent), and memory a
backend holds read-only (a read-only NumPy array imported without a copy). Backends
declare the latter through the optional ``read_only`` attribute of their storage.
"""

from .errors import ReadOnlyError
from .lazy_gate import GATE


def check_writable(x, fname):
    """Raise ReadOnlyError if writing into ``x`` (through ``fname``) would corrupt memory.
    Lazy mode's pending calls run first: one of them may read ``x``."""
    if GATE.on:  # (lazy_gate.before_write, for x, inline: every write passes here)
        GATE.write_into(x)
    layout = x._layout
    if 0 in layout.strides and layout.has_broadcast:
        raise ReadOnlyError(
            f"{fname}: the destination is a broadcast view of shape {layout.shape} (strides "
            f"{layout.strides}) that reaches one element through several indices; write into a copy "
            f"(candlewick.asarray(x, copy=True)) instead"
        )
    if getattr(x._storage, "read_only", False):
        raise ReadOnlyError(
            f"{fname}: the destination's memory is read-only (imported from a read-only producer); "
            f"write into a copy (candlewick.asarray(x, copy=True)) instead"
        )
