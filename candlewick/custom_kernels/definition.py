"""What a device that compiles custom kernels is given (``backend.CustomKernelDevice``):
a kernel's definition with every type of one call decided.

``KernelDefinition.params`` lists the in parameters, then the out parameters, each a
``BoundParam`` whose ``role`` says how its argument reaches the kernel: ``"in"`` /
``"out"`` an array read / written one element per index (broadcast over the iteration
shape), ``"scalar"`` an in parameter given a scalar (one value for every index),
``"raw_in"`` / ``"raw_out"`` a C-contiguous array passed as a pointer to its first
element. ``dtype`` is the parameter's dtype for this call; ``types`` binds every type
placeholder the text may name.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import dtypes as _dt

__all__ = ["BoundParam", "KernelDefinition", "RawParam"]


@dataclass(frozen=True)
class BoundParam:
    name: str
    dtype: _dt.DType
    role: str  # "in", "scalar", "raw_in", "out", "raw_out"


@dataclass(frozen=True)
class KernelDefinition:
    """One ``ElementwiseKernel`` (``kind == "elementwise"``: ``body``) or
    ``ReductionKernel`` (``kind == "reduction"``: ``map_expr``, ``reduce_expr``,
    ``post_map_expr``, ``identity``, ``reduce_type``) at one call's types."""

    kind: str
    name: str
    params: tuple
    types: tuple  # ((placeholder, dtype), ...)
    preamble: str
    options: tuple
    body: str = ""
    map_expr: str = ""
    reduce_expr: str = ""
    post_map_expr: str = ""
    identity: str = ""
    reduce_type: _dt.DType | None = None


@dataclass(frozen=True)
class RawParam:
    """A parameter of a ``RawKernel``'s C signature: a pointer (to elements of ``dtype``,
    or of any dtype when None) or a scalar of ``dtype``; ``const`` for a pointer to const."""

    name: str
    pointer: bool
    dtype: _dt.DType | None
    const: bool
    c_type: str
