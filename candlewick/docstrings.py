"""Shared numpydoc fragments, and the one mechanism that fills them into docstrings.

A docstring names a shared entry by a line that holds only ``{name}``; ``shared_doc``
(a decorator) and ``fill`` (for generated docstrings) replace that line by the entry,
each of its lines indented as the placeholder line was. The entries every family uses
(the array operand, axes, keepdims and their errors) are ``FRAGMENTS`` here; a family's
own entries (fft's ``norm``, linalg's matrix inputs, ...) are a table beside its
functions, given to ``shared_doc``. A placeholder no table holds raises ``KeyError`` at
import, so a misspelt name cannot ship as text.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

F = TypeVar("F")

_PLACEHOLDER = re.compile(r"^([ \t]*)\{(\w+)\}[ \t]*$", re.MULTILINE)

FRAGMENTS: dict[str, str] = {
    # Parameters
    "param_x": "x : Array\n    Input array.",
    "param_axes": "axis : int, tuple of int or None\n    The axes to reduce; None for all of them.",
    "param_keepdims": "keepdims : bool\n    Keep the reduced axes as dimensions of length 1.",
    "param_numeric_operands": (
        "x1 : Array\n    First operand (numeric).\n"
        "x2 : Array\n    Second operand (numeric)."
    ),
    # the device functions (memory statistics, streams)
    "params_device": "Parameters\n----------\ndevice : str, device or None\n    The device (None: the default device).",
    "returns_none": "Returns\n-------\nNone",
    # Returns
    "returns_reduced": "Array\n    The reduced array.",
    # Raises
    "raises_x_not_array": "TypeError\n    If x is not a candlewick array.",
    "raises_operand_not_array": "TypeError\n    If an operand is not a candlewick array.",
    "raises_axes": "AxisError\n    If an axis is outside ``[-ndim, ndim)`` or repeated.",
    "raises_axis": "AxisError\n    If axis is out of range.",
    "raises_broadcast": "ShapeError\n    If the operands' shapes do not broadcast.",
    "raises_devices": ("DeviceMismatchError\n    If the operands are on different devices (a 0-d array in host "
                       "memory acts as a scalar: it follows the other operand)."),
}


# whole sections the reductions share (their headers included)
FRAGMENTS["params_x_axes"] = "Parameters\n----------\n" + FRAGMENTS["param_x"] + "\n" + FRAGMENTS["param_axes"]
FRAGMENTS["raises_x"] = "Raises\n------\n" + FRAGMENTS["raises_x_not_array"]
FRAGMENTS["raises_x_axes"] = (
    "Raises\n------\n" + FRAGMENTS["raises_x_not_array"] + "\n" + FRAGMENTS["raises_axes"]
)
FRAGMENTS["returns_raises_reduction"] = (
    "Returns\n-------\n" + FRAGMENTS["returns_reduced"] + "\n\n" + FRAGMENTS["raises_x_axes"]
)


def fill(template: str, *tables: Mapping[str, str]) -> str:
    """``template`` with each ``{name}`` line replaced by the entry of that name, looked
    up in ``tables`` in order and then in ``FRAGMENTS``."""

    def entry(match: re.Match[str]) -> str:
        indent, name = match.groups()
        for table in (*tables, FRAGMENTS):
            if name in table:
                return "\n".join(indent + line if line else line for line in table[name].splitlines())
        raise KeyError(f"docstring placeholder {{{name}}} is in no fragment table")

    return _PLACEHOLDER.sub(entry, template)


def shared_doc(*tables: Mapping[str, str]) -> Callable[[F], F]:
    """A decorator that fills the decorated function's docstring (see ``fill``)."""

    def decorate(fn: F) -> F:
        fn.__doc__ = fill(fn.__doc__ or "", *tables)
        return fn

    return decorate
