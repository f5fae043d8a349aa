"""CuPy's parameter lists of ``ElementwiseKernel`` and ``ReductionKernel``
(``"float32 x, T y, raw T z"``) and the binding of their type placeholders to the
dtypes of one call.

A parameter is ``[raw] type name``: ``type`` is a dtype name (``float32``, ``int64``,
``bool``, ``bfloat16``...) or, when it is a single character (CuPy's rule), a type
placeholder (``T``) that the call's arguments decide. ``raw`` passes the whole array as
a pointer to its first element instead of one element per index.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from .. import dtypes as _dt
from ..errors import ArgumentTypeError, ArgumentValueError, DTypeError, short_repr

__all__ = ["Param", "bind_types", "check_unique", "parse_params", "resolve", "scalar_dtype"]

_IDENT = re.compile(r"[A-Za-z_]\w*\Z")
#: names the kernels define themselves: the flat index, a reduction's operands and type
RESERVED = frozenset({"i", "_ind"})
REDUCTION_RESERVED = RESERVED | {"a", "b", "_type_reduce"}


@dataclass(frozen=True)
class Param:
    """One parameter: ``dtype`` for a concrete type, else ``placeholder`` names it;
    ``raw`` for a pointer parameter; ``output`` for the out parameters."""

    name: str
    dtype: _dt.DType | None
    placeholder: str | None
    raw: bool
    output: bool

    def describe(self):
        kind = "raw " if self.raw else ""
        return f"{'out' if self.output else 'in'} parameter '{kind}{self.placeholder or self.dtype.name} {self.name}'"


def parse_params(text, output, argname, reserved=RESERVED):
    """The ``Param`` tuple of a comma-separated parameter list (CuPy's syntax); a name
    of ``reserved`` is refused."""
    if not isinstance(text, str):
        raise ArgumentTypeError(f"{argname} must be a string such as 'float32 x, T y', "
                                f"got {short_repr(text)}")
    params = []
    for part in text.split(","):
        words = part.split()
        if not words and not text.strip():
            continue
        if len(words) < 2:
            raise ArgumentValueError(f"{argname}: expected '[raw] type name', got {part.strip()!r}")
        *keywords, type_name, name = words
        raw = False
        for kw in keywords:
            if kw != "raw" or raw:
                raise ArgumentValueError(f"{argname}: unknown keyword {kw!r} in {part.strip()!r} "
                                         f"(expected '[raw] type name')")
            raw = True
        if not _IDENT.match(name) or name in reserved or name.startswith("cw_"):
            raise ArgumentValueError(f"{argname}: {name!r} is not a usable parameter name (a C "
                                     f"identifier, not one of {sorted(reserved)} nor starting with 'cw_')")
        if len(type_name) == 1:
            if not _IDENT.match(type_name):
                raise ArgumentValueError(f"{argname}: type placeholder {type_name!r} is not a letter")
            dtype, placeholder = None, type_name
        else:
            dtype = _dt._BY_NAME.get(type_name)
            if dtype is None:
                known = ", ".join(d.name for d in _dt.ALL_DTYPES)
                raise ArgumentValueError(f"{argname}: unknown type {type_name!r} of parameter {name!r}: "
                                         f"a dtype name ({known}) or a one-letter placeholder such as T")
            placeholder = None
        params.append(Param(name, dtype, placeholder, raw, output))
    return tuple(params)


def check_unique(params):
    seen = set()
    for p in params:
        if p.name in seen:
            raise ArgumentValueError(f"parameter name {p.name!r} is used twice")
        seen.add(p.name)


def scalar_dtype(value):
    """The dtype a scalar argument gives an unbound placeholder (NumPy's default dtypes
    for Python scalars, a NumPy scalar's own), or None for something else."""
    t = type(value)
    if t is bool:
        return _dt.bool_
    if t is int:
        return _dt.int64
    if t is float:
        return _dt.float64
    if t is complex:
        return _dt.complex128
    if isinstance(value, np.generic):
        try:
            return _dt.from_numpy(value.dtype)
        except DTypeError:
            return None
    return None


def bind_types(params, dtypes, fname):
    """``{placeholder: dtype}`` from the dtypes of the call's arguments (``dtypes[k]``:
    (dtype, is_array) of ``params[k]``'s argument, or None for an output to allocate).
    Arrays bind first; a placeholder seen only with scalars takes the first scalar's
    dtype. Two arrays giving one placeholder different dtypes, or an array whose dtype
    differs from its parameter's concrete type, raise DTypeError naming the parameter."""
    bound = {}
    for array_pass in (True, False):
        for p, got in zip(params, dtypes):
            if got is None or got[1] is not array_pass:
                continue
            dtype = got[0]
            if p.placeholder is None:
                if array_pass and dtype is not p.dtype:
                    raise DTypeError(f"{fname}: {p.describe()} takes {p.dtype.name} arrays, got a "
                                     f"{dtype.name} array (convert it with .astype(...))")
                continue
            have = bound.get(p.placeholder)
            if have is None:
                bound[p.placeholder] = dtype
            elif array_pass and have is not dtype:
                raise DTypeError(f"{fname}: type {p.placeholder} is {have.name} from an earlier argument, "
                                 f"but the array for {p.describe()} is {dtype.name}")
    return bound


def resolve(param, bound, fname):
    """The dtype of ``param`` for this call."""
    if param.dtype is not None:
        return param.dtype
    dtype = bound.get(param.placeholder)
    if dtype is None:
        raise DTypeError(f"{fname}: cannot tell the type {param.placeholder} of {param.describe()}: no input "
                         f"argument of that type; pass the output array")
    return dtype
