"""``real`` and ``imag``: views of a complex array's memory where its backend declares
``real_view`` (``backend.ComplexViewStorage``), copies through the ``unary`` primitive
(``UnaryOp.REAL``/``IMAG``) where it does not.

A complex element is its two real components side by side, the real one first, so the
parts of a complex layout are that layout over the storage of the component dtype with
its strides and offset doubled, plus one for the imaginary part (``part_layout``). As
NumPy's ``real``/``imag`` (and CuPy's, and PyTorch's), such a view shares x's memory: a
write through it writes into x. ``real`` of an integer or real floating array is a view
of x itself (NumPy's ``real`` too); ``imag`` of one is a new array of zeros.
"""

from ._core import RESULT, require_array, view
from .elementwise_dispatch import unary
from .layout import Layout
from .opdefs import UnaryOp

__all__ = ["PARTS", "VIEW_NOTE", "complex_part", "part_layout"]

#: the ops computed here instead of by ``elementwise_dispatch.unary`` alone
PARTS = (UnaryOp.REAL, UnaryOp.IMAG)

#: the docstring paragraph of ``real`` and ``imag`` (``elementwise._docstring``)
VIEW_NOTE = (
    "Of a complex array the result is a view of x's memory where x's backend can share it "
    "(cpu and rocm: ``real_view``, docs/writing-a-backend.md), as NumPy's: writing into it "
    "writes into x. Elsewhere it is a new array. ``real`` of a real array is a view of x; "
    "``imag`` of one a new array of zeros."
)


#: complex dtype -> its component dtype; 0 or 1: the part's place in a complex element
_COMPONENT = {d: r for d, r in RESULT[UnaryOp.REAL].items() if d.is_complex}
_PLACE = {UnaryOp.REAL: 0, UnaryOp.IMAG: 1}
_REAL = UnaryOp.REAL


def part_layout(layout, imag):
    """The layout of the real (``imag`` False) or imaginary parts of the complex elements
    ``layout`` views, over the storage of the component dtype sharing their memory."""
    return Layout(layout.shape, tuple([s + s for s in layout.strides]), 2 * layout.offset + (1 if imag else 0))


def complex_part(op, x, fname):
    """``real`` (op ``UnaryOp.REAL``) or ``imag`` (``UnaryOp.IMAG``) of x."""
    require_array(x, fname)
    component = _COMPONENT.get(x._dtype)
    if component is not None:
        # declared on the storage's class: a forwarding __getattr__ declares nothing
        hook = getattr(type(x._storage), "real_view", None)
        if hook is not None:
            storage = hook(x._storage)
            if storage is not None:
                layout = x._layout
                cls = type(x)
                out = cls.__new__(cls)
                out._storage = storage
                out._layout = Layout(layout.shape, tuple([s + s for s in layout.strides]),
                                     2 * layout.offset + _PLACE[op])  # part_layout, inlined
                out._dtype = component
                out._device = x._device
                return out
    elif op is _REAL and x._dtype in RESULT[op]:
        return view(x, x._layout)
    return unary(op, x, fname)
