"""The parameters of a ``RawKernel``'s ``__global__`` function, read from its source, so
that a call's arguments are checked (count, pointer or scalar, dtype) before a launch.

The declaration is found after comments and string literals are blanked out: the one
``__global__`` function named ``name`` (``extern "C"``, so the compiled module knows it
by that name), its parameter list split at the top-level commas. Each parameter is a
pointer (``const float* __restrict__ x``) or a scalar of a C arithmetic type; the C
type names the dtype (``float`` float32, ``unsigned int`` uint32, ``__half``/``half``
float16, ``hip_bfloat16`` bfloat16, ``hipFloatComplex``/``float2`` complex64...); a
pointer to another type (``void*``, a struct) takes an array of any dtype.
"""

from __future__ import annotations

import re

from .. import dtypes as _dt
from ..errors import ArgumentValueError
from .c_types import type_from_words
from .definition import RawParam

__all__ = ["kernel_params"]

_OTHER_TYPES = {
    "__half": _dt.float16, "half": _dt.float16, "_Float16": _dt.float16, "hip_bfloat16": _dt.bfloat16,
    "__hip_bfloat16": _dt.bfloat16, "hipFloatComplex": _dt.complex64, "hipComplex": _dt.complex64,
    "float2": _dt.complex64, "hipDoubleComplex": _dt.complex128, "double2": _dt.complex128,
    "int8_t": _dt.int8, "int16_t": _dt.int16, "int32_t": _dt.int32, "int64_t": _dt.int64,
    "uint8_t": _dt.uint8, "uint16_t": _dt.uint16, "uint32_t": _dt.uint32, "uint64_t": _dt.uint64,
    "size_t": _dt.uint64, "ptrdiff_t": _dt.int64, "cw_i64": _dt.int64,
}
_QUALIFIERS = frozenset({"const", "volatile", "__restrict__", "__restrict", "restrict", "struct"})
_C_WORDS = frozenset({"bool", "char", "signed", "unsigned", "short", "int", "long", "float", "double"})


def _blank(source):
    """``source`` with comments and string/char literals replaced by spaces (newlines
    kept, so positions and line numbers stay)."""
    out, i, n = [], 0, len(source)
    while i < n:
        c = source[i]
        if source.startswith("//", i):
            j = source.find("\n", i)
            j = n if j < 0 else j
        elif source.startswith("/*", i):
            j = source.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif c in "\"'":
            j = i + 1
            while j < n and source[j] != c:
                j += 2 if source[j] == "\\" else 1
            j = min(j + 1, n)
            if source[i:j] == '"C"':  # extern "C" stays readable
                out.append(source[i:j])
                i = j
                continue
        else:
            out.append(c)
            i += 1
            continue
        out.append("".join(ch if ch == "\n" else " " for ch in source[i:j]))
        i = j
    return "".join(out)


def kernel_params(source, name, label):
    """The ``RawParam`` tuple of the ``__global__`` function ``name`` of ``source``."""
    text = _blank(source)
    found = None
    for m in re.finditer(r"\b%s\s*\(" % re.escape(name), text):
        start = max(text.rfind(";", 0, m.start()), text.rfind("}", 0, m.start()), text.rfind("{", 0, m.start()))
        head = text[start + 1:m.start()]
        if re.search(r"\b__global__\b", head):
            found = (m, head)
            break
    if found is None:
        raise ArgumentValueError(f"{label}: the source declares no __global__ function named {name!r} "
                                 f"(write: extern \"C\" __global__ void {name}(...))")
    m, head = found
    extern_block = re.search(r'extern\s+"C"\s*\{', text[:m.start()]) is not None
    if not re.search(r'extern\s+"C"', head) and not extern_block:
        raise ArgumentValueError(f"{label}: declare the kernel extern \"C\" (C++ gives other functions a "
                                 f"mangled name the module does not know {name!r} by)")
    depth, i = 1, m.end()
    while i < len(text) and depth:
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        i += 1
    if depth:
        raise ArgumentValueError(f"{label}: the parameter list of {name!r} is not closed")
    body = text[m.end():i - 1]
    parts = _split(body)
    if parts == [""] or [p.strip() for p in parts] == ["void"]:
        return ()
    return tuple(_param(part.strip(), k, name, label) for k, part in enumerate(parts))


def _split(body):
    parts, depth, cur = [], 0, []
    for c in body:
        if c in "<([":
            depth += 1
        elif c in ">)]":
            depth -= 1
        if c == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(c)
    parts.append("".join(cur))
    return parts


def _param(text, k, kernel, label):
    if "&" in text or "(" in text or "<" in text:
        raise ArgumentValueError(f"{label}: parameter {k} ({text!r}) of {kernel!r}: references, function "
                                 f"pointers and templates are not parameters a launch can pass")
    pointer = text.count("*") + text.count("[") > 0
    words = re.findall(r"[A-Za-z_]\w*", text)
    # const before the first * qualifies the elements: the kernel only reads them
    pointee = text[:text.index("*")] if "*" in text else text
    const = pointer and "const" in re.findall(r"[A-Za-z_]\w*", pointee)
    words = [w for w in words if w not in _QUALIFIERS and not w.startswith("__attribute")]
    type_words = [w for w in words if w in _C_WORDS]
    others = [w for w in words if w not in _C_WORDS]
    if type_words:
        dtype = type_from_words(type_words)
        c_type = " ".join(type_words)
        pname = others[-1] if others else f"#{k}"
        if len(others) > 1:
            raise ArgumentValueError(f"{label}: parameter {k} ({text!r}) of {kernel!r} is not one a launch can pass")
    elif others:
        c_type = others[0]
        dtype = _OTHER_TYPES.get(c_type)
        pname = others[1] if len(others) > 1 else f"#{k}"
        if c_type == "void" and not pointer:
            raise ArgumentValueError(f"{label}: parameter {k} ({text!r}) of {kernel!r} is void")
    else:
        raise ArgumentValueError(f"{label}: parameter {k} ({text!r}) of {kernel!r} has no type")
    if not pointer and dtype is None:
        raise ArgumentValueError(f"{label}: parameter {pname!r} of {kernel!r} has type {c_type!r}: a launch passes "
                                 f"pointers and C arithmetic types ({', '.join(sorted(_OTHER_TYPES))}, ...)")
    return RawParam(pname, pointer, dtype, const, c_type)
