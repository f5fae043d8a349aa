"""The numpydoc docstrings of the generated element-wise functions (``elementwise``):
written in one place, from each op's domain and result rule (``opdefs``)."""

from .complex_parts import PARTS, VIEW_NOTE
from .docstrings import fill
from .opdefs import BinaryOp, CompareOp

_KIND_NAMES = {"B": "bool", "I": "integer", "F": "real floating", "C": "complex floating"}
_RESULT_TEXT = {
    "same": "the dtype of the (promoted) input",
    "bool": "bool",
    "real": "the real dtype of the input (float32 for complex64, float64 for complex128; others unchanged)",
    "index": "int64",
}


#: what a generated function's docstring says beyond the common text: (a paragraph, Raises entries)
_NOTES = {
    BinaryOp.POW: (
        "An integer base with a negative integer scalar exponent (``x ** -1``) raises, as in "
        "NumPy and PyTorch (a check of the scalar on the host). A negative element of an "
        "integer exponent array is not checked, which would cost a device synchronization: "
        "it gives 1 where the base is 1, 1 or -1 where the base is -1 (by the exponent's "
        "parity) and 0 elsewhere, the reciprocal truncated toward zero, on every backend.",
        ["ArgumentValueError", "    If x1 is an integer array and x2 a negative integer scalar."],
    ),
}


def _example_values(domain):
    if "F" in domain:
        return "[0.25, 0.5, 0.75]"
    if "I" in domain:
        return "[1, 2, 3]"
    return "[True, False, True]"


def docstring(op, *args):
    """The numpydoc docstring of a generated element-wise function: the one place their
    documentation is written, from the op's domain and result rule (``opdefs``), with
    the Raises entries every binary function shares (``docstrings.fill``)."""
    kinds = ", ".join(_KIND_NAMES[c] for c in op.domain)
    floating_only = "F" in op.domain and "I" not in op.domain and op.result == "same"
    unary_fn = len(args) == 1
    what = "comparison" if isinstance(op, CompareOp) else "function"
    lines = [f"Element-wise ``{op.value}`` {what} of the Array API standard.", ""]
    if not unary_fn:
        lines += ["The two operands are promoted to one dtype and broadcast to one shape.", ""]
    if op in PARTS:
        lines += [VIEW_NOTE, ""]
    if floating_only:
        lines += ["Outside strict promotion mode, bool and integer input is computed in the "
                  "default floating dtype (docs/promotion.md).", ""]
    note, raises = _NOTES.get(op, (None, []))
    if note:
        lines += [note, ""]
    lines += ["Parameters", "----------"]
    for name in args:
        scalar = "" if unary_fn else " (one of the two operands may be a Python scalar)"
        lines += [f"{name} : Array{'' if unary_fn else ' or Python scalar'}",
                  f"    Input{scalar}; dtypes accepted: {kinds}."]
    lines += ["", "Returns", "-------", "Array",
              f"    The element-wise result on the input's device; its dtype is {_RESULT_TEXT[op.result]}.",
              "", "Raises", "------", "DTypeError", "    If an operand's dtype is outside the accepted dtypes.",
              "TypeError", "    If no operand is a candlewick array."] + raises
    if not unary_fn:
        lines += ["{raises_broadcast}", "{raises_devices}"]
    call = "x" if unary_fn else "x, x"
    lines += ["", "Examples", "--------", ">>> import candlewick as cw",
              f">>> x = cw.asarray({_example_values(op.domain)})",
              f">>> cw.{op.value}({call}).shape", "(3,)", ""]
    return fill("\n".join(lines))
